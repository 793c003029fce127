import assert from 'node:assert/strict';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import {
  AuthError, BadRequestError, type ClientOptions, FuelPriceClient, FuelPriceError, NetworkError, NotFoundError, RateLimitedError, UnavailableError,
} from '../../clients/typescript/src/index.ts';
import { MemoryRateLimiter, type RateDecision, type RateLimiter } from '../../src/http/auth/rate-limits.ts';
import { encodePolyline } from '../../src/domain/route.ts';
import { NOW, loadFixture } from '../fixture.ts';
import { type RunningServer, fixedClock, freePort, get, servedStore, startServer, testBackends } from '../helpers.ts';

/**
 * The typed client (clients/typescript) against the real server on a real port: every method
 * answers what the same request answers raw, the iterators walk every page, errors carry the
 * server's code and request id, and 429 and 503 are retried after the wait the server names.
 */

interface Seen { url: string; status: number; headers: Headers; body: string }

/** The global fetch, recording each answer (a copy of it) for the test to compare with. */
function recordingFetch(seen: Seen[]): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    seen.push({ url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, status: response.status, headers: response.headers, body: await response.clone().text() });
    return response;
  };
}

/** What a test's injected sleep was asked to wait, in ms; it returns at once. */
function recordingSleep(delays: number[], onSleep: (ms: number) => void = () => {}): (ms: number) => Promise<void> {
  return async (ms) => {
    delays.push(ms);
    onSleep(ms);
  };
}

function clientOf(server: RunningServer, options: Partial<ClientOptions> = {}): FuelPriceClient {
  return new FuelPriceClient({ baseUrl: server.baseUrl, token: server.token, sleep: recordingSleep([]), ...options });
}

/** The error body of a recorded answer. */
function errorOf(seen: Seen | undefined): { code: string; message: string; request_id: string } {
  assert.ok(seen, 'an answer was recorded');
  return (JSON.parse(seen.body) as { error: { code: string; message: string; request_id: string } }).error;
}

/** Asserts `promise` rejects with an error of `type` whose fields are those of the last recorded answer. */
async function assertApiError(promise: Promise<unknown>, type: typeof FuelPriceError, seen: Seen[], status: number, code: string): Promise<FuelPriceError> {
  const error = await promise.then(() => assert.fail('no error'), (e: unknown) => e);
  assert.ok(error instanceof type, `${String(error)} is a ${type.name}`);
  const last = seen.at(-1);
  const body = errorOf(last);
  assert.equal(body.code, code);
  assert.deepEqual({ status: error.status, code: error.code, requestId: error.requestId, message: error.message },
    { status, code, requestId: body.request_id, message: body.message });
  assert.equal(error.requestId, last?.headers.get('x-request-id'));
  return error;
}

/** Across Sydney, west to east (an encoded polyline, as a routing engine sends it). */
const ALONG_PATH = encodePolyline([{ latitude: -33.87, longitude: 151.1 }, { latitude: -33.87, longitude: 151.3 }]);

