import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { VIC_REAL_MAY_1, VIC_REAL_MAY_3_NOON, ingestRealVic } from '../../fakes/vic.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import { fixedClock, get, servedStore, testBackends } from '../../helpers.ts';

/*
 * GET /v1/stations/{id}/prices against test/fixture.ts (feed 'test'), worked out by hand from its PRICES:
 *
 *   alpha-sydney (code 1)  ulp91: 180.0 (20-11 00:00), 190.0 (21-11 06:00), 185.0 (21-11 18:00 = 1795244400) -> 185.0 in stock
 *                          e10:   177.0 (22-11 00:00), then out of stock at 177.0 (23-11 08:00 = 1795381200) -> 177.0, not available
 *   beta-sydney (code 2)   ulp91: 170.0, out (22-11 12:00), 175.0 again (23-11 09:00 = 1795384800) -> 175.0 in stock
 *                          diesel: 199.0 (22-11 10:00 = 1795302000)
 *   alpha-sydney-2 (code 4) never reported: every fuel false
 *
 * Combined ids are never derived from their members (ulp-combined stays false beside ulp91).
 */

const FUEL_ORDER = ['e10', 'ulp91', 'ulp95', 'ulp98', 'diesel', 'pdiesel', 'lpg', 'e85', 'e5', 'ev',
  'b20', 'cng', 'lng', 'opal', 'lrp', 'ulsd', 'ulp-combined', 'pulp-combined', 'diesel-combined'];

const NONE = { price: false, available: false, updated_at: false, source: false, tomorrow: false };

function entries(reported: Record<string, { price: string | false; available: boolean; updated_at: number; source: string }>): unknown[] {
  return FUEL_ORDER.map((fuel) => ({ fuel, ...(reported[fuel] ?? NONE), tomorrow: false }));
}

for (const backend of testBackends()) {
  describe(`station prices on ${backend.name}`, () => {
    const { server } = servedStore(backend, fixedClock(NOW), (store) => loadFixture(store));

    test('a station with several fuels: the last report of each, one out of stock with its last price, the rest false', async () => {
      const r = await get(server, '/v1/stations/alpha-sydney/prices');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { data: { id: 'alpha-sydney', name: 'Alpha Sydney', prices: entries({
        e10: { price: '177.0', available: false, updated_at: 1_795_381_200, source: 'test' },
        ulp91: { price: '185.0', available: true, updated_at: 1_795_244_400, source: 'test' },
      }) } });
    });

    test('back in stock after an out-of-stock report: the new price, available', async () => {
      const r = await get(server, '/v1/stations/beta-sydney/prices');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { data: { id: 'beta-sydney', name: 'Beta Sydney', prices: entries({
        ulp91: { price: '175.0', available: true, updated_at: 1_795_384_800, source: 'test' },
        diesel: { price: '199.0', available: true, updated_at: 1_795_302_000, source: 'test' },
      }) } });
    });

    test('a station that never reported answers 19 entries of false', async () => {
      const r = await get(server, '/v1/stations/alpha-sydney-2/prices');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { data: { id: 'alpha-sydney-2', name: 'Alpha Sydney', prices: entries({}) } });
    });

    test('the entries are the 19 fuels in order, combined ids not derived from their members', async () => {
      const prices = (await get(server, '/v1/stations/beta-sydney/prices')).body as { data: { prices: Array<{ fuel: string; price: unknown }> } };
      assert.deepEqual(prices.data.prices.map((p) => p.fuel), FUEL_ORDER);
      for (const combined of ['ulp-combined', 'pulp-combined', 'diesel-combined']) {
        assert.equal(prices.data.prices.find((p) => p.fuel === combined)?.price, false, combined);
      }
    });

    test('an unknown station answers 404 not_found in the error shape', async () => {
      const r = await get(server, '/v1/stations/nowhere/prices');
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: { code: 'not_found', message: "No station has the id 'nowhere'.", request_id: r.headers.get('x-request-id') } });
    });

    test('POST answers 405 with Allow; no token answers 401', async () => {
      const post = await get(server, '/v1/stations/alpha-sydney/prices', { method: 'POST' });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD, OPTIONS');
      assert.equal((await get(server, '/v1/stations/alpha-sydney/prices', { token: null })).status, 401);
    });
  });
}

/*
 * The real Fair Fuel answers of 1 and 2 May 2026 (test/fixtures/feeds/vic/real/), ingested by the
 * VIC adapter from its fake in that order. From the raw captures:
 *
 *   Liberty Laverton North 24hr Unmanned  DSL  1 May file: in stock 243.9 at 2026-04-30T03:07:01Z
 *                                              2 May file: isAvailable false, price null, at 2026-05-01T07:26:12Z = 1777620372
 *     -> out of stock, showing its last real price 243.9
 *   BP Cohuna  P98 isAvailable false (price null) in both files: never in stock -> price false
 *              U91 199.9, DSL 262.9, LPG 134.9 in the 2 May file, all at 2026-04-30T21:28:45Z = 1777584525
 *
 * (2026-05-01T00:00:00Z = 1777593600: 2026-01-01 = 1767225600 plus 120 days.)
 */
const MAY_1 = VIC_REAL_MAY_1;
const MAY_3_NOON_MELBOURNE = VIC_REAL_MAY_3_NOON;

for (const backend of testBackends()) {
  describe(`station prices of real VIC answers on ${backend.name}`, () => {
    const clock = fixedClock(MAY_3_NOON_MELBOURNE);
    const { server } = servedStore(backend, clock, (store) => ingestRealVic(store, clock));

    test('a fuel out of stock shows its last real price, never "0.0"', async () => {
      const r = await get(server, '/v1/stations/liberty-laverton-north-24hr-unmanned/prices');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { data: { id: 'liberty-laverton-north-24hr-unmanned', name: 'Liberty Laverton North 24hr Unmanned', prices: entries({
        diesel: { price: '243.9', available: false, updated_at: MAY_1 + 26_772, source: 'vic' },
      }) } });
    });

    test('a fuel never reported in stock has price false', async () => {
      const at = MAY_1 - 86_400 + 21 * 3_600 + 28 * 60 + 45;
      const r = await get(server, '/v1/stations/bp-cohuna/prices');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { data: { id: 'bp-cohuna', name: 'BP Cohuna', prices: entries({
        ulp91: { price: '199.9', available: true, updated_at: at, source: 'vic' },
        ulp98: { price: false, available: false, updated_at: at, source: 'vic' },
        diesel: { price: '262.9', available: true, updated_at: at, source: 'vic' },
        lpg: { price: '134.9', available: true, updated_at: at, source: 'vic' },
      }) } });
    });

    test('coordinates are the feed\'s decimals rounded once: 144.85954996 is "144.8595"', async () => {
      const r = await get(server, '/v1/stations/ampol-foodary-avondale-heights');
      assert.equal(r.status, 200, r.text);
      const station = (r.body as { data: { latitude: string; longitude: string } }).data;
      // -37.75605183 -> -37.7560|5183: the dropped part is over a half, away from zero.
      assert.deepEqual([station.latitude, station.longitude], ['-37.7561', '144.8595']);
    });
  });
}
