import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FUELS } from '../../../src/domain/fuels.ts';
import { dayStart, localDayOf } from '../../../src/domain/time.ts';
import { trackRecord } from '../../../src/domain/track-record.ts';
import type { Batch, PriceStore } from '../../../src/storage/store.ts';
import { CITIES, NOW, STATIONS } from '../../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends } from '../../helpers.ts';

// NOW is 23-11-2026 09:00 in Perth (UTC+8, no daylight saving). Gamma Perth (feed code 3), Perth's only
// station, reports ulp91 at 00:00 every local day from 70 days before today, so each day's city mean is that
// day's price: a one-week sawtooth, 1700 + 30 × (6 − k) tenths on the cycle's day k, today being k = 3.
// Changes are read from today − 69 on: restorations on today − 3 − 7n for 7n ≤ 66 (n = 0..9), ten of them,
// every interval 7. The last, today − 3 = 20-11-2026, rose from 1700 (k = 6) to 1880: 18.0 c/L. Three days
// since, under 0.75 × 7: falling, wait.
const PERTH_TODAY = localDayOf('wa', NOW);
const mod = (a: number, n: number): number => ((a % n) + n) % n;
const SAWTOOTH: Batch['prices'] = [];
for (let day = PERTH_TODAY - 70; day <= PERTH_TODAY; day++) {
  const k = mod(day - (PERTH_TODAY - 3), 7);
  SAWTOOTH.push({ feed: 'test', feedCode: '3', fuel: 'ulp91', at: dayStart('wa', day), priceTenths: 1700 + 30 * (6 - k), available: true });
}

// No history: no cycle, no current price, and the advice says so, with low confidence (no days of reports at all).
// Issue 47: no days of news is insufficient history (180 needed), advice unknown, no horizon, no track record.
const NONE = {
  cycles: false, period_days: false, last_restoration: false, restorations: [], days_since_restoration: false, phase: 'none',
  cheapest_weekday: false, now: false, tomorrow: false, state: 'insufficient-history', history: { days: 0, needed: 180 },
  advice: 'unknown', signal: 'none',
  reason: 'No days of price changes here and no cycle yet: the cycle needs 180 to tell a city without one from one with a slow one. Fill up when you need to.',
  horizon: { wait_days: 0, next_rise: false }, expected_saving: false, track_record: false, confidence: 'low',
};
/** The sawtooth's days before today as the cycle reads them (one station, reported at midnight: fresh every day). */
const SERIES = SAWTOOTH.filter((p) => localDayOf('wa', p.at) < PERTH_TODAY).map((p) => ({ day: localDayOf('wa', p.at), meanTenths: p.priceTenths }));
/** The ten restorations, oldest first: today − 3 − 7n for n = 9..0, each from 1700 to 1880. */
const RESTORATIONS = ['18-09-2026', '25-09-2026', '02-10-2026', '09-10-2026', '16-10-2026', '23-10-2026', '30-10-2026', '06-11-2026', '13-11-2026', '20-11-2026']
  .map((date) => ({ date, rise: '18.0' }));

/**
 * The track record as the answer shows it. Its figures are the domain function's over the series the cycle reads (its
 * own test, test/domain/track-record.test.ts, checks them against a reference): here, that the route gives it that series.
 */
function trackRecordShown(t: ReturnType<typeof trackRecord>): unknown {
  const signed = (x: number): string => { const c = (Math.abs(x) / 10).toFixed(1); return c === '0.0' ? c : `${x < 0 ? '-' : '+'}${c}`; };
  return t === null ? false : {
    days: t.days, windows: t.windows, advice: signed(t.adviceTenths), best_rule: { rule: t.bestRule.rule, saved: signed(t.bestRule.savedTenths) },
    oracle: (t.oracleTenths / 10).toFixed(1),
  };
}

