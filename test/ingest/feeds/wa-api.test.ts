import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FeedError } from '../../../src/ingest/feed-error.ts';
import { Normaliser } from '../../../src/ingest/normalise.ts';
import { WA_FUELS, WaStationIndex, addWaItems, waAdapter } from '../../../src/ingest/feeds/wa.ts';
import { parseWaSites, readWaSite, waPriceDays } from '../../../src/ingest/feeds/wa-api.ts';
import type { FeedStation } from '../../../src/storage/store.ts';
import { MemoryLog, testPullContext } from '../../fakes/context.ts';
import { type WaFake, WA_API_CAPTURED, startWaFake, waApiSites } from '../../fakes/wa.ts';

// The capture: 2026-03-30 06:48:55 UTC = 14:48:55 WA (UTC+8, no daylight saving).
// Today's prices from 2026-03-30 06:00 WA = 2026-03-29 22:00 UTC; tomorrow's from 2026-03-31 06:00 WA.
const TODAY_0600 = Date.parse('2026-03-29T22:00:00Z') / 1000;
const TOMORROW_0600 = Date.parse('2026-03-30T22:00:00Z') / 1000;

const site = (fuelType: string, name: string): Record<string, unknown> =>
  waApiSites(fuelType).find((s) => s['siteName'] === name) ?? assert.fail(`${name} not in the ${fuelType} capture`);

describe('WA FuelWatch site API reader', () => {
  test('06:00 WA today and tomorrow, from the clock', () => {
    assert.deepEqual(waPriceDays(WA_API_CAPTURED), { today: TODAY_0600, tomorrow: TOMORROW_0600 });
    // At 05:59 WA it is still the 30th (06:00 not reached: today's is ahead, held until due).
    assert.deepEqual(waPriceDays(TODAY_0600 - 60), { today: TODAY_0600, tomorrow: TOMORROW_0600 });
  });

  test('a site with both prices: station keyed by FuelWatch\'s id, brand named, today\'s and tomorrow\'s rows', () => {
    const read = readWaSite(site('ULP', 'Burk Cannington'), '1', WA_API_CAPTURED);
    assert.deepEqual(read, {
      station: {
        code: '2342', name: 'Burk Cannington', brand: 'Burk', address: '1510 Albany Hwy, BECKENHAM WA 6107', street: '1510 Albany Hwy',
        suburb: 'BECKENHAM', postcode: '6107', state: 'wa', latitude: -32.027183, longitude: 115.950013,
      },
      prices: [
        { code: '2342', fuelCode: '1', at: TODAY_0600, priceTenths: 2333, available: true },
        { code: '2342', fuelCode: '1', at: TOMORROW_0600, priceTenths: 2293, available: true },
      ],
    });
  });

  test('out of stock now (tempUnavailableFrom 11:55 today, until 14:30 tomorrow) with a price for tomorrow', () => {
    // OMG Metro Maddington: no priceToday, tempUnavailableFrom 2026-03-30T11:55+08:00, priceTomorrow 259.9.
    const read = readWaSite(site('ULP', 'OMG Metro Maddington'), '1', WA_API_CAPTURED);
    assert.ok('prices' in read);
    assert.deepEqual(read.prices, [
      { code: '2346', fuelCode: '1', at: Date.parse('2026-03-30T11:55:00+08:00') / 1000, priceTenths: 0, available: false },
      { code: '2346', fuelCode: '1', at: TOMORROW_0600, priceTenths: 2599, available: true },
    ]);
  });

  test('out of stock since before today (no end given): from 06:00 today', () => {
    // Geographe IGA: tempUnavailableFrom 2026-03-24, until 2026-04-02 06:00; no prices.
    const read = readWaSite(site('ULP', 'Geographe IGA'), '1', WA_API_CAPTURED);
    assert.ok('prices' in read);
    assert.deepEqual(read.prices, [{ code: '1076', fuelCode: '1', at: TODAY_0600, priceTenths: 0, available: false }]);
  });

  test('a price for tomorrow only: one held row, none for today', () => {
    const read = readWaSite(site('ULP', 'Mt Barker Fuel Services'), '1', WA_API_CAPTURED);
    assert.ok('prices' in read);
    assert.deepEqual(read.prices, [{ code: '1101', fuelCode: '1', at: TOMORROW_0600, priceTenths: 2469, available: true }]);
  });

  test('closed all day tomorrow: tomorrow\'s price is held out of stock', () => {
    const closed = { ...site('ULP', 'Burk Cannington'), isClosedAllDayTomorrow: true };
    const read = readWaSite(closed, '1', WA_API_CAPTURED);
    assert.ok('prices' in read);
    assert.deepEqual(read.prices[1], { code: '2342', fuelCode: '1', at: TOMORROW_0600, priceTenths: 2293, available: false });
  });

  test('bad sites are rejected alone; an answer that is not a list of objects is malformed', () => {
    assert.deepEqual(readWaSite({ ...site('ULP', 'Burk Cannington'), id: 'x' }, '1', WA_API_CAPTURED), { rejected: 'site without a numeric id' });
    const badPrice = { ...site('ULP', 'Burk Cannington'), product: { shortName: 'ULP', priceToday: 'cheap' } };
    assert.deepEqual(readWaSite(badPrice, '1', WA_API_CAPTURED), { rejected: 'price that is not a number' });
    assert.throws(() => parseWaSites('[{"id": 1'), (e: unknown) => e instanceof FeedError && e.kind === 'malformed' && /not JSON/.test(e.message));
    assert.throws(() => parseWaSites('{"sites": []}'), (e: unknown) => e instanceof FeedError && e.kind === 'malformed');
    assert.throws(() => parseWaSites('[1, 2]'), (e: unknown) => e instanceof FeedError && e.kind === 'malformed');
    assert.deepEqual(parseWaSites('\uFEFF[]'), []);
  });

  test('a station reported under its other key takes the stored one\'s; an unknown or shared address keeps its own', () => {
    const stored = (feedCode: string, name: string, street: string, suburb: string): FeedStation => ({
      id: feedCode, feedCode, name, brand: '', address: '', street, suburb, postcode: '', state: 'wa',
    });
    const index = new WaStationIndex([
      stored('2342', 'Burk Cannington', '1510 Albany Hwy', 'BECKENHAM'),
      stored('11', 'Twin A', '1 Shared St', 'PERTH'), stored('12', 'Twin A', '1 Shared Street', 'PERTH'),
    ]);
    // An RSS item of Burk Cannington, written as the RSS writes it: stored under FuelWatch's id.
    const normaliser = new Normaliser('wa', WA_FUELS, WA_API_CAPTURED);
    addWaItems(normaliser, [{
      'trading-name': 'Burk Cannington', brand: 'Burk', date: '2026-03-30', price: '233.3', location: 'BECKENHAM',
      address: '1510 Albany Highway', phone: '', latitude: '-32.027183', longitude: '115.950013',
    }], '1', index);
    assert.deepEqual(normaliser.batch().prices.map((p) => p.feedCode), ['2342']);
    assert.deepEqual(normaliser.batch().stations.map((s) => s.feedCode), ['2342']);
    const raw = { code: '999', name: 'Twin A', brand: '', address: '', street: '1 Shared St', suburb: 'PERTH', postcode: '', state: 'wa', latitude: 0, longitude: 0 };
    assert.equal(index.code('999', raw), '999');
    assert.equal(index.code('11', raw), '11');
    assert.equal(index.code('998', { ...raw, street: '9 Other Rd' }), '998');
  });
});

