/**
 * GET /v1/prices/along and net_cost on /v1/prices/cheapest, on both backends, over a real HTTP
 * server, against a dataset made for them along the Hume at Albury–Wodonga (the NSW/VIC border).
 *
 * The main path runs due south on the meridian 146.9 from -35.9 to -36.2 (three segments, through
 * Albury NSW and Wodonga VIC), then due east along the parallel -36.2 to 147.0. On a meridian a
 * station's distance is its longitude offset as km at its latitude (the flat measure route.ts
 * documents), and how far along it is its latitude offset from the start: 0.001 degree of latitude
 * is 6371 km * pi / 180 / 1000 = 111.19 m. Worked by hand:
 *
 *   holbrook-north  -35.895, 146.9     before the start: 0.005 deg = 556 m from the first point, along 0.0
 *   albury          -36.08, 146.915    0.015 deg lng * 111.19 km * cos 36.08 = 1.348 km; along 0.18 deg = 20.0 km
 *   wodonga         -36.12, 146.888    0.012 * 111.19 * cos 36.12 = 1.078 km; along 24.5 km
 *   wodonga-2       -36.15, 146.9      on the path; along 27.8 km
 *   tail-east       -36.21, 146.95     beside the last segment: 0.01 deg lat = 1.112 km; along 33.4 km + half the 9.0 km east leg
 *   beyond-end      -36.2, 147.01      past the last point: 0.01 * 111.19 * cos 36.2 = 0.897 km; along the whole path
 *   edge-in         -36.05, 146.9222   0.0222 * 111.19 km * cos 36.05 = 1,995.81 m -> 1,996 m: in at corridor=1.996, out at 1.995
 *   edge-out        -36.06, 146.8777   0.0223 * 111.19 * cos 36.06 = 2,004.55 m -> 2,005 m: out at the default 2 km, in at 2.005
 *
 * (Stations are stored to four decimals of a degree, so the edges are made by the corridor, to the metre.)
 *   far-away, dry (out of stock), e10-only: never listed for ulp91
 *
 * Every expected list is also computed here by a reference: each station measured against every
 * segment (flat at the station, as documented), the length along by the spherical law of cosines,
 * then ordered by the documented keys. net_cost by integer arithmetic (below).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Batch, CityInput, StationInput } from '../../../src/storage/store.ts';
import { type Point } from '../../../src/domain/nearby.ts';
import { encodePolyline } from '../../../src/domain/route.ts';
import { NOW } from '../../fixture.ts';
import { fixedClock, get, servedStore, testBackends } from '../../helpers.ts';
import { beside, greatCircle, reference as onPath } from '../../great-circle.ts';

const T = NOW - 3600;

const MAIN: Point[] = [
  { latitude: -35.9, longitude: 146.9 }, { latitude: -36.0, longitude: 146.9 }, { latitude: -36.1, longitude: 146.9 },
  { latitude: -36.2, longitude: 146.9 }, { latitude: -36.2, longitude: 147.0 },
];
/** North, east, back south, then west across the first leg at (-35.05, 147.5). */
const LOOP: Point[] = [
  { latitude: -35.0, longitude: 147.5 }, { latitude: -35.1, longitude: 147.5 }, { latitude: -35.1, longitude: 147.6 },
  { latitude: -35.05, longitude: 147.6 }, { latitude: -35.05, longitude: 147.45 },
];

