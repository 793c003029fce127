import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { getPriority } from 'node:os';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import Database from 'better-sqlite3';
import pg from 'pg';
import { fillUpAdvice } from '../../src/domain/advice.ts';
import { FRESH_DAYS, cycleSeries, freshCurrent, freshDailyMeans } from '../../src/domain/fresh.ts';
import type { FuelId } from '../../src/domain/fuels.ts';
import { cityHistory } from '../../src/domain/history.ts';
import { formatCents } from '../../src/domain/rounding.ts';
import { dayStart, formatLocalDay, localDayOf } from '../../src/domain/time.ts';
import { cityAverages, fuelTotals } from '../../src/domain/today.ts';
import { PUBLISHES_TOMORROW } from '../../src/domain/states.ts';
import { pairedTomorrow } from '../../src/domain/tomorrow.ts';
import { TRACK_DAYS, trackRecord } from '../../src/domain/track-record.ts';
import { CLOCK_SLICE_SEC } from '../../src/derived/computer.ts';
import { DerivedAnswers } from '../../src/derived/derived-answers.ts';
import { CLOCK_BUCKET_SEC } from '../../src/http/cache/answer-store.ts';
import { CycleResponse, WEEKDAY_NAMES } from '../../src/schemas/cycle.ts';
import type { AnswerBytes } from '../../src/derived/answer-bytes.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import type { Batch, PriceStore } from '../../src/storage/store.ts';
import { CITIES, NOW, STATIONS } from '../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends, waitFor } from '../helpers.ts';

// Perth's station (feed code 3) and two of Sydney's (1 and 2) report ulp91 at local midnight every day for 70 days: a
// one-week sawtooth in Perth, a ten-day one in Sydney, so both cities have a cycle to find.
const mod = (a: number, n: number): number => ((a % n) + n) % n;
const PRICES: Batch['prices'] = [];
for (const [code, state, period] of [['3', 'wa', 7], ['1', 'nsw', 10], ['2', 'nsw', 10]] as const) {
  const today = localDayOf(state, NOW);
  for (let day = today - 70; day <= today; day++) {
    PRICES.push({ feed: 'test', feedCode: code, fuel: 'ulp91', at: dayStart(state, day), priceTenths: 1700 + 30 * (period - 1 - mod(day - today, period)), available: true });
  }
}

/** The cycle answer worked out here, in this thread, through the domain functions on rows read now: what the worker's must equal. */
/** A kept cycle answer as the client reads it. */
const parsed = (answer: AnswerBytes): unknown => JSON.parse(Buffer.from(answer.bytes).toString());
/** What Fastify writes for the route's 200 of the same value: its serialiser compiler, given the route's schema. */
const routeSerialiser = SerializerSelector()({}, {})({ schema: CycleResponse, method: 'GET', url: '/v1/cities/:id/cycle', httpStatus: '200' }) as (value: unknown) => string;

