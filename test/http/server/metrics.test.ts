import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import type { LoadGauge } from '../../../src/http/server/load-shedding.ts';
import { loggerOptions } from '../../../src/http/server/request-log.ts';
import type { FeedRun, PriceStore } from '../../../src/storage/store.ts';
import { newToken } from '../../../src/tokens.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import { fixedClock, testBackends } from '../../helpers.ts';

const METRICS_TOKEN = 'metrics-secret-0123456789abcdef';

/** One sample line of the text format: `name{label="value",...} value`. */
interface Sample { name: string; labels: Record<string, string>; value: number }
interface Scrape { types: Map<string, string>; samples: Sample[]; text: string }

/** A small parser of the Prometheus text format (0.0.4), written here rather than taken from the code under test. */
function parseMetrics(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line.startsWith('# HELP ')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(sample, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const pairs = sample[2] ?? '';
    const pair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;
    let match: RegExpExecArray | null;
    let read = 0;
    while ((match = pair.exec(pairs)) !== null) {
      labels[match[1] as string] = (match[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      read = pair.lastIndex;
    }
    assert.equal(read, pairs.length, `labels not parsed: ${line}`);
    // NaN (prom-client writes `Nan`, as a gauge of the event-loop delay reads before any sample) and ±Inf are values too.
    const value = /^nan$/i.test(sample[3] as string) ? Number.NaN : sample[3] === '+Inf' ? Infinity : sample[3] === '-Inf' ? -Infinity : Number(sample[3]);
    assert.ok(!Number.isNaN(value) || /^nan$/i.test(sample[3] as string), `not a number: ${line}`);
    samples.push({ name: sample[1] as string, labels, value });
  }
  return { types, samples, text };
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
function valueOf(scrape: Scrape, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = scrape.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)
    && Object.keys(s.labels).filter((k) => k !== 'le').length === Object.keys(labels).filter((k) => k !== 'le').length);
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0]?.value;
}

/** A counter's value, 0 before its first increment (a labelled series appears with it). */
function counted(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  return valueOf(scrape, name, labels) ?? 0;
}

describe('METRICS_TOKEN', () => {
  test('unset or blank: no metrics; a valid token is kept; anything else stops the start without repeating the value', () => {
    assert.equal(loadConfig({}).metricsToken, undefined);
    assert.equal(loadConfig({ METRICS_TOKEN: '  ' }).metricsToken, undefined);
    assert.equal(loadConfig({ METRICS_TOKEN: METRICS_TOKEN }).metricsToken, METRICS_TOKEN);
    assert.equal(loadConfig({ METRICS_TOKEN: 'aGVsbG8gd29ybGQgaGVsbG8=' }).metricsToken, 'aGVsbG8gd29ybGQgaGVsbG8=');
    for (const bad of ['short-secret-15', 'sixteen chars ok', 'x'.repeat(257), 'secret"with-quote-123']) {
      assert.throws(() => loadConfig({ METRICS_TOKEN: bad }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.variable, 'METRICS_TOKEN');
        assert.ok(!error.message.includes(bad), 'the value is not repeated');
        return true;
      });
    }
  });
});

