import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Batch, CityInput, StationInput } from '../../../src/storage/store.ts';
import { FUELS } from '../../../src/domain/fuels.ts';
import { NOW } from '../../fixture.ts';
import { fixedClock, get, servedStore, snapshot, testBackends } from '../../helpers.ts';

/*
 * near=, /v1/prices/cheapest and /v1/prices against a dataset made for them, worked out by hand.
 *
 * The point P is -33.87,151.2 (Testville's centre). Stations on P's meridian are a whole number
 * of 0.0001 degrees of latitude away, each 6371 km * pi / 180 / 10^4 = 11.1194927 m, so:
 *
 *   id           where               metres from P                        distance_km
 *   dry-station  P itself            0                                    0.0
 *   north-one    -33.8610            90 * 11.1194927 = 1000.75 -> 1001    1.0
 *   twin-a       -33.8880            180 * 11.1194927 = 2001.51 -> 2002   2.0   (twin-b at the same spot)
 *   east         -33.8700,151.2400   2 * 6371 km * asin(cos 33.87 * sin 0.02) = 3693.02 -> 3693   3.7
 *   edge-north   -33.8250            450 * 11.1194927 = 5003.77 -> 5004   5.0   (exactly on radius=5.004)
 *   far-south    -34.1500            2800 * 11.1194927 = 31134.58 -> 31135  31.1 (beyond Testville's 25 km: no city)
 *   vic-one      Melbourne, VIC
 *
 * Current prices (reported at T = NOW - 3600), in tenths of a cent:
 *   north-one ulp91 1800, e10 1760 | twin-a ulp91 1750 | twin-b ulp91 1750, e10 1500 out of stock
 *   east ulp91 1750 | edge-north ulp91 1700 | far-south ulp91 1610 | vic-one ulp91 1500
 *   dry-station ulp91 1400 out of stock (its only report). Nobody sells lpg.
 */

const T = NOW - 3600;
const P = '-33.87,151.2';

const CITIES: CityInput[] = [
  { id: 'testville', name: 'Testville', state: 'nsw', latitude: -33.87, longitude: 151.2 },
  { id: 'melbourne', name: 'Melbourne', state: 'vic', latitude: -37.8136, longitude: 144.9631 },
];

interface Place { code: string; name: string; brand: string; state: 'nsw' | 'vic'; latitude: number; longitude: number }
const PLACES: Place[] = [
  { code: '1', name: 'North One', brand: 'Ampol', state: 'nsw', latitude: -33.861, longitude: 151.2 },
  { code: '2', name: 'Twin A', brand: 'bp', state: 'nsw', latitude: -33.888, longitude: 151.2 },
  { code: '3', name: 'Twin B', brand: 'bp', state: 'nsw', latitude: -33.888, longitude: 151.2 },
  { code: '4', name: 'Edge North', brand: 'Shell', state: 'nsw', latitude: -33.825, longitude: 151.2 },
  { code: '5', name: 'East', brand: 'Caltex', state: 'nsw', latitude: -33.87, longitude: 151.24 },
  { code: '6', name: 'Far South', brand: 'United', state: 'nsw', latitude: -34.15, longitude: 151.2 },
  { code: '7', name: 'Vic One', brand: 'Coles Express', state: 'vic', latitude: -37.8136, longitude: 144.9631 },
  { code: '8', name: 'Dry Station', brand: 'Metro', state: 'nsw', latitude: -33.87, longitude: 151.2 },
];
const STATIONS: StationInput[] = PLACES.map((p) => ({
  feed: 'near', feedCode: p.code, slug: p.name, name: p.name, brand: p.brand, address: `${p.code} Test Road`, street: `${p.code} Test Road`,
  suburb: '', postcode: p.state === 'nsw' ? '2000' : '3000', state: p.state, phone: '', website: '', latitude: p.latitude, longitude: p.longitude,
}));

const price = (feedCode: string, fuel: Batch['prices'][number]['fuel'], priceTenths: number, available = true) =>
  ({ feed: 'near', feedCode, fuel, at: T, priceTenths, available });
const PRICES: Batch['prices'] = [
  price('1', 'ulp91', 1800), price('1', 'e10', 1760), price('2', 'ulp91', 1750), price('3', 'ulp91', 1750), price('3', 'e10', 1500, false),
  price('5', 'ulp91', 1750), price('4', 'ulp91', 1700), price('6', 'ulp91', 1610), price('7', 'ulp91', 1500), price('8', 'ulp91', 1400, false),
];