/** Each client method with a request of its, and the same request's path for a raw GET. */
const CALLS: ReadonlyArray<{ id: string; path: string; call: (c: FuelPriceClient) => Promise<unknown> }> = [
  { id: 'getHealth', path: '/health', call: (c) => c.getHealth() },
  { id: 'getReadiness', path: '/ready', call: (c) => c.getReadiness() },
  { id: 'getOpenApiDocument', path: '/v1/openapi.json', call: (c) => c.getOpenApiDocument() },
  { id: 'listCities', path: '/v1/cities?state=nsw&limit=2', call: (c) => c.listCities({ state: 'nsw', limit: 2 }) },
  { id: 'getCity', path: '/v1/cities/sydney', call: (c) => c.getCity('sydney') },
  { id: 'getCityHistory', path: '/v1/cities/sydney/history?timeframe=all-time', call: (c) => c.getCityHistory('sydney', { timeframe: 'all-time' }) },
  { id: 'getCityCycle', path: '/v1/cities/sydney/cycle?fuel=e10', call: (c) => c.getCityCycle('sydney', { fuel: 'e10' }) },
  { id: 'getCityUnavailable', path: '/v1/cities/sydney/unavailable', call: (c) => c.getCityUnavailable('sydney') },
  { id: 'getCitySpread', path: '/v1/cities/sydney/spread', call: (c) => c.getCitySpread('sydney') },
  { id: 'getCityAverage', path: '/v1/cities/perth/average', call: (c) => c.getCityAverage('perth') },
  { id: 'listStations', path: '/v1/stations?state=nsw&limit=2&page=2', call: (c) => c.listStations({ state: 'nsw', limit: 2, page: 2 }) },
  { id: 'listStations', path: '/v1/stations?near=-33.87,151.2&radius=20', call: (c) => c.listStations({ near: '-33.87,151.2', radius: '20' }) },
  { id: 'getStation', path: '/v1/stations/alpha-sydney', call: (c) => c.getStation('alpha-sydney') },
  { id: 'getStationHistory', path: '/v1/stations/beta-sydney/history?timeframe=last-week', call: (c) => c.getStationHistory('beta-sydney', { timeframe: 'last-week' }) },
  { id: 'getStationPrices', path: '/v1/stations/alpha-sydney/prices', call: (c) => c.getStationPrices('alpha-sydney') },
  { id: 'getStationsPrices', path: '/v1/stations/prices?ids=beta-sydney%2Cnowhere%2Calpha-sydney', call: (c) => c.getStationsPrices(['beta-sydney', 'nowhere', 'alpha-sydney']) },
  { id: 'getPriceSummary', path: '/v1/prices?state=nsw', call: (c) => c.getPriceSummary({ state: 'nsw' }) },
  { id: 'listCheapestStations', path: '/v1/prices/cheapest?fuel=ulp91&state=nsw&order=desc&limit=1&offset=1', call: (c) => c.listCheapestStations({ fuel: 'ulp91', state: 'nsw', order: 'desc', limit: 1, offset: 1 }) },
  { id: 'listStationsAlongRoute', path: `/v1/prices/along?${new URLSearchParams({ fuel: 'ulp91', path: ALONG_PATH, corridor: '5', order: 'along' })}`,
    call: (c) => c.listStationsAlongRoute({ fuel: 'ulp91', path: ALONG_PATH, corridor: '5', order: 'along' }) },
  { id: 'listPriceChanges', path: '/v1/prices/changes?since=0&fuel=ulp91&limit=2', call: (c) => c.listPriceChanges({ since: '0', fuel: 'ulp91', limit: 2 }) },
  { id: 'listPriceChanges', path: '/v1/prices/changes', call: (c) => c.listPriceChanges() },
  { id: 'listFuelTypes', path: '/v1/fuel-types', call: (c) => c.listFuelTypes() },
  { id: 'listBrands', path: '/v1/brands?limit=3', call: (c) => c.listBrands({ limit: 3 }) },
];

/** A page-size-100 list's whole data, raw. */
async function allOf(server: RunningServer, path: string): Promise<unknown[]> {
  const raw = await get(server, path);
  assert.equal(raw.status, 200, raw.text);
  const body = raw.body as { data: unknown[]; total_pages: number };
  assert.equal(body.total_pages, 1);
  return body.data;
}

/** A limiter that counts as the server's does, on a clock the test's sleep moves forward instead of waiting. */
class SleepyLimiter implements RateLimiter {
  offsetMs = 0;
  readonly #inner = new MemoryRateLimiter();
  async consume(key: string, limit: number, nowMs: number): Promise<RateDecision> { return this.consumeNow(key, limit, nowMs); }
  consumeNow(key: string, limit: number, nowMs: number): RateDecision { return this.#inner.consumeNow(key, limit, nowMs + this.offsetMs); }
}

/**
 * In front of the real server: answers the first `failures` requests itself with `status`,
 * `headers` and `body`, and passes the others on (a stand-in for a proxy or load balancer).
 */
async function flakyFront(target: RunningServer, failures: number, status: number, headers: Record<string, string>, body: string): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  let left = failures;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (left > 0) {
      left -= 1;
      res.writeHead(status, headers).end(body);
      return;
    }
    void fetch(`${target.baseUrl}${req.url ?? '/'}`, { headers: { authorization: req.headers.authorization ?? '' } }).then(async (answer) => {
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? '', 'x-request-id': answer.headers.get('x-request-id') ?? '' });
      res.end(await answer.text());
    }, () => res.writeHead(502).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const RATE_LIMITED = JSON.stringify({ error: { code: 'rate_limited', message: 'Rate limit of 2 requests a minute exceeded; retry in 7 s.', request_id: 'front-2' } });
