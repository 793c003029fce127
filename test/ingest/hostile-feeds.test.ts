/**
 * Feeds answering garbage, bombs, impossible values, nothing, or too slowly. Every adapter's
 * parser is fuzzed directly (fast-check): it returns or throws FeedError, nothing else, and
 * whatever it lets through the Normaliser is within bounds. Then through the fakes and a real
 * store: after any hostile answer the stored data is unchanged and the run failed or counted
 * rejections; the data stored before is still what the API serves.
 */
import type { FeedSource } from '../../src/config.ts';
import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { isFuelId } from '../../src/domain/fuels.ts';
import { isStateId } from '../../src/domain/states.ts';
import { ensureCities } from '../../src/ingest/cities.ts';
import { FeedError } from '../../src/ingest/feed-error.ts';
import type { FeedAdapter } from '../../src/ingest/feed.ts';
import { QLD_FPD, normaliseFpdSnapshot, qldAdapter, readFpdList, readNames, readRegions } from '../../src/ingest/feeds/fpd.ts';
import { nswAdapter } from '../../src/ingest/feeds/nsw.ts';
import { parseNswToken } from '../../src/ingest/feeds/nsw-api.ts';
import { addNswAnswer, parseNswAnswer } from '../../src/ingest/feeds/nsw-records.ts';
import { addNtOutlets, extractServerJson, ntAdapter, parseNtResults } from '../../src/ingest/feeds/nt.ts';
import { addVicDetails, parseVicBrands, parseVicPrices, vicAdapter } from '../../src/ingest/feeds/vic.ts';
import { addWaItems, waAdapter } from '../../src/ingest/feeds/wa.ts';
import { parseFuelWatchRss } from '../../src/ingest/feeds/wa-rss.ts';
import { DEFAULT_HTTP_OPTIONS, FeedHttp } from '../../src/ingest/feed-fetch.ts';
import { MAX_FUTURE_SEC, Normaliser, PRICE_BOUNDS } from '../../src/ingest/normalise.ts';
import { runFeed } from '../../src/ingest/runner.ts';
import type { Batch, FeedRun, PriceStore } from '../../src/storage/store.ts';
import { MemoryLog } from '../fakes/context.ts';
import { FPD_TEST_TOKENS, fpdFixture, startFpdFake } from '../fakes/fpd.ts';
import { NSW_ROUND_1_NOW, NSW_TEST_KEY, NSW_TEST_SECRET, nswFixture, startNswFake } from '../fakes/nsw.ts';
import { NT_ROUND_1_NOW, ntFixture, startNtFake } from '../fakes/nt.ts';
import type { FakeFeedServer } from '../fakes/server.ts';
import { VIC_ROUND_1_NOW, VIC_TEST_CONSUMER_ID, startVicFake, vicFixture } from '../fakes/vic.ts';
import { WA_ROUND_1_NOW, startWaFake, waFixture } from '../fakes/wa.ts';
import { answers, testBackends } from '../helpers.ts';
import { dump } from './kill-harness.ts';

const FPD_NOW = 1_795_219_200;

/** What every batch must satisfy, whatever the feed answered: nothing out of bounds reaches the writer. */
function assertSaneBatch(batch: Batch, now: number): void {
  for (const s of batch.stations) {
    assert.ok(isStateId(s.state), s.state);
    // A live feed's station always has a position (only history files may lack one).
    assert.ok(s.latitude !== null && Number.isFinite(s.latitude) && s.latitude >= -44 && s.latitude <= -9, `latitude ${s.latitude}`);
    assert.ok(s.longitude !== null && Number.isFinite(s.longitude) && s.longitude >= 112 && s.longitude <= 160, `longitude ${s.longitude}`);
    assert.ok(s.feedCode.length > 0 && s.feedCode.length <= 100);
    for (const text of [s.name, s.brand, s.address, s.street, s.suburb, s.postcode, s.phone, s.website]) {
      // eslint-disable-next-line no-control-regex -- control characters are what this looks for
      assert.ok(text.length <= 200 && !/[\u0000-\u001f\u007f]/.test(text), JSON.stringify(text).slice(0, 80));
    }
  }
  for (const p of batch.prices) {
    assert.ok(isFuelId(p.fuel), p.fuel);
    assert.ok(Number.isInteger(p.at) && p.at >= 946_684_800 && p.at <= now + MAX_FUTURE_SEC, `at ${p.at}`);
    assert.ok(Number.isInteger(p.priceTenths), `price ${p.priceTenths}`);
    const [low, high] = p.available ? PRICE_BOUNDS[p.fuel] : [0, 100_000];
    assert.ok(p.priceTenths >= low && p.priceTenths <= high, `${p.fuel} ${p.priceTenths}`);
  }
}

