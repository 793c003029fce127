import { beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FeedError } from '../../../src/ingest/feed-error.ts';
import { forgetNswSessions, nswAdapter, nswPollKind, parseNswCursor } from '../../../src/ingest/feeds/nsw.ts';
import { formatRequestTimestamp, keptNswToken, nswApi, nswTokenOwner, parseNswToken } from '../../../src/ingest/feeds/nsw-api.ts';
import {
  addNswAnswer, nswStationKey, parseLastUpdated, parseNswAnswer, readNswPrice, readNswStation,
} from '../../../src/ingest/feeds/nsw-records.ts';
import { nswStationState, nswSuburbCell, splitNswAddress } from '../../../src/ingest/feeds/nsw-address.ts';
import { Normaliser } from '../../../src/ingest/normalise.ts';
import type { PriceEvent, StationInput } from '../../../src/storage/store.ts';
import { allRejections, MemoryKept, testPullContext } from '../../fakes/context.ts';
import {
  type NswFake, NSW_ROUND_1_NOW, NSW_ROUND_2_NOW, NSW_TEST_KEY, NSW_TEST_SECRET, nswFixture, startNswFake,
} from '../../fakes/nsw.ts';
import { instantRetries } from '../../fakes/server.ts';

// Sydney is on AEST (UTC+10) in May, on AEDT (UTC+11) until 5 April 2026. Midnights UTC:
// 2026-01-01 = 1_767_225_600; 2026-05-11 = 1_767_225_600 + 130 days * 86_400 = 1_778_457_600;
// 2026-05-10 = 1_778_371_200; 2026-05-09 = 1_778_284_800; 2026-05-07 = 1_778_112_000;
// 2026-05-01 = 1_777_593_600; 2026-04-03 = 1_767_225_600 + 92 days * 86_400 = 1_775_174_400.
const T = {
  ampol: 1_778_535_910, //      12/05 07:45:10 AEST = 11/05 21:45:10Z = 1_778_457_600 + 21*3600 + 45*60 + 10
  ampolP98: 1_778_479_353, //   11/05 16:02:33 AEST = 11/05 06:02:33Z = 1_778_457_600 + 6*3600 + 2*60 + 33
  ampolDiesel: 1_778_358_600, // 10/05 06:30:00 AEST = 09/05 20:30:00Z = 1_778_284_800 + 20*3600 + 30*60
  seven: 1_778_487_641, //      11/05 18:20:41 AEST = 11/05 08:20:41Z = 1_778_457_600 + 8*3600 + 20*60 + 41
  metroU91: 1_778_533_082, //   12/05 06:58:02 AEST = 11/05 20:58:02Z = 1_778_457_600 + 20*3600 + 58*60 + 2
  metroDiesel: 1_778_285_472, // 09/05 10:11:12 AEST = 09/05 00:11:12Z = 1_778_284_800 + 11*60 + 12
  metroLpg: 1_777_672_800, //   02/05 08:00:00 AEST = 01/05 22:00:00Z = 1_777_593_600 + 22*3600
  bp: 1_778_464_800, //         11/05 12:00:00 AEST = 11/05 02:00:00Z = 1_778_457_600 + 2*3600
  bpDiesel: 1_778_195_700, //   08/05 09:15:00 AEST = 07/05 23:15:00Z = 1_778_112_000 + 23*3600 + 15*60
  budget: 1_778_526_600, //     12/05 05:10:00 AEST = 11/05 19:10:00Z = 1_778_457_600 + 19*3600 + 10*60
  moonah: 1_778_455_800, //     11/05 09:30:00 AEST = 10/05 23:30:00Z = 1_778_371_200 + 23*3600 + 30*60
  moonahDiesel: 1_778_391_930, // 10/05 15:45:30 AEST = 10/05 05:45:30Z = 1_778_371_200 + 5*3600 + 45*60 + 30
  moonahLpg: 1_775_193_600, //  03/04 16:20:00 AEDT = 03/04 05:20:00Z = 1_775_174_400 + 5*3600 + 20*60
  sandyBay: 1_778_472_300, //   11/05 14:05:00 AEST = 11/05 04:05:00Z = 1_778_457_600 + 4*3600 + 5*60
  ampol2: 1_778_541_160, //     12/05 09:12:40 AEST = 11/05 23:12:40Z = 1_778_457_600 + 23*3600 + 12*60 + 40
  bp2: 1_778_541_605, //        12/05 09:20:05 AEST = 11/05 23:20:05Z = 1_778_457_600 + 23*3600 + 20*60 + 5
  moonah2: 1_778_540_700, //    12/05 09:05:00 AEST = 11/05 23:05:00Z = 1_778_457_600 + 23*3600 + 5*60
  speedway: 1_778_541_900, //   12/05 09:25:00 AEST = 11/05 23:25:00Z = 1_778_457_600 + 23*3600 + 25*60
};
// Round 1 is read at 12/05 09:00 AEST = 11/05 23:00:00Z = 1_778_457_600 + 23*3600; round 2 at 09:30.
const R1 = 1_778_540_400;
const R2 = R1 + 1_800;

const station = (feedCode: string, slug: string, name: string, brand: string, street: string, suburb: string, stateAbbrev: string, postcode: string, state: StationInput['state'], latitude: number, longitude: number): StationInput => ({
  feed: 'nsw', feedCode, slug, name, brand, address: `${street}, ${suburb.toUpperCase()} ${stateAbbrev} ${postcode}`, street, suburb, postcode, state,
  phone: '', website: '', latitude, longitude,
});