interface Place { id: string; name: string; state: 'nsw' | 'vic'; latitude: number; longitude: number; ulp91?: number; e10?: number; dry?: boolean }
const PLACES: Place[] = [
  { id: 'holbrook-north', name: 'Holbrook North', state: 'nsw', latitude: -35.895, longitude: 146.9, ulp91: 1800 },
  { id: 'albury', name: 'Albury', state: 'nsw', latitude: -36.08, longitude: 146.915, ulp91: 1750 },
  { id: 'wodonga', name: 'Wodonga', state: 'vic', latitude: -36.12, longitude: 146.888, ulp91: 1700 },
  { id: 'wodonga-2', name: 'Wodonga 2', state: 'vic', latitude: -36.15, longitude: 146.9, ulp91: 1750 },
  { id: 'twin-a', name: 'Twin A', state: 'vic', latitude: -36.13, longitude: 146.91, ulp91: 1720 },
  { id: 'twin-b', name: 'Twin B', state: 'vic', latitude: -36.13, longitude: 146.91, ulp91: 1720 },
  { id: 'tail-east', name: 'Tail East', state: 'vic', latitude: -36.21, longitude: 146.95, ulp91: 1690 },
  { id: 'beyond-end', name: 'Beyond End', state: 'vic', latitude: -36.2, longitude: 147.01, ulp91: 1820 },
  { id: 'edge-in', name: 'Edge In', state: 'nsw', latitude: -36.05, longitude: 146.9222, ulp91: 1790 },
  { id: 'edge-out', name: 'Edge Out', state: 'nsw', latitude: -36.06, longitude: 146.8777, ulp91: 1500 },
  { id: 'far-away', name: 'Far Away', state: 'nsw', latitude: -35.5, longitude: 146.9, ulp91: 1400 },
  { id: 'dry', name: 'Dry', state: 'nsw', latitude: -36.0, longitude: 146.9, ulp91: 1300, dry: true },
  { id: 'e10-only', name: 'E10 Only', state: 'nsw', latitude: -36.02, longitude: 146.9, e10: 1600 },
  { id: 'crossing', name: 'Crossing', state: 'nsw', latitude: -35.05, longitude: 147.5, ulp91: 1600 },
  { id: 'loop-east', name: 'Loop East', state: 'nsw', latitude: -35.075, longitude: 147.605, ulp91: 1650 },
];
/**
 * Diesel stations about two long routes given as few points (what the flat measure got wrong):
 * Sydney to Melbourne as two points, and Sydney to Goulburn and back. Each is placed by the
 * reference's own great-circle navigation beside a random point of a leg, up to 10 km either side,
 * stored to four decimals; the few the reference finds within a centimetre of a corridor's edge are left out.
 */
const SYDNEY = { latitude: -33.8688, longitude: 151.2093 };
const MELBOURNE = { latitude: -37.8136, longitude: 144.9631 };
const GOULBURN = { latitude: -34.7546, longitude: 149.7186 };
const LONG_ROUTES: Array<{ path: Point[]; corridor: number }> = [{ path: [SYDNEY, MELBOURNE], corridor: 5 }, { path: [SYDNEY, GOULBURN, SYDNEY], corridor: 2 }];
const LONG: Array<{ id: string; latitude: number; longitude: number; diesel: number }> = (() => {
  let x = 20261207;
  const next = (): number => { x = (Math.imul(x, 1103515245) + 12345) >>> 0; return x / 2 ** 32; };
  const out: Array<{ id: string; latitude: number; longitude: number; diesel: number }> = [];
  for (let i = 0; out.length < 240; i++) {
    const [a, b] = i % 2 === 0 ? [SYDNEY, MELBOURNE] : [SYDNEY, GOULBURN];
    const at = beside(a, b, next(), (next() * 2 - 1) * 10);
    const p = { latitude: Number(at.latitude.toFixed(4)), longitude: Number(at.longitude.toFixed(4)) };
    if (LONG_ROUTES.some((r) => onPath(r.path, p, r.corridor)?.marginal === true)) continue;
    out.push({ id: `long-${String(out.length).padStart(3, '0')}`, ...p, diesel: 1900 + Math.floor(next() * 300) });
  }
  return out;
})();
const CITIES: CityInput[] = [{ id: 'albury', name: 'Albury', state: 'nsw', latitude: -36.0806, longitude: 146.9158 }];
const STATIONS: StationInput[] = [...PLACES.map((p, i) => ({
  feed: 'along', feedCode: String(i + 1), slug: p.name, name: p.name, brand: 'Hume', address: `${i + 1} Hume Highway`, street: `${i + 1} Hume Highway`,
  suburb: '', postcode: p.state === 'nsw' ? '2640' : '3690', state: p.state, phone: '', website: '', latitude: p.latitude, longitude: p.longitude,
})), ...LONG.map((p): StationInput => ({
  feed: 'along', feedCode: p.id, slug: p.id, name: p.id, brand: 'Long', address: '', street: '',
  suburb: '', postcode: '2000', state: 'nsw', phone: '', website: '', latitude: p.latitude, longitude: p.longitude,
}))];
const PRICES: Batch['prices'] = [...PLACES.flatMap((p, i) => [
  ...(p.ulp91 === undefined ? [] : [{ feed: 'along', feedCode: String(i + 1), fuel: 'ulp91' as const, at: T, priceTenths: p.ulp91, available: p.dry !== true }]),
  ...(p.e10 === undefined ? [] : [{ feed: 'along', feedCode: String(i + 1), fuel: 'e10' as const, at: T, priceTenths: p.e10, available: true }]),
]), ...LONG.map((p) => ({ feed: 'along', feedCode: p.id, fuel: 'diesel' as const, at: T, priceTenths: p.diesel, available: true }))];