describe('/metrics of a worker whose primary does not answer', () => {
  test('503 unavailable with Retry-After, in the error shape; never the worker\'s own counts alone', async () => {
    const [sqlite] = testBackends();
    assert.ok(sqlite);
    const { store, drop } = await sqlite.create();
    const app = await buildApp({
      store, clock: fixedClock(NOW), metricsToken: METRICS_TOKEN,
      metricsFromPrimary: () => Promise.reject(new Error('the primary did not answer with the workers\' metrics within 6 s')),
    });
    try {
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      assert.equal(response.status, 503);
      assert.equal(response.headers.get('retry-after'), '1');
      const body = (await response.json()) as { error: { code: string; message: string; request_id: string } };
      assert.deepEqual(body, {
        error: { code: 'unavailable', message: 'The workers\' metrics could not be added up just now; try again.', request_id: response.headers.get('x-request-id') },
      });
    } finally {
      await app.close();
      await drop();
    }
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  test('is not served: 404 not_found, with or without an Authorization header', async () => {
    const [sqlite] = testBackends();
    assert.ok(sqlite);
    const { store, drop } = await sqlite.create();
    const app = await buildApp({ store, clock: fixedClock(NOW) });
    try {
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      for (const headers of [{}, { authorization: `Bearer ${METRICS_TOKEN}` }] as Record<string, string>[]) {
        const response = await fetch(`${base}/metrics`, { headers });
        assert.equal(response.status, 404);
        assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'not_found');
      }
    } finally {
      await app.close();
      await drop();
    }
  });
});

for (const backend of testBackends()) {
  describe(`/metrics on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let app: FastifyInstance;
    let base: string;
    const token = newToken('metrics', NOW);
    const limited = newToken('limited', NOW, { rateLimit: 1 });
    const call = (path: string, init: { bearer?: string | null; method?: string; headers?: Record<string, string> } = {}): Promise<Response> => {
      const bearer = init.bearer === undefined ? token.token : init.bearer;
      return fetch(`${base}${path}`, { method: init.method ?? 'GET', headers: { ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }), ...init.headers } });
    };
    const scrape = async (): Promise<Scrape> => {
      const response = await call('/metrics', { bearer: METRICS_TOKEN });
      assert.equal(response.status, 200);
      return parseMetrics(await response.text());
    };

    before(async () => {
      ({ store, drop } = await backend.create());
      await loadFixture(store);
      await store.createToken(token.record);
      await store.createToken(limited.record);
      store.setVersionReuseMs(60_000); // so that repeated requests are answered by the fast path
      app = await buildApp({ store, clock: fixedClock(NOW), metricsToken: METRICS_TOKEN });
      base = await app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await app.close();
      await drop();
    });

    test('401 without the metrics token (none, wrong, an API token, two headers); 200 in the text format with it', async () => {
      const missing = await call('/metrics', { bearer: null });
      assert.equal(missing.status, 401);
      assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="fuelprice-metrics"');
      assert.equal(((await missing.json()) as { error: { code: string } }).error.code, 'unauthorized');
      for (const bearer of [`${METRICS_TOKEN}x`, METRICS_TOKEN.slice(1), token.token, 'not a token']) {
        const wrong = await call('/metrics', { bearer });
        assert.equal(wrong.status, 401, bearer);
        assert.equal(((await wrong.json()) as { error: { code: string } }).error.code, 'invalid_token');
      }
      const twice = await fetch(`${base}/metrics`, { headers: [['authorization', `Bearer ${METRICS_TOKEN}`], ['authorization', `Bearer ${METRICS_TOKEN}`]] });
      assert.equal(twice.status, 401);
      const ok = await call('/metrics', { bearer: METRICS_TOKEN });
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
      assert.equal(ok.headers.get('cache-control'), 'no-store');
      const scraped = parseMetrics(await ok.text());
      assert.equal(scraped.types.get('fuelprice_http_requests_total'), 'counter');
      assert.equal(scraped.types.get('fuelprice_http_request_duration_seconds'), 'histogram');
      assert.equal(scraped.types.get('fuelprice_answer_cache_hits_total'), 'counter');
      assert.equal(scraped.types.get('fuelprice_answer_cache_misses_total'), 'counter');
      assert.equal(scraped.types.get('fuelprice_http_requests_shed_total'), 'counter');
      assert.equal(scraped.types.get('nodejs_eventloop_lag_seconds'), 'gauge');
      assert.equal(scraped.types.get('process_cpu_user_seconds_total'), 'counter');
      assert.equal(valueOf(scraped, 'fuelprice_storage_backend_info', { backend: backend.name }), 1);
      // The refused scrapes above are requests like any other, under their route and status (this one is counted once answered).
      assert.equal(counted(scraped, 'fuelprice_http_requests_total', { route: '/metrics', status: '401' }), 6);
      assert.equal(counted(scraped, 'fuelprice_http_requests_total', { route: '/metrics', status: '200' }), 0);
    });

    test('requests by route pattern and status, fast path included, and their latency histogram', async () => {
      const before = await scrape();
      const n = 5;
      for (let i = 0; i < n; i++) assert.equal((await call('/v1/cities?limit=3')).status, 200);
      assert.equal((await call('/v1/cities/atlantis')).status, 404);
      assert.equal((await call('/v1/cities?limit=abc')).status, 400);
      assert.equal((await call('/nowhere', { bearer: null })).status, 404);
      const after = await scrape();
      const grew = (labels: Record<string, string>): number =>
        counted(after, 'fuelprice_http_requests_total', labels) - counted(before, 'fuelprice_http_requests_total', labels);
      assert.equal(grew({ route: '/v1/cities', status: '200' }), n);
      assert.equal(grew({ route: '/v1/cities', status: '400' }), 1);
      assert.equal(grew({ route: '/v1/cities/:id', status: '404' }), 1);
      assert.equal(grew({ route: 'none', status: '404' }), 1);
      // Route patterns only: no raw URL becomes a label.
      const routes = new Set(after.samples.filter((s) => s.name === 'fuelprice_http_requests_total').map((s) => s.labels.route));
      for (const route of routes) assert.ok(route === 'none' || (route !== undefined && !route.includes('?') && !route.includes('atlantis')), route);

      const countOf = (scraped: Scrape, route: string): number => counted(scraped, 'fuelprice_http_request_duration_seconds_count', { route });
      assert.equal(countOf(after, '/v1/cities') - countOf(before, '/v1/cities'), n + 1);
      // Every route: buckets cumulative in `le` order, +Inf equal to _count, _count equal to its requests.
      for (const route of routes) {
        assert.ok(route !== undefined);
        const buckets = after.samples.filter((s) => s.name === 'fuelprice_http_request_duration_seconds_bucket' && s.labels.route === route)
          .map((s) => ({ le: s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), value: s.value }))
          .sort((a, b) => a.le - b.le);
        assert.deepEqual(buckets.map((b) => b.le), [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, Infinity], route);
        for (let i = 1; i < buckets.length; i++) assert.ok((buckets[i]?.value ?? 0) >= (buckets[i - 1]?.value ?? 0), `${route}: cumulative`);
        const requests = after.samples.filter((s) => s.name === 'fuelprice_http_requests_total' && s.labels.route === route).reduce((sum, s) => sum + s.value, 0);
        assert.equal(buckets.at(-1)?.value, countOf(after, route), route);
        assert.equal(countOf(after, route), requests, route);
      }
    });

    test('answer cache: a miss, then hits in front of Fastify (a GET) and after its hooks (a HEAD)', async () => {
      const before = await scrape();
      const path = '/v1/cities/sydney/spread';
      assert.equal((await call(path)).status, 200);
      assert.equal((await call(path)).status, 200);
      assert.equal((await call(path)).status, 200);
      assert.equal((await call(path, { method: 'HEAD' })).status, 200);
      const after = await scrape();
      const grew = (name: string, labels: Record<string, string> = {}): number => counted(after, name, labels) - counted(before, name, labels);
      assert.equal(grew('fuelprice_answer_cache_misses_total'), 1);
      assert.equal(grew('fuelprice_answer_cache_hits_total', { path: 'fast' }), 2);
      assert.equal(grew('fuelprice_answer_cache_hits_total', { path: 'full' }), 1);
      assert.equal(grew('fuelprice_http_requests_total', { route: '/v1/cities/:id/spread', status: '200' }), 4);
      assert.ok((valueOf(after, 'fuelprice_answer_cache_entries') ?? 0) >= 1);
    });

    test('answer cache: a miss only where an answer was worked out; unknown routes, an unknown id and HEADs of them are neither; a HEAD\'s answer is kept for the GET', async () => {
      const before = await scrape();
      for (const path of ['/v1/nowhere', '/v1/cities/sydney/nothing', '/v1/cities/atlantis']) {
        for (const method of ['GET', 'HEAD', 'HEAD']) assert.equal((await call(path, { method })).status, 404, `${method} ${path}`);
      }
      const path = '/v1/cities/perth/spread';
      const head = await call(path, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal((await call(path, { method: 'HEAD' })).status, 200);
      const got = await call(path);
      assert.equal(got.status, 200);
      const body = await got.text();
      assert.equal(got.headers.get('etag'), head.headers.get('etag'), 'the GET is the answer the HEAD worked out');
      assert.equal(Buffer.byteLength(body), Number(head.headers.get('content-length')), 'with its whole body');
      assert.ok(body.startsWith('{"data":'), body.slice(0, 40));
      const after = await scrape();
      const grew = (name: string, labels: Record<string, string> = {}): number => counted(after, name, labels) - counted(before, name, labels);
      assert.equal(grew('fuelprice_answer_cache_misses_total'), 1, 'the first HEAD of the spread, and nothing else');
      assert.equal(grew('fuelprice_answer_cache_hits_total', { path: 'full' }) + grew('fuelprice_answer_cache_hits_total', { path: 'fast' }), 2, 'the second HEAD and the GET');
    });

    test('a rate-limited request is counted under 429', async () => {
      const before = await scrape();
      assert.equal((await call('/v1/brands', { bearer: limited.token })).status, 200);
      assert.equal((await call('/v1/brands', { bearer: limited.token })).status, 429);
      const after = await scrape();
      const grew = (status: string): number =>
        counted(after, 'fuelprice_http_requests_total', { route: '/v1/brands', status }) - counted(before, 'fuelprice_http_requests_total', { route: '/v1/brands', status });
      assert.equal(grew('200'), 1);
      assert.equal(grew('429'), 1);
    });

    test('feeds as stored: last success, last run, whether it failed, stale; none before any run', async () => {
      const empty = await scrape();
      assert.equal(empty.samples.filter((s) => s.name.startsWith('fuelprice_feed_')).length, 0);
      assert.equal(valueOf(empty, 'fuelprice_storage_up'), 1);
      const run = (feed: string, finishedAt: number, error?: string): FeedRun => ({
        feed, startedAt: finishedAt - 5, finishedAt, stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 3, pricesIgnored: 0, pricesHeld: 0,
        rejected: 0, rejections: [], error, intervalSec: 300,
      });
      await store.recordRun(run('nsw', NOW - 100));
      await store.recordRun(run('qld', NOW - 7_200));
      await store.recordRun(run('qld', NOW - 60, 'HTTP 500 from the feed'));
      await store.recordRun(run('wa', NOW - 30, 'timed out'));
      const scraped = await scrape();
      const gauge = (name: string, feed: string): number | undefined => valueOf(scraped, name, { feed });
      assert.equal(scraped.types.get('fuelprice_feed_last_success_timestamp_seconds'), 'gauge');
      assert.deepEqual(['nsw', 'qld', 'wa'].map((f) => gauge('fuelprice_feed_last_success_timestamp_seconds', f)), [NOW - 100, NOW - 7_200, 0]);
      assert.deepEqual(['nsw', 'qld', 'wa'].map((f) => gauge('fuelprice_feed_last_run_timestamp_seconds', f)), [NOW - 100, NOW - 60, NOW - 30]);
      assert.deepEqual(['nsw', 'qld', 'wa'].map((f) => gauge('fuelprice_feed_last_run_failed', f)), [0, 1, 1]);
      assert.deepEqual(['nsw', 'qld', 'wa'].map((f) => gauge('fuelprice_feed_stale', f)), [0, 1, 1]);
      assert.equal(scraped.types.get('fuelprice_feed_runs_total'), 'counter');
      assert.equal(scraped.types.get('fuelprice_feed_failures_total'), 'counter');
      assert.deepEqual(['nsw', 'qld', 'wa'].map((f) => gauge('fuelprice_feed_runs_total', f)), [1, 2, 1]);
      assert.deepEqual(['nsw', 'qld', 'wa'].map((f) => gauge('fuelprice_feed_failures_total', f)), [0, 1, 1]);

      // A run 91 days on prunes the log of every earlier run: the gauges lose those feeds, the counters keep counting.
      await store.recordRun(run('qld', NOW + 91 * 86_400, 'HTTP 503 from the feed'));
      const later = await scrape();
      assert.deepEqual(later.samples.filter((s) => s.name === 'fuelprice_feed_last_run_timestamp_seconds').map((s) => s.labels.feed), ['qld']);
      assert.deepEqual(['nsw', 'qld', 'wa'].map((f) => valueOf(later, 'fuelprice_feed_runs_total', { feed: f })), [1, 3, 1]);
      assert.deepEqual(['nsw', 'qld', 'wa'].map((f) => valueOf(later, 'fuelprice_feed_failures_total', { feed: f })), [0, 2, 1]);
    });

    test('the PostgreSQL pool on PostgreSQL, nothing of a pool on SQLite', async () => {
      const scraped = await scrape();
      const pool = scraped.samples.filter((s) => s.name === 'fuelprice_db_pool_connections');
      if (backend.name === 'postgres') {
        assert.deepEqual(pool.map((s) => s.labels.state).sort(), ['idle', 'max', 'total', 'waiting']);
        assert.equal(valueOf(scraped, 'fuelprice_db_pool_connections', { state: 'max' }), 4); // testBackends' pool
        assert.ok((valueOf(scraped, 'fuelprice_db_pool_connections', { state: 'total' }) ?? 0) >= 1);
      } else {
        assert.deepEqual(pool, []);
      }
    });

    test('no token in the output, not even one sent in a URL; /metrics not in the API description', async () => {
      assert.equal((await call(`/v1/cities?limit=${METRICS_TOKEN}`)).status, 400);
      assert.equal((await call(`/v1/cities/${METRICS_TOKEN}`)).status, 404);
      const scraped = await scrape();
      for (const secret of [METRICS_TOKEN, token.token, limited.token, token.record.id]) assert.ok(!scraped.text.includes(secret));
      const doc = (await (await call('/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
      assert.ok(Object.keys(doc.paths).length > 5);
      assert.ok(!Object.keys(doc.paths).some((path) => path.includes('metrics')));
    });
  });
}

describe('/metrics under load shedding', () => {
  let shedding = false;
  const gauge: LoadGauge = { shouldShed: () => shedding, get overloaded() { return shedding; }, close: () => undefined };
  let app: FastifyInstance;
  let base: string;
  let drop: () => Promise<void>;
  const token = newToken('shed', NOW);

  before(async () => {
    const [sqlite] = testBackends();
    assert.ok(sqlite);
    let store: PriceStore;
    ({ store, drop } = await sqlite.create());
    await loadFixture(store);
    await store.createToken(token.record);
    app = await buildApp({ store, clock: fixedClock(NOW), metricsToken: METRICS_TOKEN, loadGauge: gauge });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await app.close();
    await drop();
  });

  test('shed requests counted (503, no route), /ready\'s 503 under /ready, and the scrape itself never shed', async () => {
    const scrape = async (): Promise<Scrape> => {
      const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      assert.equal(response.status, 200);
      return parseMetrics(await response.text());
    };
    const before = await scrape();
    assert.equal(valueOf(before, 'fuelprice_overloaded'), 0);
    shedding = true;
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${base}/v1/cities`, { headers: { authorization: `Bearer ${token.token}` } })).status, 503);
    assert.equal((await fetch(`${base}/ready`)).status, 503);
    const after = await scrape();
    shedding = false;
    const grew = (name: string, labels: Record<string, string> = {}): number => counted(after, name, labels) - counted(before, name, labels);
    assert.equal(valueOf(after, 'fuelprice_overloaded'), 1);
    assert.equal(grew('fuelprice_http_requests_shed_total'), 3);
    assert.equal(grew('fuelprice_http_requests_total', { route: 'none', status: '503' }), 3);
    assert.equal(grew('fuelprice_http_requests_total', { route: '/ready', status: '503' }), 1);
    assert.equal(grew('fuelprice_http_request_duration_seconds_count', { route: 'none' }), 3);
    // Every 503 by its reason: the three shed, /ready's one while overloaded, nothing else.
    assert.deepEqual(['shed', 'overloaded', 'storage', 'waiters', 'metrics', 'unavailable'].map((reason) => valueOf(after, 'fuelprice_http_unavailable_total', { reason })),
      [3, 1, 0, 0, 0, 0]);
  });
});

