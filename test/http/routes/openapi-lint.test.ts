import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.ts';
import { OPERATION_IDS, operationIdOf } from '../../../src/http/routes/openapi.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { NOW } from '../../fixture.ts';
import { fixedClock, testBackends } from '../../helpers.ts';

/**
 * The document the server serves at /v1/openapi.json lints clean with Redocly's recommended
 * rules (@redocly/openapi-core, the library behind `redocly lint`): no error and no warning.
 * The document does not depend on the storage backend, so SQLite alone is enough.
 */

interface Operation { operationId?: string; security?: unknown[]; responses: Record<string, { description: string }> }
interface ApiDocument {
  info: { license?: { name: string; identifier?: string } };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
}

const [sqlite] = testBackends();

describe('the OpenAPI document', () => {
  let store: PriceStore;
  let drop: () => Promise<void>;
  let app: FastifyInstance;
  let text: string;
  let doc: ApiDocument;
  const operations = (): Array<[string, Operation]> => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, o]) => [`${method.toUpperCase()} ${path}`, o] as [string, Operation]));

  before(async () => {
    assert.ok(sqlite);
    ({ store, drop } = await sqlite.create());
    app = await buildApp({ store, clock: fixedClock(NOW) });
    const response = await app.inject({ url: '/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    text = response.body;
    doc = JSON.parse(text) as ApiDocument;
  });
  after(async () => { await app.close(); await drop(); });

  test('lints clean with the recommended rules: no error, no warning', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
    const lines = problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer ?? '').join(', ')}: ${p.message}`);
    assert.deepEqual(lines, []);
  });

  test('every operation has its operationId from the table, and says what its 200 is', () => {
    const ids = operations().map(([, o]) => o.operationId);
    assert.equal(new Set(ids).size, ids.length, 'unique');
    for (const [url, id] of Object.entries(OPERATION_IDS)) {
      const path = url.replace(/:([a-z]+)/g, '{$1}');
      assert.equal(doc.paths[path]?.get?.operationId, id, path);
    }
    for (const [operation, o] of operations()) assert.notEqual(o.responses['200']?.description ?? 'Default Response', 'Default Response', operation);
    assert.ok(!text.includes('Default Response'));
  });

  test('a route missing from the table gets an operationId from its method and URL', () => {
    assert.equal(operationIdOf('GET', '/metrics'), 'getMetrics');
    assert.equal(operationIdOf('GET', '/v1/fuel-types/:id/price-history'), 'getFuelTypesPriceHistory');
    assert.equal(operationIdOf('GET', '/v1/cities'), 'listCities');
    assert.equal(operationIdOf('POST', '/v1/cities'), 'postCities');
  });

  test('public operations need no token, every /v1 one the bearer token', () => {
    const open = operations().filter(([, o]) => Array.isArray(o.security) && o.security.length === 0).map(([operation]) => operation).sort();
    assert.deepEqual(open, ['GET /docs', 'GET /health', 'GET /ready', 'GET /v1/openapi.json']);
    for (const [operation, o] of operations()) {
      if (!open.includes(operation)) assert.deepEqual(o.security, [{ bearerAuth: [] }], operation);
    }
  });

  test("the licence is the project's, the server the one that served the document", () => {
    const { license } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { license: string };
    assert.deepEqual(doc.info.license, { name: license, identifier: license });
    assert.deepEqual(doc.servers, [{ url: '/', description: 'The server that served this document.' }]);
  });

  test("the docs page is the one operation of the docs page's routes, titled after the product", async () => {
    assert.deepEqual(Object.keys(doc.paths).filter((path) => path.startsWith('/docs')), ['/docs']);
    for (const url of ['/docs', '/docs/']) {
      const page = await app.inject({ url });
      assert.equal(page.statusCode, 200, url);
      assert.deepEqual([...page.body.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1]), ['fuelprice API'], url);
    }
  });
});
