import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyInstance } from 'fastify';
import { DASHBOARD_PAGE_FILES } from '../../src/http/routes/dashboard.ts';
import { DOCS_PAGE_FILES } from '../../src/http/routes/docs.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { newToken } from '../../src/tokens.ts';
import { NOW } from '../fixture.ts';
import { fixedClock, testBackends } from '../helpers.ts';
import { buildAppSeeingRoutes } from './routes-seen.ts';

/**
 * Nothing undocumented is reachable: the routes the app registers (seen by an onRoute hook
 * attached the moment the Fastify instance is created, through Fastify's
 * `fastify.initialization` diagnostics channel) are exactly the operations of the OpenAPI
 * document it serves, with the docs page's own files added (served beside the API, but described
 * in src/http/routes/docs.ts rather than in its document). Three kinds of registered route are
 * not operations of their own, and each is checked for what it answers instead: HEAD beside a
 * documented GET (HTTP's GET without the body), the POST/PUT/PATCH/DELETE routes that only
 * answer 405 on a path whose GET documents 405, and the CORS preflight (OPTIONS on any path, 204).
 */

interface Served { method: string; path: string; response: Record<string, unknown> | undefined; hidden: boolean }

/** Fastify's `/v1/cities/:id` and `/docs/static/*` written as OpenAPI paths, as @fastify/swagger writes them. */
function openapiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*/g, '{*}');
}

const [sqlite] = testBackends();

describe('served routes = OpenAPI paths', () => {
  let store: PriceStore;
  let drop: () => Promise<void>;
  let app: FastifyInstance;
  const served: Served[] = [];
  let token: string;
  let doc: { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };

  before(async () => {
    assert.ok(sqlite);
    ({ store, drop } = await sqlite.create());
    const created = newToken('routes', NOW);
    await store.createToken(created.record);
    token = created.token;
    app = await buildAppSeeingRoutes(store, fixedClock(NOW), (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      // Copied now: Fastify reuses the options object for the `/prefix/` twin of a plugin's root route, which runs no hook.
      const urls = route.routePath === '' && route.prefix ? [route.url, `${route.url}/`] : [route.url];
      const response = (route.schema as { response?: Record<string, unknown> } | undefined)?.response;
      const hidden = (route.schema)?.hide === true;
      for (const method of methods) for (const url of urls) served.push({ method, path: url, response, hidden });
    });
    await app.ready();
    doc = JSON.parse((await app.inject({ url: '/v1/openapi.json' })).body) as typeof doc;
    doc.paths = { ...doc.paths, ...DOCS_PAGE_FILES, ...DASHBOARD_PAGE_FILES };
  });
  after(async () => { await app.close(); await drop(); });

  test('the hook saw the routes Fastify answers (including both /docs and /docs/)', () => {
    for (const { method, path } of served) {
      // @fastify/cors registers its preflight route as `*`, which the router keeps as `/*`.
      assert.ok(app.hasRoute({ method, url: path === '*' ? '/*' : path }), `${method} ${path} is registered`);
    }
    for (const path of ['/docs', '/docs/', '/health', '/v1/cities/:id']) {
      assert.ok(served.some((s) => s.method === 'GET' && s.path === path), path);
    }
  });

  test('every served GET (and POST form) is a documented operation and every documented operation is served', () => {
    const documented = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .filter((operation) => !operation.startsWith('HEAD '))
      .sort();
    // The POST forms of the routes whose parameters a URL cannot always carry (src/http/routes/post-body.ts) are operations too.
    const forms = served.filter((s) => s.method === 'POST' && !s.hidden);
    assert.deepEqual(forms.map((s) => s.path).sort(), ['/v1/prices/along', '/v1/stations/prices']);
    const operations = [...new Set([...served.filter((s) => s.method === 'GET'), ...forms].map((s) => `${s.method} ${openapiPath(s.path)}`))].sort();
    assert.deepEqual(operations, documented);
  });

  test('HEAD is served only beside a documented GET, and beside every one', () => {
    const heads = served.filter((s) => s.method === 'HEAD');
    assert.ok(heads.length > 0, 'HEAD routes are served');
    for (const { path } of heads) {
      assert.ok(doc.paths[openapiPath(path)]?.get, `HEAD ${path} has a documented GET`);
    }
    const gets = Object.entries(doc.paths).filter(([, item]) => item.get !== undefined).map(([path]) => path);
    assert.ok(gets.length > 0);
    for (const path of gets) assert.ok(served.some((s) => s.method === 'HEAD' && openapiPath(s.path) === path), `HEAD ${path} is served`);
  });

  test('other methods are registered only to answer 405 where the GET documents it, and the preflight only as OPTIONS *', async () => {
    const others = served.filter((s) => !['GET', 'HEAD'].includes(s.method));
    const refusals = others.filter((s) => s.method !== 'OPTIONS' && s.hidden);
    assert.ok(refusals.length > 0);
    for (const { method, path } of refusals) {
      assert.ok(doc.paths[openapiPath(path)]?.get?.responses?.['405'], `${path} documents 405`);
      const url = path.replace(/:[A-Za-z0-9_]+/g, 'sydney');
      const response = await app.inject({ method: method as 'POST', url, headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.statusCode, 405, `${method} ${url}`);
      const form = served.some((s) => s.method === 'POST' && !s.hidden && s.path === path);
      assert.equal(response.headers.allow, form ? 'GET, HEAD, POST, OPTIONS' : 'GET, HEAD, OPTIONS', `${method} ${url}`);
    }
    assert.deepEqual(others.filter((s) => s.method === 'OPTIONS').map((s) => s.path), ['*']);
    const preflight = await app.inject({ method: 'OPTIONS', url: '/anything', headers: { origin: 'https://example.org', 'access-control-request-method': 'GET' } });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.body, '');
  });

  // Serialisers are compiled on first use (src/http/representation/serializers.ts), so a schema that does not compile would show only when its status is first sent.
  test('every response schema of every route compiles to a serialiser', () => {
    const compile = SerializerSelector()(app.getSchemas(), {});
    let compiled = 0;
    for (const { method, path, response } of served) {
      for (const [status, schema] of Object.entries(response ?? {})) {
        assert.equal(typeof compile({ schema, method, url: path, httpStatus: status }), 'function', `${method} ${path} ${status}`);
        compiled++;
      }
    }
    assert.ok(compiled > 50, `${compiled} response schemas`);
  });

  test('a path that is not documented answers 404, as do the docs files that do not exist', async () => {
    for (const url of ['/docs/openapi.json', '/documentation/json', '/v2/cities', '/metrics', '/docs/static/no-such-file.js']) {
      const response = await app.inject({ url });
      assert.equal(response.statusCode, 404, url);
      assert.equal((JSON.parse(response.body) as { error: { code: string } }).error.code, 'not_found', url);
    }
  });
});