const S = {
  ampol: station('NSW-1021', 'ampol-foodary-surry-hills', 'Ampol Foodary Surry Hills', 'Ampol', '424 Cleveland St', 'Surry Hills', 'NSW', '2010', 'nsw', -33.8884, 151.2107),
  seven: station('NSW-2087', '7-eleven-pyrmont', '7-Eleven Pyrmont', '7-Eleven', '245 Harris St', 'Pyrmont', 'NSW', '2009', 'nsw', -33.871, 151.1945),
  // Postcode 2620 is shared with the ACT; the address says NSW, and that wins.
  metro: station('NSW-17', 'metro-fuel-queanbeyan', 'Metro Fuel Queanbeyan', 'Metro Fuel', '96 Uriarra Rd', 'Queanbeyan', 'NSW', '2620', 'nsw', -35.3571, 149.2221),
  // An ACT station in the NSW feed: keyed NSW-1523, placed in the ACT.
  bp: station('NSW-1523', 'bp-braddon', 'bp Braddon', 'BP', '33 Mort St', 'Braddon', 'ACT', '2612', 'act', -35.2747, 149.1339),
  moonah: station('TAS-17', 'united-moonah', 'United Moonah', 'United', '150 Main Rd', 'Moonah', 'TAS', '7009', 'tas', -42.8461, 147.3035),
  sandyBay: station('TAS-402', 'ampol-foodary-sandy-bay', 'Ampol Foodary Sandy Bay', 'Ampol', '277 Sandy Bay Rd', 'Sandy Bay', 'TAS', '7005', 'tas', -42.8981, 147.3255),
  speedway: station('NSW-3355', 'speedway-marrickville', 'Speedway Marrickville', 'Speedway', '1 Carrington Rd', 'Marrickville', 'NSW', '2204', 'nsw', -33.9103, 151.1648),
};

const price = (feedCode: string, fuel: PriceEvent['fuel'], at: number, priceTenths: number, available = true): PriceEvent => ({
  feed: 'nsw', feedCode, fuel, at, priceTenths, available,
});

const ROUND_1_STATIONS = [S.ampol, S.seven, S.metro, S.bp, S.moonah, S.sandyBay];
const ROUND_1_PRICES: PriceEvent[] = [
  price('NSW-1021', 'e10', T.ampol, 1869), price('NSW-1021', 'ulp91', T.ampol, 1899), price('NSW-1021', 'ulp98', T.ampolP98, 2139),
  price('NSW-1021', 'diesel', T.ampolDiesel, 1929),
  price('NSW-2087', 'e10', T.seven, 1877), price('NSW-2087', 'ulp95', T.seven, 2037), price('NSW-2087', 'diesel', T.seven, 1937),
  price('NSW-17', 'ulp91', T.metroU91, 1839), price('NSW-17', 'diesel', T.metroDiesel, 1899), price('NSW-17', 'lpg', T.metroLpg, 1099),
  price('NSW-1523', 'e10', T.bp, 1857), price('NSW-1523', 'ulp91', T.bp, 1887), price('NSW-1523', 'ulp98', T.bp, 2127),
  price('NSW-1523', 'diesel', T.bpDiesel, 1949), price('NSW-1523', 'pdiesel', T.bpDiesel, 1999),
  // Budget Auburn's station record has no coordinates and is rejected alone; its price stays (the
  // runner counts it as an unknown station unless the station is already stored).
  price('NSW-3310', 'ulp91', T.budget, 1799),
  price('TAS-17', 'ulp91', T.moonah, 1949), price('TAS-17', 'ulp95', T.moonah, 2079), price('TAS-17', 'diesel', T.moonahDiesel, 1979),
  price('TAS-17', 'lpg', T.moonahLpg, 1189),
  price('TAS-402', 'ulp91', T.sandyBay, 1969), price('TAS-402', 'ulp98', T.sandyBay, 2199), price('TAS-402', 'diesel', T.sandyBay, 1999),
];
const ROUND_1_REJECTIONS = [
  ['station without coordinates', 1], ['unknown fuel code', 2], ['price outside 50-500 c/L for ulp98', 1], ['price that is not a number', 1],
];

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const BASIC = `Basic ${Buffer.from(`${NSW_TEST_KEY}:${NSW_TEST_SECRET}`).toString('base64')}`;
const CREDENTIALS = { NSW_FUELCHECK_API_KEY: NSW_TEST_KEY, NSW_FUELCHECK_API_SECRET: NSW_TEST_SECRET };

const isFeedError = (kind: FeedError['kind'], status?: number) => (e: unknown): boolean =>
  e instanceof FeedError && e.kind === kind && (status === undefined || e.status === status);

async function withFake(run: (fake: NswFake) => Promise<void>): Promise<void> {
  const fake = await startNswFake();
  try {
    await run(fake);
  } finally {
    await fake.close();
  }
}

/** What the store keeps between runs (the access token): one per test, as one database. */
let kept = new MemoryKept();

function pull(fake: NswFake, now: number, options: { cursor?: string; credentials?: Record<string, string>; http?: object; url?: string } = {}) {
  const ctx = testPullContext(nswAdapter, {
    url: options.url ?? fake.url, now, credentials: options.credentials ?? CREDENTIALS, http: options.http ?? {}, kept,
    ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
  });
  return { ctx, pulled: nswAdapter.pull(ctx) };
}

const requestLine = (r: { method: string; path: string; query: URLSearchParams }): string => `${r.method} ${r.path}?${decodeURIComponent(r.query.toString())}`;

