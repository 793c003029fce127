import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loggerOptions } from '../../src/http/server/request-log.ts';
import { FUELS } from '../../src/domain/fuels.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { newToken } from '../../src/tokens.ts';
import { NOW, loadFixture } from '../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends } from '../helpers.ts';

for (const backend of testBackends()) {
  describe(`HTTP conventions on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    const logLines: string[] = [];
    before(async () => {
      ({ store, drop } = await backend.create());
      await loadFixture(store);
      server = await startServer(store, fixedClock(NOW), { logger: loggerOptions('info', { write: (line) => { logLines.push(line); } }) });
    });
    after(async () => { await server.close(); await drop(); });

    test('a 200 carries a strong ETag and Cache-Control; If-None-Match answers 304 with no body', async () => {
      const first = await get(server, '/v1/cities/sydney/spread');
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^"[A-Za-z0-9_-]{27}"$/);
      assert.equal(first.headers.get('cache-control'), 'private, max-age=60');
      const again = await get(server, '/v1/cities/sydney/spread', { headers: { 'if-none-match': etag ?? '' } });
      assert.equal(again.status, 304);
      assert.equal(again.text, '');
      assert.equal(again.headers.get('etag'), etag);
      const listed = await get(server, '/v1/cities/sydney/spread', { headers: { 'if-none-match': `"other", W/${etag}` } });
      assert.equal(listed.status, 304);
      const other = await get(server, '/v1/cities/sydney/spread', { headers: { 'if-none-match': '"something-else"' } });
      assert.equal(other.status, 200);
      assert.equal(other.text, first.text);
      assert.notEqual((await get(server, '/v1/cities/perth/spread')).headers.get('etag'), etag);
    });

    test('errors are not cacheable', async () => {
      const r = await get(server, '/v1/cities/atlantis');
      assert.equal(r.headers.get('cache-control'), 'no-store');
      assert.equal(r.headers.get('etag'), null);
    });

    test('HEAD answers like GET without a body', async () => {
      const getResponse = await get(server, '/v1/cities');
      const head = await get(server, '/v1/cities', { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.equal(head.headers.get('etag'), getResponse.headers.get('etag'));
      assert.equal(head.headers.get('content-type'), 'application/json; charset=utf-8');
    });

    test('CORS: any origin, preflight answered without a token', async () => {
      const preflight = await fetch(`${server.baseUrl}/v1/cities`, {
        method: 'OPTIONS',
        headers: { origin: 'https://example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.equal(preflight.headers.get('access-control-allow-methods'), 'GET, HEAD, OPTIONS');
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
      const r = await get(server, '/v1/cities', { headers: { origin: 'https://example.org' } });
      assert.equal(r.headers.get('access-control-allow-origin'), '*');
      assert.match(r.headers.get('access-control-expose-headers') ?? '', /ETag.*RateLimit/);
    });

    test('X-Request-Id: a sane client value is echoed, anything else replaced', async () => {
      const echoed = await get(server, '/v1/cities/atlantis', { headers: { 'x-request-id': 'client-abc.123' } });
      assert.equal(echoed.headers.get('x-request-id'), 'client-abc.123');
      assert.equal((echoed.body as { error: { request_id: string } }).error.request_id, 'client-abc.123');
      const replaced = await get(server, '/v1/cities', { headers: { 'x-request-id': 'bad id with spaces' } });
      assert.match(replaced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      const long = await get(server, '/health', { headers: { 'x-request-id': 'a'.repeat(129) } });
      assert.match(long.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    });

    test('rate limit: headers on every answer, exactly the limit admitted, then 429 with Retry-After', async () => {
      const limited = newToken('limited', NOW, { rateLimit: 3 });
      await store.createToken(limited.record);
      const statuses: number[] = [];
      const remaining: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await get(server, '/v1/cities', { token: limited.token });
        statuses.push(r.status);
        assert.equal(r.headers.get('ratelimit-policy'), '"default";q=3;w=60');
        remaining.push(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1] ?? '?');
        if (r.status === 429) {
          assert.match(r.headers.get('retry-after') ?? '', /^[1-9][0-9]?$/);
          assert.equal((r.body as { error: { code: string } }).error.code, 'rate_limited');
        }
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.deepEqual(remaining, ['2', '1', '0', '0', '0']);
      // Another token is counted on its own.
      assert.equal((await get(server, '/v1/cities')).status, 200);
    });

    test('health and ready', async () => {
      assert.deepEqual((await get(server, '/health', { token: null })).body, { status: 'ok' });
      assert.deepEqual((await get(server, '/ready', { token: null })).body, { status: 'ready', backend: backend.name });
    });

    test('the OpenAPI document describes the routes with bearer auth and every error', async () => {
      const r = await get(server, '/v1/openapi.json', { token: null });
      assert.equal(r.status, 200);
      const doc = r.body as {
        openapi: string;
        paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown>; parameters?: Array<{ name: string }> }>>;
        components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
      };
      assert.equal(doc.openapi, '3.1.0');
      assert.deepEqual(doc.components.securitySchemes.bearerAuth, { type: 'http', scheme: 'bearer', description: 'A token from `fuelprice tokens create`.' });
      const v1 = Object.keys(doc.paths).filter((p) => p.startsWith('/v1/') && p !== '/v1/openapi.json').sort();
      assert.deepEqual(v1, [
        '/v1/brands', '/v1/cities', '/v1/cities/{id}', '/v1/cities/{id}/average', '/v1/cities/{id}/cycle', '/v1/cities/{id}/history', '/v1/cities/{id}/spread',
        '/v1/cities/{id}/unavailable', '/v1/fuel-types', '/v1/prices', '/v1/prices/along', '/v1/prices/changes', '/v1/prices/cheapest', '/v1/stations', '/v1/stations/prices', '/v1/stations/{id}', '/v1/stations/{id}/history', '/v1/stations/{id}/prices',
      ]);
      for (const path of v1) {
        const operation = doc.paths[path]?.get;
        assert.ok(operation, path);
        assert.deepEqual(operation.security, [{ bearerAuth: [] }], path);
        for (const status of ['200', '401', '405', '429', '500', '503']) assert.ok(operation.responses[status], `${path} ${status}`);
        // The two POST forms (src/http/routes/post-body.ts) show their body and no query; every other path only GET.
        const post = path === '/v1/stations/prices' || path === '/v1/prices/along';
        assert.deepEqual(Object.keys(doc.paths[path] ?? {}), post ? ['get', 'post'] : ['get'], `${path} shows only GET${post ? ' and POST' : ''}`);
        if (post) {
          const form = (doc.paths[path] as unknown as Record<string, { parameters?: unknown[]; requestBody?: { required?: boolean; content?: Record<string, unknown> } }>).post;
          assert.equal(form?.parameters, undefined, `${path} POST has no query`);
          assert.deepEqual(Object.keys(form?.requestBody?.content ?? {}), ['application/json'], path);
        }
      }
      assert.deepEqual(doc.paths['/v1/cities']?.get?.parameters?.map((p) => p.name).sort(), ['format', 'limit', 'offset', 'page', 'state']);
      assert.deepEqual(doc.paths['/v1/brands']?.get?.parameters?.map((p) => p.name).sort(), ['format', 'limit', 'offset', 'page', 'state']);
      assert.deepEqual(doc.paths['/v1/stations']?.get?.parameters?.map((p) => p.name).sort(),
        ['brand', 'city', 'city_id', 'format', 'fuel', 'limit', 'max_age', 'near', 'offset', 'page', 'postcode', 'radius', 'state', 'suburb']);
      assert.deepEqual(doc.paths['/v1/prices/cheapest']?.get?.parameters?.map((p) => p.name).sort(),
        ['city', 'consumption', 'day', 'format', 'fuel', 'limit', 'litres', 'max_age', 'near', 'offset', 'order', 'page', 'radius', 'state']);
      assert.deepEqual(doc.paths['/v1/prices/along']?.get?.parameters?.map((p) => p.name).sort(),
        ['consumption', 'corridor', 'fuel', 'limit', 'litres', 'max_age', 'offset', 'order', 'page', 'path']);
      assert.deepEqual(doc.paths['/v1/prices/changes']?.get?.parameters?.map((p) => p.name).sort(),
        ['city', 'fuel', 'limit', 'near', 'radius', 'since', 'state', 'wait']);
      assert.deepEqual(doc.paths['/v1/prices']?.get?.parameters?.map((p) => p.name).sort(), ['city', 'state']);
      assert.ok(doc.components.schemas.Error);
      assert.ok(r.text.includes(FUELS[18]));
    });

    test('the docs page and its assets are served locally', async () => {
      const page = await get(server, '/docs/', { token: null });
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
      const scripts = [...page.text.matchAll(/src="\.?\/?([^"]+\.js)"/g)].map((m) => m[1]);
      assert.ok(scripts.length > 0);
      for (const script of scripts) {
        const asset = await get(server, `/docs/${script}`, { token: null });
        assert.equal(asset.status, 200, script);
        assert.doesNotMatch(asset.headers.get('content-type') ?? '', /html/);
      }
    });

    test('logs never contain the token or the Authorization header', async () => {
      await get(server, '/v1/cities/atlantis');
      await get(server, '/v1/cities', { token: 'fp_zzzzzzzz_' + 'Q'.repeat(43) });
      const logs = logLines.join('');
      assert.ok(logs.includes('"msg":"request"'), 'the access lines are there');
      assert.ok(!logs.includes(server.token));
      assert.ok(!logs.includes('Q'.repeat(43)));
      assert.ok(!/"authorization"\s*:\s*"Bearer/i.test(logs));
    });
  });
}

for (const backend of testBackends()) {
  describe(`storage out of reach on ${backend.name}`, () => {
    test('requests answer 503 unavailable with Retry-After, and /ready says so', async () => {
      const { store, drop } = await backend.create();
      await loadFixture(store);
      const server = await startServer(store, fixedClock(NOW));
      try {
        await store.close();
        const r = await get(server, '/v1/cities/sydney/spread');
        assert.equal(r.status, 503);
        assert.equal(r.headers.get('retry-after'), '5');
        assert.deepEqual(r.body, { error: { code: 'unavailable', message: 'The service is temporarily unavailable; try again shortly.', request_id: r.headers.get('x-request-id') } });
        const ready = await get(server, '/ready', { token: null });
        assert.equal(ready.status, 503);
        assert.equal((ready.body as { error: { code: string } }).error.code, 'unavailable');
        assert.deepEqual((await get(server, '/health', { token: null })).body, { status: 'ok' });
      } finally {
        await server.close();
        await drop().catch(() => undefined);
      }
    });
  });
}
