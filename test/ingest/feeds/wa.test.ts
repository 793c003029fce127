import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FeedError } from '../../../src/ingest/feed-error.ts';
import { addWaItems, readWaItem, waAdapter, waEffectiveAt, waStationKey } from '../../../src/ingest/feeds/wa.ts';
import { parseFuelWatchRss } from '../../../src/ingest/feeds/wa-rss.ts';
import type { PriceEvent, StationInput } from '../../../src/storage/store.ts';
import { allRejections, testPullContext } from '../../fakes/context.ts';
import { instantRetries } from '../../fakes/server.ts';
import { type WaFake, WA_ROUND_1_NOW, startWaFake, waFixture } from '../../fakes/wa.ts';

// Perth is UTC+8 all year (no daylight saving).
// 2026-05-12 00:00 UTC = 1_778_544_000 (2026-01-01 = 1_767_225_600, + 131 days * 86_400).
// 2026-05-12 06:00 WA = 2026-05-11 22:00 UTC = 1_778_544_000 - 7_200 = 1_778_536_800.
const MAY_12_0600 = 1_778_536_800;
// 2026-05-13 06:00 WA = 1_778_536_800 + 86_400 = 1_778_623_200: round 1's "tomorrow".
const MAY_13_0600 = 1_778_623_200;
// 2026-05-14 06:00 WA = 1_778_623_200 + 86_400 = 1_778_709_600: round 2's "tomorrow".
const MAY_14_0600 = 1_778_709_600;
// Round 1's clock: 2026-05-12 15:00 WA = 07:00 UTC = 1_778_544_000 + 25_200; round 2 a day later.
const ROUND_1_NOW = 1_778_569_200;
const ROUND_2_NOW = ROUND_1_NOW + 86_400;

const AMPOL = '850 ALBANY HWY|EAST VICTORIA PARK|AMPOL VICTORIA PARK';
const PUMA = '377 SCARBOROUGH BEACH RD|OSBORNE PARK|PUMA OSBORNE PARK';
const VIBE = 'CNR GUILDFORD RD & WHATLEY CRES|BAYSWATER|VIBE BAYSWATER';
const SEVEN = '281 GREAT EASTERN HWY|RIVERVALE|7-ELEVEN RIVERVALE';
// Liberty Belmont has no position: its station is refused, its price goes on to the writer.
const LIBERTY = '120 GREAT EASTERN HWY|BELMONT|LIBERTY BELMONT';

const station = (feedCode: string, slug: string, name: string, brand: string, street: string, suburb: string, phone: string, latitude: number, longitude: number): StationInput => ({
  feed: 'wa', feedCode, slug, name, brand, address: `${street}, ${suburb} WA`, street, suburb, postcode: '', state: 'wa',
  phone, website: '', latitude, longitude,
});

const STATIONS = {
  ampol: station(AMPOL, 'ampol-victoria-park', 'Ampol Victoria Park', 'Ampol', '850 Albany Hwy', 'EAST VICTORIA PARK', '(08) 9361 2210', -31.98741, 115.90428),
  puma: station(PUMA, 'puma-osborne-park', 'Puma Osborne Park', 'Puma', '377 Scarborough Beach Rd', 'OSBORNE PARK', '(08) 9446 1180', -31.90253, 115.80814),
  vibe: station(VIBE, 'vibe-bayswater', 'Vibe Bayswater', 'Vibe', 'Cnr Guildford Rd & Whatley Cres', 'BAYSWATER', '(08) 9272 4400', -31.91862, 115.91276),
  seven: station(SEVEN, '7-eleven-rivervale', '7-Eleven Rivervale', '7-Eleven', '281 Great Eastern Highway', 'RIVERVALE', '(08) 9479 0120', -31.9562, 115.9125),
};

const price = (feedCode: string, fuel: PriceEvent['fuel'], at: number, priceTenths: number): PriceEvent => ({
  feed: 'wa', feedCode, fuel, at, priceTenths, available: true,
});

/** Every product is asked for today and tomorrow, in the FuelMap's order. */
const EXPECTED_QUERIES = ['1', '2', '4', '5', '6', '10', '11'].flatMap((p) => [`${p}/today`, `${p}/tomorrow`]);

