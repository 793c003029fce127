import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FeedError } from '../../../src/ingest/feed-error.ts';
import {
  addVicDetails, parseIsoInstant, parseVicBrands, parseVicPrices, splitVicAddress, vicAdapter,
} from '../../../src/ingest/feeds/vic.ts';
import type { PriceEvent, StationInput } from '../../../src/storage/store.ts';
import { allRejections, testPullContext } from '../../fakes/context.ts';
import { instantRetries } from '../../fakes/server.ts';
import { type VicFake, VIC_ROUND_1_NOW, VIC_TEST_CONSUMER_ID, startVicFake, vicFixture } from '../../fakes/vic.ts';

// Midnights UTC: 2026-05-12 = 1_778_544_000 (2026-01-01 = 1_767_225_600, + 131 days * 86_400);
// 2026-05-11 = 1_778_457_600; 2026-05-10 = 1_778_371_200; 2026-05-09 = 1_778_284_800.
const T = {
  bpLatest: 1_778_478_432, //    2026-05-11T05:47:12Z = 1_778_457_600 + 5*3600 + 47*60 + 12
  bpDiesel: 1_778_451_303, //    2026-05-10T22:15:03Z = 1_778_371_200 + 22*3600 + 15*60 + 3
  ampolPetrol: 1_778_468_575, // 2026-05-11T03:02:55Z = 1_778_457_600 + 3*3600 + 2*60 + 55
  ampolDiesel: 1_778_448_600, // 2026-05-10T21:30:00Z = 1_778_371_200 + 21*3600 + 30*60
  sevenPetrol: 1_778_484_041, // 2026-05-11T07:20:41Z = 1_778_457_600 + 7*3600 + 20*60 + 41
  sevenDiesel: 1_778_457_918, // 2026-05-11T00:05:18Z = 1_778_457_600 + 5*60 + 18
  sevenLpg: 1_778_370_069, //    2026-05-09T23:41:09Z = 1_778_284_800 + 23*3600 + 41*60 + 9
  bpRound2: 1_778_559_037, //    2026-05-12T04:10:37Z = 1_778_544_000 + 4*3600 + 10*60 + 37
  ampolPdsl2: 1_778_550_300, //  2026-05-12T01:45:00Z = 1_778_544_000 + 1*3600 + 45*60
  sevenLpg2: 1_778_554_700, //   2026-05-12T02:58:20Z = 1_778_544_000 + 2*3600 + 58*60 + 20
  united: 1_778_564_028, //      2026-05-12T05:33:48Z = 1_778_544_000 + 5*3600 + 33*60 + 48
  liberty: 1_778_461_950, //     2026-05-11T01:12:30Z = 1_778_457_600 + 1*3600 + 12*60 + 30
};
// Round 1 is read at 2026-05-12 10:00 Melbourne (UTC+10) = 00:00 UTC; round 2 a day later.
const ROUND_1_NOW = 1_778_544_000;
const ROUND_2_NOW = ROUND_1_NOW + 86_400;

const BP = 'a0C5j00000Fq2XbEAJ';
const AMPOL = 'a0C5j00000Fq2Y4EAJ';
const SEVEN = 'a0C5j00000Fq2ZhEAJ';
const UNITED = 'a0C5j00000Fq2bXEAR';
const LIBERTY = 'a0C5j00000Fq2aREAR';

const station = (feedCode: string, slug: string, name: string, brand: string, street: string, suburb: string, postcode: string, phone: string, latitude: number, longitude: number): StationInput => ({
  feed: 'vic', feedCode, slug, name, brand, address: `${street}, ${suburb} VIC ${postcode}`, street, suburb, postcode, state: 'vic',
  phone, website: '', latitude, longitude,
});

const STATIONS = {
  bp: station(BP, 'bp-clifton-hill', 'bp Clifton Hill', 'BP', '456 Hoddle St', 'Clifton Hill', '3068', '03 9489 1234', -37.7891, 144.9957),
  ampol: station(AMPOL, 'ampol-foodary-carlton-north', 'Ampol Foodary Carlton North', 'Ampol', '272 Nicholson St', 'Carlton North', '3054', '03 9347 5521', -37.7862, 144.9768),
  seven: station(SEVEN, '7-eleven-richmond', '7-Eleven Richmond', '7-Eleven', '390 Church St', 'Richmond', '3121', '', -37.8236, 144.9983),
  united: station(UNITED, 'united-collingwood', 'United Collingwood', 'United', '40 Johnston St', 'Collingwood', '3066', '03 9417 6630', -37.8003, 144.986),
};