/** Runs `parse` on a hostile body: a FeedError is fine, any other throw is a bug; a batch that comes out must be sane. */
function survives(adapter: FeedAdapter, now: number, parse: (body: string, n: Normaliser) => void): (body: string) => void {
  return (body) => {
    const n = new Normaliser(adapter.id, adapter.fuels, now);
    try {
      parse(body, n);
    } catch (error) {
      if (!(error instanceof FeedError)) throw error;
      assert.equal(error.kind, 'malformed');
      return;
    }
    assertSaneBatch(n.batch(), now);
  };
}

const fpdLookups = {
  brands: readNames(readFpdList(fpdFixture('qld', 'brands'), 'b', 'Brands'), 'BrandId'),
  fuels: readNames(readFpdList(fpdFixture('qld', 'fuel-types'), 'f', 'Fuels'), 'FuelId'),
  regions: readRegions(readFpdList(fpdFixture('qld', 'regions'), 'r', 'GeographicRegions')),
};
const fpdSites = readFpdList(fpdFixture('qld', 'sites'), 's', 'S');
const vicBrands = parseVicBrands(vicFixture(1, 'brands'));

/** Each feed's parser, from body to batch, and a real answer to cut and mutate. */
const PARSERS: Array<{ name: string; adapter: FeedAdapter; now: number; fixture: string; parse: (body: string, n: Normaliser) => void }> = [
  { name: 'nsw token', adapter: nswAdapter, now: NSW_ROUND_1_NOW, fixture: '{"access_token":"abc","expires_in":"43199"}', parse: (b) => { parseNswToken(b); } },
  { name: 'nsw', adapter: nswAdapter, now: NSW_ROUND_1_NOW, fixture: nswFixture(1), parse: (b, n) => addNswAnswer(n, parseNswAnswer(b, 'snapshot')) },
  { name: 'nsw /new', adapter: nswAdapter, now: NSW_ROUND_1_NOW, fixture: nswFixture(1), parse: (b, n) => addNswAnswer(n, parseNswAnswer(b, 'new')) },
  { name: 'qld prices', adapter: qldAdapter, now: FPD_NOW, fixture: fpdFixture('qld', 'prices'),
    parse: (b, n) => { normaliseFpdSnapshot(n, { ...fpdLookups, sites: fpdSites, prices: readFpdList(b, 'p', 'SitePrices') }, QLD_FPD); } },
  { name: 'qld sites', adapter: qldAdapter, now: FPD_NOW, fixture: fpdFixture('qld', 'sites'),
    parse: (b, n) => { normaliseFpdSnapshot(n, { ...fpdLookups, sites: readFpdList(b, 's', 'S'), prices: readFpdList(fpdFixture('qld', 'prices'), 'p', 'SitePrices') }, QLD_FPD); } },
  { name: 'vic', adapter: vicAdapter, now: VIC_ROUND_1_NOW, fixture: vicFixture(1, 'prices'), parse: (b, n) => addVicDetails(n, parseVicPrices(b), vicBrands) },
  { name: 'vic brands', adapter: vicAdapter, now: VIC_ROUND_1_NOW, fixture: vicFixture(1, 'brands'),
    parse: (b, n) => addVicDetails(n, parseVicPrices(vicFixture(1, 'prices')), parseVicBrands(b)) },
  { name: 'wa', adapter: waAdapter, now: WA_ROUND_1_NOW, fixture: waFixture(1, 'today', '1') ?? '', parse: (b, n) => addWaItems(n, parseFuelWatchRss(b), '1') },
  { name: 'nt', adapter: ntAdapter, now: NT_ROUND_1_NOW, fixture: ntFixture(1),
    parse: (b, n) => { const r = parseNtResults(extractServerJson(b)); addNtOutlets(n, r.outlets, r.brands, NT_ROUND_1_NOW, undefined); } },
];

