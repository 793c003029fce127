/**
 * max_age (issue 31, "fresh only") on cheapest, the station list and the prices of one station or
 * many, against test/fixture.ts at NOW (23-11-2026 12:00 Sydney), ages worked out by hand:
 *
 *   alpha-sydney    ulp91 185.0 in stock, reported 21-11 18:00: 42 h ago; e10 177.0 out of stock, 23-11 08:00: 4 h
 *   beta-sydney     ulp91 175.0 in stock, 23-11 09:00: 3 h; diesel 199.0, 22-11 10:00: 26 h
 *   delta-country   diesel 210.0, 22-11 00:00: 36 h (NSW, in no city)
 *   gamma-perth     ulp91 165.0, 06:00 Perth = 09:00 Sydney: 3 h
 *
 * A price counts when reported at most max_age hours ago: exactly max_age hours is in.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodePolyline } from '../../../src/domain/route.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import { fixedClock, get, servedStore, testBackends } from '../../helpers.ts';

const HOUR = 3600;
const AGES = { alphaUlp91: (NOW - 1_795_244_400) / HOUR, betaUlp91: (NOW - 1_795_384_800) / HOUR, betaDiesel: (NOW - 1_795_302_000) / HOUR };
const MESSAGE = "Parameter 'max_age' must be a whole number of hours from 1 to 8760.";
const NONE = { price: false, available: false, updated_at: false, source: false, tomorrow: false };

type Item = { station_id: string; price: string };
const ranked = (body: unknown): string[] => ((body as { data: Item[] }).data).map((i) => `${i.station_id} ${i.price}`);
const ids = (body: unknown): string[] => ((body as { data: Array<{ id: string }> }).data).map((s) => s.id);

for (const backend of testBackends()) {
  describe(`max_age on ${backend.name}`, () => {
    const { server } = servedStore(backend, fixedClock(NOW), (store) => loadFixture(store));

    test('the ages the fixture gives, as worked out above', () => {
      assert.deepEqual(AGES, { alphaUlp91: 42, betaUlp91: 3, betaDiesel: 26 });
    });

    test('cheapest: prices older than max_age hours are left out; exactly max_age is in', async () => {
      const cases: Array<[string, string[]]> = [
        ['fuel=ulp91&state=nsw', ['beta-sydney 175.0', 'alpha-sydney 185.0']],
        ['fuel=ulp91&state=nsw&max_age=42', ['beta-sydney 175.0', 'alpha-sydney 185.0']],
        ['fuel=ulp91&state=nsw&max_age=41', ['beta-sydney 175.0']],
        ['fuel=ulp91&state=nsw&max_age=3', ['beta-sydney 175.0']],
        ['fuel=ulp91&state=nsw&max_age=2', []],
        ['fuel=ulp91&city=sydney&max_age=41', ['beta-sydney 175.0']],
        ['fuel=ulp91&near=-33.87,151.21&radius=5&max_age=41', ['beta-sydney 175.0']],
        ['fuel=ulp91&near=-33.87,151.21&radius=5', ['beta-sydney 175.0', 'alpha-sydney 185.0']],
        ['fuel=diesel&state=nsw&max_age=36', ['beta-sydney 199.0', 'delta-country 210.0']],
        ['fuel=diesel&state=nsw&max_age=35', ['beta-sydney 199.0']],
        ['fuel=diesel-combined&state=nsw&max_age=26', ['beta-sydney 199.0']],
      ];
      for (const [query, expected] of cases) {
        const r = await get(server, `/v1/prices/cheapest?${query}`);
        assert.equal(r.status, 200, query);
        assert.deepEqual(ranked(r.body), expected, query);
        assert.equal((r.body as { total_items: number }).total_items, expected.length, query);
      }
      // The same near search without max_age after one with it: what is kept per data version is every report's.
      assert.deepEqual(ranked((await get(server, '/v1/prices/cheapest?fuel=ulp91&near=-33.87,151.21&radius=5')).body), ['beta-sydney 175.0', 'alpha-sydney 185.0']);
      // day=tomorrow: not applied (published for the next day); none is held in the fixture.
      const tomorrow = await get(server, '/v1/prices/cheapest?fuel=ulp91&state=wa&day=tomorrow&max_age=1');
      assert.equal(tomorrow.status, 200);
      assert.deepEqual(ranked(tomorrow.body), []);
    });

    test('along a path: prices older than max_age hours are left out', async () => {
      // A path through Sydney's stations (alpha-sydney -33.87,151.21; beta-sydney -33.88,151.2), 5 km corridor:
      // ulp91 at alpha-sydney (42 h) and beta-sydney (3 h); delta-country (diesel) is 60 km away.
      const path = encodePolyline([{ latitude: -33.86, longitude: 151.18 }, { latitude: -33.89, longitude: 151.23 }]);
      const along = async (extra: string) => ranked((await get(server, `/v1/prices/along?fuel=ulp91&corridor=5&path=${encodeURIComponent(path)}${extra}`)).body);
      assert.deepEqual(await along(''), ['beta-sydney 175.0', 'alpha-sydney 185.0']);
      assert.deepEqual(await along('&max_age=42'), ['beta-sydney 175.0', 'alpha-sydney 185.0']);
      assert.deepEqual(await along('&max_age=41'), ['beta-sydney 175.0']);
      assert.deepEqual(await along('&max_age=2'), []);
    });

    test('the station list: only stations with an available price (of fuel, when given) reported within max_age hours', async () => {
      const cases: Array<[string, string[]]> = [
        // alpha-sydney's e10 report is 4 h old but out of stock; its ulp91 is 42 h old.
        ['state=nsw&max_age=24', ['beta-sydney']],
        ['state=nsw&max_age=42', ['alpha-sydney', 'beta-sydney', 'delta-country']],
        ['state=nsw&max_age=36', ['beta-sydney', 'delta-country']],
        ['fuel=diesel&max_age=30', ['beta-sydney']],
        ['fuel=ulp91&max_age=3', ['beta-sydney', 'gamma-perth']],
        ['near=-33.87,151.21&radius=5&max_age=24', ['beta-sydney']],
        ['near=-33.87,151.21&radius=5', ['alpha-sydney', 'beta-sydney', 'alpha-sydney-2']],
      ];
      for (const [query, expected] of cases) {
        const r = await get(server, `/v1/stations?${query}`);
        assert.equal(r.status, 200, query);
        assert.deepEqual(ids(r.body).sort(), [...expected].sort(), query);
      }
    });

    test('one station\'s prices and many: an entry older than max_age is answered as no report', async () => {
      const beta = (await get(server, '/v1/stations/beta-sydney/prices')).body as { data: { prices: Array<{ fuel: string }> } };
      const alpha = (await get(server, '/v1/stations/alpha-sydney/prices')).body as { data: { prices: Array<{ fuel: string }> } };
      // max_age=24: beta's diesel (26 h) and alpha's ulp91 (42 h) become no report; beta's ulp91 (3 h) and alpha's e10 (4 h, out of stock) stay.
      const aged = (data: { prices: Array<{ fuel: string }> }, old: string) => ({ ...data, prices: data.prices.map((e) => (e.fuel === old ? { fuel: e.fuel, ...NONE } : e)) });
      const betaFresh = aged(beta.data, 'diesel');
      const alphaFresh = aged(alpha.data, 'ulp91');
      assert.deepEqual(betaFresh.prices.find((e) => e.fuel === 'ulp91'), { fuel: 'ulp91', price: '175.0', available: true, updated_at: 1_795_384_800, source: 'test', tomorrow: false });
      assert.deepEqual(alphaFresh.prices.find((e) => e.fuel === 'e10'), { fuel: 'e10', price: '177.0', available: false, updated_at: 1_795_381_200, source: 'test', tomorrow: false });
      assert.deepEqual((await get(server, '/v1/stations/beta-sydney/prices?max_age=24')).body, { data: betaFresh });
      assert.deepEqual((await get(server, '/v1/stations/prices?ids=alpha-sydney,beta-sydney,nowhere&max_age=24')).body, { data: [alphaFresh, betaFresh], unknown: ['nowhere'] });
      // max_age=26 keeps beta's diesel (exactly 26 h).
      assert.deepEqual((await get(server, '/v1/stations/beta-sydney/prices?max_age=26')).body, beta);
    });

    test('every bad max_age answers 400 invalid_parameter with the same message, on every route that takes it', async () => {
      const routes = ['/v1/prices/cheapest?fuel=ulp91&state=nsw&', '/v1/prices/along?fuel=ulp91&path=_p~iF~ps%7CU_ulLnnqC&', '/v1/stations?', '/v1/stations/beta-sydney/prices?', '/v1/stations/prices?ids=beta-sydney&'];
      for (const route of routes) {
        for (const value of ['0', '8761', '1.5', 'abc', '-1', '1e3', '', ' 2']) {
          const r = await get(server, `${route}max_age=${encodeURIComponent(value)}`);
          assert.equal(r.status, 400, `${route} ${value}`);
          assert.deepEqual(r.body, { error: { code: 'invalid_parameter', message: MESSAGE, request_id: r.headers.get('x-request-id') } }, `${route} ${value}`);
        }
        assert.equal((await get(server, `${route}max_age=8760`)).status, 200, route);
      }
    });
  });
}