describe('NSW FuelCheck adapter', () => {
  beforeEach(() => {
    forgetNswSessions();
    kept = new MemoryKept();
  });

  test('declares the feed: three states, both credentials, a poll every 30 minutes, the fuel table', () => {
    assert.equal(nswAdapter.id, 'nsw');
    assert.deepEqual(nswAdapter.states, ['nsw', 'act', 'tas']);
    assert.deepEqual(nswAdapter.requires, ['NSW_FUELCHECK_API_KEY', 'NSW_FUELCHECK_API_SECRET']);
    assert.equal(nswAdapter.intervalSec, 1_800);
    assert.deepEqual(nswAdapter.fuels, {
      E10: 'e10', U91: 'ulp91', P95: 'ulp95', P98: 'ulp98', DL: 'diesel', PDL: 'pdiesel',
      LPG: 'lpg', E85: 'e85', B20: 'b20', EV: 'ev', CNG: 'cng', LNG: 'lng',
    });
    assert.equal(NSW_ROUND_1_NOW, R1);
    assert.equal(NSW_ROUND_2_NOW, R2);
  });

  test('first run: a token, then the snapshot for NSW and TAS; exact batch, rejections and cursor', () => withFake(async (fake) => {
    const { ctx, pulled } = pull(fake, R1);
    const batches = await pulled;
    assert.equal(batches.length, 1);
    assert.deepEqual(batches[0]?.normaliser.batch(), { stations: ROUND_1_STATIONS, prices: ROUND_1_PRICES });
    assert.deepEqual(allRejections(batches[0]?.normaliser).map((r) => [r.reason, r.count]), ROUND_1_REJECTIONS);
    assert.equal(batches[0]?.cursor, JSON.stringify({ snapshotAt: R1, lastAt: R1 }));
    // Two records carry the unknown code H2: one warning for the run.
    const unknown = ctx.log.lines.filter((l) => l.msg === 'unknown fuel code: its prices are skipped');
    assert.deepEqual(unknown.map((l) => l.obj), [{ feed: 'nsw', fuelCode: 'H2' }]);
  }));

  test('the requests: Basic credentials for the token, then bearer, apikey, a UUID and the UTC request time', () => withFake(async (fake) => {
    await pull(fake, R1).pulled;
    const [token, data, ...rest] = fake.server.requests;
    assert.equal(rest.length, 0);
    assert.ok(token && data);
    assert.equal(requestLine(token), 'GET /oauth/client_credential/accesstoken?grant_type=client_credentials');
    assert.equal(token.headers['authorization'], BASIC);
    assert.equal(token.headers['apikey'], undefined);
    assert.equal(requestLine(data), 'GET /FuelPriceCheck/v2/fuel/prices?states=NSW|TAS');
    assert.equal(data.headers['authorization'], `Bearer ${fake.tokens[0]}`);
    assert.equal(data.headers['apikey'], NSW_TEST_KEY);
    assert.match(String(data.headers['transactionid']), UUID_V4);
    // R1 is 2026-05-11T23:00:00Z.
    assert.equal(data.headers['requesttimestamp'], '11/05/2026 11:00:00 PM');
    assert.equal(data.headers['content-type'], 'application/json; charset=utf-8');
  }));

  test('then /new with the cached token: only round 2\'s changes, a fuel out of stock, a new station; nothing twice', () => withFake(async (fake) => {
    const first = await pull(fake, R1).pulled;
    fake.advance();
    fake.server.requests.length = 0;
    const second = await pull(fake, R2, { cursor: first[0]?.cursor }).pulled;
    assert.deepEqual(fake.server.requests.map(requestLine), ['GET /FuelPriceCheck/v2/fuel/prices/new?states=NSW|TAS']);
    assert.equal(fake.server.requests[0]?.headers['authorization'], `Bearer ${fake.tokens[0]}`);
    assert.equal(fake.server.requests[0]?.headers['requesttimestamp'], '11/05/2026 11:30:00 PM');
    assert.equal(fake.tokens.length, 1);
    assert.deepEqual(second[0]?.normaliser.batch(), {
      stations: [S.ampol, S.bp, S.speedway, S.moonah],
      prices: [
        price('NSW-1021', 'e10', T.ampol2, 1839), price('NSW-1021', 'ulp91', T.ampol2, 1869),
        price('NSW-1523', 'pdiesel', T.bp2, 0, false),
        price('NSW-3355', 'e10', T.speedway, 1809), price('NSW-3355', 'ulp91', T.speedway, 1829), price('NSW-3355', 'diesel', T.speedway, 1909),
        price('TAS-17', 'diesel', T.moonah2, 1959),
      ],
    });
    assert.deepEqual(allRejections(second[0]?.normaliser), []);
    assert.equal(second[0]?.cursor, JSON.stringify({ snapshotAt: R1, lastAt: R2 }));

    const third = await pull(fake, R2 + 1_800, { cursor: second[0]?.cursor }).pulled;
    assert.deepEqual(fake.server.requests.map((r) => r.path).slice(1), ['/FuelPriceCheck/v2/fuel/prices/new']);
    assert.deepEqual(third[0]?.normaliser.batch(), { stations: [], prices: [] });
    assert.equal(third[0]?.cursor, JSON.stringify({ snapshotAt: R1, lastAt: R2 + 1_800 }));
  }));

  test('an answer fetched but never applied (malformed) makes the next poll a snapshot, not /new', () => withFake(async (fake) => {
    const first = await pull(fake, R1).pulled;
    fake.advance();
    fake.server.failNext({ pathIncludes: '/prices/new', body: '{"stations": [], "pri' });
    await assert.rejects(pull(fake, R2, { cursor: first[0]?.cursor }).pulled, isFeedError('malformed'));
    fake.server.requests.length = 0;
    const retried = await pull(fake, R2 + 60, { cursor: first[0]?.cursor }).pulled;
    assert.deepEqual(fake.server.requests.map((r) => r.path), ['/FuelPriceCheck/v2/fuel/prices']);
    assert.equal(retried[0]?.normaliser.batch().prices.length, 26);
    assert.equal(retried[0]?.cursor, JSON.stringify({ snapshotAt: R2 + 60, lastAt: R2 + 60 }));
  }));

  test('a cached token the API refuses is replaced once, and the call made again', () => withFake(async (fake) => {
    const first = await pull(fake, R1).pulled;
    fake.advance();
    fake.revokeTokens();
    fake.server.requests.length = 0;
    const second = await pull(fake, R2, { cursor: first[0]?.cursor }).pulled;
    assert.deepEqual(fake.server.requests.map((r) => `${r.path} ${String(r.headers['authorization']).split(' ')[0]}`), [
      '/FuelPriceCheck/v2/fuel/prices/new Bearer', '/oauth/client_credential/accesstoken Basic', '/FuelPriceCheck/v2/fuel/prices/new Bearer',
    ]);
    assert.equal(fake.server.requests[2]?.headers['authorization'], `Bearer ${fake.tokens[1]}`);
    assert.equal(second[0]?.normaliser.batch().prices.length, 7);
  }));

  test('refused credentials are an auth error at once, without retries; missing ones send nothing', () => withFake(async (fake) => {
    const retries = instantRetries();
    await assert.rejects(
      pull(fake, R1, { credentials: { ...CREDENTIALS, NSW_FUELCHECK_API_SECRET: 'wrong' }, http: retries }).pulled,
      isFeedError('auth', 401),
    );
    assert.deepEqual(fake.server.requests.map((r) => r.path), ['/oauth/client_credential/accesstoken']);
    assert.deepEqual(retries.waits, []);
    fake.server.requests.length = 0;
    await assert.rejects(pull(fake, R1, { credentials: { NSW_FUELCHECK_API_KEY: NSW_TEST_KEY } }).pulled,
      (e: unknown) => isFeedError('auth')(e) && /NSW_FUELCHECK_API_SECRET/.test((e as Error).message));
    assert.equal(fake.server.requests.length, 0);
  }));

  test('429 with Retry-After on the snapshot: waits as asked, then the same batch', () => withFake(async (fake) => {
    const retries = instantRetries();
    fake.server.failNext({ pathIncludes: '/fuel/prices', status: 429, retryAfter: '30' });
    const batches = await pull(fake, R1, { http: retries }).pulled;
    assert.deepEqual(retries.waits, [30_000]);
    assert.deepEqual(fake.server.requests.map((r) => r.path), [
      '/oauth/client_credential/accesstoken', '/FuelPriceCheck/v2/fuel/prices', '/FuelPriceCheck/v2/fuel/prices',
    ]);
    assert.deepEqual(batches[0]?.normaliser.batch(), { stations: ROUND_1_STATIONS, prices: ROUND_1_PRICES });
  }));

  test('500 on every attempt: FeedError http after four data calls, no batch', () => withFake(async (fake) => {
    const retries = instantRetries();
    const fault = { pathIncludes: '/fuel/prices', status: 500 };
    fake.server.failNext(fault, fault, fault, fault);
    await assert.rejects(pull(fake, R1, { http: retries }).pulled, isFeedError('http', 500));
    assert.deepEqual(fake.server.requests.map((r) => r.path), [
      '/oauth/client_credential/accesstoken', ...Array<string>(4).fill('/FuelPriceCheck/v2/fuel/prices'),
    ]);
    assert.equal(retries.waits.length, 3);
  }));

  test('a connection cut mid-body is a network error once retries are spent; a short 200 body is malformed', () => withFake(async (fake) => {
    const cut = { pathIncludes: '/fuel/prices', truncate: true };
    fake.server.failNext(cut, cut, cut, cut);
    await assert.rejects(pull(fake, R1).pulled, isFeedError('network'));
    const whole = nswFixture(1);
    fake.server.failNext({ pathIncludes: '/fuel/prices', body: whole.slice(0, Math.floor(whole.length / 2)) });
    await assert.rejects(pull(fake, R1).pulled, (e: unknown) => isFeedError('malformed')(e) && /not JSON/.test((e as Error).message));
  }));

  test('a byte-order mark before the JSON is stripped', () => withFake(async (fake) => {
    fake.server.failNext({ pathIncludes: '/fuel/prices', bom: true });
    const batches = await pull(fake, R1).pulled;
    assert.deepEqual(batches[0]?.normaliser.batch().prices, ROUND_1_PRICES);
  }));

  test('NSW_FUELCHECK_URL with or without the API path, any case, a trailing slash or a whole endpoint: the same calls, and the log names version and URL', () => withFake(async (fake) => {
    for (const url of [fake.url, `${fake.url}/`, `${fake.url}/FuelPriceCheck/v2`, `${fake.url}/fuelpricecheck/V2/`, `${fake.url}/FuelPriceCheck/v2/fuel/prices/new`]) {
      forgetNswSessions();
      kept = new MemoryKept();
      fake.server.requests.length = 0;
      const { ctx, pulled } = pull(fake, R1, { url });
      assert.equal((await pulled)[0]?.normaliser.batch().prices.length, ROUND_1_PRICES.length, url);
      assert.deepEqual(fake.server.requests.map((r) => r.path), ['/oauth/client_credential/accesstoken', '/FuelPriceCheck/v2/fuel/prices'], url);
      assert.deepEqual(ctx.log.lines.filter((l) => l.msg === 'FuelCheck answer read').map((l) => l.obj), [{
        feed: 'nsw', api: 'FuelCheck v2', url: `${fake.url}/FuelPriceCheck/v2/fuel/prices`, kind: 'snapshot', token: 'new', stations: 7, prices: 27,
      }], url);
    }
  }));

  test('the API\'s URLs: a path before the API\'s is kept (a proxy); another version of the API is a configuration error in one line', () => {
    assert.deepEqual(nswApi('https://api.onegov.nsw.gov.au'), {
      base: 'https://api.onegov.nsw.gov.au', tokenUrl: 'https://api.onegov.nsw.gov.au/oauth/client_credential/accesstoken',
      pricesUrl: 'https://api.onegov.nsw.gov.au/FuelPriceCheck/v2/fuel/prices', newPricesUrl: 'https://api.onegov.nsw.gov.au/FuelPriceCheck/v2/fuel/prices/new',
    });
    assert.equal(nswApi('https://proxy.example/nsw/FuelPriceCheck/v2?x=1').pricesUrl, 'https://proxy.example/nsw/FuelPriceCheck/v2/fuel/prices');
    assert.equal(nswApi('https://proxy.example/nsw/').tokenUrl, 'https://proxy.example/nsw/oauth/client_credential/accesstoken');
    assert.throws(() => nswApi('https://api.onegov.nsw.gov.au/FuelPriceCheck/v1'), {
      name: 'FeedError', kind: 'config',
      message: 'NSW_FUELCHECK_URL names FuelPriceCheck/v1: this feed speaks v2 (NSW, ACT and TAS); give the host alone, e.g. https://api.onegov.nsw.gov.au',
    });
    assert.throws(() => nswApi('not a url'), { kind: 'config', message: 'NSW_FUELCHECK_URL is not a URL' });
  });

  test('the access token is kept (never logged) and reused by a later run of another process until it expires', () => withFake(async (fake) => {
    const first = pull(fake, R1);
    const batches = await first.pulled;
    const owner = nswTokenOwner(fake.url, NSW_TEST_KEY, NSW_TEST_SECRET);
    // 43,199 s as the fake announces, less 5 minutes' margin.
    assert.deepEqual(JSON.parse(kept.values.get('oauth') ?? ''), { token: fake.tokens[0], expiresAt: R1 + 43_199 - 300, for: owner });
    assert.ok(!JSON.stringify(first.ctx.log.lines).includes(fake.tokens[0] ?? '?'));

    forgetNswSessions(); // a new process, the same database
    fake.server.requests.length = 0;
    const second = pull(fake, R1 + 60, { cursor: batches[0]?.cursor });
    await second.pulled;
    assert.deepEqual(fake.server.requests.map((r) => [r.path, r.headers['authorization']]), [['/FuelPriceCheck/v2/fuel/prices/new', `Bearer ${fake.tokens[0]}`]]);
    assert.equal((second.ctx.log.lines.find((l) => l.msg === 'FuelCheck answer read')?.obj as { token?: string }).token, 'kept');

    forgetNswSessions();
    fake.server.requests.length = 0;
    await pull(fake, R1 + 43_199 - 300, { cursor: batches[0]?.cursor }).pulled; // 20:55 the same Sydney day: /new
    assert.deepEqual(fake.server.requests.map((r) => r.path), ['/oauth/client_credential/accesstoken', '/FuelPriceCheck/v2/fuel/prices/new']);
    assert.equal(fake.tokens.length, 2);
    assert.equal((JSON.parse(kept.values.get('oauth') ?? '') as { token: string }).token, fake.tokens[1]);
  }));

  test('a kept token is used only by its owner (base URL, key and secret), before it expires, when it reads back whole', () => {
    const owner = nswTokenOwner('https://api.onegov.nsw.gov.au', 'key', 'secret');
    const value = JSON.stringify({ token: 'tok', expiresAt: 1_000, for: owner });
    assert.equal(keptNswToken(value, owner, 999), 'tok');
    assert.equal(keptNswToken(value, owner, 1_000), undefined);
    assert.equal(keptNswToken(value, nswTokenOwner('https://api.onegov.nsw.gov.au', 'key', 'another'), 999), undefined);
    assert.equal(keptNswToken(value, nswTokenOwner('https://proxy.example', 'key', 'secret'), 999), undefined);
    assert.equal(keptNswToken(undefined, owner, 0), undefined);
    assert.equal(keptNswToken('{"token":', owner, 0), undefined);
    assert.equal(keptNswToken(JSON.stringify({ token: '', expiresAt: 1_000, for: owner }), owner, 0), undefined);
    assert.equal(keptNswToken(JSON.stringify({ token: 'tok', expiresAt: '1000', for: owner }), owner, 0), undefined);
    assert.equal(owner.length, 16);
  });

  test('the fake itself refuses a bad bearer or apikey (401) and bad transaction or time headers (400)', () => withFake(async (fake) => {
    const tokenAnswer = await fetch(`${fake.url}/oauth/client_credential/accesstoken?grant_type=client_credentials`, { headers: { authorization: BASIC } });
    assert.deepEqual(await tokenAnswer.json(), { access_token: fake.tokens[0], token_type: 'BearerToken', expires_in: '43199', status: 'approved' });
    const good = {
      authorization: `Bearer ${fake.tokens[0]}`, apikey: NSW_TEST_KEY, transactionid: crypto.randomUUID(), requesttimestamp: '11/05/2026 11:00:00 PM',
    };
    const status = async (headers: Record<string, string>) => (await fetch(`${fake.url}/FuelPriceCheck/v2/fuel/prices`, { headers })).status;
    assert.equal(await status(good), 200);
    assert.equal(await status({ ...good, authorization: 'Bearer not-issued' }), 401);
    assert.equal(await status({ ...good, apikey: 'another-key' }), 401);
    assert.equal(await status({ ...good, transactionid: '123123' }), 400);
    assert.equal(await status({ ...good, requesttimestamp: '2026-05-11T23:00:00Z' }), 400);
    assert.equal(await status({ ...good, requesttimestamp: '11/05/2026 23:00:00 PM' }), 400);
  }));
});

