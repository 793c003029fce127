/**
 * Ingest throughput: price events a second through the real write path (store.applyBatch,
 * which keeps station_daily and current_prices, then seal, which writes the city means) against
 * the same rows inserted by a bare better-sqlite3 loop into a plain table, one transaction per
 * batch. Both write a fresh file with the same pragmas, alternately, in the same run; the
 * batches are generated once beforehand so neither side pays for the generator.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fuelIndex } from '../src/domain/fuels.ts';
import { demoCities, stationBatches } from '../src/ingest/demo.ts';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import type { Batch } from '../src/storage/store.ts';
import { type DatasetSpec, NOW_SEC, SEED } from './datasets.ts';
import { median, ratio } from './stats.ts';

export interface IngestSample {
  dataset: string;
  /** Batches of price reports taken (after the one batch of stations). */
  batches: number;
  events: number;
  batchList: Batch[];
}

export interface IngestRound {
  realSec: number;
  /** Of realSec: the batches (applyBatch), then the seal (city means). */
  batchesSec: number;
  sealSec: number;
  bareSec: number;
  realEventsPerSec: number;
  bareEventsPerSec: number;
  ratio: number;
}

export interface IngestResult {
  dataset: string;
  batches: number;
  events: number;
  rounds: IngestRound[];
  median: { realEventsPerSec: number; bareEventsPerSec: number; ratio: number; batchesSec: number; sealSec: number; bareSec: number };
}

/** The stations batch and the first `priceBatches` batches of price reports of a dataset (all of them if undefined). */
export function ingestSample(spec: DatasetSpec, priceBatches: number | undefined): IngestSample {
  const batchList: Batch[] = [];
  let events = 0;
  for (const batch of stationBatches({ seed: SEED, years: spec.years, scale: spec.scale, nowSec: NOW_SEC })) {
    if (batch.prices.length > 0 && priceBatches !== undefined && batchList.length > priceBatches) break;
    batchList.push(batch);
    events += batch.prices.length;
  }
  return { dataset: spec.name, batches: batchList.length - 1, events, batchList };
}

function removeDb(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}

/** Seconds for the real path: migrate and cities beforehand (not timed), then every batch and the seal. */
async function timeReal(sample: IngestSample, path: string): Promise<{ batchesSec: number; sealSec: number }> {
  const store = new SqliteStore(path);
  try {
    await store.migrate();
    await store.upsertCities(demoCities());
    const started = performance.now();
    for (const batch of sample.batchList) await store.applyBatch(batch);
    const batchesDone = performance.now();
    await store.seal(NOW_SEC);
    return { batchesSec: (batchesDone - started) / 1000, sealSec: (performance.now() - batchesDone) / 1000 };
  } finally {
    await store.close();
  }
}

/** Seconds for the bare loop: the same five columns, no key, no aggregate, same pragmas as SqliteStore. */
function timeBare(sample: IngestSample, path: string): number {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE price_events (station_key INTEGER NOT NULL, fuel INTEGER NOT NULL, at INTEGER NOT NULL, price_tenths INTEGER NOT NULL, available INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO price_events (station_key, fuel, at, price_tenths, available) VALUES (?, ?, ?, ?, ?)');
    const started = performance.now();
    const keys = new Map<string, number>();
    const apply = db.transaction((batch: Batch) => {
      for (const station of batch.stations) keys.set(`${station.feed}\u0000${station.feedCode}`, keys.size + 1);
      for (const event of batch.prices) {
        const key = keys.get(`${event.feed}\u0000${event.feedCode}`);
        if (key === undefined) throw new Error(`no station ${event.feedCode}`);
        insert.run(key, fuelIndex(event.fuel), event.at, event.priceTenths, event.available ? 1 : 0);
      }
    });
    for (const batch of sample.batchList) apply(batch);
    return (performance.now() - started) / 1000;
  } finally {
    db.close();
  }
}

/** `rounds` alternations of the real path then the bare loop, each into a fresh file under `dir`. */
export async function compareIngest(sample: IngestSample, rounds: number, dir: string): Promise<IngestResult> {
  mkdirSync(dir, { recursive: true });
  const realPath = join(dir, 'ingest-real.db');
  const barePath = join(dir, 'ingest-bare.db');
  const done: IngestRound[] = [];
  for (let i = 0; i < rounds; i++) {
    removeDb(realPath);
    const { batchesSec, sealSec } = await timeReal(sample, realPath);
    const realSec = batchesSec + sealSec;
    removeDb(realPath);
    removeDb(barePath);
    const bareSec = timeBare(sample, barePath);
    removeDb(barePath);
    const realEventsPerSec = sample.events / realSec;
    const bareEventsPerSec = sample.events / bareSec;
    done.push({ realSec, batchesSec, sealSec, bareSec, realEventsPerSec, bareEventsPerSec, ratio: ratio(realEventsPerSec, bareEventsPerSec) });
    console.log(`  ingest round ${i + 1}: real ${Math.round(realEventsPerSec)} events/s (${realSec.toFixed(1)} s: batches ${batchesSec.toFixed(1)} s, seal ${sealSec.toFixed(1)} s), bare ${Math.round(bareEventsPerSec)} events/s (${bareSec.toFixed(1)} s)`);
  }
  return {
    dataset: sample.dataset, batches: sample.batches, events: sample.events, rounds: done,
    median: {
      realEventsPerSec: median(done.map((r) => r.realEventsPerSec)),
      bareEventsPerSec: median(done.map((r) => r.bareEventsPerSec)),
      ratio: median(done.map((r) => r.ratio)),
      batchesSec: median(done.map((r) => r.batchesSec)),
      sealSec: median(done.map((r) => r.sealSec)),
      bareSec: median(done.map((r) => r.bareSec)),
    },
  };
}
