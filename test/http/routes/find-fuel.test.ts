import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CITIES, NOW, STATIONS, loadFixture } from '../../fixture.ts';
import { fixedClock, get, servedStore, testBackends } from '../../helpers.ts';

/*
 * /v1/fuel-types, /v1/brands and the /v1/stations filters, against test/fixture.ts, worked out by hand:
 *
 *   id              brand   state postcode suburb  city    available current prices (at NOW)
 *   alpha-sydney    Ampol   nsw   2000     Sydney  sydney  ulp91 (its e10 is out of stock)
 *   alpha-sydney-2  Ampol   nsw   2000     ''      sydney  none
 *   beta-sydney     bp      nsw   2000     ''      sydney  ulp91, diesel
 *   delta-country   United  nsw   2000     ''      (none)  diesel
 *   gamma-perth     Caltex  wa    6000     ''      perth   ulp91
 */

const FUEL_TYPES = [
  { id: 'e10', name: 'E10', unit: 'c/L', combined_of: false },
  { id: 'ulp91', name: 'Unleaded 91', unit: 'c/L', combined_of: false },
  { id: 'ulp95', name: 'Premium unleaded 95', unit: 'c/L', combined_of: false },
  { id: 'ulp98', name: 'Premium unleaded 98', unit: 'c/L', combined_of: false },
  { id: 'diesel', name: 'Diesel', unit: 'c/L', combined_of: false },
  { id: 'pdiesel', name: 'Premium diesel', unit: 'c/L', combined_of: false },
  { id: 'lpg', name: 'LPG', unit: 'c/L', combined_of: false },
  { id: 'e85', name: 'E85', unit: 'c/L', combined_of: false },
  { id: 'e5', name: 'E5', unit: 'c/L', combined_of: false },
  { id: 'ev', name: 'Electric vehicle charging', unit: 'c/kWh', combined_of: false },
  { id: 'b20', name: 'Biodiesel B20', unit: 'c/L', combined_of: false },
  { id: 'cng', name: 'Compressed natural gas', unit: 'c/kg', combined_of: false },
  { id: 'lng', name: 'Liquefied natural gas', unit: 'c/kg', combined_of: false },
  { id: 'opal', name: 'Opal (low aromatic unleaded)', unit: 'c/L', combined_of: false },
  { id: 'lrp', name: 'Lead replacement petrol', unit: 'c/L', combined_of: false },
  { id: 'ulsd', name: 'Ultra-low sulphur diesel', unit: 'c/L', combined_of: false },
  { id: 'ulp-combined', name: 'Unleaded 91 and E10', unit: 'c/L', combined_of: ['ulp91', 'e10'] },
  { id: 'pulp-combined', name: 'Premium unleaded (95 and 98)', unit: 'c/L', combined_of: ['ulp95', 'ulp98'] },
  { id: 'diesel-combined', name: 'Diesel and premium diesel', unit: 'c/L', combined_of: ['diesel', 'pdiesel'] },
];

const SLUG_ACCEPTS = (name: string, what: string) =>
  `Parameter '${name}' must be a ${what} id: lowercase letters and digits in hyphen-separated words, at most 80 characters.`;
const SUBURB_ACCEPTS = "Parameter 'suburb' must be a suburb name: letters, digits, spaces and . ' ( ) -, starting with a letter or digit, at most 64 characters.";
const FUEL_ACCEPTS = "Parameter 'fuel' must be one of e10, ulp91, ulp95, ulp98, diesel, pdiesel, lpg, e85, e5, ev, b20, cng, lng, opal, lrp, ulsd, ulp-combined, pulp-combined, diesel-combined.";
const STATE_ACCEPTS = "Parameter 'state' must be one of nsw, vic, qld, wa, sa, tas, nt, act.";

interface Page { data: Array<{ id: string }>; total_items: number; total_pages: number; current_page: number }