describe('FuelCheck records', () => {
  test('lastupdated is Sydney wall-clock time, in either layout, across a DST change', () => {
    // 12/05/2026 07:45:10 AEST (UTC+10) = 11/05 21:45:10Z; 03/04/2026 16:20:00 AEDT (UTC+11) = 03/04 05:20:00Z.
    assert.equal(parseLastUpdated('12/05/2026 07:45:10'), 1_778_535_910);
    assert.equal(parseLastUpdated('2026-05-12 07:45:10'), 1_778_535_910);
    assert.equal(parseLastUpdated('03/04/2026 16:20:00'), 1_775_193_600);
    // 04/10/2026 02:30 does not exist in Sydney (clocks go 02:00 -> 03:00): read at the earlier offset,
    // UTC+10: 03/10 16:30Z = 2026-10-03 (1_767_225_600 + 275 days * 86_400 = 1_790_985_600) + 16.5 h.
    assert.equal(parseLastUpdated('04/10/2026 02:30:00'), 1_790_985_600 + 59_400);
    for (const bad of ['31/02/2026 10:00:00', '12/05/2026 24:00:00', '12/5/2026 07:45:10', '2026-05-12T07:45:10Z', '', 20260512, null]) {
      assert.equal(parseLastUpdated(bad), undefined, String(bad));
    }
  });

  test('requesttimestamp is UTC on a 12-hour clock', () => {
    assert.equal(formatRequestTimestamp(R1), '11/05/2026 11:00:00 PM');
    assert.equal(formatRequestTimestamp(1_778_457_600), '11/05/2026 12:00:00 AM'); // midnight UTC
    assert.equal(formatRequestTimestamp(1_778_457_600 + 12 * 3_600 + 5), '11/05/2026 12:00:05 PM'); // noon
    assert.equal(formatRequestTimestamp(1_778_457_600 + 9 * 3_600 + 7 * 60 + 3), '11/05/2026 09:07:03 AM');
  });

  test('real FuelCheck addresses without a comma (30 June 2024 answer): the suburb after the street type, or the place alone', () => {
    // The five such addresses of the real whole-state answer (WizardJR/nsw_fuel_price_checker src/data.json, e48c46ca), stations 18669, 19251, 19527, 19777, 20168.
    assert.deepEqual(splitNswAddress('Corner Pacific Hwy and Halls Road Coffs Harbour NSW 2450'), { street: 'Corner Pacific Hwy and Halls Road', suburb: 'Coffs Harbour', state: 'NSW', postcode: '2450' });
    assert.deepEqual(splitNswAddress('Avonside NSW 2628'), { street: '', suburb: 'Avonside', state: 'NSW', postcode: '2628' });
    assert.deepEqual(splitNswAddress('Wagga Wagga NSW 2650'), { street: '', suburb: 'Wagga Wagga', state: 'NSW', postcode: '2650' });
    assert.deepEqual(splitNswAddress('827 Anzac Parade Maroubra NSW 2035'), { street: '827 Anzac Parade', suburb: 'Maroubra', state: 'NSW', postcode: '2035' });
    assert.deepEqual(splitNswAddress('842-844 DAVID ST North Albury NSW 2640'), { street: '842-844 DAVID ST', suburb: 'North Albury', state: 'NSW', postcode: '2640' });
  });

  test('every other address tail of the real answer and workbooks (scripts/nsw-address-scan.ts): the suburb alone, the state read', () => {
    // data.json (30 June 2024) and the April 2020 workbook: "NSW AUSTRALIA", "NEW SOUTH WALES", a state written twice.
    assert.deepEqual(splitNswAddress('4467 Gywdir Highway, JACKADGERY NSW AUSTRALIA 2460'), { street: '4467 Gywdir Highway', suburb: 'Jackadgery', state: 'NSW', postcode: '2460' });
    assert.deepEqual(splitNswAddress('456, Metford Road, Metford NEW SOUTH WALES 2323'), { street: '456, Metford Road', suburb: 'Metford', state: 'NSW', postcode: '2323' });
    assert.deepEqual(splitNswAddress('126 Lamont Street, Bermagui NSW NSW 2456'), { street: '126 Lamont Street', suburb: 'Bermagui', state: 'NSW', postcode: '2456' });
    // A comma before the street, none before the suburb (data.json).
    assert.deepEqual(splitNswAddress('Shop 3, 1190 Miami Street Glenwood NSW 2768'), { street: 'Shop 3, 1190 Miami Street', suburb: 'Glenwood', state: 'NSW', postcode: '2768' });
    // Five digits for a postcode (the 2018 workbooks, 293 rows): no postcode, the suburb still read.
    assert.deepEqual(splitNswAddress('485-487 Smithfield Road, PRAIRIEWOOD NSW 20176'), { street: '485-487 Smithfield Road', suburb: 'Prairiewood', state: 'NSW', postcode: '' });
    assert.deepEqual(splitNswAddress('3030 Remembrance Driveway, BARGO NSW AUSTRALIA 2574'), { street: '3030 Remembrance Driveway', suburb: 'Bargo', state: 'NSW', postcode: '2574' });
    // The workbooks' Suburb cells with the state in them (April 2020).
    assert.equal(nswSuburbCell('JACKADGERY NSW'), 'JACKADGERY');
    assert.equal(nswSuburbCell('Bermagui NSW'), 'Bermagui');
    assert.equal(nswSuburbCell('Metford NEW SOUTH WALES 2323'), 'Metford');
    assert.equal(nswSuburbCell('South Wales'), 'South Wales');
  });

  test('addresses split into street, suburb (capitals made readable), state and postcode', () => {
    assert.deepEqual(splitNswAddress('424 Cleveland St, SURRY HILLS NSW 2010'), { street: '424 Cleveland St', suburb: 'Surry Hills', state: 'NSW', postcode: '2010' });
    assert.deepEqual(splitNswAddress('208-212 Pacific Hwy North, Coffs Harbour NSW 2450'), { street: '208-212 Pacific Hwy North', suburb: 'Coffs Harbour', state: 'NSW', postcode: '2450' });
    assert.deepEqual(splitNswAddress("Cnr Northbourne Ave & Barry Dr, O'CONNOR ACT 2602"), { street: 'Cnr Northbourne Ave & Barry Dr', suburb: "O'Connor", state: 'ACT', postcode: '2602' });
    assert.deepEqual(splitNswAddress('1 Main Rd, Lot 2, KEMPTON, TAS 7030'), { street: '1 Main Rd, Lot 2', suburb: 'Kempton', state: 'TAS', postcode: '7030' });
    assert.deepEqual(splitNswAddress('123 Fake Street, Hurstville'), { street: '123 Fake Street', suburb: 'Hurstville', state: '', postcode: '' });
    assert.deepEqual(splitNswAddress('12 Main St WYOMING NSW 2250'), { street: '12 Main St', suburb: 'Wyoming', state: 'NSW', postcode: '2250' });
    assert.deepEqual(splitNswAddress('12 Main WYOMING NSW 2250'), { street: '12 Main WYOMING', suburb: '', state: 'NSW', postcode: '2250' });
    assert.deepEqual(splitNswAddress(''), { street: '', suburb: '', state: '', postcode: '' });
  });

  test('a station\'s state: TAS or ACT records as given; NSW records by the address, then the postcode', () => {
    assert.equal(nswStationState('TAS', { state: 'TAS', postcode: '7009' }), 'tas');
    assert.equal(nswStationState('ACT', { state: '', postcode: '' }), 'act');
    assert.equal(nswStationState('NSW', { state: 'ACT', postcode: '2612' }), 'act');
    assert.equal(nswStationState('NSW', { state: 'NSW', postcode: '2620' }), 'nsw');
    assert.equal(nswStationState('NSW', { state: '', postcode: '2913' }), 'act');
    assert.equal(nswStationState('NSW', { state: '', postcode: '2620' }), 'act');
    assert.equal(nswStationState('NSW', { state: '', postcode: '2621' }), 'nsw');
    assert.equal(nswStationState('', { state: '', postcode: '' }), 'nsw');
  });

  test('keys: the record\'s state and code; NSW when the record names no state; none without a code', () => {
    assert.equal(nswStationKey('TAS', '17'), 'TAS-17');
    assert.equal(nswStationKey('nsw', 17), 'NSW-17');
    assert.equal(nswStationKey(undefined, '1021'), 'NSW-1021');
    assert.equal(nswStationKey('NSW', ' '), undefined);
    assert.equal(nswStationKey('NSW', null), undefined);
  });

  test('price records: 0 is out of stock; text that is not a number, a missing time or code is rejected', () => {
    const base = { stationcode: '1523', state: 'NSW', fueltype: 'PDL', lastupdated: '12/05/2026 09:20:05' };
    assert.deepEqual(readNswPrice({ ...base, price: 0 }), { code: 'NSW-1523', fuelCode: 'PDL', at: 1_778_541_605, priceTenths: 0, available: false });
    assert.deepEqual(readNswPrice({ ...base, price: '199.9' }), { code: 'NSW-1523', fuelCode: 'PDL', at: 1_778_541_605, priceTenths: 1999, available: true });
    assert.deepEqual(readNswPrice({ ...base, price: 'N/A' }), { rejected: 'price that is not a number' });
    assert.deepEqual(readNswPrice({ ...base, price: null }), { rejected: 'price that is not a number' });
    assert.deepEqual(readNswPrice({ ...base, price: 199.9, lastupdated: 'yesterday' }), { rejected: 'price without a valid time' });
    assert.deepEqual(readNswPrice({ ...base, price: 199.9, stationcode: '' }), { rejected: 'price without a usable station code' });
    assert.deepEqual(readNswPrice({ ...base, price: 199.9, fueltype: 3 }), { rejected: 'price without a fuel type' });
    assert.deepEqual(readNswPrice('PDL'), { rejected: 'price record that is not an object' });
  });

  test('station records: coordinates as numbers or numeric text; missing ones rejected', () => {
    const base = { brand: 'Ampol', code: 402, name: 'Ampol Foodary Sandy Bay', address: '277 Sandy Bay Rd, SANDY BAY TAS 7005', state: 'TAS' };
    assert.deepEqual(readNswStation({ ...base, location: { latitude: '-42.8981', longitude: '147.3255' } }), {
      code: 'TAS-402', name: 'Ampol Foodary Sandy Bay', brand: 'Ampol', address: '277 Sandy Bay Rd, SANDY BAY TAS 7005',
      street: '277 Sandy Bay Rd', suburb: 'Sandy Bay', postcode: '7005', state: 'tas', latitude: -42.8981, longitude: 147.3255,
    });
    assert.deepEqual(readNswStation({ ...base, location: { latitude: -42.8981 } }), { rejected: 'station without coordinates' });
    assert.deepEqual(readNswStation({ ...base }), { rejected: 'station without coordinates' });
    assert.deepEqual(readNswStation({ ...base, code: '' }), { rejected: 'station without a usable code' });
  });

  test('answers: a snapshot needs both lists, changes may leave out stations; anything else is malformed', () => {
    assert.deepEqual(parseNswAnswer('\uFEFF{"stations": [], "prices": [{"a": 1}]}', 'snapshot'), { stations: [], prices: [{ a: 1 }] });
    assert.deepEqual(parseNswAnswer('{"prices": []}', 'new'), { stations: [], prices: [] });
    const cases: Array<[string, 'snapshot' | 'new', RegExp]> = [
      ['{"prices": []}', 'snapshot', /no stations list/],
      ['{"stations": null, "prices": []}', 'new', /no stations list/],
      ['{"stations": []}', 'new', /no prices list/],
      ['[]', 'snapshot', /no prices list/],
      ['{"stations": [], "pri', 'snapshot', /not JSON/],
      ['<html>Service Unavailable</html>', 'new', /not JSON/],
    ];
    for (const [body, kind, message] of cases) {
      assert.throws(() => parseNswAnswer(body, kind), (e: unknown) => isFeedError('malformed')(e) && message.test((e as Error).message), body);
    }
  });

  test('tokens: expires_in as a number or Apigee\'s string; no access_token is malformed', () => {
    assert.deepEqual(parseNswToken('{"access_token": "abc", "expires_in": "43199"}'), { accessToken: 'abc', expiresInSec: 43_199 });
    assert.deepEqual(parseNswToken('{"access_token": "abc", "expires_in": 3600}'), { accessToken: 'abc', expiresInSec: 3_600 });
    assert.deepEqual(parseNswToken('{"access_token": "abc"}'), { accessToken: 'abc', expiresInSec: undefined });
    assert.throws(() => parseNswToken('{"ErrorCode": "invalid_client"}'), isFeedError('malformed'));
    assert.throws(() => parseNswToken('{"access_token": ""}'), isFeedError('malformed'));
  });

  test('one bad record is rejected alone: the rest of the answer is kept', () => {
    const normaliser = new Normaliser('nsw', nswAdapter.fuels, R1);
    addNswAnswer(normaliser, {
      stations: [{ code: '9', name: 'X', brand: 'Y', address: '1 A St, GOULBURN NSW 2580', state: 'NSW', location: { latitude: -34.75, longitude: 149.72 } }, 'junk'],
      prices: [
        { stationcode: '9', state: 'NSW', fueltype: 'U91', price: 187.9, lastupdated: '12/05/2026 08:00:00' },
        { stationcode: '9', state: 'NSW', fueltype: 'DL', price: 'x', lastupdated: '12/05/2026 08:00:00' },
      ],
    });
    // 12/05 08:00 AEST = 11/05 22:00Z = 1_778_457_600 + 22*3600.
    assert.deepEqual(normaliser.batch().prices, [price('NSW-9', 'ulp91', 1_778_536_800, 1879)]);
    assert.deepEqual(normaliser.batch().stations.map((s) => [s.feedCode, s.suburb, s.state]), [['NSW-9', 'Goulburn', 'nsw']]);
    assert.deepEqual(allRejections(normaliser).map((r) => [r.reason, r.count]), [['station record that is not an object', 1], ['price that is not a number', 1]]);
  });
});

