/**
 * One historical file into the store: streamed in batches (memory stays flat whatever the
 * size), each batch applied with the file's cursor in one transaction, so an import that stops
 * half-way resumes after the last applied batch, and a finished file is not read again. The
 * writer ignores reports it already holds, so importing a file twice changes nothing.
 */
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import type { Logger } from '../../logger.ts';
import type { IngestStore } from '../../storage/store.ts';
import { type FuelMap, Normaliser, UnknownFuels } from '../normalise.ts';
import { applyNormalised } from '../runner.ts';
import { type CsvRecord, type ResolvedHeader, readCsv, resolveHeader, rowOf } from './csv.ts';
import { isJsonArray, isGzip, readJsonRows } from './json-rows.ts';
import { isZip, readXlsx } from './xlsx.ts';
import type { ImportFormat, ImportFormatId } from './format.ts';
import { nswHistory } from './nsw-history.ts';
import type { FileOutcome, ProgressSink, ProgressState } from './progress.ts';
import { qldHistory } from './qld-history.ts';
import { waHistory } from './wa-history.ts';

export const IMPORT_FORMATS: Readonly<Record<ImportFormatId, ImportFormat>> = {
  'nsw-history': nswHistory,
  'wa-history': waHistory,
  'qld-history': qldHistory,
};

/**
 * Rows per batch (one transaction). Larger batches store each station-fuel's current price once
 * per batch rather than once per 5,000 rows; 20,000 rows held at once still fit a small heap now
 * that a workbook is read on its own thread (bench/RESULTS.md, "Figures moved out of code
 * comments").
 */
export const DEFAULT_BATCH_ROWS = 20_000;
/** Bytes of the file's start that, with its size, identify it. */
export const IDENTITY_BYTES = 1024 * 1024;
/** Title lines some spreadsheet exports put above the header row. */
export const MAX_PREAMBLE_ROWS = 5;
export const WRONG_FIELD_COUNT = 'row with the wrong number of fields';
export const ALL_REJECTED = 'every row was rejected, so the file is not marked imported: fix what the rejections name, then import it again';
/** Progress is offered to the display every this many rows (it decides whether to show it). */
const PROGRESS_EVERY_ROWS = 500;

/** A file that cannot be imported at all (missing columns, a cursor it does not fit): nothing of it is applied by this run. */
export class ImportError extends Error {
  override readonly name = 'ImportError';
}

/** Identifies a file by content, not name: sha256 of its size and first MiB, 16 hex digits. A renamed copy is the same file. */
export async function fileIdentity(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.alloc(Math.min(size, IDENTITY_BYTES));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return createHash('sha256').update(`${size}\n`).update(buffer.subarray(0, filled)).digest('hex').slice(0, 16);
  } finally {
    await handle.close();
  }
}

export function importCursorKey(format: ImportFormatId, identity: string): string {
  return `import:${format}:${identity}`;
}

/** A stored import cursor: `<rows>` applied so far, or `done:<rows>` for a finished file. */
export function parseImportCursor(value: string | undefined): { rows: number; done: boolean } {
  if (value === undefined) return { rows: 0, done: false };
  const match = /^(done:)?(\d{1,15})$/.exec(value);
  if (!match) throw new ImportError(`its stored cursor '${value.slice(0, 40)}' cannot be read (import it again with --restart)`);
  return { rows: Number(match[2]), done: match[1] !== undefined };
}

/** How a file is read, told by its first bytes (not its name): a zip is an .xlsx workbook, gzip or `[` a JSON array, else CSV. */
export type FileKind = 'csv' | 'xlsx' | 'json';

export async function fileKind(path: string): Promise<FileKind> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(64);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const start = head.subarray(0, bytesRead);
    if (isZip(start)) return 'xlsx';
    if (isGzip(start) || isJsonArray(start)) return 'json';
    return 'csv';
  } finally {
    await handle.close();
  }
}

function readRecords(kind: FileKind, path: string, onBytes: (bytesRead: number) => void): AsyncGenerator<CsvRecord> {
  if (kind === 'xlsx') return readXlsx(path, onBytes);
  if (kind === 'json') return readJsonRows(path, onBytes);
  return readCsv(path, onBytes);
}

