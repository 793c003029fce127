/**
 * Reading the first worksheet of an .xlsx file as records of text, streamed: exceljs's
 * WorkbookReader inflates the zip and parses the sheet's XML a chunk at a time, so memory holds
 * the shared strings and one chunk's rows whatever the number of rows (a sheet stored before
 * its shared strings, as in NSW's April 2020 file, is spooled to a temporary file by exceljs,
 * not kept in memory). exceljs is loaded only when an .xlsx is read.
 *
 * Cells become the text a CSV export of the sheet would hold: numbers as JavaScript writes them
 * (so a stored `134.69999999999999` reads `134.7`, and an Excel serial date stays a serial for
 * the format to read), rich text joined, a formula's cached result. Wholly blank rows are not
 * records (as blank lines in a CSV are not).
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import type ExcelJS from 'exceljs';
import type { CsvRecord } from './csv.ts';

type WorkbookReader = typeof ExcelJS.stream.xlsx.WorkbookReader;

/** A worksheet as exceljs's reader hands it out: parse() yields the events of each chunk of its XML, rows among them. */
interface SheetEvents {
  parse(): AsyncIterable<ReadonlyArray<{ eventType: string; value: unknown }>>;
}

/** The first four bytes of a zip archive (an .xlsx is one). */
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

export function isZip(head: Buffer): boolean {
  return head.length >= 4 && head.subarray(0, 4).equals(ZIP_MAGIC);
}

/** The text of one cell value as exceljs gives it. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString().replace(/\.000Z$/, '');
  if (typeof value === 'object') {
    const v = value as { richText?: Array<{ text?: unknown }>; text?: unknown; result?: unknown; error?: unknown };
    if (Array.isArray(v.richText)) return v.richText.map((run) => (typeof run.text === 'string' ? run.text : '')).join('');
    if ('result' in v) return cellText(v.result);
    if (typeof v.text === 'string') return v.text;
  }
  return '';
}

/**
 * The rows of the workbook's first worksheet as records: `fields[0]` is column A, `line` the
 * sheet's row number (what a spreadsheet program shows). Rows are dense from column A to their
 * last cell; a row shorter than the header has blank cells there (the caller pads it).
 */
export async function* readXlsx(path: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<CsvRecord> {
  // The streaming reader alone: the package's entry loads its writers and the whole document model too (~0.1 s).
  const WorkbookReader = createRequire(import.meta.url)('exceljs/lib/stream/xlsx/workbook-reader.js') as WorkbookReader;
  // A large read size: with the default 64 KiB the unzip stream waits on the file more than it works.
  const source = createReadStream(path, { highWaterMark: 1024 * 1024 });
  source.on('data', () => onBytes?.(source.bytesRead));
  const workbook = new WorkbookReader(source, {
    worksheets: 'emit', sharedStrings: 'cache', styles: 'ignore', hyperlinks: 'ignore', entries: 'ignore',
  });
  let sheets = 0;
  let rows: AsyncGenerator<CsvRecord> | undefined;
  try {
    for await (const worksheet of workbook) {
      sheets++;
      rows = sheetRows(worksheet as unknown as SheetEvents);
      // Only the first worksheet: the published files have one.
      break;
    }
    if (rows) yield* rows;
  } catch (error) {
    // exceljs's own words (`FILE_ENDED`, a TypeError from a part it could not find) say little to a user.
    const detail = error instanceof Error ? error.message.split('\n')[0]?.slice(0, 80) : String(error);
    throw new Error(`not a readable .xlsx workbook: it is cut short or damaged (${detail})`, { cause: error });
  } finally {
    source.destroy();
  }
  if (sheets === 0) throw new Error('a zip file with no worksheet: not an .xlsx workbook');
}

/**
 * The rows among the worksheet's events, as its own async iterator picks them out, without
 * that iterator's await per row (one per chunk of events instead).
 */
async function* sheetRows(worksheet: SheetEvents): AsyncGenerator<CsvRecord> {
  for await (const events of worksheet.parse()) {
    for (const { eventType, value } of events) {
      if (eventType !== 'row') continue;
      const row = value as { values: unknown[]; number: number };
      const values = row.values;
      const fields: string[] = [];
      for (let i = 1; i < values.length; i++) fields.push(cellText(values[i]).trim());
      if (fields.every((f) => f === '')) continue;
      yield { fields, line: row.number };
    }
  }
}
