import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NOW, loadFixture } from '../fixture.ts';
import { fixedClock, get, servedStore, testBackends } from '../helpers.ts';

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

const NONE = { price: false, available: false, updated_at: false, source: false };

function entries(reported: Record<string, { price: string; available: boolean; updated_at: number; source: string }>): unknown[] {
  return FUEL_ORDER.map((fuel) => ({ fuel, ...(reported[fuel] ?? NONE) }));
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
