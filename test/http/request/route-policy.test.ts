import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../../src/http/request/policy.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { NOW } from '../../fixture.ts';
import { fixedClock, testBackends } from '../../helpers.ts';
import { buildAppSeeingRoutes } from '../routes-seen.ts';

/**
 * Every route's policy is declared in its registration (request/policy.ts), and these are all the
 * declarations the app makes: the table below is the whole of what differs from the default
 * (kept per data version, a token under /v1/, the server's URL limit, no body). A new route that
 * declares something, or a route that stops declaring it, fails here until the table says so.
 * What each declaration does is tested where it acts: answer-cache.test.ts (clock slices, no-store),
 * request-rules.test.ts (URL and body limits, public), along.test.ts and post-body.test.ts over HTTP.
 */
const EXPECTED: ReadonlyArray<[string, string, RoutePolicy]> = [
  ['GET', '/v1/cities/:id/cycle', { cache: 'clock' }],
  ['GET', '/v1/cities/:id/history', { cache: 'clock' }],
  ['GET', '/v1/openapi.json', { public: true }],
  ['GET', '/v1/prices/along', { maxUrl: 8_192 }],
  ['GET', '/v1/prices/changes', { cache: 'none' }],
  ['GET', '/v1/stations/:id/history', { cache: 'clock' }],
  ['POST', '/v1/prices/along', { maxBody: 32_768 }],
  ['POST', '/v1/stations/prices', { maxBody: 32_768 }],
  // The 405 answers of /v1/openapi.json (methodNotAllowed): public as its GET is.
  ['DELETE', '/v1/openapi.json', { public: true }],
  ['PATCH', '/v1/openapi.json', { public: true }],
  ['POST', '/v1/openapi.json', { public: true }],
  ['PUT', '/v1/openapi.json', { public: true }],
];
const POLICY_KEYS = ['cache', 'public', 'maxUrl', 'maxBody'] as const;

const [sqlite] = testBackends();

describe('route policies, declared once', () => {
  let store: PriceStore;
  let drop: () => Promise<void>;
  let app: FastifyInstance;
  const declared: Array<[string, string, RoutePolicy]> = [];

  before(async () => {
    assert.ok(sqlite);
    ({ store, drop } = await sqlite.create());
    app = await buildAppSeeingRoutes(store, fixedClock(NOW), (route) => {
      const config = (route.config ?? {}) as Record<string, unknown>;
      const policy = Object.fromEntries(POLICY_KEYS.filter((key) => config[key] !== undefined).map((key) => [key, config[key]])) as RoutePolicy;
      if (Object.keys(policy).length === 0) return;
      for (const method of Array.isArray(route.method) ? route.method : [route.method]) declared.push([method, route.url, policy]);
    });
    await app.ready();
  });
  after(async () => { await app.close(); await drop(); });

  test('the declarations are exactly the table (HEAD beside each GET, as Fastify adds it)', () => {
    const order = (rows: ReadonlyArray<[string, string, RoutePolicy]>) => [...rows].map(([m, u, p]) => `${m} ${u} ${JSON.stringify(p)}`).sort();
    const withHead = [...EXPECTED, ...EXPECTED.filter(([method]) => method === 'GET').map(([, url, policy]): [string, string, RoutePolicy] => ['HEAD', url, policy])];
    assert.deepEqual(order(declared), order(withHead));
  });
});