/** Bodies no feed should accept: random text and bytes, random JSON, deep nesting. */
const garbage = fc.oneof(
  fc.string({ maxLength: 500 }),
  fc.uint8Array({ maxLength: 500 }).map((bytes) => Buffer.from(bytes).toString('utf8')),
  fc.json({ maxDepth: 4 }),
  fc.integer({ min: 1_000, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 1_000, max: 20_000 }).map((depth) => {
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    return `{"prices":[${deep}],"stations":[${deep}],"SitePrices":[${deep}],"S":[${deep}],"fuelPriceDetails":[${deep}]}`;
  }),
);
/** A real answer cut short, or with a few characters replaced. */
const damaged = (fixture: string) => fc.oneof(
  fc.nat(fixture.length - 1).map((n) => fixture.slice(0, n)),
  fc.tuple(fc.nat(fixture.length - 1), fc.string({ minLength: 1, maxLength: 4 })).map(([i, s]) => fixture.slice(0, i) + s + fixture.slice(i + 1)),
);
/** Values a hostile feed puts where a price or a time belongs. */
const hostileValue = fc.oneof(
  fc.constantFrom<unknown>(-1, 0, -0.5, 1e308, -1e308, 1e-300, 9_999_999, 2 ** 53, 1859.5, '189.9', '', 'NaN', 'Infinity', '1e3', '0x10', '-189.9',
    null, true, [], {}, '0000-01-01T00:00:00', '9999-12-31T23:59:59', 'not a date', '2026-02-30T00:00:00', '1969-12-31T23:59:59',
    '+275760-09-13T00:00:00', '2099-01-01T00:00:00Z', '31/12/9999 11:59:59 PM', '01/01/0000 12:00:00 AM'),
  fc.jsonValue({ maxDepth: 2 }),
  fc.double(),
);

