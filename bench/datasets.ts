/**
 * The benchmark's datasets: demo databases under bench/out/, built once through the real
 * writer (writeDemo) and reused by later runs, unless written at an older schema version. A build
 * goes to a `.partial` file renamed at the end, so an interrupted build is never mistaken for a
 * finished one.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeDemo } from '../src/ingest/demo.ts';
import { SQLITE_MIGRATIONS } from '../src/storage/migrations/sqlite.ts';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import { newToken } from '../src/tokens.ts';

/** Every dataset and server runs at this instant, so answers are the same from run to run. */
export const NOW_ISO = '2026-11-23T12:00:00+11:00';
export const NOW_SEC = Math.floor(Date.parse(NOW_ISO) / 1000);
export const SEED = 1;

export interface DatasetSpec {
  name: string;
  scale: 'small' | 'au';
  years: number;
}

/** `small-1y` is the bench's own: at --scale small it stands in for au-1y in the fixed-window comparison. */
export const DATASETS = {
  small: { name: 'small', scale: 'small', years: 2 },
  'small-1y': { name: 'small-1y', scale: 'small', years: 1 },
  'au-1y': { name: 'au-1y', scale: 'au', years: 1 },
  'au-10y': { name: 'au-10y', scale: 'au', years: 10 },
} as const satisfies Record<string, DatasetSpec>;

export type DatasetName = keyof typeof DATASETS;

/** What a build recorded beside its database, so a reused dataset still reports its build time. */
interface BuildRecord {
  builtSec: number;
  builtAt: string;
  stations: number;
  prices: number;
  /** The schema version it was written at: one written before the current version is built again (the writer's rows changed). */
  schema?: number;
}

export interface Dataset extends DatasetSpec {
  path: string;
  build: BuildRecord;
  /** True when this run built it, false when an earlier run's file was reused. */
  builtNow: boolean;
  stationCount: number;
  /** A Sydney station in the middle of Sydney's list (the same one in every dataset of a scale). */
  sydneyStation: string;
  /** A token with a rate limit no load run can reach, created for this run. */
  token: string;
}

export function datasetPath(outDir: string, name: DatasetName): string {
  return join(outDir, `${name}.db`);
}

function removeDb(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

async function build(spec: DatasetSpec, path: string): Promise<BuildRecord> {
  const partial = `${path}.partial`;
  removeDb(partial);
  const store = new SqliteStore(partial);
  let lastShown = 0;
  const started = performance.now();
  try {
    await store.migrate();
    const result = await writeDemo(store, { seed: SEED, years: spec.years, scale: spec.scale, nowSec: NOW_SEC }, (done, total) => {
      const now = performance.now();
      if (now - lastShown > 10_000) {
        lastShown = now;
        console.log(`  ${spec.name}: batch ${done}/${total}, ${((now - started) / 1000).toFixed(0)} s`);
      }
    });
    // Timed here rather than taken from writeDemo, so migrating is counted too.
    const record: BuildRecord = {
      builtSec: (performance.now() - started) / 1000, builtAt: new Date().toISOString(), stations: result.stations, prices: result.prices,
      schema: SQLITE_MIGRATIONS.length,
    };
    await store.close();
    renameSync(partial, path);
    return record;
  } catch (error) {
    await store.close().catch(() => undefined);
    removeDb(partial);
    throw error;
  }
}

/** The dataset's database, built if it is not there yet, with a fresh bench token. */
export async function ensureDataset(outDir: string, name: DatasetName): Promise<Dataset> {
  const spec: DatasetSpec = DATASETS[name];
  const path = datasetPath(outDir, name);
  const recordPath = `${path}.json`;
  let builtNow = false;
  const stale = existsSync(recordPath) && (JSON.parse(readFileSync(recordPath, 'utf8')) as BuildRecord).schema !== SQLITE_MIGRATIONS.length;
  if (stale) console.log(`dataset ${name}: written before schema ${SQLITE_MIGRATIONS.length}, building it again`);
  if (!existsSync(path) || !existsSync(recordPath) || stale) {
    removeDb(path);
    console.log(`building dataset ${name} (${spec.scale}, ${spec.years} y)...`);
    const record = await build(spec, path);
    writeFileSync(recordPath, `${JSON.stringify(record, null, 2)}\n`);
    builtNow = true;
  }
  const record = JSON.parse(readFileSync(recordPath, 'utf8')) as BuildRecord;
  console.log(builtNow
    ? `dataset ${name}: ${record.stations} stations, ${record.prices} price reports, built in ${record.builtSec.toFixed(1)} s`
    : `dataset ${name}: reused bench/out/${name}.db (built in ${record.builtSec.toFixed(1)} s on ${record.builtAt})`);

  const store = new SqliteStore(path);
  let token: string;
  try {
    await store.migrate();
    const created = newToken('bench', NOW_SEC, { rateLimit: 1_000_000_000 });
    await store.createToken(created.record);
    token = created.token;
  } finally {
    await store.close();
  }
  const db = new Database(path, { readonly: true });
  try {
    const stationCount = (db.prepare('SELECT count(*) AS n FROM stations').get() as { n: number }).n;
    const inSydney = (db.prepare("SELECT count(*) AS n FROM stations WHERE city_id = 'sydney'").get() as { n: number }).n;
    const row = db.prepare("SELECT id FROM stations WHERE city_id = 'sydney' ORDER BY id LIMIT 1 OFFSET ?").get(Math.floor(inSydney / 2)) as { id: string } | undefined;
    if (!row) throw new Error(`dataset ${name} has no station in Sydney`);
    return { ...spec, path, build: record, builtNow, stationCount, sydneyStation: row.id, token };
  } finally {
    db.close();
  }
}