/** The reference (test/great-circle.ts): a station against every segment on the sphere; along at the nearest point of the first pass. */
function against(path: readonly Point[], p: Point, corridorKm: number): { metres: number; alongKm: number } | undefined {
  const at = onPath(path, p, corridorKm);
  assert.ok(at?.marginal !== true, `${p.latitude},${p.longitude} is within a centimetre of an edge: move it`);
  return at === undefined ? undefined : { metres: Math.round(at.km * 1000), alongKm: at.alongKm };
}

/** net_cost in cents, exactly: price/1000 $/L × (litres + 2 × metres/1000 × consumption/100) = P × (100000 L + 2 m C) / 10^8 dollars. */
const netCents = (priceTenths: number, litres: number, consumption: number, metres: number): number =>
  Math.floor((priceTenths * (100_000 * litres + 2 * metres * consumption) + 500_000) / 1_000_000);
const dollars = (cents: number): string => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
const km1 = (metres: number): string => (Math.round(metres / 100) / 10).toFixed(1);

interface Expected { id: string; price: number; metres: number; alongKm: number; net?: number }
/** What the reference lists along a path for ulp91, in the documented order. */
function reference(path: readonly Point[], corridorKm: number, order: 'price' | 'along' | 'net_cost', fill?: { litres: number; consumption: number }): Expected[] {
  const found: Expected[] = [];
  for (const p of PLACES) {
    if (p.ulp91 === undefined || p.dry) continue;
    const at = against(path, p, corridorKm);
    if (at === undefined) continue;
    found.push({ id: p.id, price: p.ulp91, ...at, ...(fill ? { net: netCents(p.ulp91, fill.litres, fill.consumption, at.metres) } : {}) });
  }
  const id = (a: Expected, b: Expected): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const byPrice = (a: Expected, b: Expected): number => a.price - b.price || a.alongKm - b.alongKm || id(a, b);
  return found.sort(order === 'along' ? (a, b) => a.alongKm - b.alongKm || id(a, b) : order === 'net_cost' ? (a, b) => (a.net ?? 0) - (b.net ?? 0) || byPrice(a, b) : byPrice);
}

/** An item as the route answers it. */
function item(e: Expected): Record<string, unknown> {
  const p = PLACES.find((x) => x.id === e.id) ?? assert.fail(e.id);
  const i = PLACES.indexOf(p) + 1;
  return {
    station_id: p.id, name: p.name, brand: 'Hume', address: `${i} Hume Highway`, latitude: p.latitude.toFixed(4), longitude: p.longitude.toFixed(4),
    price: (p.ulp91 ?? 0) / 10 === Math.trunc((p.ulp91 ?? 0) / 10) ? `${(p.ulp91 ?? 0) / 10}.0` : ((p.ulp91 ?? 0) / 10).toFixed(1),
    updated_at: T, distance_km: km1(e.metres), along_km: km1(Math.round(e.alongKm * 1000)), detour_km: km1(2 * e.metres),
    ...(e.net === undefined ? {} : { net_cost: dollars(e.net) }),
  };
}

const MAIN_PATH = encodePolyline(MAIN);
const FUEL_ONE_OF = 'must be one of e10, ulp91, ulp95, ulp98, diesel, pdiesel, lpg, e85, e5, ev, b20, cng, lng, opal, lrp, ulsd, ulp-combined, pulp-combined, diesel-combined.';
const PATH_ACCEPTS = 'must be an encoded polyline (precision 5) of 2 to 1000 points, at most 7000 characters';

