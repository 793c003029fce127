import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { PriceStore } from '../../src/storage/store.ts';
import { NOW, loadFixture } from '../fixture.ts';
import {
  Checker, type FuzzContext, type Target, createFuzzTokens, describeViolation, fetchDocument, knownIds, requestArbitrary, send, target,
} from '../fuzz/api-fuzz.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends } from '../helpers.ts';

/**
 * The short run of the schema-driven fuzzer (the long one is `npm run fuzz`, bench/fuzz.ts):
 * requests generated from the OpenAPI document the server serves, every answer checked against
 * it (test/fuzz/check.ts). Seeded, so a failure replays; fast-check shrinks it first.
 */
const SEED = 20_261_123;
const RUNS = 300;

for (const backend of testBackends()) {
  describe(`schema-driven fuzzing on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    let checker: Checker;
    let context: FuzzContext;
    let to: Target;
    before(async () => {
      ({ store, drop } = await backend.create());
      await loadFixture(store);
      const tokens = await createFuzzTokens(store, NOW);
      server = await startServer(store, fixedClock(NOW), { defaultRateLimit: 1_000_000_000 });
      checker = new Checker(await fetchDocument(server.baseUrl));
      context = { tokens, ids: await knownIds(server.baseUrl, tokens.valid) };
      to = target(server.baseUrl, { timeoutMs: 5_000 });
    });
    after(async () => { to.agent.destroy(); await server.close(); await drop(); });

    test(`${RUNS} generated requests: no 5xx, no hang, a documented status, body and Content-Type`, async () => {
      const statuses = new Set<number>();
      await fc.assert(fc.asyncProperty(requestArbitrary(checker.operations, context), async (request) => {
        const response = await send(to, request);
        statuses.add(response.status);
        const problems = checker.check(request, response);
        assert.deepEqual(problems, [], describeViolation({ index: -1, request, status: response.status, problems }, SEED));
      }), { seed: SEED, numRuns: RUNS });
      // The run reached the handlers and the refusals alike, not only one kind of answer.
      for (const status of [200, 304, 400, 401, 404, 405]) assert.ok(statuses.has(status), `saw a ${status}`);
    });

    test('the checker catches an answer the document does not allow', () => {
      const request = { method: 'GET', target: '/health', headers: {} };
      const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r' };
      const answer = (status: number, body: unknown) => ({ status, headers: json, body: Buffer.from(JSON.stringify(body)), timedOut: false });
      assert.deepEqual(checker.check(request, answer(200, { status: 'ok' })), []);
      assert.deepEqual(checker.check(request, answer(200, { status: 'fine' })), [
        'body does not match the documented schema: body/status must be equal to one of the allowed values',
      ]);
      assert.deepEqual(checker.check(request, answer(401, {})), [
        'status 401 not documented for GET /health (documented: 200, 400, 405, 429, 431, 500)',
      ]);
      assert.deepEqual(checker.check(request, { status: 0, headers: {}, body: Buffer.alloc(0), timedOut: true }), ['no answer within the client timeout (hang)']);
    });

    // Regressions: what the first fuzz runs found.

    test('a method other than GET on /health, /ready or /v1/openapi.json answers 405, and their operations document it', async () => {
      for (const path of ['/health', '/ready', '/v1/openapi.json']) {
        const response = await get(server, path, { method: 'POST', token: null });
        assert.equal(response.status, 405, path);
        assert.ok(checker.operations.find((o) => o.template === path)?.responses['405'], `${path} documents 405`);
      }
    });

    test('every operation documents 400, 429 and 431, and each /v1 route its 304', async () => {
      for (const operation of checker.operations) {
        for (const status of ['400', '429', '431']) assert.ok(operation.responses[status], `${operation.method} ${operation.template} ${status}`);
        if (operation.template.startsWith('/v1/')) assert.ok(operation.responses['304'], `${operation.template} 304`);
      }
      const first = await get(server, '/v1/openapi.json', { token: null });
      const again = await get(server, '/v1/openapi.json', { token: null, headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
      assert.equal(again.status, 304);
    });

    test('the API document is public however its path is written', async () => {
      for (const path of ['/v1/openapi.json#top', '/v1/%6Fpenapi.json', '/v1/openapi.json?x=1']) {
        const response = await send(to, { method: 'GET', target: path, headers: {} });
        assert.equal(response.status, 200, path);
      }
    });

    test('an OPTIONS request that is not a full preflight answers 204 with the CORS headers and a request id', async () => {
      const variants: Array<Record<string, string>> = [{}, { origin: 'https://example.org' }];
      for (const headers of variants) {
        const response = await send(to, { method: 'OPTIONS', target: '/v1/cities', headers });
        assert.equal(response.status, 204);
        assert.equal(response.body.length, 0);
        assert.equal(response.headers['access-control-allow-origin'], '*');
        assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      }
    });

    test('a HEAD refused before Fastify (headers too large, bytes HTTP does not allow) is answered without a body', async () => {
      const cases: Array<{ target: string; headers: Record<string, string>; status: number }> = [
        { target: '/v1/cities', headers: { 'x-padding': 'x'.repeat(9_000) }, status: 431 },
        { target: '/health', headers: { 'if-none-match': 'x'.repeat(9_000) }, status: 431 },
        { target: '/\u00e9', headers: {}, status: 400 },
      ];
      for (const { target: path, headers, status } of cases) {
        const response = await send(to, { method: 'HEAD', target: path, headers });
        assert.equal(response.error, undefined, `${path}: the client read the answer cleanly`);
        assert.equal(response.status, status, path);
        assert.equal(response.body.length, 0, path);
        const get = await send(to, { method: 'GET', target: path, headers });
        assert.equal(get.status, status, path);
        assert.equal((JSON.parse(get.body.toString()) as { error: { code: string } }).error.code, status === 431 ? 'request_too_large' : 'invalid_parameter');
      }
    });

    test('the docs page files are documented and served, and none outside its folder', async () => {
      const file = await send(to, { method: 'GET', target: '/docs/static/swagger-ui.css', headers: {} });
      assert.equal(file.status, 200);
      assert.deepEqual(checker.check({ method: 'GET', target: '/docs/static/swagger-ui.css', headers: {} }, file), []);
      for (const path of ['/docs/static/../../package.json', '/docs/static/..%2F..%2Fpackage.json', '/docs/static/%2e%2e/%2e%2e/package.json']) {
        const response = await send(to, { method: 'GET', target: path, headers: {} });
        assert.ok([400, 403, 404].includes(response.status), `${path}: ${response.status}`);
        assert.ok(!response.body.toString().includes('"dependencies"'), path);
      }
    });
  });
}
