import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { newToken } from '../../../src/tokens.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import { fixedClock, testBackends } from '../../helpers.ts';

/** What every JSON answer carries, written out rather than imported from the code under test. */
const JSON_API_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};
/** Never sent: no framework banner, and no HSTS (this process does not terminate TLS). */
const ABSENT = ['x-powered-by', 'server', 'strict-transport-security'];

describe('security headers', () => {
  let store: PriceStore;
  let drop: () => Promise<void>;
  let app: FastifyInstance;
  let base: string;
  let throughFastify = 0;
  const token = newToken('headers', NOW);
  const limited = newToken('limited', NOW, { rateLimit: 1 });
  const call = (path: string, init: { method?: string; headers?: Record<string, string>; bearer?: string | null } = {}): Promise<Response> => {
    const bearer = init.bearer === undefined ? token.token : init.bearer;
    return fetch(`${base}${path}`, {
      method: init.method ?? 'GET', redirect: 'manual',
      headers: { ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }), ...init.headers },
    });
  };

  before(async () => {
    const sqlite = testBackends()[0];
    if (!sqlite) throw new Error('no SQLite backend');
    ({ store, drop } = await sqlite.create());
    await loadFixture(store);
    await store.createToken(token.record);
    await store.createToken(limited.record);
    store.setVersionReuseMs(60_000); // so that repeated requests are answered by the fast path
    app = await buildApp({ store, clock: fixedClock(NOW) });
    // A route that fails, to see the 500 answer's headers (same hooks and error handler as every route).
    app.get('/v1/test-failure', async () => { throw new Error('a bug'); });
    app.addHook('onSend', async () => { throughFastify++; });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await app.close();
    await drop();
  });

  function assertJsonApiHeaders(response: Response, what: string): void {
    for (const [name, value] of Object.entries(JSON_API_HEADERS)) assert.equal(response.headers.get(name), value, `${what}: ${name}`);
    for (const name of ABSENT) assert.equal(response.headers.get(name), null, `${what}: ${name}`);
  }

  test('every kind of answer carries the JSON API headers; errors are no-store', async () => {
    const cases: Array<{ what: string; status: number; cacheControl: string | null; response: () => Promise<Response> }> = [
      { what: '200', status: 200, cacheControl: 'private, max-age=60', response: () => call('/v1/cities/sydney') },
      { what: 'HEAD', status: 200, cacheControl: 'private, max-age=60', response: () => call('/v1/cities/sydney', { method: 'HEAD' }) },
      { what: '400 parameter', status: 400, cacheControl: 'no-store', response: () => call('/v1/cities?limit=0') },
      { what: '400 bad URL', status: 400, cacheControl: 'no-store', response: () => call('/v1/cities/%E0%A4%A') },
      { what: '401 missing', status: 401, cacheControl: 'no-store', response: () => call('/v1/cities', { bearer: null }) },
      { what: '401 invalid', status: 401, cacheControl: 'no-store', response: () => call('/v1/cities', { bearer: 'fp_abcdefgh_' + 'A'.repeat(43) }) },
      { what: '404 id', status: 404, cacheControl: 'no-store', response: () => call('/v1/cities/atlantis') },
      { what: '404 route', status: 404, cacheControl: 'no-store', response: () => call('/nowhere') },
      { what: '404 long id', status: 404, cacheControl: 'no-store', response: () => call(`/v1/cities/${'x'.repeat(300)}`) },
      { what: '405', status: 405, cacheControl: 'no-store', response: () => call('/v1/cities', { method: 'POST' }) },
      { what: '500', status: 500, cacheControl: 'no-store', response: () => call('/v1/test-failure') },
      { what: 'preflight', status: 204, cacheControl: null, response: () => call('/v1/cities', { method: 'OPTIONS', bearer: null, headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } }) },
      { what: '/health', status: 200, cacheControl: null, response: () => call('/health', { bearer: null }) },
      { what: '/ready', status: 200, cacheControl: null, response: () => call('/ready', { bearer: null }) },
      { what: 'openapi', status: 200, cacheControl: 'private, max-age=60', response: () => call('/v1/openapi.json', { bearer: null }) },
    ];
    for (const c of cases) {
      const response = await c.response();
      await response.arrayBuffer();
      assert.equal(response.status, c.status, c.what);
      assertJsonApiHeaders(response, c.what);
      assert.equal(response.headers.get('cache-control'), c.cacheControl, `${c.what}: cache-control`);
    }
  });

  test('a 500 says nothing of what went wrong: the documented message and the request id, no stack', async () => {
    const failed = await call('/v1/test-failure', { headers: { 'x-request-id': 'trace-500' } });
    assert.equal(failed.status, 500);
    assert.deepEqual(await failed.json(), {
      error: { code: 'internal', message: 'Something went wrong on our side; the request id identifies it in our logs.', request_id: 'trace-500' },
    });
  });

  test('429 carries them too', async () => {
    assert.equal((await call('/v1/cities', { bearer: limited.token })).status, 200);
    const denied = await call('/v1/cities', { bearer: limited.token });
    assert.equal(denied.status, 429);
    assertJsonApiHeaders(denied, '429');
    assert.equal(denied.headers.get('cache-control'), 'no-store');
  });

  test('a 304 and an answer from the fast path carry the same headers as the full path', async () => {
    const path = '/v1/cities/sydney/spread';
    const first = await call(path);
    await first.text();
    assertJsonApiHeaders(first, 'full path');
    const counted = throughFastify;
    const fast = await call(path);
    await fast.text();
    assert.equal(throughFastify, counted, 'answered in front of Fastify');
    assert.equal(fast.status, 200);
    assertJsonApiHeaders(fast, 'fast path');
    const notModified = await call(path, { headers: { 'if-none-match': String(first.headers.get('etag')) } });
    assert.equal(notModified.status, 304);
    assertJsonApiHeaders(notModified, '304');
    assert.equal(notModified.headers.get('cache-control'), 'private, max-age=60');
  });

  test('the docs page keeps a policy that lets it work: its own scripts and styles, nothing inline, never framed', async () => {
    const page = await call('/docs/', { bearer: null });
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    const policy = page.headers.get('content-security-policy') ?? '';
    const directives = new Map(policy.split(';').map((d) => d.trim()).filter(Boolean).map((d) => {
      const [name = '', ...values] = d.split(/\s+/);
      return [name, values.join(' ')] as const;
    }));
    assert.equal(directives.get('default-src'), "'self'");
    assert.equal(directives.get('script-src'), "'self'");
    assert.equal(directives.get('object-src'), "'none'");
    assert.equal(directives.get('frame-ancestors'), "'none'");
    assert.equal(directives.has('upgrade-insecure-requests'), false, 'served over plain HTTP, it would break the page');
    for (const name of ['x-content-type-options', 'x-frame-options', 'referrer-policy', 'cross-origin-resource-policy']) {
      assert.equal(page.headers.get(name), JSON_API_HEADERS[name], name);
    }
    for (const name of ABSENT) assert.equal(page.headers.get(name), null, name);

    // script-src 'self' without hashes: every script must be a same-origin file, none inline.
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length >= 3, 'the page loads its scripts');
    for (const [, attributes = '', body = ''] of scripts) {
      assert.match(attributes, /src="\.\/static\/[^"]+"/);
      assert.equal(body.trim(), '', 'no inline script');
    }
    const assets = [...html.matchAll(/(?:src|href)="(\.\/static\/[^"]+)"/g)].map((m) => m[1] ?? '');
    assert.ok(assets.some((a) => a.endsWith('.css')) && assets.some((a) => a.endsWith('.js')));
    for (const asset of assets) {
      const response = await call(`/docs/${asset.slice(2)}`, { bearer: null });
      await response.arrayBuffer();
      assert.equal(response.status, 200, asset);
      assert.equal(response.headers.get('content-security-policy'), policy, asset);
    }
    // The page reads the API description from its own origin (default-src 'self' covers it) and calls no validator.
    const initializer = await (await call('/docs/static/swagger-initializer.js', { bearer: null })).text();
    assert.ok(initializer.includes("url: resolveUrl('./json')"), 'the description comes from ./json');
    assert.ok(initializer.includes('validatorUrl: null'), 'no call to validator.swagger.io');
    const description = await call('/docs/json', { bearer: null });
    assert.equal(description.status, 200);
    assert.equal((await description.json() as { openapi: string }).openapi, '3.1.0');
  });
});