const price = (feedCode: string, fuel: PriceEvent['fuel'], at: number, priceTenths: number, available = true): PriceEvent => ({
  feed: 'vic', feedCode, fuel, at, priceTenths, available,
});

const AMPOL_1 = [
  price(AMPOL, 'ulp91', T.ampolPetrol, 1847), price(AMPOL, 'e10', T.ampolPetrol, 1827), price(AMPOL, 'ulp98', T.ampolPetrol, 2077),
  price(AMPOL, 'diesel', T.ampolDiesel, 1935),
];
const SEVEN_1 = [
  price(SEVEN, 'ulp91', T.sevenPetrol, 1829), price(SEVEN, 'ulp95', T.sevenPetrol, 1969), price(SEVEN, 'ulp98', T.sevenPetrol, 2049),
  price(SEVEN, 'diesel', T.sevenDiesel, 1929),
];
const LIBERTY_1 = [price(LIBERTY, 'ulp91', T.liberty, 1799), price(LIBERTY, 'diesel', T.liberty, 1899)];
const ROUND_1_PRICES: PriceEvent[] = [
  price(BP, 'ulp91', T.bpLatest, 1899), price(BP, 'ulp95', T.bpLatest, 2039), price(BP, 'ulp98', T.bpLatest, 2119), price(BP, 'diesel', T.bpDiesel, 1959),
  // Ampol's premium diesel is out of stock: isAvailable false, price null.
  ...AMPOL_1, price(AMPOL, 'pdiesel', T.ampolDiesel, 0, false),
  ...SEVEN_1, price(SEVEN, 'lpg', T.sevenLpg, 1099),
  // Liberty Brunswick has no position: the station is refused, its rows go on to the writer (the
  // station as stored, or rejected as of an unknown station).
  ...LIBERTY_1,
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('VIC Fair Fuel adapter', () => {
  let fake: VicFake;
  before(async () => { fake = await startVicFake(); });
  after(async () => { await fake.close(); });

  const pullFrom = async (target: VicFake, now: number, options: { consumerId?: string; http?: object } = {}) => {
    target.server.requests.length = 0;
    const ctx = testPullContext(vicAdapter, {
      url: target.url, now, http: options.http ?? {},
      credentials: { VIC_FAIRFUEL_CONSUMER_ID: options.consumerId ?? VIC_TEST_CONSUMER_ID },
    });
    return { ctx, pulled: await vicAdapter.pull(ctx) };
  };

  test('declares the feed: id, state, its credential, a poll every 15 minutes', () => {
    assert.equal(vicAdapter.id, 'vic');
    assert.deepEqual(vicAdapter.states, ['vic']);
    assert.deepEqual(vicAdapter.requires, ['VIC_FAIRFUEL_CONSUMER_ID']);
    assert.equal(vicAdapter.intervalSec, 900);
    assert.equal(VIC_ROUND_1_NOW, ROUND_1_NOW);
  });

  test('round 1: exact stations and prices; out of stock as available false; no position rejected alone', async () => {
    const { pulled } = await pullFrom(fake, ROUND_1_NOW);
    assert.equal(pulled.length, 1);
    assert.equal(pulled[0]?.cursor, undefined);
    assert.deepEqual(pulled[0]?.normaliser.batch(), { stations: [STATIONS.bp, STATIONS.ampol, STATIONS.seven], prices: ROUND_1_PRICES });
    assert.deepEqual(allRejections(pulled[0]?.normaliser).map((r) => [r.reason, r.count]), [['station position outside Australia', 1]]);
    assert.match(allRejections(pulled[0]?.normaliser)[0]?.example ?? '', /Liberty Brunswick/);
  });

  test('two calls, brands then prices, each with the consumer id, a fresh UUID and a User-Agent', async () => {
    await pullFrom(fake, ROUND_1_NOW);
    const requests = fake.server.requests;
    assert.deepEqual(requests.map((r) => `${r.method} ${r.path}?${r.query.toString()}`), [
      'GET /open-data/v1/fuel/reference-data/brands?',
      'GET /open-data/v1/fuel/prices?',
    ]);
    for (const r of requests) {
      assert.equal(r.headers['x-consumer-id'], VIC_TEST_CONSUMER_ID);
      assert.match(String(r.headers['x-transactionid']), UUID);
      assert.equal(r.headers['user-agent'], 'fuelprice-ingest/1.0');
      assert.equal(r.headers['accept'], 'application/json');
    }
    assert.notEqual(requests[0]?.headers['x-transactionid'], requests[1]?.headers['x-transactionid']);
  });

  test('round 2: changed prices, a fuel back in stock, another run out, a new station and brand', async () => {
    const own = await startVicFake();
    try {
      own.advance();
      const { pulled } = await pullFrom(own, ROUND_2_NOW);
      assert.deepEqual(pulled[0]?.normaliser.batch(), {
        stations: [STATIONS.bp, STATIONS.ampol, STATIONS.seven, STATIONS.united],
        prices: [
          price(BP, 'ulp91', T.bpRound2, 1859), price(BP, 'ulp95', T.bpRound2, 1999), price(BP, 'ulp98', T.bpLatest, 2119), price(BP, 'diesel', T.bpDiesel, 1959),
          ...AMPOL_1, price(AMPOL, 'pdiesel', T.ampolPdsl2, 2019),
          ...SEVEN_1, price(SEVEN, 'lpg', T.sevenLpg2, 0, false), ...LIBERTY_1,
          price(UNITED, 'ulp91', T.united, 1799), price(UNITED, 'diesel', T.united, 1899),
        ],
      });
    } finally {
      await own.close();
    }
  });

  test('a refused consumer id is an auth error at once, without retries; a missing one sends nothing', async () => {
    const retries = instantRetries();
    await assert.rejects(pullFrom(fake, ROUND_1_NOW, { consumerId: 'not-the-right-id', http: retries }),
      (e: unknown) => e instanceof FeedError && e.kind === 'auth' && e.status === 403);
    assert.equal(fake.server.requests.length, 1);
    assert.deepEqual(retries.waits, []);
    fake.server.requests.length = 0;
    const ctx = testPullContext(vicAdapter, { url: fake.url, now: ROUND_1_NOW });
    await assert.rejects(vicAdapter.pull(ctx), (e: unknown) => e instanceof FeedError && e.kind === 'auth' && /VIC_FAIRFUEL_CONSUMER_ID/.test(e.message));
    assert.equal(fake.server.requests.length, 0);
  });

  test('the fake itself refuses a missing id (401) and a transaction id that is not a UUID (400)', async () => {
    const missing = await fetch(`${fake.url}/open-data/v1/fuel/prices`, { headers: { 'x-transactionid': crypto.randomUUID() } });
    assert.equal(missing.status, 401);
    const badTransaction = await fetch(`${fake.url}/open-data/v1/fuel/prices`, { headers: { 'x-consumer-id': VIC_TEST_CONSUMER_ID, 'x-transactionid': 'abc-123' } });
    assert.equal(badTransaction.status, 400);
  });

  test('429 with Retry-After on the prices call: waits as asked, then the same batch', async () => {
    const retries = instantRetries();
    fake.server.failNext({ pathIncludes: '/fuel/prices', status: 429, retryAfter: '60' });
    const { pulled } = await pullFrom(fake, ROUND_1_NOW, { http: retries });
    assert.deepEqual(retries.waits, [60_000]);
    assert.deepEqual(fake.server.requests.map((r) => r.path), [
      '/open-data/v1/fuel/reference-data/brands', '/open-data/v1/fuel/prices', '/open-data/v1/fuel/prices',
    ]);
    assert.deepEqual(pulled[0]?.normaliser.batch().prices, ROUND_1_PRICES);
  });

  test('5xx on every attempt: FeedError http after four calls, nothing returned', async () => {
    const retries = instantRetries();
    fake.server.failNext({ status: 502 }, { status: 502 }, { status: 502 }, { status: 502 });
    await assert.rejects(pullFrom(fake, ROUND_1_NOW, { http: retries }), (e: unknown) => e instanceof FeedError && e.kind === 'http' && e.status === 502);
    assert.equal(fake.server.requests.length, 4);
  });

  test('a cut or reshaped answer is malformed and fails the poll', async () => {
    const prices = vicFixture(1, 'prices');
    const cases: Array<[string, string, RegExp]> = [
      ['/fuel/prices', prices.slice(0, 700), /not JSON/],
      ['/fuel/prices', '{"data": []}', /no fuelPriceDetails list/],
      ['/fuel/prices', '[]', /no fuelPriceDetails list/],
      ['/reference-data/brands', '{"brand": []}', /no brands list/],
    ];
    for (const [path, body, message] of cases) {
      fake.server.failNext({ pathIncludes: path, body });
      await assert.rejects(pullFrom(fake, ROUND_1_NOW), (e: unknown) => e instanceof FeedError && e.kind === 'malformed' && message.test(e.message), body.slice(0, 30));
    }
  });

  test('a byte-order mark before the JSON is stripped', async () => {
    fake.server.failNext({ pathIncludes: '/fuel/prices', bom: true });
    const { pulled } = await pullFrom(fake, ROUND_1_NOW);
    assert.deepEqual(pulled[0]?.normaliser.batch().prices, ROUND_1_PRICES);
  });
});

describe('Fair Fuel records', () => {
  const brands = parseVicBrands(vicFixture(1, 'brands'));
  const detail = (prices: unknown[], extra: object = {}) => ({
    fuelStation: {
      id: 'S1', name: 'Shell Reddy Express Footscray', brandId: 'nope', address: '1 Ballarat Rd, Footscray VIC 3011', contactPhone: null,
      location: { latitude: -37.7930, longitude: 144.8990 },
    },
    fuelPrices: prices, updatedAt: '2026-05-11T04:00:00Z', ...extra,
  });

  test('brands by id; an unknown brand id leaves the brand empty', () => {
    assert.deepEqual([...brands], [
      ['a0B5j00000GkQ1sEAF', 'BP'], ['a0B5j00000GkQ1tEAF', 'Ampol'], ['a0B5j00000GkQ2GEAV', '7-Eleven'], ['a0B5j00000GkQ2bEAF', 'Liberty'],
    ]);
    const ctx = testPullContext(vicAdapter, { url: 'http://unused.invalid', now: ROUND_1_NOW });
    const normaliser = ctx.normaliser();
    addVicDetails(normaliser, [detail([])], brands);
    assert.equal(normaliser.batch().stations[0]?.brand, '');
  });

  test('an unknown fuel code is logged once per run; out-of-bounds and unreadable prices are rejected alone', () => {
    const ctx = testPullContext(vicAdapter, { url: 'http://unused.invalid', now: ROUND_1_NOW });
    const normaliser = ctx.normaliser();
    addVicDetails(normaliser, [
      detail([
        { fuelType: 'H2', price: 1499, isAvailable: true, updatedAt: '2026-05-11T04:00:00Z' },
        { fuelType: 'U91', price: 18.59, isAvailable: true, updatedAt: '2026-05-11T04:00:00Z' },
        { fuelType: 'P95', price: 1999, isAvailable: true, updatedAt: '2026-05-11T04:00:00Z' },
        { fuelType: 'P98', price: '', isAvailable: true, updatedAt: '2026-05-11T04:00:00Z' },
        { fuelType: 'DSL', price: 191.9, isAvailable: true, updatedAt: '2026-05-11 04:00:00' },
        { fuelType: 'E10', price: 183.9, isAvailable: true },
      ]),
      detail([{ fuelType: 'H2', price: 1499, isAvailable: true, updatedAt: '2026-05-11T04:00:00Z' }], { fuelStation: { ...detail([]).fuelStation, id: 'S2' } }),
    ], brands);
    const warnings = ctx.log.lines.filter((l) => l.msg === 'unknown fuel code: its prices are skipped');
    assert.deepEqual(warnings.map((l) => l.obj), [{ feed: 'vic', fuelCode: 'H2' }]);
    assert.deepEqual(allRejections(normaliser).map((r) => [r.reason, r.count]), [
      ['price that is not a number', 1],
      ['price without a valid time', 1],
      ['unknown fuel code', 2],
      ['price outside 50-500 c/L for ulp91', 1],
      ['price outside 50-500 c/L for ulp95', 1],
    ]);
    // E10 has no time of its own and takes the record's: 2026-05-11T04:00:00Z = 1_778_457_600 + 4*3600.
    assert.deepEqual(normaliser.batch().prices, [{ feed: 'vic', feedCode: 'S1', fuel: 'e10', at: 1_778_472_000, priceTenths: 1839, available: true }]);
  });

  test('a record without a fuelStation is refused and its price rows counted; one without its prices list keeps the station', () => {
    const ctx = testPullContext(vicAdapter, { url: 'http://unused.invalid', now: ROUND_1_NOW });
    const normaliser = ctx.normaliser();
    const row = { fuelType: 'U91', price: 189.9, isAvailable: true, updatedAt: '2026-05-11T04:00:00Z' };
    addVicDetails(normaliser, [{ fuelPrices: [row, row] }, 'text', { ...detail([]), fuelPrices: undefined }], brands);
    assert.deepEqual(normaliser.stationsRejected().map((r) => [r.reason, r.count]), [['record without a fuelStation', 2]]);
    assert.deepEqual(normaliser.rejected().map((r) => [r.reason, r.count]), [['price of a record without a fuelStation', 2]]);
    assert.equal(normaliser.pricesRead, 2);
    assert.deepEqual(normaliser.batch().stations.map((s) => s.feedCode), ['S1']);
  });

  test('parseVicPrices and parseVicBrands accept only the documented top level', () => {
    assert.equal(parseVicPrices('\uFEFF{"fuelPriceDetails": []}').length, 0);
    assert.throws(() => parseVicPrices('{"fuelPriceDetails": {}}'), (e: unknown) => e instanceof FeedError && e.kind === 'malformed');
    assert.throws(() => parseVicBrands('null'), (e: unknown) => e instanceof FeedError && e.kind === 'malformed');
  });
});

describe('parseIsoInstant', () => {
  test('reads the zone exactly', () => {
    // 2026-05-11T05:47:12Z = 1_778_478_432; the same instant at +10:00 is 15:47:12 local.
    assert.equal(parseIsoInstant('2026-05-11T05:47:12Z'), 1_778_478_432);
    assert.equal(parseIsoInstant('2026-05-11T15:47:12+10:00'), 1_778_478_432);
    assert.equal(parseIsoInstant('2026-05-11T15:47:12+1000'), 1_778_478_432);
    assert.equal(parseIsoInstant('2026-05-11T15:47:12.987+10:00'), 1_778_478_432);
    // 2026-01-15T08:30:00+11:00 (Melbourne summer) = 2026-01-14T21:30:00Z = 1_767_225_600 + 13*86_400 + 21*3600 + 30*60.
    assert.equal(parseIsoInstant('2026-01-15T08:30:00+11:00'), 1_768_426_200);
    assert.equal(parseIsoInstant('2026-05-10T20:00:00-04:00'), 1_778_457_600);
  });

  test('no zone, impossible dates and other shapes are not guessed', () => {
    for (const bad of ['2026-05-11T05:47:12', '2026-05-11 05:47:12Z', '2026-02-30T00:00:00Z', '2026-05-11T24:00:00Z', '11/05/2026 05:47:12', '', 1_778_478_432, null]) {
      assert.equal(parseIsoInstant(bad), undefined, String(bad));
    }
  });
});

describe('splitVicAddress', () => {
  test('street, suburb and postcode from the usual shapes', () => {
    assert.deepEqual(splitVicAddress('456 Hoddle St, Clifton Hill VIC 3068'), { street: '456 Hoddle St', suburb: 'Clifton Hill', postcode: '3068' });
    assert.deepEqual(splitVicAddress('123 Main St, CLAYTON, 3168'), { street: '123 Main St', suburb: 'CLAYTON', postcode: '3168' });
    assert.deepEqual(splitVicAddress('Cnr Princes Hwy & Station St, Unit 2, Oakleigh VIC 3166, Australia'), { street: 'Cnr Princes Hwy & Station St, Unit 2', suburb: 'Oakleigh', postcode: '3166' });
    assert.deepEqual(splitVicAddress('88 High St, Kew, VIC 3101'), { street: '88 High St', suburb: 'Kew', postcode: '3101' });
    assert.deepEqual(splitVicAddress('Midland Hwy, Elmore VIC'), { street: 'Midland Hwy', suburb: 'Elmore', postcode: '' });
    assert.deepEqual(splitVicAddress(''), { street: '', suburb: '', postcode: '' });
  });
});
