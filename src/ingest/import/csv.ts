/**
 * Reading the states' published CSV files: a streaming reader (csv-parse over a file stream,
 * so memory stays flat whatever the file's size), header resolution that tolerates the small
 * differences between years of the same publication, and rows checked field by field so that
 * one bad row is rejected alone.
 */
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';

/** A column a format reads, with the other names it was published under. */
export interface ColumnSpec {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** Read when present; its absence does not fail the file. */
  readonly optional?: boolean;
}

/** A data row by canonical column name; absent optional columns read as ''. */
export type Row = Readonly<Record<string, string>>;

/**
 * A header cell compared loosely: case, spaces and underscores ignored, so `Site_Name`,
 * `Site Name` (QLD, December 2018) and `SITE_NAME` are the same column.
 */
export function headerKey(cell: string): string {
  return cell.replace(/^\ufeff/, '').toLowerCase().replace(/[\s_]+/g, '');
}

export interface ResolvedHeader {
  /** Canonical column name -> index in the record. */
  readonly index: ReadonlyMap<string, number>;
  /** Cells up to the last named one: trailing empty header cells (a trailing comma) do not count. */
  readonly width: number;
}

export type HeaderResult = { ok: true; header: ResolvedHeader } | { ok: false; missing: string[] };

/** Where each wanted column is in a header row, or the required columns it lacks. */
export function resolveHeader(cells: readonly string[], columns: readonly ColumnSpec[]): HeaderResult {
  const positions = new Map<string, number>();
  cells.forEach((cell, i) => {
    const key = headerKey(cell);
    if (key !== '' && !positions.has(key)) positions.set(key, i);
  });
  const index = new Map<string, number>();
  const missing: string[] = [];
  for (const column of columns) {
    const found = [column.name, ...(column.aliases ?? [])].map((n) => positions.get(headerKey(n))).find((i) => i !== undefined);
    if (found !== undefined) index.set(column.name, found);
    else if (!column.optional) missing.push(column.name);
  }
  if (missing.length > 0) return { ok: false, missing };
  let width = cells.length;
  while (width > 0 && (cells[width - 1] ?? '').trim() === '') width--;
  return { ok: true, header: { index, width } };
}

/**
 * A record as a row, or undefined when its shape does not match the header: fewer fields, or
 * more with something in the extra ones (empty extras, from a trailing comma, are harmless).
 * With `shortIsBlank` (a spreadsheet row, which simply ends at its last cell) missing fields
 * are blank instead.
 */
export function rowOf(fields: readonly string[], header: ResolvedHeader, shortIsBlank = false): Row | undefined {
  if (fields.length < header.width && !shortIsBlank) return undefined;
  for (let i = header.width; i < fields.length; i++) if ((fields[i] ?? '').trim() !== '') return undefined;
  const row: Record<string, string> = {};
  for (const [name, i] of header.index) row[name] = (fields[i] ?? '').trim();
  return row;
}

export interface CsvRecord {
  fields: string[];
  /** The record's last line in the file (1-based), for rejection examples. */
  line: number;
}

/** Longest record accepted: a quote left open must not pull the rest of the file into memory. */
export const MAX_RECORD_BYTES = 64 * 1024;

/**
 * The records of a CSV file, read as a stream: a chunk of the file at a time goes through
 * csv-parse, and its records are handed out before the next chunk is read, so memory holds one
 * chunk's records whatever the file's size. Records of any length come through (the caller
 * checks each against the header), a byte-order mark is dropped, blank lines are skipped, and a
 * stray quote inside a field is kept as text. What cannot be read past (a quote never closed,
 * an over-long record, an unreadable file) throws, after every record before it was handed out.
 */
export async function* readCsv(path: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<CsvRecord> {
  const queue: CsvRecord[] = [];
  let failure: Error | undefined;
  const parser = parse({
    bom: true,
    // Checked by rowOf instead: csv-parse's own check would fail the whole stream on one short row.
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
    // Records are taken here, as they are parsed, rather than from the stream's readable side:
    // a parse error destroys the stream and with it whatever records it still buffered.
    on_record: (record: string[], context: { lines: number }) => {
      queue.push({ fields: record, line: context.lines });
      return null;
    },
  });
  parser.on('error', (error: Error) => { failure ??= error; });
  parser.resume();
  const source = createReadStream(path, { highWaterMark: 256 * 1024 });
  try {
    for await (const chunk of source) {
      onBytes?.(source.bytesRead);
      if (failure) break;
      parser.write(chunk);
      yield* queue.splice(0);
    }
    if (!failure) {
      await new Promise<void>((resolve) => {
        parser.once('close', resolve);
        parser.end();
      });
    }
    yield* queue.splice(0);
    if (failure) throw failure;
  } finally {
    source.destroy();
    parser.destroy();
  }
}