export interface ImportFileOptions {
  store: IngestStore;
  format: ImportFormat;
  path: string;
  /** Unix seconds from the injected clock: the normalisers' and the writer's now. */
  now: number;
  /** The file as messages name it (default: the path). */
  label?: string;
  batchRows?: number;
  /** Reads the file from its first row whatever its cursor says (the writer ignores what it already has). */
  restart?: boolean;
  progress?: ProgressSink;
  log?: Logger;
  /**
   * Leave the city means of sealed days the batches change to the next seal, which recomputes
   * each city's once (FeedBatchOptions): the caller seals when its files are done, as
   * `fuelprice import` does. Without it each batch recomputes them, years of days after each.
   */
  deferCityDays?: boolean;
  /** Called after each batch is applied with its number (from 1); throwing stops the import there, as a crash would. */
  afterBatch?: (batch: number) => void | Promise<void>;
}

/** The header row: the first of the first few records that has every required column. */
async function readHeader(records: AsyncIterator<CsvRecord>, format: ImportFormat): Promise<ResolvedHeader> {
  let first: string[] | undefined;
  for (let i = 0; i <= MAX_PREAMBLE_ROWS; i++) {
    const next = await records.next();
    if (next.done) break;
    first ??= next.value.fields;
    const resolved = resolveHeader(next.value.fields, format.columns);
    if (resolved.ok) return resolved.header;
  }
  if (!first) throw new ImportError('the file is empty');
  const resolved = resolveHeader(first, format.columns);
  const missing = resolved.ok ? [] : resolved.missing;
  throw new ImportError(`not a ${format.name} file: the header lacks ${missing.join(', ')} (found: ${first.slice(0, 20).join(', ').slice(0, 300)})`);
}

/** A Normaliser that notes the line of the first row rejected for each reason, for the summary. */
class LineNormaliser extends Normaliser {
  /** The line of the row being read. */
  line = 0;

  constructor(feed: string, fuels: FuelMap, now: number, unknown: UnknownFuels, private readonly firstLines: Map<string, number>) {
    super(feed, fuels, now, unknown);
  }

  override reject(reason: string, record: unknown): false {
    if (!this.firstLines.has(reason)) this.firstLines.set(reason, this.line);
    return super.reject(reason, record);
  }
}

/**
 * One line for a batch the store refused: which rows, that nothing of them was stored, and how
 * to go on; the database's own words stay out of it (its error code is kept, for a report).
 */
export function storeFailure(error: unknown, fromRow: number, toRow: number, fromLine: number | undefined, toLine: number): string {
  const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : '';
  const lines = fromLine === undefined ? '' : ` (lines ${fromLine}-${toLine})`;
  return `the database refused rows ${fromRow}-${toRow}${lines}${code ? ` (${code})` : ''}: none of them was stored, the rows before them were; `
    + 'this is a fault of fuelprice, please report it';
}

