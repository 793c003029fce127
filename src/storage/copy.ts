import { createHash } from 'node:crypto';
import { copySpec } from './sql/copy-tables.ts';
import { COPY_ORDER, type CopyProgress, type CopyTable, type CopyValue, type BulkStore } from './store.ts';

/**
 * `fuelprice copy`: a whole installation (cities, stations, history, tokens) from one store
 * into another, either backend to either. Table by table in key order, one transaction per
 * chunk that also records how far it got, so a re-run continues after the last committed
 * chunk; at the end every table is checked by its row count and a checksum computed the
 * same way on both sides (the rows streamed in key order, hashed as canonical text here).
 */

export const DEFAULT_CHUNK_ROWS = 10_000;

export interface CopyOptions {
  /** Names the source (URL without password); a target filled from another source is refused. */
  source: string;
  chunkRows?: number;
  /** After each committed chunk: rows done so far of all tables, and of the table being copied. */
  onProgress?: (progress: { table: CopyTable; tableDone: number; tableTotal: number; done: number; total: number }) => void;
  /** For tests: stop as a crash would, right after this many chunks were committed. */
  stopAfterChunks?: number;
}

/** The target holds data that did not come from this source: nothing was written. */
export class CopyRefused extends Error {}

/** Raised by the stopAfterChunks test hook, like a crash between two chunks. */
export class CopyInterrupted extends Error {}

export interface TableDigest {
  rows: number;
  checksum: string;
}

export interface TableCheck {
  table: CopyTable;
  source: TableDigest;
  target: TableDigest;
  /** count(*) on each side, against the rows streamed. */
  sourceCount: number;
  targetCount: number;
  ok: boolean;
}

export interface CopyResult {
  resumed: boolean;
  /** Rows this run inserted (a resumed run counts only its own). */
  inserted: number;
  checks: TableCheck[];
  ok: boolean;
  seconds: number;
}

export async function copyInstallation(from: BulkStore, to: BulkStore, options: CopyOptions): Promise<CopyResult> {
  const started = performance.now();
  const chunkRows = options.chunkRows ?? DEFAULT_CHUNK_ROWS;
  const progress = new Map((await to.copyProgress()).map((p) => [p.table, p]));
  await refuseForeignTarget(to, [...progress.values()], options.source);
  const resumed = progress.size > 0;

  const totals = new Map<CopyTable, number>();
  for (const table of COPY_ORDER) totals.set(table, await from.tableCount(table));
  const total = [...totals.values()].reduce((a, b) => a + b, 0);
  let done = [...progress.values()].reduce((sum, p) => sum + p.rows, 0);
  let inserted = 0;
  let chunks = 0;

  for (const table of COPY_ORDER) {
    const tableTotal = totals.get(table) ?? 0;
    const at = progress.get(table);
    if (at?.done) continue;
    let after = at?.after;
    let tableDone = at?.rows ?? 0;
    for (;;) {
      const chunk = await from.exportTable(table, after, chunkRows);
      const finished = chunk.rows.length < chunkRows;
      const next: CopyProgress = { table, source: options.source, after: chunk.last ?? after, rows: tableDone + chunk.rows.length, done: finished };
      inserted += await to.importRows(table, chunk.rows, next);
      tableDone = next.rows;
      done += chunk.rows.length;
      after = next.after;
      chunks++;
      options.onProgress?.({ table, tableDone, tableTotal: Math.max(tableTotal, tableDone), done, total: Math.max(total, done) });
      if (options.stopAfterChunks !== undefined && chunks >= options.stopAfterChunks) {
        throw new CopyInterrupted(`copy stopped after ${chunks} chunks (test hook)`);
      }
      if (finished) break;
    }
  }

  const checks: TableCheck[] = [];
  for (const table of COPY_ORDER) {
    const [source, target, sourceCount, targetCount] = await Promise.all([
      tableDigest(from, table, chunkRows), tableDigest(to, table, chunkRows), from.tableCount(table), to.tableCount(table),
    ]);
    const ok = sourceCount === targetCount && source.rows === sourceCount && target.rows === targetCount && source.checksum === target.checksum;
    checks.push({ table, source, target, sourceCount, targetCount, ok });
  }
  return { resumed, inserted, checks, ok: checks.every((c) => c.ok), seconds: (performance.now() - started) / 1000 };
}

/** A copy may go into an empty store, or continue one that came from the same source. */
async function refuseForeignTarget(to: BulkStore, progress: CopyProgress[], source: string): Promise<void> {
  const other = progress.find((p) => p.source !== source);
  if (other) throw new CopyRefused(`the target holds a copy from another source (${other.source}); copy into a new, empty database`);
  if (progress.length > 0) return;
  for (const table of COPY_ORDER) {
    if (table === 'meta') continue;
    const n = await to.tableCount(table);
    if (n > 0) throw new CopyRefused(`the target already holds data (${n} rows in ${table}) that did not come from this source; copy into a new, empty database`);
  }
}

/** Row count and SHA-256 of the table's rows in key order, each as one canonical line: the same text from either backend. */
export async function tableDigest(store: BulkStore, table: CopyTable, chunkRows = DEFAULT_CHUNK_ROWS): Promise<TableDigest> {
  const { columns } = copySpec(table);
  const hash = createHash('sha256');
  let rows = 0;
  let after: Array<string | number> | undefined;
  for (;;) {
    const chunk = await store.exportTable(table, after, chunkRows);
    for (const row of chunk.rows) hash.update(`${columns.map((c) => canonical(row[c] ?? null)).join('\t')}\n`);
    rows += chunk.rows.length;
    if (chunk.rows.length < chunkRows || !chunk.last) break;
    after = chunk.last;
  }
  return { rows, checksum: hash.digest('hex') };
}

function canonical(value: CopyValue): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return `n${String(value)}`;
  if (typeof value === 'string') return `s${JSON.stringify(value)}`;
  return `b${value.toString('hex')}`;
}