for (const backend of testBackends()) {
  describe(`GET /v1/prices/along on ${backend.name}`, () => {
    const { server } = servedStore(backend, fixedClock(NOW), async (store) => {
      await store.upsertCities(CITIES);
      await store.applyBatch({ stations: STATIONS, prices: PRICES });
    });
    const along = (query: string) => get(server, `/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}${query}`);
    async function ok(path: string): Promise<{ data: Array<Record<string, unknown>>; total_items: number; total_pages: number; current_page: number }> {
      const r = await get(server, path);
      assert.equal(r.status, 200, `${path.slice(0, 80)}: ${r.text}`);
      return r.body as { data: Array<Record<string, unknown>>; total_items: number; total_pages: number; current_page: number };
    }
    async function rejects(path: string, message: string): Promise<void> {
      const r = await get(server, path);
      assert.equal(r.status, 400, `${path.slice(0, 120)}: ${r.text}`);
      assert.deepEqual(r.body, { error: { code: 'invalid_parameter', message, request_id: r.headers.get('x-request-id') } }, path.slice(0, 120));
    }

    test('order=price (the default): within 2 km, across the border, cheapest first, ties by along then id; on the edge in, a metre past it out', async () => {
      const want = reference(MAIN, 2, 'price');
      // By hand: everything but edge-out (2,005 m), far-away, dry, e10-only and the loop's two; wodonga 170.0 first, beyond-end 182.0 last.
      assert.deepEqual(want.map((e) => e.id), ['tail-east', 'wodonga', 'twin-a', 'twin-b', 'albury', 'wodonga-2', 'edge-in', 'holbrook-north', 'beyond-end']);
      const page = await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}&limit=100`);
      assert.deepEqual(page, { data: want.map(item), total_items: 9, total_pages: 1, current_page: 1 });
      // The same path with every character escaped (%XX): the same page.
      const everyEscaped = [...MAIN_PATH].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');
      assert.deepEqual(await ok(`/v1/prices/along?fuel=ulp91&path=${everyEscaped}&limit=100`), page);
      const byId = new Map(page.data.map((d) => [d.station_id, d]));
      // Worked by hand (above): the edge station at 2.0 km, the first and last segments' stations, the border's two sides.
      assert.equal(byId.get('edge-in')?.distance_km, '2.0');
      assert.equal(byId.get('edge-in')?.detour_km, '4.0');
      // edge-in is 1,996 m off: in at corridor=1.996 (on the edge, to the metre), out at 1.995.
      const ids = async (corridor: string) => (await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}&limit=100&corridor=${corridor}`)).data.map((d) => d.station_id);
      assert.ok((await ids('1.996')).includes('edge-in'));
      assert.ok(!(await ids('1.995')).includes('edge-in'));
      assert.deepEqual(await ids('1.996'), reference(MAIN, 1.996, 'price').map((e) => e.id));
      assert.deepEqual([byId.get('holbrook-north')?.distance_km, byId.get('holbrook-north')?.along_km], ['0.6', '0.0']);
      assert.deepEqual([byId.get('albury')?.distance_km, byId.get('albury')?.along_km], ['1.3', '20.0']);
      assert.deepEqual([byId.get('wodonga')?.distance_km, byId.get('wodonga')?.along_km], ['1.1', '24.5']);
      assert.deepEqual([byId.get('tail-east')?.distance_km, byId.get('tail-east')?.detour_km], ['1.1', '2.2']);
      assert.equal(byId.get('beyond-end')?.distance_km, '0.9');
      assert.equal(byId.get('edge-out'), undefined);
      // The same with the corridor given as its default; 2.004 km still leaves edge-out (2,005 m) out, 2.005 takes it in, first (150.0).
      assert.deepEqual((await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}&limit=100&corridor=2`)).data, page.data);
      assert.ok(!(await ids('2.004')).includes('edge-out'));
      assert.equal((await ids('2.005'))[0], 'edge-out');
      assert.deepEqual(await ids('2.005'), reference(MAIN, 2.005, 'price').map((e) => e.id));
    });

    test('order=along: in the order met, ties (the twins) by id; the last segment and past the end last', async () => {
      const want = reference(MAIN, 2, 'along');
      assert.deepEqual(want.map((e) => e.id), ['holbrook-north', 'edge-in', 'albury', 'wodonga', 'twin-a', 'twin-b', 'wodonga-2', 'tail-east', 'beyond-end']);
      const page = await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}&order=along&limit=100`);
      assert.deepEqual(page.data, want.map(item));
      // The whole path: 0.3 degree of latitude (33.36 km) and 0.1 degree of longitude at -36.2 (8.97 km): 42.3 km.
      assert.equal(page.data.at(-1)?.along_km, '42.3');
    });

    test('order=net_cost with litres and consumption: the fill plus the detour\'s fuel, in cents, ranked by it', async () => {
      const want = reference(MAIN, 2, 'net_cost', { litres: 10, consumption: 50 });
      // By hand: wodonga-2, on the path at 175.0: 10 L x $1.75 = $17.50, the cheapest fill; the twins (172.0, 0.01 deg lng at -36.13:
      // 898 m off): 10 + 1.796 x 0.5 = 10.898 L x $1.72 = $18.74456, $18.74 each (then by id); tail-east (169.0, 1,112 m):
      // 11.112 L x $1.69 = $18.77928, $18.78; wodonga (170.0, 1,078 m): 11.078 L x $1.70 = $18.8326, $18.83.
      assert.deepEqual(want.slice(0, 5).map((e) => [e.id, e.net]), [['wodonga-2', 1750], ['twin-a', 1874], ['twin-b', 1874], ['tail-east', 1878], ['wodonga', 1883]]);
      const page = await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}&order=net_cost&litres=10&consumption=50&limit=100`);
      assert.deepEqual(page.data, want.map(item));
      // With a fill but ranked by price: the same items as order=price, each with its net_cost.
      const byPrice = await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}&litres=10&consumption=50&limit=100`);
      assert.deepEqual(byPrice.data, reference(MAIN, 2, 'price', { litres: 10, consumption: 50 }).map(item));
      // docs/ENDPOINTS.md's worked example: 40 L at 185.9 c/L with a 4 km detour at 8 L/100 km is 40.32 L x $1.859 = $74.95488, $74.95.
      assert.equal(netCents(1859, 40, 8, 2000), 7495);
    });

    test('pages: limit and offset or page, as cheapest pages', async () => {
      const want = reference(MAIN, 2, 'price').map(item);
      assert.deepEqual(await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}&limit=4&page=2`),
        { data: want.slice(4, 8), total_items: 9, total_pages: 3, current_page: 2 });
      assert.deepEqual(await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}&limit=4&offset=7`),
        { data: want.slice(7, 11), total_items: 9, total_pages: 3, current_page: 2 });
      assert.deepEqual((await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}&limit=4&page=9`)).data, []);
      // The default page: 10 items.
      assert.equal((await along('')).status, 200);
    });

    test('a path of two points; a path that crosses itself (the first pass counts); another fuel', async () => {
      // Two points, Albury's meridian stretch only: -36.0 to -36.1.
      const two = [{ latitude: -36.0, longitude: 146.9 }, { latitude: -36.1, longitude: 146.9 }];
      const page = await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(encodePolyline(two))}&order=along`);
      assert.deepEqual(page.data, reference(two, 2, 'along').map(item));
      // wodonga is 0.02 degree of latitude (2.2 km) past this path's end: out.
      assert.deepEqual(page.data.map((d) => d.station_id), ['edge-in', 'albury']);
      const loop = await ok(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(encodePolyline(LOOP))}&order=along&corridor=1`);
      assert.deepEqual(loop.data, reference(LOOP, 1, 'along').map(item));
      // crossing stands where the last leg crosses the first: met 0.05 degree (5.6 km) from the start, not on the last leg
      // (11.12 + 9.10 + 5.56 + 9.10 = 34.9 km on). loop-east: 0.005 deg lng (455 m) off the third leg, 11.12 + 9.10 + 2.78 = 23.0 km on.
      assert.deepEqual(loop.data.map((d) => [d.station_id, d.distance_km, d.along_km]), [['crossing', '0.0', '5.6'], ['loop-east', '0.5', '23.0']]);
      const e10 = await ok(`/v1/prices/along?fuel=e10&path=${encodeURIComponent(MAIN_PATH)}`);
      assert.deepEqual(e10.data.map((d) => [d.station_id, d.price]), [['e10-only', '160.0']]);
      // A combined id: e10-only's e10 and every ulp91 on the way.
      assert.equal((await ok(`/v1/prices/along?fuel=ulp-combined&path=${encodeURIComponent(MAIN_PATH)}`)).total_items, 10);
    });

    test('long segments and a route that comes back: station for station what the great-circle reference finds, along the first pass', async () => {
      for (const { path, corridor } of LONG_ROUTES) {
        const want = LONG.flatMap((p) => {
          const at = against(path, p, corridor);
          return at === undefined ? [] : [{ id: p.id, metres: at.metres, alongKm: at.alongKm }];
        }).sort((a, b) => a.alongKm - b.alongKm || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        assert.ok(want.length > 20, `${want.length} found`);
        const got: Array<Record<string, unknown>> = [];
        for (let page = 1; got.length < want.length && page < 10; page++) {
          got.push(...(await ok(`/v1/prices/along?fuel=diesel&path=${encodeURIComponent(encodePolyline(path))}&corridor=${corridor}&order=along&limit=100&page=${page}`)).data);
        }
        assert.deepEqual(got.map((d) => [d.station_id, d.distance_km, d.along_km]), want.map((e) => [e.id, km1(e.metres), km1(Math.round(e.alongKm * 1000))]));
        if (path.length === 3) {
          // There and back: every station is listed on the way out (along at most the way out's length), none on the way back.
          const out = greatCircle(SYDNEY, GOULBURN);
          assert.ok(want.every((e) => e.alongKm <= out + 0.01), 'first pass');
          assert.ok(got.every((d) => Number(d.along_km) <= Math.round(out * 10) / 10 + 0.1));
        }
      }
    });

    test('every bad parameter answers 400 invalid_parameter naming it', async () => {
      const path = encodeURIComponent(MAIN_PATH);
      const many = Array.from({ length: 1001 }, (_, i) => ({ latitude: -36 - i / 1e5, longitude: 146.9 + i / 1e5 }));
      await rejects(`/v1/prices/along?path=${path}`, `Parameter 'fuel' is required; it ${FUEL_ONE_OF}`);
      await rejects(`/v1/prices/along?fuel=petrol&path=${path}`, `Parameter 'fuel' ${FUEL_ONE_OF}`);
      await rejects('/v1/prices/along?fuel=ulp91', `Parameter 'path' is required; it ${PATH_ACCEPTS}.`);
      await rejects('/v1/prices/along?fuel=ulp91&path=_p~iF', "Parameter 'path' must be an encoded polyline (precision 5).");
      await rejects('/v1/prices/along?fuel=ulp91&path=%20%20', "Parameter 'path' must be an encoded polyline (precision 5).");
      await rejects('/v1/prices/along?fuel=ulp91&path=', "Parameter 'path' must have at least 2 points.");
      await rejects(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(encodePolyline([MAIN[0] as Point]))}`, "Parameter 'path' must have at least 2 points.");
      await rejects(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(encodePolyline(many))}`, "Parameter 'path' must have at most 1000 points.");
      await rejects(`/v1/prices/along?fuel=ulp91&path=${'AA'.repeat(3501)}`, `Parameter 'path' ${PATH_ACCEPTS}.`);
      await rejects(`/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(encodePolyline([{ latitude: -30, longitude: 100 }, { latitude: -30, longitude: -90 }]))}`,
        "Parameter 'path' must sweep at most 180 degrees of latitude and longitude in all (the sum over its segments of the larger change).");
      const corridor = "Parameter 'corridor' must be a distance in km from 0.1 to 20, at most 3 decimals, e.g. 2.";
      for (const value of ['0.05', '21', '20.001', 'two', '0', '-1', '1e1']) await rejects(`/v1/prices/along?fuel=ulp91&path=${path}&corridor=${value}`, corridor);
      const litres = "Parameter 'litres' must be litres from 1 to 200, at most 2 decimals, e.g. 40.";
      const consumption = "Parameter 'consumption' must be litres per 100 km from 1 to 50, at most 2 decimals, e.g. 8.5.";
      for (const value of ['0.5', '201', 'x', '1.001']) await rejects(`/v1/prices/along?fuel=ulp91&path=${path}&litres=${value}&consumption=8`, litres);
      for (const value of ['0.9', '51', '-8', '']) await rejects(`/v1/prices/along?fuel=ulp91&path=${path}&litres=40&consumption=${value}`, consumption);
      await rejects(`/v1/prices/along?fuel=ulp91&path=${path}&litres=40`, "Parameter 'consumption' is needed with litres: net_cost takes both.");
      await rejects(`/v1/prices/along?fuel=ulp91&path=${path}&consumption=8`, "Parameter 'litres' is needed with consumption: net_cost takes both.");
      await rejects(`/v1/prices/along?fuel=ulp91&path=${path}&order=net_cost`,
        "Parameter 'order' net_cost needs litres and consumption: the fill whose net cost ranks the stations.");
      await rejects(`/v1/prices/along?fuel=ulp91&path=${path}&order=cheapest`, "Parameter 'order' must be price, along or net_cost.");
      await rejects(`/v1/prices/along?fuel=ulp91&path=${path}&limit=101`, "Parameter 'limit' must be a whole number from 1 to 100.");
      await rejects(`/v1/prices/along?fuel=ulp91&path=${path}&page=2&offset=1`, "Parameters 'page' and 'offset' cannot be used together; give one of them.");
      await rejects(`/v1/prices/along?fuel=ulp91&path=${path}&path=${path}`, `Parameter 'path' must be given once; ${PATH_ACCEPTS}.`);
    });

    test('ETag and 304; no token, 401; PUT, 405 (POST takes the parameters in a body: test/http/routes/post-body.test.ts)', async () => {
      const first = await along('');
      const etag = first.headers.get('etag') ?? assert.fail('no etag');
      assert.equal((await along('')).headers.get('etag'), etag);
      const again = await get(server, `/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}`, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal((await get(server, `/v1/prices/along?fuel=ulp91&path=${encodeURIComponent(MAIN_PATH)}`, { token: null })).status, 401);
      assert.equal((await get(server, '/v1/prices/along?fuel=ulp91', { method: 'PUT' })).status, 405);
    });

    test('cheapest near a point with litres and consumption: net_cost with the round trip as detour; order=net_cost; the 400s', async () => {
      const near = { latitude: -36.1, longitude: 146.9 };
      const base = `/v1/prices/cheapest?fuel=ulp91&near=${near.latitude},${near.longitude}&radius=5`;
      const inRadius = PLACES.filter((p) => p.ulp91 !== undefined && !p.dry)
        .map((p) => ({ p, metres: Math.round(greatCircle(near, p) * 1000) })).filter((x) => x.metres <= 5000);
      // By hand, the nearest: wodonga-2 0.05 degree south, 5,560 m: out; albury 0.02 lat and 0.015 lng: about 2.6 km.
      const cost = (x: { p: Place; metres: number }) => netCents(x.p.ulp91 ?? 0, 40, 8, x.metres);
      const idOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
      const ranked = [...inRadius].sort((a, b) => cost(a) - cost(b) || (a.p.ulp91 ?? 0) - (b.p.ulp91 ?? 0) || a.metres - b.metres || idOrder(a.p.id, b.p.id));
      const page = await ok(`${base}&litres=40&consumption=8&order=net_cost&limit=100`);
      assert.deepEqual(page.data.map((d) => [d.station_id, d.net_cost]), ranked.map((x) => [x.p.id, dollars(cost(x))]));
      assert.ok(ranked.length >= 4, `${ranked.length} stations`);
      // Without order=net_cost: the usual order, each item with net_cost as its last field.
      const byPrice = await ok(`${base}&litres=40&consumption=8&limit=100`);
      assert.deepEqual(byPrice.data.map((d) => d.station_id), (await ok(`${base}&limit=100`)).data.map((d) => d.station_id));
      assert.ok(byPrice.data.every((d) => Object.keys(d).at(-1) === 'net_cost'));
      // Paged by net cost.
      assert.deepEqual((await ok(`${base}&litres=40&consumption=8&order=net_cost&limit=2&offset=1`)).data.map((d) => d.station_id), ranked.slice(1, 3).map((x) => x.p.id));
      const csv = await get(server, `${base}&litres=40&consumption=8&order=net_cost&limit=1&format=csv`);
      assert.equal(csv.text.split('\r\n')[0], 'station_id,name,brand,address,latitude,longitude,price,updated_at,distance_km,net_cost');
      assert.ok(csv.text.split('\r\n')[1]?.endsWith(`,${dollars(cost(ranked[0] ?? assert.fail()))}`));
      const cheapest = (query: string, message: string) => rejects(`/v1/prices/cheapest?fuel=ulp91&${query}`, message);
      await cheapest('state=nsw&litres=40&consumption=8', "Parameters 'litres' and 'consumption' need near=LAT,LNG: the detour is the round trip from that point to the station.");
      await cheapest('city=albury&order=net_cost', "Parameter 'order' net_cost needs litres and consumption: the fill whose net cost ranks the stations.");
      await cheapest('near=-36.1,146.9&order=net_cost&litres=40', "Parameter 'consumption' is needed with litres: net_cost takes both.");
      await cheapest('near=-36.1,146.9&litres=300&consumption=8', "Parameter 'litres' must be litres from 1 to 200, at most 2 decimals, e.g. 40.");
      await cheapest('near=-36.1,146.9&order=up', "Parameter 'order' must be asc, desc or net_cost.");
    });
  });
}