describe('WA adapter: which interface a poll reads', () => {
  let fake: WaFake;
  before(async () => { fake = await startWaFake({ api: true }); });
  after(async () => { await fake.close(); });
  const path = (r: { path: string; query: URLSearchParams }) => `${r.path}?${r.query.toString()}`;
  const SITE_API_QUERIES = ['ULP', 'PUP', 'DSL', 'LPG', '98R', 'E85', 'BDL'].map((f) => `/api/sites?fuelType=${f}`);

  test('auto (the default) reads the site API: 7 requests, one batch with today\'s and tomorrow\'s rows of every captured site', async () => {
    fake.server.requests.length = 0;
    const ctx = testPullContext(waAdapter, { url: fake.url, now: WA_API_CAPTURED });
    const [pulled] = await waAdapter.pull(ctx);
    assert.deepEqual(fake.server.requests.map(path), SITE_API_QUERIES);
    // Rows worked out from the capture itself: per site, one for today (a price, or a mark out of stock) and one for tomorrow.
    let rows = 0;
    for (const fuelType of ['ULP', 'DSL', '98R']) {
      for (const s of waApiSites(fuelType)) {
        const product = s['product'] as Record<string, unknown>;
        const marked = 'tempUnavailableFrom' in product || 'tempUnavailableFrom' in s;
        rows += (product['priceToday'] != null || marked ? 1 : 0) + (product['priceTomorrow'] != null ? 1 : 0);
      }
    }
    assert.equal(pulled?.normaliser.batch().prices.length, rows);
    assert.equal(pulled?.normaliser.pricesRead, rows);
  });

  test('auto: a site API answering 500 on every attempt makes the poll read the RSS, with a warning', async () => {
    fake.server.requests.length = 0;
    fake.server.failNext(...Array.from({ length: 4 }, () => ({ status: 500, pathIncludes: '/api/sites' })));
    const log = new MemoryLog();
    const ctx = testPullContext(waAdapter, { url: fake.url, now: WA_API_CAPTURED, log });
    const [pulled] = await waAdapter.pull(ctx);
    const paths = fake.server.requests.map((r) => r.path);
    assert.deepEqual(paths.slice(0, 4), Array(4).fill('/api/sites'));
    assert.deepEqual(paths.slice(4), Array(14).fill('/fuelwatch/fuelWatchRSS'));
    assert.equal(log.lines.filter((l) => l.msg === 'FuelWatch site API failed: this poll reads the RSS').length, 1);
    // The fake's RSS round 1: 3 positioned stations (Liberty Belmont has none).
    assert.equal(pulled?.normaliser.batch().stations.length, 3);
  });

  test('api: a failing site API fails the poll; rss never asks it', async () => {
    fake.server.failNext({ status: 404, pathIncludes: '/api/sites' });
    await assert.rejects(waAdapter.pull(testPullContext(waAdapter, { url: fake.url, now: WA_API_CAPTURED, source: 'api' })),
      (e: unknown) => e instanceof FeedError && e.kind === 'http' && /api\/sites: HTTP 404/.test(e.message));
    fake.server.requests.length = 0;
    await waAdapter.pull(testPullContext(waAdapter, { url: fake.url, now: WA_API_CAPTURED, source: 'rss' }));
    assert.ok(fake.server.requests.every((r) => r.path === '/fuelwatch/fuelWatchRSS'));
  });
});
