/**
 * A feed big enough to be killed in the middle of, for test/ingest/crash.test.ts. Each of its
 * BATCHES batches adds STATIONS_PER_BATCH stations around Sydney with a week of hourly-ish
 * prices, plus late reports for the previous batch's stations (so the writer replays sealed
 * days too); its cursor is the number of the last batch applied, and a pull resumes after it.
 * Also runnable: `node --import tsx test/ingest/crash-feed.ts` with DATABASE_URL set runs the
 * feed once in this process (what the test kills).
 */
import type { FeedAdapter, PullContext, Pulled } from '../../src/ingest/feed.ts';
import { runFeed } from '../../src/ingest/runner.ts';
import { openStore } from '../../src/storage/open.ts';
import { CITIES, NOW } from '../fixture.ts';

export const BATCHES = 12;
const STATIONS_PER_BATCH = 40;
const HOUR = 3_600;

function pullFrom(ctx: PullContext, first: number): Pulled[] {
  const out: Pulled[] = [];
  for (let b = first; b < BATCHES; b++) {
    const n = ctx.normaliser();
    for (let i = 0; i < STATIONS_PER_BATCH; i++) {
      const k = b * STATIONS_PER_BATCH + i;
      n.station({ code: `C${k}`, name: `Crash Test ${k}`, brand: 'Ampol', address: `${k} George Street, Sydney NSW 2000`, suburb: 'Sydney',
        postcode: '2000', state: 'NSW', latitude: -33.87 + (k % 50) * 0.001, longitude: 151.2 + (k % 37) * 0.001 });
      for (let h = 0; h < 7 * 24; h += 5) {
        n.price({ code: `C${k}`, fuelCode: 'U91', at: NOW - 8 * 24 * HOUR + h * HOUR, priceTenths: 1700 + ((k * 7 + h * 3) % 250), available: (k + h) % 41 !== 0 });
        n.price({ code: `C${k}`, fuelCode: 'DL', at: NOW - 8 * 24 * HOUR + h * HOUR + 600, priceTenths: 1850 + ((k * 5 + h) % 120), available: true });
      }
      // A late report for a station of the previous batch: its sealed days are recomputed.
      if (b > 0) n.price({ code: `C${k - STATIONS_PER_BATCH}`, fuelCode: 'U91', at: NOW - 6 * 24 * HOUR + 1_234, priceTenths: 1999, available: true });
    }
    out.push({ normaliser: n, cursor: String(b) });
  }
  return out;
}

export const crashAdapter: FeedAdapter = {
  id: 'crash', name: 'crash test feed', states: ['nsw'], intervalSec: 60, requires: [], fuels: { U91: 'ulp91', DL: 'diesel' },
  async pull(ctx) {
    return pullFrom(ctx, ctx.cursor === undefined ? 0 : Number(ctx.cursor) + 1);
  },
};

/** The first `batches` batches only (what a run killed after that many would have committed). */
export function partialAdapter(batches: number): FeedAdapter {
  return { ...crashAdapter, async pull(ctx) { return pullFrom(ctx, 0).slice(0, batches); } };
}

export const silentLog = { info: () => {}, warn: () => {}, error: () => {} };

export async function prepare(databaseUrl: string): Promise<void> {
  const store = await openStore(databaseUrl);
  try {
    await store.upsertCities(CITIES);
    await store.seal(NOW);
  } finally {
    await store.close();
  }
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const store = await openStore(process.env.DATABASE_URL ?? '');
  try {
    const run = await runFeed({ store, adapter: crashAdapter, config: { url: '', credentials: {} }, clock: { now: () => NOW }, log: silentLog });
    if (run.error) throw new Error(run.error);
  } finally {
    await store.close();
  }
}
