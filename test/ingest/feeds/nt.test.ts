import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FeedError } from '../../../src/ingest/feed-error.ts';
import {
  addNtOutlets, extractServerJson, ntAdapter, parseNtResults, readNtCursor, writeNtCursor,
} from '../../../src/ingest/feeds/nt.ts';
import type { PriceEvent, StationInput } from '../../../src/storage/store.ts';
import { testPullContext } from '../../fakes/context.ts';
import { type NtFake, NT_ROUND_1_NOW, ntFixture, startNtFake } from '../../fakes/nt.ts';
import { instantRetries } from '../../fakes/server.ts';

// The page carries no price times: a reading is dated by the poll that first sees it.
// Round 1 polls at 2026-05-12 12:00 Darwin (UTC+9:30) = 02:30 UTC = 1_778_544_000 + 9_000;
// round 2 half an hour later.
const ROUND_1_NOW = 1_778_553_000;
const ROUND_2_NOW = ROUND_1_NOW + 1_800;

const station = (feedCode: string, slug: string, name: string, brand: string, street: string, suburb: string, postcode: string, website: string, latitude: number, longitude: number): StationInput => ({
  feed: 'nt', feedCode, slug, name, brand, address: `${street}, ${suburb} NT ${postcode}`, street, suburb, postcode, state: 'nt',
  phone: '', website, latitude, longitude,
});

const STATIONS = {
  ampol: station('17', 'ampol-stuart-park', 'AMPOL STUART PARK', 'AMPOL', '1 Stuart Hwy', 'STUART PARK', '0820', 'https://www.ampol.com.au/', -12.4497, 130.8405),
  bp: station('23', 'bp-parap', 'BP PARAP', 'BP', '100 Parap Rd', 'PARAP', '0820', 'https://www.bp.com/en_au/australia/home.html', -12.4321, 130.8428),
  united: station('31', 'united-winnellie', 'UNITED WINNELLIE', 'United', '316 Stuart Hwy', 'WINNELLIE', '0820', '', -12.4262, 130.8842),
  shell: station('64', 'shell-coconut-grove', 'SHELL COCONUT GROVE', 'Shell', '160 Trower Rd', 'COCONUT GROVE', '0810', 'https://www.shell.com.au/', -12.3985, 130.853),
};

const price = (feedCode: string, fuel: PriceEvent['fuel'], at: number, priceTenths: number, available = true): PriceEvent => ({
  feed: 'nt', feedCode, fuel, at, priceTenths, available,
});

const ROUND_1_PRICES: PriceEvent[] = [
  price('17', 'diesel', ROUND_1_NOW, 2059), price('17', 'ulp91', ROUND_1_NOW, 1959), price('17', 'ulp95', ROUND_1_NOW, 2099), price('17', 'ulp98', ROUND_1_NOW, 2179),
  // BP's premium 95 is out of stock; its last price is kept as given.
  price('23', 'diesel', ROUND_1_NOW, 2079), price('23', 'ulp91', ROUND_1_NOW, 1979), price('23', 'ulp95', ROUND_1_NOW, 2119, false), price('23', 'lpg', ROUND_1_NOW, 1199),
  price('31', 'diesel', ROUND_1_NOW, 1999), price('31', 'ulp91', ROUND_1_NOW, 1899), price('31', 'opal', ROUND_1_NOW, 1899),
];

/** Keys sorted as written ("17/DL" < "17/P95" < ...), then URI-encoded; "x" marks out of stock. */
const ROUND_1_CURSOR = 'nt1 17%2FDL=2059 17%2FP95=2099 17%2FP98=2179 17%2FU91=1959 23%2FDL=2079 23%2FLPG=1199 23%2FP95=x 23%2FU91=1979 '
  + '31%2FDL=1999 31%2FLAF=1899 31%2FU91=1899';

