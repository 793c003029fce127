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
 *
 * The workbook is unzipped and parsed on a worker thread (xlsx-worker.ts, readXlsxHere), which
 * hands the rows over in chunks while this thread uses the ones before: on two cores reading
 * and storing then take about the time of the slower of the two, not of both. The worker reads
 * ahead at most XLSX_CHUNKS_AHEAD chunks of XLSX_CHUNK_ROWS rows, so memory stays flat whatever
 * the file's size. Records, their order, line numbers and errors are those readXlsxHere gives.
 */
export async function* readXlsx(path: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<CsvRecord> {
  const { Worker } = await import('node:worker_threads');
  // The worker's module as this one is loaded: compiled (dist/, .js) or the sources through tsx,
  // whose loader a worker started after its register() does not inherit, so it is named here
  // (in place of the process's flags: the test runner's are refused in a worker).
  const source = import.meta.url.endsWith('.ts');
  const worker = new Worker(new URL(source ? './xlsx-worker.ts' : './xlsx-worker.js', import.meta.url), {
    workerData: { path, chunkRows: XLSX_CHUNK_ROWS } satisfies XlsxWorkerData,
    ...(source ? { execArgv: ['--import', import.meta.resolve('tsx/esm')] } : {}),
  });
  const chunks: XlsxChunk[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  worker.on('message', (message: XlsxMessage) => {
    if (message.type === 'rows') chunks.push(message);
    else if (message.type === 'end') ended = true;
    else failure ??= new Error(message.message);
    notify();
  });
  worker.on('error', (error: Error) => {
    failure ??= new Error(`not a readable .xlsx workbook: the reader stopped (${error.message.split('\n')[0]?.slice(0, 80) ?? ''})`, { cause: error });
    notify();
  });
  const gone = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('exit', (code) => {
    if (!ended) failure ??= new Error(`not a readable .xlsx workbook: the reader stopped (exit code ${code})`);
    notify();
  });
  try {
    // Credit for the first chunks; one more for each chunk taken.
    worker.postMessage(XLSX_CHUNKS_AHEAD);
    for (;;) {
      const chunk = chunks.shift();
      if (chunk) {
        worker.postMessage(1);
        if (chunk.bytesRead > 0) onBytes?.(chunk.bytesRead);
        const { fields, counts, lines } = chunk;
        let at = 0;
        for (let r = 0; r < lines.length; r++) {
          const n = counts[r] ?? 0;
          yield { fields: fields.slice(at, at + n), line: lines[r] ?? 0 };
          at += n;
        }
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => { wake = resolve; });
    }
  } finally {
    worker.removeAllListeners('message');
    worker.removeAllListeners('error');
    // Errors after this point (the worker's own teardown) concern no one.
    worker.on('error', () => {});
    // Told to stop, the worker ends by itself once its reader has wound down; terminate() is the
    // last resort only. Terminating it while the unzipping builds a zlib stream aborted the whole
    // process (Node asserts "close before init" in the worker's cleanup: seen once in CI). A worker
    // already gone ignores the message, and `gone` has settled.
    worker.postMessage(XLSX_STOP);
    const timer = setTimeout(() => void worker.terminate(), XLSX_STOP_MS);
    await gone;
    clearTimeout(timer);
  }
}

/** What the reading thread posts to tell the worker to stop reading (credit is posted as a positive count). */
export const XLSX_STOP = -1;
/** How long a worker told to stop may take to end by itself before it is terminated. */
const XLSX_STOP_MS = 10_000;

/** Rows in a chunk the reader's worker posts, and how many chunks it may read ahead of their use. */
export const XLSX_CHUNK_ROWS = 1_000;
export const XLSX_CHUNKS_AHEAD = 4;

export interface XlsxWorkerData {
  path: string;
  chunkRows: number;
}

/** A chunk of records, flat: record r's fields are the counts[r] strings after those of the records before it. */
export interface XlsxChunk {
  type: 'rows';
  fields: string[];
  counts: number[];
  lines: number[];
  /** The file's bytes read so far (0: not known yet). */
  bytesRead: number;
}

export type XlsxMessage = XlsxChunk | { type: 'end' } | { type: 'error'; message: string };

/** readXlsx on this thread: what the worker runs. */
export async function* readXlsxHere(path: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<CsvRecord> {

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