export async function importFile(options: ImportFileOptions): Promise<FileOutcome> {
  const { store, format, path, now, progress } = options;
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
  if (!Number.isInteger(batchRows) || batchRows < 1) throw new RangeError(`batchRows must be a positive integer, got ${batchRows}`);
  const outcome: FileOutcome = {
    format: format.id, file: options.label ?? path, status: 'imported', rows: 0, resumedAfter: 0,
    stationsAdded: 0, pricesAccepted: 0, pricesIgnored: 0, pricesCorrected: 0, pricesHeld: 0, rejected: [], error: undefined,
  };
  let rows = 0;
  try {
    const key = importCursorKey(format.id, await fileIdentity(path));
    const storedCursor = await store.feedCursor(key);
    const cursor = options.restart ? { rows: 0, done: false } : parseImportCursor(storedCursor);
    if (cursor.done) {
      outcome.status = 'already imported';
      outcome.rows = cursor.rows;
      progress?.finish(outcome);
      return outcome;
    }
    outcome.resumedAfter = cursor.rows;
    const totalBytes = (await stat(path)).size;
    let bytesRead = 0;
    const kind = await fileKind(path);
    const records = readRecords(kind, path, (n) => { bytesRead = n; });
    // The format's context (NSW: the stations stored, indexed) is made while the first records
    // are on their way (a workbook's reader thread starts and loads its library meanwhile).
    const starting = format.start(store);
    // Its failure is what the import reports, unless the header failed it first.
    starting.catch(() => {});
    try {
      const header = await readHeader(records, format);
      const reader = await starting;
      const unknown = new UnknownFuels(format.feed, options.log);
      const firstLines = new Map<string, number>();
      let normaliser = new LineNormaliser(format.feed, format.fuels, now, unknown, firstLines);
      let inBatch = 0;
      let batches = 0;
      // A file none of whose rows this run could use (accepted, held or already known) is not
      // marked imported: its cursor is put back as it was, so the same command reads those rows
      // again once the cause is fixed. Until a price is used, a batch whose every row was
      // rejected while reading is applied without the cursor.
      let usable = false;
      let cursorSaved = false;
      const state = (): ProgressState => ({
        bytesRead, totalBytes, rows,
        rejected: [...outcome.rejected, ...normaliser.rejected()].reduce((sum, r) => sum + r.count, 0),
      });
      const apply = async (cursorValue: string): Promise<void> => {
        const withCursor = usable || normaliser.batch().prices.length > 0 || normaliser.rejected().length === 0;
        let applied;
        try {
          applied = await applyNormalised(store, normaliser, {
            now, deferCityDays: options.deferCityDays === true, ...(withCursor ? { cursor: { key, value: cursorValue } } : {}),
          });
        } catch (error) {
          throw new ImportError(storeFailure(error, Math.max(outcome.rows, cursor.rows) + 1, rows, batchFirstLine, lastLine));
        }
        batchFirstLine = undefined;
        cursorSaved ||= withCursor;
        usable ||= applied.pricesAccepted + applied.pricesIgnored + applied.pricesHeld + applied.pricesCorrected > 0;
        outcome.stationsAdded += applied.stationsAdded;
        outcome.pricesAccepted += applied.pricesAccepted;
        outcome.pricesIgnored += applied.pricesIgnored;
        // Same station, fuel and instant with a new price (the writer keeps the later row); counted by writers that tell.
        outcome.pricesCorrected += applied.pricesCorrected;
        outcome.pricesHeld += applied.pricesHeld;
        outcome.rejected = Normaliser.merge([outcome.rejected, applied.rejected]);
        outcome.firstRejectedLine = Object.fromEntries(firstLines);
        outcome.rows = rows;
        normaliser = new LineNormaliser(format.feed, format.fuels, now, unknown, firstLines);
        inBatch = 0;
        await options.afterBatch?.(++batches);
      };
      // The first and the last line of the rows in the batch being read, for a message should storing it fail.
      let batchFirstLine: number | undefined;
      let lastLine = 0;
      for await (const record of { [Symbol.asyncIterator]: () => records }) {
        rows++;
        const row = rowOf(record.fields, header, kind !== 'csv');
        if (rows <= cursor.rows) {
          // Applied by an earlier run: read past it, keeping only the context later rows may need.
          if (row) reader.skip(row);
          continue;
        }
        batchFirstLine ??= record.line;
        lastLine = record.line;
        normaliser.line = record.line;
        if (row) reader.read(row, normaliser, record.line);
        else normaliser.reject(WRONG_FIELD_COUNT, { line: record.line, fields: record.fields.length, expected: header.width });
        if (++inBatch >= batchRows) await apply(String(rows));
        if (rows % PROGRESS_EVERY_ROWS === 0) progress?.update(state());
      }
      if (rows < cursor.rows) {
        throw new ImportError(`an earlier import applied ${cursor.rows} rows but the file now has ${rows} (import it again with --restart)`);
      }
      await apply(`done:${rows}`);
      progress?.update(state());
      if (!usable && outcome.rejected.length > 0) {
        if (cursorSaved) await store.saveCursor({ key, value: storedCursor ?? '0' }, now);
        throw new ImportError(ALL_REJECTED);
      }
    } finally {
      await records.return(undefined);
    }
  } catch (error) {
    outcome.status = 'failed';
    // outcome.rows stays at the rows applied: what a re-run will pass over.
    outcome.error = error instanceof Error ? error.message : String(error);
  }
  progress?.finish(outcome);
  return outcome;
}