for (const backend of testBackends()) {
  describe(`finding fuel on ${backend.name}`, () => {
    const { server } = servedStore(backend, fixedClock(NOW), (store) => loadFixture(store));

    /** The ids of a 200 list and its envelope. */
    async function ids(path: string): Promise<{ ids: string[]; total_items: number; total_pages: number; current_page: number }> {
      const r = await get(server, path);
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      const page = r.body as Page;
      return { ids: page.data.map((s) => s.id), total_items: page.total_items, total_pages: page.total_pages, current_page: page.current_page };
    }
    const list = (found: string[], pages = 1, current = 1, total = found.length) => ({ ids: found, total_items: total, total_pages: pages, current_page: current });
    const none = list([], 0);

    async function rejects(path: string, message: string): Promise<void> {
      const r = await get(server, path);
      assert.equal(r.status, 400, path);
      assert.deepEqual(r.body, { error: { code: 'invalid_parameter', message, request_id: r.headers.get('x-request-id') } }, path);
    }

    test('/v1/fuel-types lists the 19 fuels in order, named, with units and combined members', async () => {
      const r = await get(server, '/v1/fuel-types');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { data: FUEL_TYPES });
      assert.equal((await get(server, '/v1/fuel-types', { token: null })).status, 401);
      assert.equal((await get(server, '/v1/fuel-types', { method: 'POST' })).status, 405);
    });

    test('/v1/brands lists brands by id with station counts', async () => {
      const r = await get(server, '/v1/brands');
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        data: [
          { id: 'ampol', name: 'Ampol', station_count: 2 }, { id: 'bp', name: 'bp', station_count: 1 },
          { id: 'caltex', name: 'Caltex', station_count: 1 }, { id: 'united', name: 'United', station_count: 1 },
        ],
        total_items: 4, total_pages: 1, current_page: 1,
      });
    });

    test('/v1/brands by state (case-insensitive), an empty state, and a bad state', async () => {
      assert.deepEqual((await get(server, '/v1/brands?state=WA')).body,
        { data: [{ id: 'caltex', name: 'Caltex', station_count: 1 }], total_items: 1, total_pages: 1, current_page: 1 });
      assert.deepEqual(await ids('/v1/brands?state=nsw'), list(['ampol', 'bp', 'united']));
      assert.deepEqual(await ids('/v1/brands?state=tas'), none);
      await rejects('/v1/brands?state=nz', STATE_ACCEPTS);
      await rejects('/v1/brands?state=', STATE_ACCEPTS);
    });

    test('/v1/brands paginates as the other lists do', async () => {
      assert.deepEqual(await ids('/v1/brands?limit=2&page=2'), list(['caltex', 'united'], 2, 2, 4));
      assert.deepEqual(await ids('/v1/brands?limit=2&offset=3'), list(['united'], 2, 2, 4));
      assert.deepEqual(await ids('/v1/brands?limit=3&page=5'), list([], 2, 5, 4));
      await rejects('/v1/brands?page=1&offset=0', "Parameters 'page' and 'offset' cannot be used together; give one of them.");
      await rejects('/v1/brands?limit=0', "Parameter 'limit' must be a whole number from 1 to 100.");
    });

    test('stations by city, and city_id as the same filter', async () => {
      assert.deepEqual(await ids('/v1/stations?city=sydney'), list(['alpha-sydney', 'alpha-sydney-2', 'beta-sydney']));
      assert.deepEqual(await ids('/v1/stations?city_id=perth'), list(['gamma-perth']));
      assert.deepEqual(await ids('/v1/stations?city=Perth'), list(['gamma-perth']));
      assert.deepEqual(await ids('/v1/stations?city=sydney&city_id=sydney'), list(['alpha-sydney', 'alpha-sydney-2', 'beta-sydney']));
      await rejects('/v1/stations?city=sydney&city_id=perth', "Parameters 'city' and 'city_id' are the same filter; give one of them, or the same id in both.");
    });

    test('an unknown city or brand, or a city without stations, matches none', async () => {
      assert.deepEqual(await ids('/v1/stations?city=atlantis'), none);
      assert.deepEqual(await ids('/v1/stations?city=hobart'), none);
      assert.deepEqual(await ids('/v1/stations?brand=shell'), none);
      assert.deepEqual(await ids('/v1/stations?brand=shell&city=sydney'), none);
    });

    test('stations by suburb (whole, case-insensitive) and by postcode', async () => {
      assert.deepEqual(await ids('/v1/stations?suburb=Sydney'), list(['alpha-sydney']));
      assert.deepEqual(await ids('/v1/stations?suburb=SYDNEY'), list(['alpha-sydney']));
      assert.deepEqual(await ids('/v1/stations?suburb=Syd'), none);
      assert.deepEqual(await ids('/v1/stations?postcode=6000'), list(['gamma-perth']));
      assert.deepEqual(await ids('/v1/stations?postcode=2000'), list(['alpha-sydney', 'alpha-sydney-2', 'beta-sydney', 'delta-country']));
      assert.deepEqual(await ids('/v1/stations?postcode=3000'), none);
    });

    test('stations by brand id', async () => {
      assert.deepEqual(await ids('/v1/stations?brand=ampol'), list(['alpha-sydney', 'alpha-sydney-2']));
      assert.deepEqual(await ids('/v1/stations?brand=AMPOL'), list(['alpha-sydney', 'alpha-sydney-2']));
      assert.deepEqual(await ids('/v1/stations?brand=bp'), list(['beta-sydney']));
      assert.deepEqual(await ids('/v1/stations?brand=united'), list(['delta-country']));
    });

    test('stations selling a fuel now: an available current price, a combined id for any member', async () => {
      assert.deepEqual(await ids('/v1/stations?fuel=ulp91'), list(['alpha-sydney', 'beta-sydney', 'gamma-perth']));
      assert.deepEqual(await ids('/v1/stations?fuel=diesel'), list(['beta-sydney', 'delta-country']));
      // alpha-sydney's only e10 price is out of stock.
      assert.deepEqual(await ids('/v1/stations?fuel=e10'), none);
      assert.deepEqual(await ids('/v1/stations?fuel=ULP-combined'), list(['alpha-sydney', 'beta-sydney', 'gamma-perth']));
      assert.deepEqual(await ids('/v1/stations?fuel=diesel-combined'), list(['beta-sydney', 'delta-country']));
      assert.deepEqual(await ids('/v1/stations?fuel=pdiesel'), none);
      assert.deepEqual(await ids('/v1/stations?fuel=ev'), none);
    });

    test('filters combine, with state and with the page', async () => {
      assert.deepEqual(await ids('/v1/stations?city=sydney&fuel=diesel'), list(['beta-sydney']));
      assert.deepEqual(await ids('/v1/stations?state=nsw&brand=ampol&fuel=ulp91'), list(['alpha-sydney']));
      assert.deepEqual(await ids('/v1/stations?brand=ampol&suburb=sydney&postcode=2000&city_id=sydney'), list(['alpha-sydney']));
      assert.deepEqual(await ids('/v1/stations?state=wa&brand=ampol'), none);
      assert.deepEqual(await ids('/v1/stations?fuel=ulp91&postcode=2000'), list(['alpha-sydney', 'beta-sydney']));
      assert.deepEqual(await ids('/v1/stations?postcode=2000&fuel=diesel-combined&limit=1&page=2'), list(['delta-country'], 2, 2, 2));
      assert.deepEqual(await ids('/v1/stations?city=sydney&limit=2&offset=2'), list(['beta-sydney'], 2, 2, 3));
      assert.deepEqual(await ids('/v1/stations?brand=ampol&page=3'), list([], 1, 3, 2));
    });

    test('a filtered station comes whole, as in the unfiltered list', async () => {
      const all = (await get(server, '/v1/stations')).body as Page;
      const one = (await get(server, '/v1/stations?suburb=sydney')).body as Page;
      assert.deepEqual(one.data, all.data.filter((s) => s.id === 'alpha-sydney'));
    });

    test('every bad filter value is a 400 naming the parameter and what it accepts', async () => {
      for (const [name, what] of [['city', 'city'], ['city_id', 'city'], ['brand', 'brand']] as const) {
        for (const value of ['', 'b%20p', 'a_b', '-x', 'x-', 'a--b', 'x'.repeat(81), '%C3%A9']) await rejects(`/v1/stations?${name}=${value}`, SLUG_ACCEPTS(name, what));
      }
      for (const value of ['', '%20x', '-x', 'x;y', 'a%00b', 'x'.repeat(65)]) await rejects(`/v1/stations?suburb=${value}`, SUBURB_ACCEPTS);
      for (const value of ['', '200', '20000', 'abcd', '2%20000', '+200']) await rejects(`/v1/stations?postcode=${value}`, "Parameter 'postcode' must be 4 digits.");
      for (const value of ['', 'petrol', 'ulp', 'e10,diesel']) await rejects(`/v1/stations?fuel=${value}`, FUEL_ACCEPTS);
      await rejects('/v1/stations?city=sydney&city=perth', `Parameter 'city' must be given once; ${SLUG_ACCEPTS('city', 'city').slice("Parameter 'city' ".length)}`);
      await rejects('/v1/stations?fuel=e10&fuel=ulp91', `Parameter 'fuel' must be given once; ${FUEL_ACCEPTS.slice("Parameter 'fuel' ".length)}`);
    });

    test('without filters the list is what it was', async () => {
      const plain = await get(server, '/v1/stations');
      assert.equal((await get(server, '/v1/stations?colour=red')).text, plain.text);
      assert.deepEqual((plain.body as Page).data.map((s) => s.id), ['alpha-sydney', 'alpha-sydney-2', 'beta-sydney', 'delta-country', 'gamma-perth']);
    });
  });
}