describe('every feed parser, fuzzed: a FeedError or a sane batch, never a crash', () => {
  for (const { name, adapter, now, fixture, parse } of PARSERS) {
    test(`${name}: random bytes, random JSON, deep nesting, cut and mutated answers`, () => {
      const check = survives(adapter, now, parse);
      fc.assert(fc.property(garbage, check), { numRuns: 60 });
      fc.assert(fc.property(damaged(fixture), check), { numRuns: 100 });
    });
  }

  test('wrong-typed and impossible prices and times in otherwise real records never pass the Normaliser', () => {
    const nsw = JSON.parse(nswFixture(1)) as { stations: unknown[]; prices: Array<Record<string, unknown>> };
    const fpd = JSON.parse(fpdFixture('qld', 'prices')) as { SitePrices: Array<Record<string, unknown>> };
    const vic = JSON.parse(vicFixture(1, 'prices')) as { fuelPriceDetails: Array<{ fuelStation: unknown; fuelPrices: Array<Record<string, unknown>> }> };
    const record = fc.tuple(fc.nat(), hostileValue, hostileValue, fc.boolean());
    fc.assert(fc.property(fc.array(record, { minLength: 1, maxLength: 20 }), (edits) => {
      const pick = <T>(list: T[], i: number): T => list[i % list.length] as T;
      const nswBody = { stations: nsw.stations, prices: edits.map(([i, price, time, both]) => ({ ...pick(nsw.prices, i), price, ...(both ? { lastupdated: time } : {}) })) };
      survives(nswAdapter, NSW_ROUND_1_NOW, (b, n) => addNswAnswer(n, parseNswAnswer(b, 'snapshot')))(JSON.stringify(nswBody));
      const fpdBody = { SitePrices: edits.map(([i, price, time, both]) => ({ ...pick(fpd.SitePrices, i), Price: price, ...(both ? { TransactionDateUtc: time } : {}) })) };
      survives(qldAdapter, FPD_NOW, (b, n) => { normaliseFpdSnapshot(n, { ...fpdLookups, sites: fpdSites, prices: readFpdList(b, 'p', 'SitePrices') }, QLD_FPD); })(JSON.stringify(fpdBody));
      const vicBody = { fuelPriceDetails: edits.map(([i, price, time, both]) => {
        const detail = pick(vic.fuelPriceDetails, i);
        return { ...detail, fuelPrices: detail.fuelPrices.map((p) => ({ ...p, price, ...(both ? { updatedAt: time } : {}) })) };
      }) };
      survives(vicAdapter, VIC_ROUND_1_NOW, (b, n) => addVicDetails(n, parseVicPrices(b), vicBrands))(JSON.stringify(vicBody));
    }), { numRuns: 100 });
  });

  test('the Normaliser refuses impossible prices and times, each with its reason', () => {
    const now = 1_795_395_600;
    const n = new Normaliser('t', { U91: 'ulp91' }, now);
    const base = { code: 'S1', fuelCode: 'U91', at: now - 60, priceTenths: 1859, available: true };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ priceTenths: -1 }, 'price outside 50-500 c/L for ulp91'],
      [{ priceTenths: Number.NaN }, 'price that is not a number'],
      [{ priceTenths: 1e308 }, 'price outside 50-500 c/L for ulp91'],
      [{ priceTenths: Number.POSITIVE_INFINITY }, 'price that is not a number'],
      [{ priceTenths: '1859' }, 'price that is not a number'],
      [{ priceTenths: 185.9 }, 'price that is not a number'],
      [{ at: -62_167_219_200 }, 'price without a valid time'], // 0000-01-01
      [{ at: 253_402_300_799 }, 'price dated more than two days ahead'], // 9999-12-31
      [{ at: now + MAX_FUTURE_SEC + 1 }, 'price dated more than two days ahead'],
      [{ at: Number.NaN }, 'price without a valid time'],
      [{ at: 'yesterday' }, 'price without a valid time'],
      [{ at: 0 }, 'price without a valid time'],
    ];
    for (const [change, reason] of cases) {
      assert.equal(n.price({ ...base, ...change }), false, JSON.stringify(change));
      assert.ok(n.rejected().some((r) => r.reason === reason), `${JSON.stringify(change)}: ${JSON.stringify(n.rejected())}`);
    }
    assert.deepEqual(n.batch().prices, []);
    assert.equal(n.rejected().reduce((sum, r) => sum + r.count, 0), cases.length);
  });
});

describe('WA FuelWatch: DTDs and entities are never expanded', () => {
  const item = (name: string): string => `<item><title>x</title><brand>Ampol</brand><date>2026-05-12</date><price>189.9</price>`
    + `<trading-name>${name}</trading-name><location>PERTH</location><address>1 Hay St</address>`
    + '<latitude>-31.95</latitude><longitude>115.86</longitude></item>';
  const laughs = '<!DOCTYPE rss [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    + Array.from({ length: 8 }, (_, i) => `<!ENTITY lol${i + 2} "${`&lol${i + 1};`.repeat(10)}">`).join('') + ']>';
  const external = '<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY net SYSTEM "http://127.0.0.1:1/steal">]>';

  test('a DOCTYPE before <rss> (billion laughs, external entities) is a malformed answer', () => {
    for (const dtd of [laughs, external]) {
      const body = `<?xml version="1.0"?>\n${dtd}\n<rss version="2.0"><channel>${item('&lol9;')}</channel></rss>`;
      assert.throws(() => parseFuelWatchRss(body), (e: unknown) => e instanceof FeedError && e.kind === 'malformed');
    }
  });

  test('entity references in an item stay as written: nothing expanded, nothing read from disk or network', () => {
    for (const dtd of [laughs, external]) {
      // A DTD smuggled inside the channel is skipped like any other non-item markup.
      const body = `<rss version="2.0"><channel>${dtd}${item('Laughs &lol9; &xxe; &net; &amp; Co')}</channel></rss>`;
      const items = parseFuelWatchRss(body);
      assert.equal(items.length, 1);
      assert.equal(items[0]?.['trading-name'], 'Laughs &lol9; &xxe; &net; & Co');
      const n = new Normaliser('wa', waAdapter.fuels, WA_ROUND_1_NOW);
      addWaItems(n, items, '1');
      assert.equal(n.batch().stations[0]?.name, 'Laughs &lol9; &xxe; &net; & Co');
    }
  });
});

