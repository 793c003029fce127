/**
 * CSV text (docs/CSV.md), RFC 4180: a header row, CRLF after every row, a field quoted when it
 * holds a comma, a quote, CR or LF. A JSON `false` (no value) is an empty field, a list of ids
 * their ids separated by spaces. Pure text-making, used by the routes (http/representation/csv.ts)
 * and by the derived answers' worker (a history's CSV, src/derived/history-answer.ts).
 */
import type { HistoryRecordOut } from './api-entries.ts';

export const HISTORY_COLUMNS = ['date', 'fuel', 'average'] as const;

/** What an entry's field holds: text, a number, false for no value (null and undefined too: a nullable column), a list of ids. */
type CellValue = string | number | boolean | readonly string[] | null | undefined;

/** A plain decimal number (latitudes, prices): never taken for a formula, left as it is. */
const PLAIN_NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;
/** What makes a spreadsheet read a cell as a formula (OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One field: text that a spreadsheet would run as a formula (`=HYPERLINK(...)`, `+1`, `@SUM`, a
 * leading tab) gets a leading apostrophe, so it is shown, not run; then quoted as RFC 4180 asks.
 */
export function csvField(value: CellValue): string {
  if (value === false || value === null || value === undefined) return '';
  let text = typeof value === 'object' ? value.join(' ') : String(value);
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The whole table: the header row, then each row's fields under their columns. */
export function csvText(columns: readonly string[], rows: readonly object[]): string {
  const lines = [columns.map(csvField).join(',')];
  for (const row of rows) {
    const fields = row as Record<string, CellValue>;
    lines.push(columns.map((column) => csvField(fields[column])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A history's records, one row per record: fuel by fuel in the JSON's order, each newest first; a fuel without records has no row. */
export function historyRows(history: ReadonlyArray<{ fuel: string; records: readonly HistoryRecordOut[] | false }>): Array<{ date: string; fuel: string; average: string }> {
  const rows: Array<{ date: string; fuel: string; average: string }> = [];
  for (const { fuel, records } of history) {
    if (records) for (const record of records) rows.push({ date: record.date, fuel, average: record.average });
  }
  return rows;
}