describe('NT MyFuel adapter (best effort)', () => {
  let fake: NtFake;
  before(async () => { fake = await startNtFake(); });
  after(async () => { await fake.close(); });

  const pullFrom = async (target: NtFake, now: number, cursor?: string, http = {}) => {
    target.server.requests.length = 0;
    const ctx = testPullContext(ntAdapter, { url: target.url, now, cursor, http });
    return { ctx, pulled: await ntAdapter.pull(ctx) };
  };

  test('declares the feed: id, state, no credentials, every 30 minutes', () => {
    assert.equal(ntAdapter.id, 'nt');
    assert.deepEqual(ntAdapter.states, ['nt']);
    assert.deepEqual(ntAdapter.requires, []);
    assert.equal(ntAdapter.intervalSec, 1_800);
    assert.equal(NT_ROUND_1_NOW, ROUND_1_NOW);
  });

  test('round 1, first run: every reading at the poll\'s clock, the cursor records them', async () => {
    const { pulled } = await pullFrom(fake, ROUND_1_NOW);
    assert.equal(pulled.length, 1);
    assert.deepEqual(pulled[0]?.normaliser.batch(), { stations: [STATIONS.ampol, STATIONS.bp, STATIONS.united], prices: ROUND_1_PRICES });
    // Liberty has 0,0 for a position and is refused, its two readings counted (and read again next poll); inactive Puma is left out without a rejection.
    assert.deepEqual(pulled[0]?.normaliser.stationsRejected().map((r) => [r.reason, r.count]), [['station position outside Australia', 1]]);
    assert.deepEqual(pulled[0]?.normaliser.rejected().map((r) => [r.reason, r.count]), [['reading of an outlet refused', 2]]);
    assert.equal(pulled[0]?.cursor, ROUND_1_CURSOR);
  });

  test('one GET of the results page with the region search', async () => {
    await pullFrom(fake, ROUND_1_NOW);
    assert.deepEqual(fake.server.requests.map((r) => `${r.method} ${r.path}?${r.query.toString()}`), [
      'GET /Home/Results?searchOptions=region&Suburb=&SuburbId=0&RegionId=3&FuelCode=&BrandIdentifier=',
    ]);
    assert.equal(fake.server.requests[0]?.headers['user-agent'], 'fuelprice-ingest/1.0');
  });

  test('the same page again with its cursor reports no reading twice', async () => {
    const { pulled } = await pullFrom(fake, ROUND_2_NOW, ROUND_1_CURSOR);
    assert.deepEqual(pulled[0]?.normaliser.batch(), { stations: [STATIONS.ampol, STATIONS.bp, STATIONS.united], prices: [] });
    assert.equal(pulled[0]?.cursor, ROUND_1_CURSOR);
  });

  test('round 2 after round 1: only the changes, dated round 2, and the new station', async () => {
    const own = await startNtFake();
    try {
      own.advance();
      const { pulled } = await pullFrom(own, ROUND_2_NOW, ROUND_1_CURSOR);
      assert.deepEqual(pulled[0]?.normaliser.batch(), {
        stations: [STATIONS.ampol, STATIONS.bp, STATIONS.united, STATIONS.shell],
        prices: [
          price('17', 'ulp91', ROUND_2_NOW, 1939),
          price('23', 'ulp95', ROUND_2_NOW, 2119),
          price('31', 'diesel', ROUND_2_NOW, 1999, false),
          price('64', 'diesel', ROUND_2_NOW, 2049), price('64', 'ulp91', ROUND_2_NOW, 1949),
        ],
      });
      assert.equal(pulled[0]?.cursor, 'nt1 17%2FDL=2059 17%2FP95=2099 17%2FP98=2179 17%2FU91=1939 23%2FDL=2079 23%2FLPG=1199 23%2FP95=2119 '
        + '23%2FU91=1979 31%2FDL=x 31%2FLAF=1899 31%2FU91=1899 64%2FDL=2049 64%2FU91=1949');
    } finally {
      await own.close();
    }
  });

  test('429 with Retry-After, then the page', async () => {
    const retries = instantRetries();
    fake.server.failNext({ status: 429, retryAfter: '30' });
    const { pulled } = await pullFrom(fake, ROUND_1_NOW, undefined, retries);
    assert.deepEqual(retries.waits, [30_000]);
    assert.equal(fake.server.requests.length, 2);
    assert.deepEqual(pulled[0]?.normaliser.batch().prices, ROUND_1_PRICES);
  });

  test('5xx on every attempt: FeedError http', async () => {
    fake.server.failNext({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    await assert.rejects(pullFrom(fake, ROUND_1_NOW, undefined, instantRetries()), (e: unknown) => e instanceof FeedError && e.kind === 'http' && e.status === 500);
  });

  test('a changed or cut page is malformed, with a message that says the site changed', async () => {
    const page = ntFixture(1);
    const cases: Array<[string, RegExp]> = [
      [page.slice(0, Math.floor(page.length / 2)), /no #serverJson input/],
      ['<html><body><div id="app"></div></body></html>', /no #serverJson input/],
      [page.replace(/&quot;FuelOutlet&quot;/, '&quot;Outlets&quot;'), /no FuelOutlet list/],
      [page.replace(/&quot;FuelBrandList&quot;/, '&quot;Brands&quot;'), /no FuelBrandList list/],
      [page.replaceAll('&quot;FuelOutletId&quot;', '&quot;OutletId&quot;').replaceAll('&quot;OutletId&quot;:', '&quot;SiteId&quot;:'), /no outlet has FuelOutletId/],
      ['<input type="hidden" id="serverJson" value="{&quot;FuelOutlet&quot;:[],&quot;FuelBrandList&quot;:[]}">', /FuelOutlet is empty/],
      ['<input type="hidden" id="serverJson" value="{&quot;FuelOutlet&quot;:[">', /does not hold JSON/],
    ];
    for (const [body, message] of cases) {
      fake.server.failNext({ body });
      await assert.rejects(pullFrom(fake, ROUND_1_NOW),
        (e: unknown) => e instanceof FeedError && e.kind === 'malformed' && /^MyFuel NT \(site changed\?\)/.test(e.message) && message.test(e.message), body.slice(0, 40));
    }
  });
});

describe('MyFuel NT page reading', () => {
  test('finds #serverJson whatever the attribute order and quoting, and decodes its references', () => {
    const json = '{&quot;a&quot;:&quot;Cnr Bagot Rd &amp; Progress Dr&quot;,&quot;b&quot;:&quot;O&#39;Brien &#x2013; &lt;x&gt;&quot;}';
    const expected = { a: 'Cnr Bagot Rd & Progress Dr', b: 'O\'Brien \u2013 <x>' };
    assert.deepEqual(extractServerJson(`<input type="hidden" id="serverJson" value="${json}">`), expected);
    assert.deepEqual(extractServerJson(`\uFEFF<p><input value='${json}' name="serverJson" id='serverJson' type="hidden" /></p>`), expected);
    assert.throws(() => extractServerJson('<input id="serverJson" type="hidden">'), /has no value/);
  });

  test('an unknown fuel code is logged once per run; out-of-bounds readings are rejected and tried again next poll', () => {
    const ctx = testPullContext(ntAdapter, { url: 'http://unused.invalid', now: ROUND_1_NOW });
    const { brands } = parseNtResults({ FuelOutlet: [{ FuelOutletId: 1, AvailableFuels: [] }], FuelBrandList: [{ Text: 'Puma Energy', Value: 'PM' }] });
    const outlet = (id: number) => ({
      FuelOutletId: id, OutletName: `PUMA TEST ${id}`, OutletBrandIdentifier: 'PM', Address: '1 Test St', Suburb: 'DARWIN CITY', Postcode: '0800',
      Latitude: -12.46, Longitude: 130.84, IsActive: true,
      AvailableFuels: [
        { FuelCode: 'H2', Price: 1450, isAvailable: true }, { FuelCode: 'U91', Price: 19.59, isAvailable: true },
        { FuelCode: 'DL', Price: 'n/a', isAvailable: true }, { FuelCode: 'P98', Price: 219.9, isAvailable: true }, { Price: 1 },
      ],
    });
    const normaliser = ctx.normaliser();
    const cursor = addNtOutlets(normaliser, [outlet(1), outlet(2), 'junk'], brands, ROUND_1_NOW, undefined);
    addNtOutlets(ctx.normaliser(), [outlet(3)], brands, ROUND_1_NOW, undefined);
    const warnings = ctx.log.lines.filter((l) => l.msg === 'unknown fuel code: its prices are skipped');
    assert.deepEqual(warnings.map((l) => l.obj), [{ feed: 'nt', fuelCode: 'H2' }]);
    assert.deepEqual(normaliser.stationsRejected().map((r) => [r.reason, r.count]), [['outlet without FuelOutletId or AvailableFuels', 1]]);
    assert.deepEqual(normaliser.rejected().map((r) => [r.reason, r.count]), [
      ['price that is not a number', 2], ['fuel without FuelCode or isAvailable', 2], ['unknown fuel code', 2],
      ['price outside 50-500 c/L for ulp91', 2],
    ]);
    assert.deepEqual(normaliser.batch().prices.map((p) => [p.feedCode, p.fuel, p.priceTenths]), [['1', 'ulp98', 2199], ['2', 'ulp98', 2199]]);
    assert.equal(normaliser.batch().stations[0]?.brand, 'Puma Energy');
    // Only what was accepted is remembered, so the others are read afresh next time.
    assert.equal(cursor, 'nt1 1%2FP98=2199 2%2FP98=2199');
  });

  test('a cursor from something else, or damaged, just means everything is reported again', () => {
    assert.deepEqual([...readNtCursor(undefined)], []);
    assert.deepEqual([...readNtCursor('{"v":1}')], []);
    assert.deepEqual([...readNtCursor('nt1 17%2FDL=2059 %E0%A4%A=1 noequals 23%2FP95=x')], [['17/DL', '2059'], ['23/P95', 'x']]);
    assert.equal(writeNtCursor(new Map([['9/U91', '1999'], ['10/DL', 'x']])), 'nt1 10%2FDL=x 9%2FU91=1999');
  });
});