async function reference(store: PriceStore, cityId: string, fuel: FuelId, now: number): Promise<unknown> {
  const city = await store.city(cityId) ?? assert.fail(cityId);
  const today = localDayOf(city.state, now);
  const range = { from: today - 365 - TRACK_DAYS, to: today };
  const series = cityHistory(city.state, await store.cityHistoryParts(city.id, range, now), range, now);
  const prices = await store.currentForCity(city.id);
  const paired = pairedTomorrow(prices, (await store.heldRows()).filter((r) => r.cityId === city.id).map((r) => r.price), fuel);
  const fresh = await store.cityFreshParts(city.id, fuel, range.from, range.to);
  const current = cityAverages(fuelTotals(freshCurrent(city.state, prices, now))).get(fuel);
  const days = cycleSeries(freshDailyMeans(fresh, FRESH_DAYS[city.state], range.from, range.to), series.get(fuel) ?? [], fresh.sealedBefore);
  const { cycle, state, history, advice, signal, reason, confidence, horizon, expectedSavingTenths } = fillUpAdvice({ days, today, now: current, tomorrowChange: paired && paired.tomorrowTenths - paired.nowTenths });
  const track = trackRecord(days, today, PUBLISHES_TOMORROW.has(city.state));
  const signed = (tenths: number): string => (formatCents(Math.abs(tenths)) === '0.0' ? '0.0' : `${tenths < 0 ? '-' : '+'}${formatCents(Math.abs(tenths))}`);
  const restoration = (r: { day: number; riseTenths: number }) => ({ date: formatLocalDay(r.day), rise: formatCents(r.riseTenths) });
  return { data: {
    id: city.id, name: city.name, fuel, cycles: cycle.cycles, period_days: cycle.periodDays ?? false,
    last_restoration: cycle.lastRestoration ? restoration(cycle.lastRestoration) : false, restorations: cycle.restorations.map(restoration),
    days_since_restoration: cycle.daysSinceRestoration ?? false, phase: cycle.phase,
    cheapest_weekday: cycle.cheapestWeekday === null ? false : WEEKDAY_NAMES[cycle.cheapestWeekday],
    now: current === undefined ? false : formatCents(current),
    tomorrow: paired ? { change: `${paired.tomorrowTenths >= paired.nowTenths ? '+' : '-'}${formatCents(Math.abs(paired.tomorrowTenths - paired.nowTenths))}`, stations: paired.count } : false,
    state, history, advice, signal, reason,
    horizon: { wait_days: horizon.waitDays, next_rise: horizon.nextRise === null ? false : formatLocalDay(horizon.nextRise) },
    expected_saving: expectedSavingTenths === null ? false : formatCents(expectedSavingTenths),
    track_record: track ? {
      days: track.days, windows: track.windows, advice: signed(track.adviceTenths),
      best_rule: { rule: track.bestRule.rule, saved: signed(track.bestRule.savedTenths) }, oracle: formatCents(track.oracleTenths),
    } : false,
    confidence,
  } };
}

/** Runs SQL on the store's database through a connection of its own (what another program would do to it). */
async function sql(store: PriceStore, text: string): Promise<void> {
  const source = store.readerSource?.() ?? assert.fail('a store another connection can open');
  if (source.backend === 'sqlite') {
    const db = new Database(source.path);
    try { db.exec(text); } finally { db.close(); }
    return;
  }
  const client = new pg.Client({ connectionString: source.url });
  await client.connect();
  try { await client.query(text); } finally { await client.end(); }
}

test('derived answers are kept for the slice of the clock the answer cache keeps clocked answers for', () => {
  assert.equal(CLOCK_SLICE_SEC, CLOCK_BUCKET_SEC);
});

test('a database no other thread can open (sqlite::memory:) is worked out in the serving thread, the same answer', async () => {
  const store = new SqliteStore(':memory:');
  await store.migrate();
  await store.upsertCities(CITIES);
  await store.applyBatch({ stations: STATIONS, prices: PRICES });
  assert.equal(store.readerSource(), undefined);
  const derived = new DerivedAnswers(store, fixedClock(NOW));
  try {
    const city = await store.city('perth') ?? assert.fail('perth');
    assert.deepEqual(parsed(await derived.get('cycle', { city, fuel: 'ulp91' }, NOW)), await reference(store, 'perth', 'ulp91', NOW));
    assert.equal(derived.computations('cycle', { city, fuel: 'ulp91' }), 1);
  } finally {
    await derived.close();
    await store.close();
  }
});