describe('when to take a snapshot', () => {
  const cursor = { snapshotAt: R1, lastAt: R1 };

  test('first run, a day-old snapshot, a call on an earlier Sydney day, or an unapplied fetch: snapshot', () => {
    assert.equal(nswPollKind(undefined, R1, undefined), 'snapshot');
    assert.equal(nswPollKind(cursor, R2, undefined), 'new');
    assert.equal(nswPollKind(cursor, R2, R1), 'new');
    assert.equal(nswPollKind(cursor, R2, R1, true), 'snapshot'); // the last recorded run failed
    assert.equal(nswPollKind(cursor, R2, R1 + 60), 'snapshot');
    // A snapshot 86_400 s old (the same wall time a day earlier) is due again.
    assert.equal(nswPollKind({ snapshotAt: R2 - 86_400, lastAt: R1 }, R2, undefined), 'snapshot');
    assert.equal(nswPollKind({ snapshotAt: R2 - 86_399, lastAt: R1 }, R2, undefined), 'new');
    // R1 is 12/05 09:00 AEST. 11/05 23:59 AEST is 9 h 1 min earlier: an earlier Sydney day.
    assert.equal(nswPollKind({ snapshotAt: R1 - 32_460, lastAt: R1 - 32_460 }, R1, undefined), 'snapshot');
    // 12/05 00:01 AEST is 8 h 59 min earlier: the same day.
    assert.equal(nswPollKind({ snapshotAt: R1 - 32_340, lastAt: R1 - 32_340 }, R1, undefined), 'new');
  });

  test('the cursor is read back, and anything unreadable is no cursor', () => {
    assert.deepEqual(parseNswCursor(JSON.stringify(cursor)), cursor);
    for (const bad of [undefined, '', 'x', '{"snapshotAt": 1}', '{"snapshotAt": "1", "lastAt": 2}', '[1, 2]']) {
      assert.equal(parseNswCursor(bad), undefined, String(bad));
    }
  });
});