for (const backend of testBackends()) {
  describe(`brands spelt several ways, and stations without one, on ${backend.name}`, () => {
    const { server } = servedStore(backend, fixedClock(NOW), async (store) => {
      await store.upsertCities(CITIES);
      const base = STATIONS[1] ?? assert.fail('fixture station');
      const spelt = (feedCode: string, name: string, brand: string) => ({ ...base, feedCode, slug: name, name, brand });
      await store.applyBatch({
        stations: [spelt('a', 'One', 'BP'), spelt('b', 'Two', 'bp'), spelt('c', 'Three', 'bp'), spelt('d', 'Four', ''), spelt('e', 'Five', '--')],
        prices: [],
      });
    });

    test('one brand for BP and bp, named as most spell it; no brand for an empty name', async () => {
      assert.deepEqual((await get(server, '/v1/brands')).body, { data: [{ id: 'bp', name: 'bp', station_count: 3 }], total_items: 1, total_pages: 1, current_page: 1 });
      const r = await get(server, '/v1/stations?brand=bp');
      assert.deepEqual((r.body as Page).data.map((s) => s.id), ['one', 'three', 'two']);
      assert.equal((r.body as Page).total_items, 3);
      assert.equal((await get(server, '/v1/stations?brand=bp&state=nsw&city=sydney')).status, 200);
      assert.equal(((await get(server, '/v1/stations?brand=station')).body as Page).total_items, 0);
    });
  });
}