/** What a list shows of a station, as stored (coordinates to 4 decimals). */
const SHOWN: Record<string, { name: string; brand: string; address: string; latitude: string; longitude: string }> = {
  'north-one': { name: 'North One', brand: 'Ampol', address: '1 Test Road', latitude: '-33.8610', longitude: '151.2000' },
  'twin-a': { name: 'Twin A', brand: 'bp', address: '2 Test Road', latitude: '-33.8880', longitude: '151.2000' },
  'twin-b': { name: 'Twin B', brand: 'bp', address: '3 Test Road', latitude: '-33.8880', longitude: '151.2000' },
  'edge-north': { name: 'Edge North', brand: 'Shell', address: '4 Test Road', latitude: '-33.8250', longitude: '151.2000' },
  'east': { name: 'East', brand: 'Caltex', address: '5 Test Road', latitude: '-33.8700', longitude: '151.2400' },
  'far-south': { name: 'Far South', brand: 'United', address: '6 Test Road', latitude: '-34.1500', longitude: '151.2000' },
  'vic-one': { name: 'Vic One', brand: 'Coles Express', address: '7 Test Road', latitude: '-37.8136', longitude: '144.9631' },
};
const item = (id: string, cents: string, distance?: string) => {
  const s = SHOWN[id] ?? assert.fail(id);
  return { station_id: id, ...s, price: cents, updated_at: T, ...(distance === undefined ? {} : { distance_km: distance }) };
};

type Figures = [average: string, min: string, max: string, stations: number];
/** A summary's 19 entries: the fuels given, every other false, false, false, 0. */
function summary(given: Partial<Record<string, Figures>>) {
  return FUELS.map((fuel) => {
    const f = given[fuel];
    return f ? { fuel, average: f[0], min: f[1], max: f[2], stations: f[3] } : { fuel, average: false, min: false, max: false, stations: 0 };
  });
}

const NEAR_ACCEPTS = "Parameter 'near' must be LAT,LNG in decimal degrees (latitude -90 to 90, longitude -180 to 180), e.g. -33.8688,151.2093.";
const RADIUS_ACCEPTS = "Parameter 'radius' must be a distance in km from 0.1 to 100, at most 3 decimals, e.g. 2.5.";
const FUEL_ONE_OF = 'must be one of e10, ulp91, ulp95, ulp98, diesel, pdiesel, lpg, e85, e5, ev, b20, cng, lng, opal, lrp, ulsd, ulp-combined, pulp-combined, diesel-combined.';
const ONE_SCOPE = 'Give exactly one of near=LAT,LNG, city or state: the stations to rank.';