for (const backend of testBackends()) {
  for (const sealed of [true, false]) {
    describe(`GET /v1/cities/{id}/cycle on ${backend.name} (${sealed ? 'days sealed' : 'nothing sealed yet'})`, () => {
      let store: PriceStore;
      let drop: () => Promise<void>;
      let server: RunningServer;
      before(async () => {
        ({ store, drop } = await backend.create());
        await store.upsertCities(CITIES);
        await store.applyBatch({ stations: STATIONS, prices: SAWTOOTH });
        if (sealed) await store.seal(NOW);
        server = await startServer(store, fixedClock(NOW));
      });
      after(async () => { await server.close(); await drop(); });

      test('Perth ulp91 (the default fuel): a one-week cycle, falling', async () => {
        for (const path of ['/v1/cities/perth/cycle', '/v1/cities/perth/cycle?fuel=ulp91']) {
          const r = await get(server, path);
          assert.equal(r.status, 200, path);
          assert.deepEqual(r.body, { data: {
            id: 'perth', name: 'Perth', fuel: 'ulp91', cycles: true, period_days: 7,
            last_restoration: { date: '20-11-2026', rise: '18.0' }, restorations: RESTORATIONS, days_since_restoration: 3, phase: 'falling',
            // Restorations fall on Fridays (20-11-2026 was one), so k = 6, the lowest, is Thursday: over the 8 weeks before
            // today every day has its centred week, and Thursday is the cheapest against it. Today, Monday 23-11, is k = 3:
            // the station's price in force is 1700 + 30 × 3 = 1790. Not Thursday: wait, 3 days to go. Ten restorations: medium.
            cheapest_weekday: 'thursday', now: '179.0', tomorrow: false,
            // 70 days of news (every day before today moved); the cycle stands on ten restorations.
            state: 'cycle', history: { days: 70, needed: 180 }, advice: 'wait', signal: 'weekday',
            reason: 'Thursday is the cheapest day of this weekly cycle over the last 8 weeks: in 3 days.',
            // Wait at most the 3 days to Thursday; the next restoration is expected on 20-11 + 7.
            horizon: { wait_days: 3, next_rise: '27-11-2026' }, expected_saving: false,
            track_record: trackRecordShown(trackRecord(SERIES, PERTH_TODAY, true)), confidence: 'medium',
          } });
        }
      });

      test('ulp-combined pools ulp91 (and e10, absent here): the same cycle', async () => {
        const r = await get(server, '/v1/cities/perth/cycle?fuel=ulp-combined');
        assert.equal(r.status, 200);
        assert.deepEqual((r.body as { data: { period_days: unknown; last_restoration: unknown } }).data.period_days, 7);
        assert.deepEqual((r.body as { data: { last_restoration: unknown } }).data.last_restoration, { date: '20-11-2026', rise: '18.0' });
        assert.deepEqual((r.body as { data: { restorations: unknown } }).data.restorations, RESTORATIONS);
      });

      test('a fuel with no history, and a city with none: no cycle, every figure false', async () => {
        for (const [path, id, name, fuel] of [['/v1/cities/perth/cycle?fuel=diesel', 'perth', 'Perth', 'diesel'], ['/v1/cities/hobart/cycle', 'hobart', 'Hobart', 'ulp91']]) {
          const r = await get(server, path ?? '');
          assert.equal(r.status, 200, path);
          assert.deepEqual(r.body, { data: { id, name, fuel, ...NONE } });
        }
      });

      test('every one of the 19 fuel ids is accepted', async () => {
        for (const fuel of FUELS) assert.equal((await get(server, `/v1/cities/sydney/cycle?fuel=${fuel}`)).status, 200, fuel);
      });

      test('an unknown fuel answers 400 invalid_parameter naming the parameter', async () => {
        for (const fuel of ['petrol', 'ulp%2091', 'ulp91,e10', '']) {
          const r = await get(server, `/v1/cities/perth/cycle?fuel=${fuel}`);
          assert.equal(r.status, 400, fuel);
          assert.deepEqual(r.body, { error: {
            code: 'invalid_parameter', message: `Parameter 'fuel' must be one of ${FUELS.join(', ')}.`, request_id: r.headers.get('x-request-id'),
          } });
        }
      });

      test('an unknown city answers 404 not_found; no token, 401; POST, 405', async () => {
        const r = await get(server, '/v1/cities/atlantis/cycle');
        assert.equal(r.status, 404);
        assert.deepEqual(r.body, { error: { code: 'not_found', message: "No city has the id 'atlantis'.", request_id: r.headers.get('x-request-id') } });
        assert.equal((await get(server, '/v1/cities/perth/cycle', { token: null })).status, 401);
        assert.equal((await get(server, '/v1/cities/perth/cycle', { method: 'POST' })).status, 405);
      });
    });
  }
}

for (const backend of testBackends()) {
  describe(`GET /v1/cities/{id}/cycle with tomorrow's prices published, on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    // Tomorrow 06:00 in Perth: the instant WA's next-day prices take effect.
    const SIX = dayStart('wa', PERTH_TODAY + 1) + 6 * 3600;
    before(async () => {
      ({ store, drop } = await backend.create());
      await store.upsertCities(CITIES);
      await store.applyBatch({ stations: STATIONS, prices: SAWTOOTH });
      // Gamma Perth publishes 182.0 for tomorrow (held until 06:00): 3.0 c/L above its 179.0 now.
      const held = await store.applyFeedBatch({ stations: [], prices: [{ feed: 'test', feedCode: '3', fuel: 'ulp91', at: SIX, priceTenths: 1820, available: true }] }, { now: NOW });
      assert.equal(held.pricesHeld, 1);
      server = await startServer(store, fixedClock(NOW));
    });
    after(async () => { await server.close(); await drop(); });

    test('tomorrow dearer at the same stations: fill up, with high confidence, whatever the cycle says', async () => {
      const r = await get(server, '/v1/cities/perth/cycle');
      assert.equal(r.status, 200);
      const data = (r.body as { data: Record<string, unknown> }).data;
      assert.deepEqual([data.phase, data.cheapest_weekday, data.now, data.tomorrow, data.advice, data.signal, data.horizon, data.expected_saving, data.confidence, data.reason], [
        'falling', 'thursday', '179.0', { change: '+3.0', stations: 1 }, 'fill-up', 'tomorrow', { wait_days: 0, next_rise: '27-11-2026' }, '3.0', 'high',
        "Tomorrow's published prices average 3.0 c/L more than today's at the same stations. The city's cycle runs every 7 days.",
      ]);
      // A fuel with nothing published for tomorrow: no tomorrow, and the cycle decides (no diesel history: no-cycle).
      const diesel = (await get(server, '/v1/cities/perth/cycle?fuel=diesel')).body as { data: Record<string, unknown> };
      assert.deepEqual([diesel.data.tomorrow, diesel.data.state, diesel.data.advice], [false, 'insufficient-history', 'unknown']);
    });
  });
}