describe('/metrics and the request log', () => {
  test('neither the metrics token nor a wrong one is logged, at trace level, for any answer', async () => {
    const [sqlite] = testBackends();
    assert.ok(sqlite);
    const { store, drop } = await sqlite.create();
    const lines: string[] = [];
    const app = await buildApp({
      store, clock: fixedClock(NOW), metricsToken: METRICS_TOKEN, logger: loggerOptions('trace', { write: (line) => { lines.push(line); } }),
    });
    const wrong = `${METRICS_TOKEN.slice(0, 20)}WRONGWRONGWRONG`;
    try {
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      assert.equal((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status, 200);
      assert.equal((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${wrong}` } })).status, 401);
      assert.equal((await fetch(`${base}/metrics`, { headers: { authorization: `Basic ${METRICS_TOKEN}` } })).status, 401);
    } finally {
      await app.close();
      await drop();
    }
    const log = lines.join('');
    assert.deepEqual(lines.map((l) => JSON.parse(l) as { msg?: string; status?: number }).filter((l) => l.msg === 'request').map((l) => l.status), [200, 401, 401], 'requests were logged');
    // Every 8-character piece: a log holding any of them holds part of a secret.
    for (const secret of [METRICS_TOKEN, wrong]) {
      for (let i = 0; i + 8 <= secret.length; i++) assert.ok(!log.includes(secret.slice(i, i + 8)), `the log holds '${secret.slice(i, i + 8)}'`);
    }
  });
});
