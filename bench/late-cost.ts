/**
 * What one late report costs against the length of the history (issue 28: "a late report costs
 * work proportional to the days it changes, not to the history"). Two SQLite stores get the same
 * VIC stations with a price change or two per station and fuel every day, one for 1 month and
 * one for 12 months, each closed (sealed) up to its last day as a running server would. Then
 * late reports land, one per batch, each 10 days before the last day, between two stored
 * reports a day or so apart: each rebuilds the same few days whatever the history behind them.
 * For each store: the median time of those applyFeedBatch calls, and the statements they ran,
 * the rows those statements returned and the rows they changed (counted on better-sqlite3's
 * statements; rows changed by triggers are not counted). Both columns must stay about equal.
 *
 *   npx tsx bench/late-cost.ts [STATIONS] [LATE_REPORTS]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dayStart, localDayOf } from '../src/domain/time.ts';
import { Rng } from '../src/ingest/demo/random.ts';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import type { Batch, PriceEvent, StationInput } from '../src/storage/store.ts';

const STATIONS = Number(process.argv[2] ?? 100);
const LATE = Number(process.argv[3] ?? 15);
const FUELS = ['ulp91', 'ulp95', 'diesel'] as const;
/** The last day of history: 1 May 2026 in Melbourne. */
const LAST_DAY = localDayOf('vic', Date.UTC(2026, 4, 1, 2) / 1000);

/** Statements run, rows returned and rows changed, counted while `on`. */
const counts = { on: false, statements: 0, returned: 0, changed: 0 };
{
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3');
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...args: unknown[]) => unknown>;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate'] as const) {
    const original = proto[method] as (...args: unknown[]) => unknown;
    proto[method] = function counted(this: unknown, ...args: unknown[]): unknown {
      const result = original.apply(this, args);
      if (counts.on) {
        counts.statements++;
        if (method === 'run') counts.changed += (result as { changes: number }).changes;
        else if (method === 'get') counts.returned += result === undefined ? 0 : 1;
        else if (method === 'all') counts.returned += (result as unknown[]).length;
      }
      return result;
    };
  }
}

function stations(): StationInput[] {
  return Array.from({ length: STATIONS }, (_, i) => ({
    feed: 'vic', feedCode: `late-${i}`, slug: `late-cost-${i}`, name: `Late Cost ${i}`, brand: 'Bench', address: `${i} Bench Road, Melbourne`,
    street: `${i} Bench Road`, suburb: 'Melbourne', postcode: '3000', state: 'vic', phone: '', website: '',
    latitude: -37.81 + (i % 10) * 0.01, longitude: 144.96 + Math.floor(i / 10) * 0.01,
  }));
}

/** Every station's reports of one day: one or two changes per fuel at random times. */
function dayReports(day: number, next: () => number): PriceEvent[] {
  const start = dayStart('vic', day);
  const prices: PriceEvent[] = [];
  for (let s = 0; s < STATIONS; s++) {
    for (const fuel of FUELS) {
      const n = 1 + Math.floor(next() * 2);
      const times = Array.from({ length: n }, () => start + 3600 + Math.floor(next() * 20 * 3600)).sort((a, b) => a - b);
      for (const at of times) prices.push({ feed: 'vic', feedCode: `late-${s}`, fuel, at, priceTenths: 1700 + Math.floor(next() * 400), available: true });
    }
  }
  return prices;
}

interface Measured { days: number; events: number; buildSeconds: number; medianMs: number; statements: number; returned: number; changed: number }

async function measure(dir: string, days: number): Promise<Measured> {
  const store = new SqliteStore(join(dir, `history-${days}.db`));
  await store.migrate();
  // The demo's seeded generator: the same reports on every run.
  const rng = new Rng('late-cost', 28);
  const next = (): number => rng.next();
  const list = stations();
  const first = LAST_DAY - days + 1;
  const started = performance.now();
  let events = 0;
  // A week a batch, in time order, each closed as a running server closes its days.
  for (let from = first; from <= LAST_DAY; from += 7) {
    const prices: PriceEvent[] = [];
    for (let day = from; day < Math.min(from + 7, LAST_DAY + 1); day++) prices.push(...dayReports(day, next));
    events += prices.length;
    const now = dayStart('vic', Math.min(from + 7, LAST_DAY + 1));
    await store.applyFeedBatch({ stations: from === first ? list : [], prices }, { now });
    await store.seal(now);
  }
  const buildSeconds = (performance.now() - started) / 1000;
  // Late reports: each for another station, 10 days before the last day, at 00:30 (before that day's first change).
  const now = dayStart('vic', LAST_DAY + 1) + 3600;
  const late = dayStart('vic', LAST_DAY - 10) + 1800;
  const times: number[] = [];
  const total = { statements: 0, returned: 0, changed: 0 };
  for (let i = 0; i < LATE; i++) {
    const batch: Batch = { stations: [], prices: [{ feed: 'vic', feedCode: `late-${i % STATIONS}`, fuel: 'ulp91', at: late, priceTenths: 1999, available: true }] };
    Object.assign(counts, { on: true, statements: 0, returned: 0, changed: 0 });
    const t = performance.now();
    const result = await store.applyFeedBatch(batch, { now });
    times.push(performance.now() - t);
    counts.on = false;
    if (result.pricesAccepted !== 1) throw new Error(`the late report was not stored: ${JSON.stringify(result)}`);
    total.statements += counts.statements;
    total.returned += counts.returned;
    total.changed += counts.changed;
  }
  await store.close();
  times.sort((a, b) => a - b);
  return {
    days, events, buildSeconds, medianMs: times[Math.floor(times.length / 2)] ?? NaN,
    statements: total.statements / LATE, returned: total.returned / LATE, changed: total.changed / LATE,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'late-cost-'));
try {
  const rows: Measured[] = [];
  for (const days of [30, 365]) rows.push(await measure(dir, days));
  console.log(`${STATIONS} stations x ${FUELS.length} fuels; ${LATE} late reports per store, one per batch, each 10 days back`);
  console.log('history | reports stored | built in | median time per late report | statements | rows returned | rows changed');
  for (const r of rows) {
    console.log(`${r.days} days | ${r.events} | ${r.buildSeconds.toFixed(1)} s | ${r.medianMs.toFixed(2)} ms | ${r.statements.toFixed(1)} | ${r.returned.toFixed(1)} | ${r.changed.toFixed(1)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