const ROUND_1_PRICES: PriceEvent[] = [
  price(AMPOL, 'ulp91', MAY_12_0600, 1899), price(PUMA, 'ulp91', MAY_12_0600, 1765), price(VIBE, 'ulp91', MAY_12_0600, 1749),
  price(LIBERTY, 'ulp91', MAY_12_0600, 1759),
  price(AMPOL, 'ulp91', MAY_13_0600, 1999), price(PUMA, 'ulp91', MAY_13_0600, 1945), price(VIBE, 'ulp91', MAY_13_0600, 1929),
  price(AMPOL, 'diesel', MAY_12_0600, 1919), price(PUMA, 'diesel', MAY_12_0600, 1887),
  price(AMPOL, 'diesel', MAY_13_0600, 1919), price(PUMA, 'diesel', MAY_13_0600, 1887),
  price(PUMA, 'lpg', MAY_12_0600, 1129),
  price(PUMA, 'lpg', MAY_13_0600, 1129),
];

describe('WA FuelWatch adapter', () => {
  let fake: WaFake;
  before(async () => { fake = await startWaFake(); });
  after(async () => { await fake.close(); });

  const pullAt = async (now: number, http = {}) => {
    fake.server.requests.length = 0;
    const ctx = testPullContext(waAdapter, { url: fake.url, now, http, source: 'rss' });
    const pulled = await waAdapter.pull(ctx);
    return { ctx, pulled };
  };

  test('declares the feed: id, state, no credentials, the seven FuelWatch products', () => {
    assert.equal(waAdapter.id, 'wa');
    assert.deepEqual(waAdapter.states, ['wa']);
    assert.deepEqual(waAdapter.requires, []);
    assert.equal(waAdapter.intervalSec, 3_600);
    assert.deepEqual(waAdapter.fuels, { '1': 'ulp91', '2': 'ulp95', '4': 'diesel', '5': 'lpg', '6': 'ulp98', '10': 'e85', '11': 'pdiesel' });
    assert.equal(WA_ROUND_1_NOW, ROUND_1_NOW);
  });

  test('round 1: one batch with today\'s prices at 06:00 today and tomorrow\'s at 06:00 tomorrow', async () => {
    const { pulled } = await pullAt(ROUND_1_NOW);
    assert.equal(pulled.length, 1);
    const [only] = pulled;
    assert.ok(only);
    assert.equal(only.cursor, undefined);
    assert.deepEqual(only.normaliser.batch(), { stations: [STATIONS.ampol, STATIONS.puma, STATIONS.vibe], prices: ROUND_1_PRICES });
    // Liberty Belmont has no position: its station is refused (its price stays); Vibe's LPG at 11.9 c/L is a unit slip.
    assert.deepEqual(allRejections(only.normaliser).map((r) => [r.reason, r.count]), [
      ['station position outside Australia', 1],
      ['price outside 30-300 c/L for lpg', 1],
    ]);
    assert.match(allRejections(only.normaliser)[0]?.example ?? '', /Liberty Belmont/);
  });

  test('asks once per product and day, on the RSS path, with Product= and Day=', async () => {
    await pullAt(ROUND_1_NOW);
    const requests = fake.server.requests;
    assert.deepEqual(requests.map((r) => `${r.query.get('Product')}/${r.query.get('Day')}`), EXPECTED_QUERIES);
    for (const r of requests) {
      assert.equal(r.method, 'GET');
      assert.equal(r.path, '/fuelwatch/fuelWatchRSS');
      assert.deepEqual([...r.query.keys()], ['Product', 'Day']);
      assert.equal(r.headers['user-agent'], 'fuelprice-ingest/1.0');
    }
  });

  test('the diesel list arrives with a byte-order mark and is read all the same', async () => {
    const response = await fetch(`${fake.url}/fuelwatch/fuelWatchRSS?Product=4&Day=today`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const items = parseFuelWatchRss(new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes));
    assert.deepEqual(items.map((i) => [i['trading-name'], i['price']]), [['Ampol Victoria Park', '191.9'], ['Puma Osborne Park', '188.7']]);
  });

  test('round 2: tomorrow\'s lists became today\'s, new prices for the 14th, a new station', async () => {
    const own = await startWaFake();
    try {
      own.advance();
      const pulled = await waAdapter.pull(testPullContext(waAdapter, { url: own.url, now: ROUND_2_NOW, source: 'rss' }));
      assert.deepEqual(pulled[0]?.normaliser.batch(), {
        stations: [STATIONS.ampol, STATIONS.puma, STATIONS.vibe, STATIONS.seven],
        prices: [
          price(AMPOL, 'ulp91', MAY_13_0600, 1999), price(PUMA, 'ulp91', MAY_13_0600, 1945), price(VIBE, 'ulp91', MAY_13_0600, 1929),
          price(AMPOL, 'ulp91', MAY_14_0600, 1979), price(PUMA, 'ulp91', MAY_14_0600, 1929), price(VIBE, 'ulp91', MAY_14_0600, 1899),
          price(SEVEN, 'ulp91', MAY_14_0600, 1869),
          price(AMPOL, 'diesel', MAY_13_0600, 1919), price(PUMA, 'diesel', MAY_13_0600, 1887),
          price(AMPOL, 'diesel', MAY_14_0600, 1899), price(PUMA, 'diesel', MAY_14_0600, 1887), price(SEVEN, 'diesel', MAY_14_0600, 1905),
          price(PUMA, 'lpg', MAY_13_0600, 1129),
          price(PUMA, 'lpg', MAY_14_0600, 1099), price(SEVEN, 'lpg', MAY_14_0600, 1145),
        ],
      });
      assert.deepEqual(allRejections(pulled[0]?.normaliser), []);
      assert.throws(() => own.advance(), /2 rounds/);
    } finally {
      await own.close();
    }
  });

  test('429 with Retry-After: waits as asked, then the same batch', async () => {
    const retries = instantRetries();
    fake.server.failNext({ status: 429, retryAfter: '7' });
    const { pulled } = await pullAt(ROUND_1_NOW, retries);
    assert.deepEqual(retries.waits, [7_000]);
    assert.equal(fake.server.requests.length, EXPECTED_QUERIES.length + 1);
    assert.deepEqual(pulled[0]?.normaliser.batch().prices, ROUND_1_PRICES);
  });

  test('5xx on every attempt: FeedError http, nothing returned', async () => {
    const retries = instantRetries();
    fake.server.failNext({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    await assert.rejects(pullAt(ROUND_1_NOW, retries), (e: unknown) => e instanceof FeedError && e.kind === 'http' && e.status === 503);
    assert.equal(retries.waits.length, 3);
  });

  test('a cut answer for one product fails the whole poll as malformed', async () => {
    const full = waFixture(1, 'today', '4') ?? '';
    fake.server.failNext({ pathIncludes: 'fuelWatchRSS', body: full.slice(0, Math.floor(full.length / 2)) });
    await assert.rejects(pullAt(ROUND_1_NOW), (e: unknown) => e instanceof FeedError && e.kind === 'malformed' && /truncated/.test(e.message));
  });

  test('an HTML error page with status 200 is malformed, not an empty list', async () => {
    fake.server.failNext({ body: '<!DOCTYPE html><html><body>Service unavailable</body></html>' });
    await assert.rejects(pullAt(ROUND_1_NOW), (e: unknown) => e instanceof FeedError && e.kind === 'malformed' && /not an RSS document/.test(e.message));
  });
});

describe('parseFuelWatchRss', () => {
  const wrap = (items: string) => `\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>FuelWatch Prices</title>${items}</channel></rss>\n`;

  test('reads items with entities, numeric references, CDATA and empty elements', () => {
    const items = parseFuelWatchRss(wrap(
      '<item><trading-name>Shell &amp; Co &#8211; Perth</trading-name><address><![CDATA[1 A & B St]]></address><phone/><price> 185.9 </price></item>'
      + '<item><brand>BP</brand></item>',
    ));
    assert.deepEqual(items, [
      { 'trading-name': 'Shell & Co \u2013 Perth', address: '1 A & B St', phone: '', price: '185.9' },
      { brand: 'BP' },
    ]);
  });

  test('a channel without items is an empty list', () => {
    assert.deepEqual(parseFuelWatchRss(wrap('')), []);
  });

  test('shapes that are not a complete FuelWatch document are malformed', () => {
    const cases: Array<[string, RegExp]> = [
      ['', /not an RSS document/],
      ['{"items": []}', /not an RSS document/],
      [wrap('<item><price>185.9</price></item>').slice(0, -10), /truncated/],
      [wrap('<item><price>185.9</price>'), /not closed/],
      [wrap('<item><price>185.9</item>'), /not closed/],
      [wrap('<item><price><b>185.9</b></price></item>'), /markup/],
      [wrap('<item>stray text<price>1</price></item>'), /unexpected content/],
      ['<rss version="2.0"></rss>', /truncated/],
    ];
    for (const [body, message] of cases) {
      assert.throws(() => parseFuelWatchRss(body), (e: unknown) => e instanceof FeedError && e.kind === 'malformed' && message.test(e.message), body);
    }
  });
});

describe('waStationKey', () => {
  test('the same station however the address and name are written', () => {
    const key = '223 BELMONT AVE CNR WRIGHT ST|CLOVERDALE|CALTEX CLOVERDALE';
    assert.equal(waStationKey('223 Belmont Ave (Cnr Wright St)', 'CLOVERDALE', 'Caltex Cloverdale'), key);
    assert.equal(waStationKey('223  BELMONT AVENUE (Corner Wright Street)', ' Cloverdale ', 'CALTEX  CLOVERDALE'), key);
    assert.equal(waStationKey('223 Belmont Av., Cnr. Wright St', 'cloverdale', 'caltex cloverdale'), key);
  });

  test('two stations at one address under two trading names are two keys', () => {
    assert.notEqual(waStationKey('3 Marvel Ent', 'BRABHAM', '7-Eleven Brabham'), waStationKey('3 Marvel Ent', 'BRABHAM', 'EG Ampol Brabham'));
  });

  test('road, highway, street and mount forms are unified; number ranges lose their spaces', () => {
    assert.equal(waStationKey('12 - 14 Great Eastern Highway', 'Mount Lawley', 'Shell'), '12-14 GREAT EASTERN HWY|MT LAWLEY|SHELL');
    assert.equal(waStationKey('12-14 GREAT EASTERN HWY', 'MT LAWLEY', 'Shell'), '12-14 GREAT EASTERN HWY|MT LAWLEY|SHELL');
    assert.equal(waStationKey('100 Landsdale Road', 'Landsdale', 'Shell'), waStationKey('100 LANDSDALE RD', 'LANDSDALE', 'Shell'));
  });

  test('different places stay apart, and an address or suburb missing gives no key', () => {
    assert.notEqual(waStationKey('1 Main St', 'PERTH', 'Shell'), waStationKey('1 Main St', 'NORTHAM', 'Shell'));
    assert.notEqual(waStationKey('1 Main St', 'PERTH', 'Shell'), waStationKey('11 Main St', 'PERTH', 'Shell'));
    assert.equal(waStationKey('', 'PERTH', 'Shell'), '');
    assert.equal(waStationKey('1 Main St', '  ', 'Shell'), '');
  });

  test('a very long address keeps a stable key of at most 100 characters', () => {
    const address = `Lot 1234 ${'Very Long Industrial Estate Access Road '.repeat(4)}`;
    const key = waStationKey(address, 'WELSHPOOL', 'Shell');
    assert.equal(key.length, 100);
    assert.equal(key, waStationKey(address.toUpperCase().replace(/Road/gi, 'Rd'), 'Welshpool', 'SHELL'));
    assert.notEqual(key, waStationKey(address, 'KEWDALE', 'Shell'));
  });
});

describe('readWaItem and addWaItems', () => {
  const item = {
    title: '185.9: Shell Midland', brand: 'Shell', date: '2026-05-13', price: '185.9', 'trading-name': 'Shell Midland',
    location: 'MIDLAND', address: '1 Great Eastern Hwy', phone: '(08) 9250 0000', latitude: '-31.888700', longitude: '116.010400',
  };

  test('takes effect at 06:00 WA time on the item\'s date', () => {
    // 2026-05-13 06:00 at UTC+8 = 2026-05-12 22:00 UTC = 1_778_623_200.
    assert.equal(waEffectiveAt('2026-05-13'), 1_778_623_200);
    for (const bad of [undefined, '', '13/05/2026', '2026-13-01', '2026-5-13']) assert.equal(waEffectiveAt(bad), undefined, String(bad));
    const record = readWaItem(item, '1');
    assert.ok('price' in record);
    assert.deepEqual(record.price, { code: '1 GREAT EASTERN HWY|MIDLAND|SHELL MIDLAND', fuelCode: '1', at: 1_778_623_200, priceTenths: 1859, available: true });
  });

  test('an item without a date or a readable price is rejected with its reason', () => {
    assert.deepEqual(readWaItem({ ...item, date: '' }, '1'), { rejected: 'price without a valid date' });
    assert.deepEqual(readWaItem({ ...item, price: 'n/a' }, '1'), { rejected: 'price that is not a number' });
    assert.deepEqual(readWaItem({ ...item, address: '' }, '1'), { rejected: 'station without an address and suburb' });
  });

  test('an unknown product code is logged once per run, however many items carry it', () => {
    const ctx = testPullContext(waAdapter, { url: 'http://unused.invalid', now: ROUND_1_NOW });
    const first = ctx.normaliser();
    addWaItems(first, [item, { ...item, address: '2 Great Eastern Hwy' }], '99');
    addWaItems(ctx.normaliser(), [item], '99');
    const warnings = ctx.log.lines.filter((l) => l.msg === 'unknown fuel code: its prices are skipped');
    assert.deepEqual(warnings.map((l) => l.obj), [{ feed: 'wa', fuelCode: '99' }]);
    assert.deepEqual(allRejections(first).map((r) => [r.reason, r.count]), [['unknown fuel code', 2]]);
    assert.equal(first.batch().prices.length, 0);
    assert.equal(first.batch().stations.length, 2);
  });
});

describe('two real stations at one address (FuelWatch, 1 and 2 May 2026)', () => {
  // test/fixtures/feeds/wa/real/: four stations' ULP rows from FuelWatch's site API, read as the
  // RSS items FuelWatch publishes for them (same trading name, address, suburb and position).
  type SiteRow = { stationId: number; siteName: string; address: string; suburb: string; latitude: number; longitude: number; priceToday: number };
  const days = JSON.parse(readFileSync(new URL('../../fixtures/feeds/wa/real/shared-addresses-ulp.json', import.meta.url), 'utf8')) as Record<string, SiteRow[]>;
  const itemOf = (row: SiteRow, date: string) => ({
    title: `${row.priceToday}: ${row.siteName}`, brand: '', date, price: String(row.priceToday), 'trading-name': row.siteName,
    location: row.suburb, address: row.address, phone: '', latitude: String(row.latitude), longitude: String(row.longitude),
  });
  const batchOf = (date: string) => {
    const ctx = testPullContext(waAdapter, { url: 'http://unused.invalid', now: ROUND_1_NOW });
    const normaliser = ctx.normaliser();
    addWaItems(normaliser, (days[date] ?? []).map((row) => itemOf(row, date)), '1');
    return normaliser.batch();
  };

  test('4 stations stay 4, each with its own price; the same 4 keys the next day', () => {
    const first = batchOf('2026-05-01');
    // By hand from the rows: 7-Eleven Haynes 175.9 and Shell Reddy Express Brookdale 179.9 at 1256 Armadale Rd;
    // 7-Eleven Brabham 175.9 and EG Ampol Brabham 179.9 at 3 Marvel Ent (FuelWatch stationIds 1228, 2226, 1794, 2047).
    const haynes = '1256 ARMADALE RD|ARMADALE|7-ELEVEN HAYNES';
    const brabham = '3 MARVEL ENT|BRABHAM|7-ELEVEN BRABHAM';
    const egAmpol = '3 MARVEL ENT|BRABHAM|EG AMPOL BRABHAM';
    const reddy = '1256 ARMADALE RD|ARMADALE|SHELL REDDY EXPRESS BROOKDALE';
    assert.deepEqual(first.stations.map((s) => s.feedCode), [haynes, brabham, egAmpol, reddy]);
    // 06:00 WA on 1 May 2026 = 22:00 UTC on 30 April = 1_777_593_600 - 7_200.
    const at = 1_777_586_400;
    assert.deepEqual(first.prices.map((p) => [p.feedCode, p.at, p.priceTenths]), [[haynes, at, 1759], [brabham, at, 1759], [egAmpol, at, 1799], [reddy, at, 1799]]);
    const second = batchOf('2026-05-02');
    assert.deepEqual(second.stations.map((s) => s.feedCode), [haynes, brabham, egAmpol, reddy]);
    assert.deepEqual(second.prices.map((p) => [p.feedCode, p.priceTenths]), [[haynes, 1739], [brabham, 1739], [egAmpol, 1759], [reddy, 1799]]);
  });
});