describe('compressed bombs: FeedHttp stops at its cap on decompressed bytes', () => {
  // 16 MiB of zeros is 16 KiB gzipped: 64 copies are 1 MiB on the wire and 1 GiB decompressed (gzip members concatenate).
  const zeros = Buffer.alloc(16 * 1024 * 1024);
  const encodings = { gzip: gzipSync(zeros), deflate: deflateSync(zeros), br: brotliCompressSync(zeros) };
  let sentBytes = 0;
  const server = createHttpServer((req, res) => {
    const encoding = (new URL(req.url ?? '/', 'http://x').searchParams.get('enc') ?? 'gzip') as keyof typeof encodings;
    res.writeHead(200, { 'content-encoding': encoding, 'content-type': 'application/json' });
    // deflate and br streams do not concatenate: one member each (16 MiB decompressed), enough past a small cap.
    const copies = encoding === 'gzip' ? 64 : 1;
    let sent = 0;
    const more = (): void => {
      while (sent < copies) {
        sent++;
        sentBytes += encodings[encoding].length;
        if (!res.write(encodings[encoding])) {
          res.once('drain', more);
          return;
        }
      }
      res.end();
    };
    res.on('error', () => {});
    more();
  });
  let base = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  for (const encoding of ['gzip', 'deflate', 'br'] as const) {
    test(`${encoding}: too_large at the cap, not retried`, async () => {
      const http = new FeedHttp({ maxBodyBytes: 4 * 1024 * 1024, sleep: async () => {}, attempts: 4 });
      await assert.rejects(http.request(`${base}/?enc=${encoding}`), (e: unknown) => e instanceof FeedError && e.kind === 'too_large'
        && /body over the 4194304-byte limit/.test(e.message));
      assert.equal(http.calls, 1);
    });
  }

  test('the default 64 MiB cap holds against 1 GiB of gzip, and the run fails with nothing written', async () => {
    assert.equal(DEFAULT_HTTP_OPTIONS.maxBodyBytes, 64 * 1024 * 1024);
    const backend = testBackends()[0];
    assert.ok(backend);
    const { store, drop } = await backend.create();
    try {
      const before = await dump(store);
      sentBytes = 0;
      const run = await runFeed({
        store, adapter: waAdapter, config: { url: `${base}/wa`, credentials: {}, source: 'rss' }, clock: { now: () => WA_ROUND_1_NOW }, log: new MemoryLog(),
        http: new FeedHttp({ sleep: async () => {} }),
      });
      assert.match(run.error ?? '', /body over the 67108864-byte limit/);
      assert.equal(await dump(store), before);
      assert.ok(sentBytes <= 64 * encodings.gzip.length);
    } finally {
      await drop();
    }
  });
});

interface FeedCase {
  name: string;
  adapter: FeedAdapter;
  now: number;
  /** Requests whose path contains this get the hostile answer. */
  target: string;
  credentials: Record<string, string>;
  /** WA: the RSS, which its fake plays. */
  source?: FeedSource;
  start(): Promise<{ url: string; server: FakeFeedServer; close(): Promise<void> }>;
  paths: string[];
}

const FEEDS: FeedCase[] = [
  { name: 'nsw', adapter: nswAdapter, now: NSW_ROUND_1_NOW, target: '/fuel/prices', start: () => startNswFake(),
    credentials: { NSW_FUELCHECK_API_KEY: NSW_TEST_KEY, NSW_FUELCHECK_API_SECRET: NSW_TEST_SECRET }, paths: ['/v1/stations?state=nsw&limit=100', '/v1/cities/sydney/spread'] },
  { name: 'qld', adapter: qldAdapter, now: FPD_NOW, target: '/Price/GetSitesPrices', start: () => startFpdFake({ state: 'qld' }),
    credentials: { QLD_FPD_TOKEN: FPD_TEST_TOKENS.qld }, paths: ['/v1/stations?state=qld&limit=100', '/v1/cities/brisbane/spread'] },
  { name: 'vic', adapter: vicAdapter, now: VIC_ROUND_1_NOW, target: '/fuel/prices', start: () => startVicFake(),
    credentials: { VIC_FAIRFUEL_CONSUMER_ID: VIC_TEST_CONSUMER_ID }, paths: ['/v1/stations?state=vic&limit=100', '/v1/cities/melbourne/spread'] },
  { name: 'wa', adapter: waAdapter, now: WA_ROUND_1_NOW, target: '/fuelwatch', start: () => startWaFake(), credentials: {}, source: 'rss',
    paths: ['/v1/stations?state=wa&limit=100', '/v1/cities/perth/spread'] },
  { name: 'nt', adapter: ntAdapter, now: NT_ROUND_1_NOW, target: '/Home/Results', start: () => startNtFake(), credentials: {},
    paths: ['/v1/stations?state=nt&limit=100', '/v1/cities/darwin/spread'] },
];