for (const backend of testBackends()) {
  describe(`derived answers (the cycle, on a worker thread) on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    let derived: DerivedAnswers;
    const clock = fixedClock(NOW);
    before(async () => {
      ({ store, drop } = await backend.create());
      await store.upsertCities(CITIES);
      await store.applyBatch({ stations: STATIONS, prices: PRICES });
      await store.seal(NOW);
      derived = new DerivedAnswers(store, clock);
      server = await startServer(store, clock, { derived });
    });
    after(async () => { await server.close(); await drop(); });

    test('the answer equals one worked out from the stored rows; a write to Perth computes Perth again ahead of any request, not Sydney', async () => {
      for (const city of ['perth', 'sydney']) {
        const r = await get(server, `/v1/cities/${city}/cycle`);
        assert.equal(r.status, 200, city);
        assert.deepEqual(r.body, await reference(store, city, 'ulp91', NOW), city);
        assert.equal(derived.computations('cycle', { city: { id: city } as never, fuel: 'ulp91' }), 1, city);
      }
      // Perth's station reports a restoration a minute ago: a new data version, and a change in Perth only.
      await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '3', fuel: 'ulp91', at: NOW - 60, priceTenths: 1990, available: true }] });
      const perth = { city: { id: 'perth' } as never, fuel: 'ulp91' as const };
      await waitFor('Perth computed again ahead', () => derived.computations('cycle', perth) === 2);
      assert.equal(derived.computations('cycle', { city: { id: 'sydney' } as never, fuel: 'ulp91' }), 1);
      const r = await get(server, '/v1/cities/perth/cycle');
      assert.equal(r.status, 200);
      const expected = await reference(store, 'perth', 'ulp91', NOW);
      assert.deepEqual(r.body, expected);
      assert.equal((expected as { data: { now: string } }).data.now, '199.0', 'the answer is of the new data version');
      assert.equal(derived.computations('cycle', perth), 2, 'the request read what was computed ahead');
    });

    test('asked at once after a write, the answer is of the new data version, never the one kept before it', async () => {
      const path = '/v1/cities/sydney/cycle?fuel=ulp91';
      const first = await get(server, path);
      assert.equal(first.status, 200);
      await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '1', fuel: 'ulp91', at: NOW - 30, priceTenths: 2500, available: true }] });
      const expected = await reference(store, 'sydney', 'ulp91', NOW);
      assert.notDeepEqual(expected, first.body, 'the write changes the answer');
      const r = await get(server, path);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, expected);
    });

    test('the derived worker runs at nice 10 on Linux, its thread alone: the serving thread keeps the process\'s priority', async (t) => {
      if (process.platform !== 'linux') return t.skip('the nice value is per thread on Linux only');
      const city = await store.city('perth') ?? assert.fail('perth');
      await derived.get('cycle', { city, fuel: 'ulp95' }, NOW); // the derived worker is running
      // Each thread's nice value: field 19 of /proc/self/task/TID/stat, the 17th after the command's closing parenthesis.
      const nice = (tid: string): number => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      };
      const threads = readdirSync('/proc/self/task').map((tid) => ({ tid, nice: nice(tid) }));
      assert.equal(nice(String(process.pid)), getPriority(), 'the serving thread');
      assert.deepEqual(threads.filter((thread) => thread.nice !== getPriority()).map((thread) => thread.nice), [getPriority() + 10]);
    });

    test('requests for the same answer at once share one computation', async () => {
      const city = await store.city('sydney') ?? assert.fail('sydney');
      const answers = await Promise.all(Array.from({ length: 6 }, () => derived.get('cycle', { city, fuel: 'e10' }, NOW)));
      assert.equal(derived.computations('cycle', { city, fuel: 'e10' }), 1);
      const expected = await reference(store, 'sydney', 'e10', NOW);
      for (const answer of answers) {
        // Byte for byte what Fastify's serialiser of the route's 200 schema writes of the reference, and the digest its SHA-256.
        assert.equal(Buffer.from(answer.bytes).toString(), routeSerialiser(expected));
        assert.equal(answer.digest, createHash('sha256').update(answer.bytes).digest('base64url'));
      }
    });

    test('a failure in the worker is a 500 in the catalogue\'s shape, saying nothing of it, and the server goes on', async () => {
      // Whole-day prices gone from under the worker (renamed): its reading of Hobart's cycle fails.
      await sql(store, 'ALTER TABLE station_runs RENAME TO station_runs_gone');
      try {
        const failed = await get(server, '/v1/cities/hobart/cycle?fuel=diesel', { headers: { 'x-request-id': 'derived-500' } });
        assert.equal(failed.status, 500);
        assert.deepEqual(failed.body, {
          error: { code: 'internal', message: 'Something went wrong on our side; the request id identifies it in our logs.', request_id: 'derived-500' },
        });
        assert.equal((await get(server, '/v1/cities/hobart')).status, 200);
      } finally {
        await sql(store, 'ALTER TABLE station_runs_gone RENAME TO station_runs');
      }
      const r = await get(server, '/v1/cities/hobart/cycle?fuel=diesel');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, await reference(store, 'hobart', 'diesel', NOW));
    });
  });
}