const UNAVAILABLE = JSON.stringify({ error: { code: 'unavailable', message: 'The service is temporarily unavailable; try again shortly.', request_id: 'front-1' } });

for (const backend of testBackends()) {
  describe(`the TypeScript client on ${backend.name}`, () => {
    const clock = fixedClock(NOW);
    const { server, store } = servedStore(backend, clock, (s) => loadFixture(s));

    test('has a method for every operation of the document that answers JSON, and each answers what the raw request does', async () => {
      const seen: Seen[] = [];
      const client = clientOf(server, { fetch: recordingFetch(seen) });
      const doc = await client.getOpenApiDocument() as { paths: Record<string, { get: { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> } }> };
      const jsonOperations = Object.values(doc.paths).map((item) => item.get)
        .filter((o) => o.responses['200']?.content?.['application/json'] !== undefined).map((o) => o.operationId).sort();
      assert.deepEqual([...new Set(CALLS.map((c) => c.id))].sort(), jsonOperations, 'every JSON operation is called below');
      for (const id of jsonOperations) assert.equal(typeof (client as unknown as Record<string, unknown>)[id], 'function', id);

      for (const { path, call } of CALLS) {
        const raw = await get(server, path);
        assert.equal(raw.status, 200, `${path}: ${raw.text}`);
        assert.deepEqual(await call(client), raw.body, path);
        assert.equal(seen.at(-1)?.url, `${server.baseUrl}${path.replace(',', '%2C')}`, 'the client sent the same request');
      }
    });

    test('the POST forms: a method for each POST of the document, answering what the GET answers, sent as a JSON body', async () => {
      const sent: Array<{ url: string; method: string | undefined; type: string | null; body: unknown }> = [];
      const client = clientOf(server, { fetch: async (input, init) => {
        sent.push({ url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, method: init?.method, type: new Headers(init?.headers).get('content-type'), body: init?.body });
        return fetch(input, init);
      } });
      const doc = await client.getOpenApiDocument() as { paths: Record<string, { post?: { operationId: string } }> };
      assert.deepEqual(Object.values(doc.paths).flatMap((item) => (item.post ? [item.post.operationId] : [])).sort(), ['postPricesAlong', 'postStationsPrices']);
      const ids = ['beta-sydney', 'nowhere', 'alpha-sydney'];
      assert.deepEqual(await client.postStationsPrices({ ids }), (await get(server, `/v1/stations/prices?ids=${ids.join(',')}`)).body);
      assert.deepEqual(sent.at(-1), { url: `${server.baseUrl}/v1/stations/prices`, method: 'POST', type: 'application/json', body: JSON.stringify({ ids }) });
      const along = { fuel: 'ulp91', path: ALONG_PATH, corridor: 5, order: 'along' };
      assert.deepEqual(await client.postPricesAlong(along),
        (await get(server, `/v1/prices/along?${new URLSearchParams({ fuel: 'ulp91', path: ALONG_PATH, corridor: '5', order: 'along' })}`)).body);
      assert.equal(sent.at(-1)?.body, JSON.stringify(along));
      await assert.rejects(client.postStationsPrices({ ids: [] }), (e: unknown) => e instanceof BadRequestError && e.code === 'invalid_parameter');
    });

    test('sends the token as a bearer and asks for JSON; refuses a retries count that is not a whole number', async () => {
      const sent: Array<Headers> = [];
      const client = clientOf(server, { fetch: async (input, init) => { sent.push(new Headers(init?.headers)); return fetch(input, init); } });
      await client.getCity('sydney');
      assert.equal(sent[0]?.get('authorization'), `Bearer ${server.token}`);
      assert.equal(sent[0]?.get('accept'), 'application/json');
      for (const retries of [-1, 1.5]) {
        assert.throws(() => new FuelPriceClient({ baseUrl: server.baseUrl, token: server.token, retries }), { name: 'RangeError', message: `retries must be an integer >= 0, not ${retries}` });
      }
    });

    test('the iterators yield every item of every page, page after page, as one full page lists them', async () => {
      const seen: Seen[] = [];
      const client = clientOf(server, { fetch: recordingFetch(seen) });
      const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => { const out: T[] = []; for await (const item of items) out.push(item); return out; };
      const cases: Array<{ items: AsyncIterable<unknown>; full: string; pages: number }> = [
        { items: client.stations({ limit: 2 }), full: '/v1/stations?limit=100', pages: 3 },
        { items: client.stations({ state: 'nsw', limit: 1 }), full: '/v1/stations?state=nsw&limit=100', pages: 4 },
        { items: client.cities({ limit: 2 }), full: '/v1/cities?limit=100', pages: 2 },
        { items: client.brands({ limit: 1 }), full: '/v1/brands?limit=100', pages: 4 },
        { items: client.cheapestStations({ fuel: 'ulp91', state: 'nsw', limit: 1 }), full: '/v1/prices/cheapest?fuel=ulp91&state=nsw&limit=100', pages: 2 },
      ];
      for (const { items, full, pages } of cases) {
        seen.length = 0;
        const all = await allOf(server, full);
        assert.ok(all.length > pages - 1, `${full}: ${all.length} items`);
        assert.deepEqual(await collect(items), all, full);
        assert.deepEqual(seen.map((s) => new URL(s.url).searchParams.get('page')), Array.from({ length: pages }, (_, i) => String(i + 1)), full);
      }
      // Leaving the loop early asks for no further page.
      seen.length = 0;
      for await (const station of client.stations({ limit: 2 })) { assert.ok(station.id); break; }
      assert.equal(seen.length, 1);
      // A filter matching nothing: one request, nothing yielded.
      seen.length = 0;
      assert.deepEqual(await collect(client.stations({ brand: 'nobody' })), []);
      assert.equal(seen.length, 1);
    });

    test('a bad token is an AuthError, an unknown id a NotFoundError, a bad parameter a BadRequestError, each with the answer\'s code, message and request id', async () => {
      const seen: Seen[] = [];
      const bad = clientOf(server, { token: 'fp_not_a_token', fetch: recordingFetch(seen) });
      await assertApiError(bad.getCity('sydney'), AuthError, seen, 401, 'invalid_token');
      const client = clientOf(server, { fetch: recordingFetch(seen) });
      await assertApiError(client.getCity('atlantis'), NotFoundError, seen, 404, 'not_found');
      await assertApiError(client.getStationPrices('no/such station'), NotFoundError, seen, 404, 'not_found');
      assert.match(errorOf(seen.at(-1)).message, /no\/such station/, 'the id went as one path segment');
      await assertApiError(client.listCities({ limit: 0 }), BadRequestError, seen, 400, 'invalid_parameter');
      await assertApiError(client.listStations({ page: 2, offset: 1 }), BadRequestError, seen, 400, 'invalid_parameter');
      assert.equal(seen.length, 5, 'no error is retried');
    });

    test('no answer (refused, or none within timeoutMs) is a NetworkError with status 0; an answer without the error shape is an unexpected_response', async () => {
      const port = await freePort();
      const offline = new FuelPriceClient({ baseUrl: `http://127.0.0.1:${port}`, token: server.token });
      const error = await offline.listFuelTypes().then(() => assert.fail('no error'), (e: unknown) => e);
      assert.ok(error instanceof NetworkError);
      assert.deepEqual({ status: error.status, code: error.code, requestId: error.requestId }, { status: 0, code: 'network_error', requestId: undefined });
      assert.ok(error.cause, 'the fetch error is kept as the cause');

      const silent = createServer(() => { /* never answers */ });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const slow = new FuelPriceClient({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, token: server.token, timeoutMs: 50 });
        const timedOut = await slow.listFuelTypes().then(() => assert.fail('no error'), (e: unknown) => e);
        assert.ok(timedOut instanceof NetworkError);
        assert.deepEqual({ status: timedOut.status, code: timedOut.code, requestId: timedOut.requestId }, { status: 0, code: 'timeout', requestId: undefined });
      } finally {
        silent.closeAllConnections();
        await new Promise<void>((resolve) => silent.close(() => resolve()));
      }

      const front = await flakyFront(server, 1, 502, { 'content-type': 'text/html', 'x-request-id': 'lb-7' }, '<html>Bad gateway</html>');
      try {
        const client = new FuelPriceClient({ baseUrl: front.baseUrl, token: server.token });
        const unexpected = await client.listFuelTypes().then(() => assert.fail('no error'), (e: unknown) => e);
        assert.ok(unexpected instanceof FuelPriceError && !(unexpected instanceof NetworkError));
        assert.deepEqual({ status: unexpected.status, code: unexpected.code, requestId: unexpected.requestId }, { status: 502, code: 'unexpected_response', requestId: 'lb-7' });
      } finally {
        await front.close();
      }
    });

    test('a 429 is retried after the Retry-After the server sent, then succeeds; retries spent, it is a RateLimitedError', async () => {
      const limiter = new SleepyLimiter();
      const limited = await startServer(store(), clock, { defaultRateLimit: 2, rateLimiter: limiter });
      try {
        const seen: Seen[] = [];
        const delays: number[] = [];
        const client = clientOf(limited, { fetch: recordingFetch(seen), sleep: recordingSleep(delays, (ms) => { limiter.offsetMs += ms; }) });
        await client.getCity('sydney');
        await client.getCity('perth');
        const answer = await client.getCity('hobart');
        assert.deepEqual(answer, (await get(limited, '/v1/cities/hobart')).body);
        assert.deepEqual(seen.map((s) => s.status), [200, 200, 429, 200]);
        const refused = seen[2];
        assert.ok(refused);
        const retryAfter = Number(refused.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
        assert.equal(refused.headers.get('ratelimit'), `"default";r=0;t=${retryAfter}`);
        assert.deepEqual(delays, [retryAfter * 1000], 'waited exactly what Retry-After said');

        // The raw request above spent the window's second request. Without retries, the 429 itself is thrown;
        // so it is when the wait asked for is over the client's maximum.
        seen.length = 0;
        delays.length = 0;
        const noRetries = clientOf(limited, { retries: 0, fetch: recordingFetch(seen), sleep: recordingSleep(delays) });
        const error = await assertApiError(noRetries.getCity('sydney'), RateLimitedError, seen, 429, 'rate_limited');
        assert.ok(error instanceof RateLimitedError);
        assert.equal(error.retryAfterSeconds, Number(seen.at(-1)?.headers.get('retry-after')));
        const impatient = clientOf(limited, { maxRetryDelaySeconds: 0, fetch: recordingFetch(seen), sleep: recordingSleep(delays) });
        await assertApiError(impatient.getCity('sydney'), RateLimitedError, seen, 429, 'rate_limited');
        assert.deepEqual(delays, [], 'never waited');
        assert.deepEqual(seen.map((s) => s.status), [429, 429]);
      } finally {
        await limited.close();
      }
    });

    test('a 503 is retried after its Retry-After, a 429 without one after its RateLimit reset, or with backoff without either; bounded, then an UnavailableError', async () => {
      const once = await flakyFront(server, 1, 503, { 'content-type': 'application/json', 'retry-after': '3' }, UNAVAILABLE);
      try {
        const delays: number[] = [];
        const client = new FuelPriceClient({ baseUrl: once.baseUrl, token: server.token, sleep: recordingSleep(delays) });
        assert.deepEqual(await client.getStation('alpha-sydney'), (await get(server, '/v1/stations/alpha-sydney')).body);
        assert.deepEqual(delays, [3000]);
      } finally {
        await once.close();
      }
      const rateLimitOnly = await flakyFront(server, 1, 429, { 'content-type': 'application/json', ratelimit: '"default";r=0;t=7' }, RATE_LIMITED);
      try {
        const delays: number[] = [];
        const client = new FuelPriceClient({ baseUrl: rateLimitOnly.baseUrl, token: server.token, sleep: recordingSleep(delays) });
        assert.deepEqual(await client.listFuelTypes(), (await get(server, '/v1/fuel-types')).body);
        assert.deepEqual(delays, [7000], 'without Retry-After, the RateLimit reset');
      } finally {
        await rateLimitOnly.close();
      }
      const always = await flakyFront(server, 3, 503, { 'content-type': 'application/json' }, UNAVAILABLE);
      try {
        const delays: number[] = [];
        const client = new FuelPriceClient({ baseUrl: always.baseUrl, token: server.token, sleep: recordingSleep(delays) });
        const error = await client.getStation('alpha-sydney').then(() => assert.fail('no error'), (e: unknown) => e);
        assert.ok(error instanceof UnavailableError);
        assert.deepEqual({ status: error.status, code: error.code, requestId: error.requestId }, { status: 503, code: 'unavailable', requestId: 'front-1' });
        assert.deepEqual(delays, [1000, 2000], 'two retries (the default), backing off');
      } finally {
        await always.close();
      }
    });
  });
}