for (const backend of testBackends()) {
  describe(`near, cheapest and price summaries on ${backend.name}`, () => {
    const served = servedStore(backend, fixedClock(NOW), async (store) => {
      await store.upsertCities(CITIES);
      await store.applyBatch({ stations: STATIONS, prices: PRICES });
    });
    const server = served.server;

    async function ok(path: string): Promise<unknown> {
      const r = await get(server, path);
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      return r.body;
    }
    /** A station list's ids with their distances, and its envelope. */
    async function near(path: string): Promise<{ found: string[]; total_items: number; total_pages: number; current_page: number }> {
      const page = await ok(path) as { data: Array<{ id: string; distance_km?: string }>; total_items: number; total_pages: number; current_page: number };
      return { found: page.data.map((s) => `${s.id} ${s.distance_km ?? '-'}`), total_items: page.total_items, total_pages: page.total_pages, current_page: page.current_page };
    }
    const page = (found: string[], total = found.length, pages = found.length === 0 ? 0 : 1, current = 1) => ({ found, total_items: total, total_pages: pages, current_page: current });
    async function rejects(path: string, message: string, status = 400, code = 'invalid_parameter'): Promise<void> {
      const r = await get(server, path);
      assert.equal(r.status, status, path);
      assert.deepEqual(r.body, { error: { code, message, request_id: r.headers.get('x-request-id') } }, path);
    }

    test('near: the stations within 5 km, nearest first, ties by id, each with distance_km; one just beyond is out', async () => {
      assert.deepEqual(await near(`/v1/stations?near=${P}`), page(['dry-station 0.0', 'north-one 1.0', 'twin-a 2.0', 'twin-b 2.0', 'east 3.7']));
      const first = (await ok(`/v1/stations?near=${P}&limit=1`) as { data: unknown[] }).data;
      assert.deepEqual(first, [{
        id: 'dry-station', name: 'Dry Station', brand: 'Metro', address: '8 Test Road', street: '8 Test Road', suburb: '', postcode: '2000',
        state: 'nsw', phone: '', website: '', latitude: '-33.8700', longitude: '151.2000', distance_km: '0.0',
      }]);
    });

    test('near: a station exactly on the radius (to the metre) is in, a metre less and it is out', async () => {
      assert.deepEqual((await near(`/v1/stations?near=${P}&radius=5.004`)).found.at(-1), 'edge-north 5.0');
      assert.equal((await near(`/v1/stations?near=${P}&radius=5.004`)).total_items, 6);
      assert.equal((await near(`/v1/stations?near=${P}&radius=5.003`)).total_items, 5);
      assert.deepEqual(await near(`/v1/stations?near=${P}&radius=0.1`), page(['dry-station 0.0']));
      // With another filter the search goes through storage's box rather than the position index: the same rule.
      assert.equal((await near(`/v1/stations?near=${P}&radius=5.004&state=nsw`)).found.at(-1), 'edge-north 5.0');
      assert.equal((await near(`/v1/stations?near=${P}&radius=5.003&state=nsw`)).total_items, 5);
      assert.deepEqual(await near(`/v1/stations?near=${P}&radius=100&state=nsw`), await near(`/v1/stations?near=${P}&radius=100`));
      assert.deepEqual(await near(`/v1/stations?near=${P}&radius=100`),
        page(['dry-station 0.0', 'north-one 1.0', 'twin-a 2.0', 'twin-b 2.0', 'east 3.7', 'edge-north 5.0', 'far-south 31.1']));
      // The same point written otherwise, and a point where nothing is.
      assert.deepEqual((await near('/v1/stations?near=-33.8700,151.2000')).total_items, 5);
      assert.deepEqual(await near('/v1/stations?near=0,0&radius=100'), page([]));
    });

    test('near combines with the other filters and pages', async () => {
      assert.deepEqual(await near(`/v1/stations?near=${P}&fuel=ulp91`), page(['north-one 1.0', 'twin-a 2.0', 'twin-b 2.0', 'east 3.7']));
      assert.deepEqual(await near(`/v1/stations?near=${P}&brand=bp`), page(['twin-a 2.0', 'twin-b 2.0']));
      assert.deepEqual(await near(`/v1/stations?near=${P}&state=vic&radius=100`), page([]));
      assert.deepEqual(await near(`/v1/stations?near=${P}&city=testville&radius=100`),
        page(['dry-station 0.0', 'north-one 1.0', 'twin-a 2.0', 'twin-b 2.0', 'east 3.7', 'edge-north 5.0']));
      assert.deepEqual(await near(`/v1/stations?near=${P}&limit=2&page=2`), page(['twin-a 2.0', 'twin-b 2.0'], 5, 3, 2));
      assert.deepEqual(await near(`/v1/stations?near=${P}&limit=2&offset=4`), page(['east 3.7'], 5, 3, 3));
      assert.deepEqual(await near(`/v1/stations?near=${P}&page=9`), page([], 5, 1, 9));
      // Without near, the list is by id and carries no distance.
      assert.deepEqual((await near('/v1/stations?state=vic')).found, ['vic-one -']);
    });

    test('cheapest near a point: by price, then distance, then id; only available prices; desc is dearest first', async () => {
      assert.deepEqual(await ok(`/v1/prices/cheapest?fuel=ulp91&near=${P}`), {
        data: [item('twin-a', '175.0', '2.0'), item('twin-b', '175.0', '2.0'), item('east', '175.0', '3.7'), item('north-one', '180.0', '1.0')],
        total_items: 4, total_pages: 1, current_page: 1,
      });
      assert.deepEqual(await ok(`/v1/prices/cheapest?fuel=ulp91&near=${P}&order=desc`), {
        data: [item('north-one', '180.0', '1.0'), item('twin-a', '175.0', '2.0'), item('twin-b', '175.0', '2.0'), item('east', '175.0', '3.7')],
        total_items: 4, total_pages: 1, current_page: 1,
      });
      const wider = await ok(`/v1/prices/cheapest?fuel=ULP91&near=${P}&radius=5.004&limit=2`) as { data: unknown[]; total_items: number };
      assert.deepEqual([wider.data, wider.total_items], [[item('edge-north', '170.0', '5.0'), item('twin-a', '175.0', '2.0')], 5]);
    });

    test('cheapest of a combined fuel ranks each station once, by its lowest available member price', async () => {
      assert.deepEqual(await ok(`/v1/prices/cheapest?fuel=ulp-combined&near=${P}`), {
        data: [item('twin-a', '175.0', '2.0'), item('twin-b', '175.0', '2.0'), item('east', '175.0', '3.7'), item('north-one', '176.0', '1.0')],
        total_items: 4, total_pages: 1, current_page: 1,
      });
      assert.deepEqual(await ok(`/v1/prices/cheapest?fuel=e10&near=${P}`), { data: [item('north-one', '176.0', '1.0')], total_items: 1, total_pages: 1, current_page: 1 });
      assert.deepEqual(await ok(`/v1/prices/cheapest?fuel=lpg&near=${P}&radius=100`), { data: [], total_items: 0, total_pages: 0, current_page: 1 });
      assert.deepEqual(await ok('/v1/prices/cheapest?fuel=lpg&state=nsw'), { data: [], total_items: 0, total_pages: 0, current_page: 1 });
    });

    test('cheapest in a state and in a city: ties by id; the first price is the scope\'s min', async () => {
      assert.deepEqual(await ok('/v1/prices/cheapest?fuel=ulp91&state=nsw'), {
        data: [item('far-south', '161.0'), item('edge-north', '170.0'), item('east', '175.0'), item('twin-a', '175.0'), item('twin-b', '175.0'), item('north-one', '180.0')],
        total_items: 6, total_pages: 1, current_page: 1,
      });
      assert.deepEqual(await ok('/v1/prices/cheapest?fuel=ulp91&state=NSW&limit=2&page=2'),
        { data: [item('east', '175.0'), item('twin-a', '175.0')], total_items: 6, total_pages: 3, current_page: 2 });
      assert.deepEqual(await ok('/v1/prices/cheapest?fuel=ulp91&state=vic'), { data: [item('vic-one', '150.0')], total_items: 1, total_pages: 1, current_page: 1 });
      const city = await ok('/v1/prices/cheapest?fuel=ulp91&city=testville') as { data: Array<{ station_id: string; price: string }>; total_items: number };
      assert.deepEqual(city.data.map((i) => `${i.station_id} ${i.price}`), ['edge-north 170.0', 'east 175.0', 'twin-a 175.0', 'twin-b 175.0', 'north-one 180.0']);
      const spread = await ok('/v1/cities/testville/spread') as { data: { spread: Array<{ fuel: string; min: string }> } };
      assert.equal(city.data[0]?.price, spread.data.spread.find((s) => s.fuel === 'ulp91')?.min);
      const state = await ok('/v1/prices?state=nsw') as { data: { prices: Array<{ fuel: string; min: string }> } };
      assert.equal('161.0', state.data.prices.find((s) => s.fuel === 'ulp91')?.min);
    });

    test('/v1/prices: the nation, a state and a city, 19 fuels each, from the totals kept on write', async () => {
      assert.deepEqual(await ok('/v1/prices'), { data: { scope: { type: 'national', id: 'au', name: 'Australia' }, prices: summary({
        // ulp91: (1800 + 1750 * 3 + 1700 + 1610 + 1500) / 7 = 1694.3 tenths; ulp-combined adds north-one's e10: 13620 / 8 = 1702.5.
        'e10': ['1.76', '176.0', '176.0', 1], 'ulp91': ['1.69', '150.0', '180.0', 7], 'ulp-combined': ['1.70', '150.0', '180.0', 8],
      }) } });
      assert.deepEqual(await ok('/v1/prices?state=nsw'), { data: { scope: { type: 'state', id: 'nsw', name: 'New South Wales' }, prices: summary({
        // ulp91: 10360 / 6 = 1726.7; ulp-combined: 12120 / 7 = 1731.4.
        'e10': ['1.76', '176.0', '176.0', 1], 'ulp91': ['1.73', '161.0', '180.0', 6], 'ulp-combined': ['1.73', '161.0', '180.0', 7],
      }) } });
      assert.deepEqual(await ok('/v1/prices?state=VIC'), { data: { scope: { type: 'state', id: 'vic', name: 'Victoria' }, prices: summary({
        'ulp91': ['1.50', '150.0', '150.0', 1], 'ulp-combined': ['1.50', '150.0', '150.0', 1],
      }) } });
      assert.deepEqual(await ok('/v1/prices?state=tas'), { data: { scope: { type: 'state', id: 'tas', name: 'Tasmania' }, prices: summary({}) } });
      assert.deepEqual(await ok('/v1/prices?city=testville'), { data: { scope: { type: 'city', id: 'testville', name: 'Testville' }, prices: summary({
        // Not far-south (no city): ulp91 8750 / 5 = 1750; ulp-combined 10510 / 6 = 1751.7.
        'e10': ['1.76', '176.0', '176.0', 1], 'ulp91': ['1.75', '170.0', '180.0', 5], 'ulp-combined': ['1.75', '170.0', '180.0', 6],
      }) } });
      // A city's summary says what its spread says.
      const spread = await ok('/v1/cities/testville/spread') as { data: { spread: unknown[] } };
      const prices = await ok('/v1/prices?city=testville') as { data: { prices: Array<Record<string, unknown>> } };
      assert.deepEqual(prices.data.prices.map(({ stations: _, ...rest }) => rest), spread.data.spread);
    });

    test('the summaries follow a write', async () => {
      // Near a point too: twin-a down to 169.0 leads, and back to 175.0 it does not.
      const twinA = (tenths: number, at: number) => served.store().applyBatch({ stations: [], prices: [{ feed: 'near', feedCode: '2', fuel: 'ulp91', at, priceTenths: tenths, available: true }] });
      await twinA(1690, T + 30);
      assert.deepEqual((await ok(`/v1/prices/cheapest?fuel=ulp91&near=${P}&limit=1`) as { data: unknown[] }).data, [{ ...item('twin-a', '169.0', '2.0'), updated_at: T + 30 }]);
      await twinA(1750, T + 40);
      assert.deepEqual((await ok(`/v1/prices/cheapest?fuel=ulp91&near=${P}&limit=1`) as { data: unknown[] }).data, [{ ...item('twin-a', '175.0', '2.0'), updated_at: T + 40 }]);
      const moved = { ...STATIONS[6] ?? assert.fail('vic-one'), state: 'nsw' as const };
      const twice = await served.store().applyBatch({ stations: [], prices: [{ feed: 'near', feedCode: '7', fuel: 'ulp91', at: T + 60, priceTenths: 1520, available: true }] });
      assert.equal(twice.pricesAccepted, 1);
      const vic = await ok('/v1/prices?state=vic') as { data: { prices: Array<{ fuel: string; average: string }> } };
      assert.equal(vic.data.prices.find((p) => p.fuel === 'ulp91')?.average, '1.52');
      // vic-one said to be in NSW: its price leaves Victoria's totals for NSW's.
      await served.store().applyBatch({ stations: [moved], prices: [] });
      const after = await ok('/v1/prices?state=vic') as { data: { prices: Array<{ fuel: string; stations: number }> } };
      assert.equal(after.data.prices.find((p) => p.fuel === 'ulp91')?.stations, 0);
      const nsw = await ok('/v1/prices?state=nsw') as { data: { prices: Array<{ fuel: string; min: string; stations: number }> } };
      assert.deepEqual(nsw.data.prices.find((p) => p.fuel === 'ulp91'), { fuel: 'ulp91', average: '1.70', min: '152.0', max: '180.0', stations: 7 });
      // And back, with its first price again.
      await served.store().applyBatch({ stations: [STATIONS[6] ?? assert.fail('vic-one')], prices: [{ feed: 'near', feedCode: '7', fuel: 'ulp91', at: T + 120, priceTenths: 1500, available: true }] });
      assert.deepEqual((await ok('/v1/prices?state=vic') as { data: { prices: unknown[] } }).data.prices, summary({
        'ulp91': ['1.50', '150.0', '150.0', 1], 'ulp-combined': ['1.50', '150.0', '150.0', 1],
      }));
    });

    test('every bad parameter is a 400 naming it and what it accepts; an unknown city a 404; nothing stored changes', async () => {
      const before = await snapshot(served.store());
      for (const value of ['', 'x', '-33.87', '-33.87,151.2,1', '91,0', '-90.5,0', '0,180.01', '-33.87,-181', '1e1,2', '%20-33.87,151.2', '-33.87,%20151.2', '-33.87;151.2', '0x10,0', `1.${'0'.repeat(11)},0`]) {
        await rejects(`/v1/stations?near=${value}`, NEAR_ACCEPTS);
        await rejects(`/v1/prices/cheapest?fuel=e10&near=${value}`, NEAR_ACCEPTS);
      }
      for (const value of ['', '0', '0.09', '0.0999', '100.001', '101', '1000', 'abc', '5km', '-1', '1e1', '5.0001', '%205']) {
        await rejects(`/v1/stations?near=${P}&radius=${value}`, RADIUS_ACCEPTS);
        await rejects(`/v1/prices/cheapest?fuel=e10&near=${P}&radius=${value}`, RADIUS_ACCEPTS);
      }
      await rejects('/v1/stations?radius=5', "Parameter 'radius' needs near=LAT,LNG: it is the radius around that point.");
      await rejects('/v1/prices/cheapest?fuel=e10&state=nsw&radius=5', "Parameter 'radius' needs near=LAT,LNG: it is the radius around that point.");
      await rejects(`/v1/stations?near=${P}&near=${P}`, `Parameter 'near' must be given once; ${NEAR_ACCEPTS.slice("Parameter 'near' ".length)}`);

      await rejects('/v1/prices/cheapest?state=nsw', `Parameter 'fuel' is required; it ${FUEL_ONE_OF}`);
      await rejects('/v1/prices/cheapest?fuel=petrol&state=nsw', `Parameter 'fuel' ${FUEL_ONE_OF}`);
      await rejects('/v1/prices/cheapest?fuel=e10', ONE_SCOPE);
      await rejects('/v1/prices/cheapest?fuel=e10&state=nsw&city=testville', ONE_SCOPE);
      await rejects(`/v1/prices/cheapest?fuel=e10&state=nsw&near=${P}`, ONE_SCOPE);
      await rejects(`/v1/prices/cheapest?fuel=e10&city=testville&near=${P}`, ONE_SCOPE);
      await rejects('/v1/prices/cheapest?fuel=e10&state=nsw&order=up', "Parameter 'order' must be asc, desc or net_cost.");
      await rejects('/v1/prices/cheapest?fuel=e10&state=nz', "Parameter 'state' must be one of nsw, vic, qld, wa, sa, tas, nt, act.");
      await rejects('/v1/prices/cheapest?fuel=e10&city=Test_ville', "Parameter 'city' must be a city id: lowercase letters and digits in hyphen-separated words, at most 80 characters.");
      await rejects('/v1/prices/cheapest?fuel=e10&state=nsw&page=1&offset=0', "Parameters 'page' and 'offset' cannot be used together; give one of them.");
      await rejects('/v1/prices/cheapest?fuel=e10&state=nsw&limit=101', "Parameter 'limit' must be a whole number from 1 to 100.");
      await rejects('/v1/prices/cheapest?fuel=e10&city=atlantis', "No city has the id 'atlantis'.", 404, 'not_found');

      await rejects('/v1/prices?state=nsw&city=testville', "Parameters 'city' and 'state' are two scopes; give one of them, or neither for the nation.");
      await rejects('/v1/prices?state=au', "Parameter 'state' must be one of nsw, vic, qld, wa, sa, tas, nt, act.");
      await rejects('/v1/prices?city=', "Parameter 'city' must be a city id: lowercase letters and digits in hyphen-separated words, at most 80 characters.");
      await rejects('/v1/prices?city=atlantis', "No city has the id 'atlantis'.", 404, 'not_found');
      assert.equal((await get(server, '/v1/prices', { token: null })).status, 401);
      assert.equal((await get(server, '/v1/prices/cheapest?fuel=e10&state=nsw', { method: 'DELETE' })).status, 405);
      assert.equal(await snapshot(served.store()), before);
    });
  });
}
