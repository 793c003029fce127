import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FRESH_DAYS, freshDailyMeans } from '../../../src/domain/fresh.ts';
import { dayStart, localDayOf } from '../../../src/domain/time.ts';
import { trackRecord } from '../../../src/domain/track-record.ts';
import type { Batch, PriceStore, StationInput } from '../../../src/storage/store.ts';
import { CITIES, NOW, STATIONS } from '../../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends } from '../../helpers.ts';

// Stale prices and the cycle (domain/fresh.ts). As in cycle.test.ts, Gamma Perth (feed code 3) reports ulp91 at
// 00:00 every day from today − 70: 1700 + 30 × (6 − k) on the cycle's day k, restorations of 18.0 c/L on
// today − 3 − 7n. Seven more Perth stations (codes c1..c7) report 190.0 once, at 06:00 on today − 70, and never
// again: closed. The history keeps their 190.0 (a price holds until the next report), so each restoration shows
// there as 18.0 / 8 = 2.25 c/L, under the 3.0 c/L a restoration needs: no cycle. WA's FRESH_DAYS is 1: the closed
// stations count on today − 70 (their report's day) and today − 69, not after, so the cycle sees Gamma's
// sawtooth alone and answers exactly as cycle.test.ts does for Gamma by itself.
const PERTH_TODAY = localDayOf('wa', NOW);
const mod = (a: number, n: number): number => ((a % n) + n) % n;
const gamma = (day: number): number => 1700 + 30 * (6 - mod(day - (PERTH_TODAY - 3), 7));
const CLOSED: StationInput[] = [1, 2, 3, 4, 5, 6, 7].map((n) => ({
  feed: 'test', feedCode: `c${n}`, slug: `Closed Perth ${n}`, name: `Closed Perth ${n}`, brand: 'Independent', address: '', street: '', suburb: '',
  postcode: '6000', state: 'wa', phone: '', website: '', latitude: -31.95 + n / 1000, longitude: 115.86,
}));
const PRICES: Batch['prices'] = [];
for (let day = PERTH_TODAY - 70; day <= PERTH_TODAY; day++) {
  PRICES.push({ feed: 'test', feedCode: '3', fuel: 'ulp91', at: dayStart('wa', day), priceTenths: gamma(day), available: true });
}
for (const s of CLOSED) PRICES.push({ feed: 'test', feedCode: s.feedCode, fuel: 'ulp91', at: dayStart('wa', PERTH_TODAY - 70) + 6 * 3600, priceTenths: 1900, available: true });

const RESTORATIONS = ['18-09-2026', '25-09-2026', '02-10-2026', '09-10-2026', '16-10-2026', '23-10-2026', '30-10-2026', '06-11-2026', '13-11-2026', '20-11-2026']
  .map((date) => ({ date, rise: '18.0' }));

/** The fresh series the cycle reads (built as in the storage test below): the closed stations count on their report's day and the next. */
const FRESH_SERIES = Array.from({ length: 70 }, (_, i) => {
  const day = PERTH_TODAY - 70 + i;
  const closed = day <= PERTH_TODAY - 70 + FRESH_DAYS.wa ? 7 : 0;
  return { day, meanTenths: (gamma(day) + 1900 * closed) / (1 + closed) };
});
/** The track record as the answer shows it (its figures are checked against a reference in test/domain/track-record.test.ts). */
function shownTrack(t: ReturnType<typeof trackRecord>): unknown {
  const signed = (x: number): string => { const c = (Math.abs(x) / 10).toFixed(1); return c === '0.0' ? c : `${x < 0 ? '-' : '+'}${c}`; };
  return t === null ? false : {
    days: t.days, windows: t.windows, advice: signed(t.adviceTenths), best_rule: { rule: t.bestRule.rule, saved: signed(t.bestRule.savedTenths) },
    oracle: (t.oracleTenths / 10).toFixed(1),
  };
}

for (const backend of testBackends()) {
  describe(`the cycle reads fresh prices only, on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    before(async () => {
      ({ store, drop } = await backend.create());
      await store.upsertCities(CITIES);
      await store.applyBatch({ stations: [...STATIONS, ...CLOSED], prices: PRICES });
      await store.seal(NOW);
      server = await startServer(store, fixedClock(NOW));
    });
    after(async () => { await server.close(); await drop(); });

    test('the history counts the closed stations: the restoration of 20-11-2026 rises 2.25 c/L there', async () => {
      const r = await get(server, '/v1/cities/perth/history?timeframe=last-week');
      assert.equal(r.status, 200);
      const entries = (r.body as { data: { history: Array<{ fuel: string; records: Array<{ date: string; average: string }> | false }> } }).data.history;
      const byDate = new Map((entries.find((e) => e.fuel === 'ulp91')?.records || []).map((h) => [h.date, h.average]));
      // 19-11 is k = 6: (1700 + 7 × 1900) / 8 = 1875 tenths, $1.875 -> 1.88; 20-11 is k = 0: (1880 + 13300) / 8 = 1897.5, $1.8975 -> 1.90.
      assert.equal(byDate.get('19-11-2026'), '1.88');
      assert.equal(byDate.get('20-11-2026'), '1.90');
    });

    test('storage gives the fresh parts: the closed stations on their report\'s day and the day after, Gamma every day', async () => {
      const from = PERTH_TODAY - 72;
      const parts = await store.cityFreshParts('perth', 'ulp91', from, PERTH_TODAY);
      assert.equal(parts.sealedBefore, PERTH_TODAY);
      const expected: Array<{ day: number; meanTenths: number }> = [];
      for (let day = PERTH_TODAY - 70; day < PERTH_TODAY; day++) {
        const closed = day <= PERTH_TODAY - 70 + FRESH_DAYS.wa ? 7 : 0;
        expected.push({ day, meanTenths: (gamma(day) + 1900 * closed) / (1 + closed) });
      }
      const got = freshDailyMeans(parts, FRESH_DAYS.wa, from, PERTH_TODAY);
      assert.deepEqual(got.map((d) => d.day), expected.map((d) => d.day));
      for (const [i, d] of got.entries()) assert.ok(Math.abs(d.meanTenths - (expected[i]?.meanTenths ?? NaN)) < 1e-9, `day ${d.day}: ${d.meanTenths}`);
    });

    test('the cycle answers as for Gamma alone: ten restorations of 18.0 c/L, weekly, falling, wait', async () => {
      const r = await get(server, '/v1/cities/perth/cycle');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { data: {
        id: 'perth', name: 'Perth', fuel: 'ulp91', cycles: true, period_days: 7,
        last_restoration: { date: '20-11-2026', rise: '18.0' }, restorations: RESTORATIONS, days_since_restoration: 3, phase: 'falling',
        // now: the closed stations' 190.0 is 70 days old, so only Gamma's 179.0 (k = 3) is in force and fresh.
        cheapest_weekday: 'thursday', now: '179.0', tomorrow: false,
        state: 'cycle', history: { days: 70, needed: 180 }, advice: 'wait', signal: 'weekday',
        reason: 'Thursday is the cheapest day of this weekly cycle over the last 8 weeks: in 3 days.',
        horizon: { wait_days: 3, next_rise: '27-11-2026' }, expected_saving: false,
        // Over the fresh series (the closed stations on today − 70 and − 69 only), as the previous test builds it.
        track_record: shownTrack(trackRecord(FRESH_SERIES, PERTH_TODAY, true)), confidence: 'medium',
      } });
    });
  });
}