/** Every stored row but the tokens (answers() makes one each time it asks the API). */
async function dataDump(store: PriceStore): Promise<string> {
  const rows = JSON.parse(await dump(store)) as Record<string, string[]>;
  delete rows.tokens;
  rows.meta = (rows.meta ?? []).filter((row) => !row.includes('tokens_version'));
  return JSON.stringify(rows);
}

/** A server that accepts connections and closes them at once: a feed answering nothing at all. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createTcpServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

for (const feed of FEEDS) {
  describe(`${feed.name} through its fake and a real store: hostile answers change nothing`, () => {
    let fake: Awaited<ReturnType<FeedCase['start']>>;
    let store: PriceStore;
    let drop: () => Promise<void>;
    let stored = '';
    let served: string[] = [];
    const run = (url = fake.url, http = new FeedHttp({ sleep: async () => {}, attempts: 1, timeoutMs: 2_000 })): Promise<FeedRun> => runFeed({
      store, adapter: feed.adapter, config: { url, credentials: feed.credentials, ...(feed.source ? { source: feed.source } : {}) }, clock: { now: () => feed.now }, log: new MemoryLog(), http,
    });
    const assertUnchanged = async (): Promise<void> => {
      assert.ok(await dataDump(store) === stored, 'the stored data changed');
    };
    before(async () => {
      fake = await feed.start();
      const backend = testBackends()[0];
      assert.ok(backend);
      ({ store, drop } = await backend.create());
      await ensureCities(store);
      const first = await run();
      assert.equal(first.error, undefined);
      assert.ok(first.pricesAccepted > 0);
      stored = await dataDump(store);
      served = await answers(store, feed.now, feed.paths);
    });
    after(async () => {
      await fake.close();
      await drop();
    });

    test('random bytes, random JSON, deep nesting: the run fails or rejects, the data stays and is still served', async () => {
      await fc.assert(fc.asyncProperty(garbage, async (body) => {
        fake.server.failNext({ body, pathIncludes: feed.target });
        const result = await run();
        assert.ok(result.error !== undefined || result.rejections.length > 0, `accepted: ${JSON.stringify(body).slice(0, 200)}`);
        await assertUnchanged();
      }), { numRuns: 6 });
      assert.deepEqual(await answers(store, feed.now, feed.paths), served);
    });

    test('an empty 200, a connection closed without an answer, and an answer past the timeout: failed runs, data kept and served', async () => {
      fake.server.failNext({ body: '', pathIncludes: feed.target });
      assert.notEqual((await run()).error, undefined);
      await assertUnchanged();
      const silent = await silentServer();
      try {
        assert.match((await run(silent.url)).error ?? '', /127\.0\.0\.1/);
      } finally {
        await silent.close();
      }
      await assertUnchanged();
      fake.server.failNext(...Array.from({ length: 2 }, () => ({ delayMs: 300, pathIncludes: feed.target })));
      const slow = await run(fake.url, new FeedHttp({ sleep: async () => {}, attempts: 2, timeoutMs: 100 }));
      assert.match(slow.error ?? '', /no answer within 100 ms/);
      await assertUnchanged();
      assert.deepEqual(await answers(store, feed.now, feed.paths), served);
      const runs = await store.feedRuns({ feed: feed.adapter.id, limit: 3 });
      assert.deepEqual(runs.map((r) => r.error !== undefined && r.error !== null), [true, true, true]);
    });
  });
}
