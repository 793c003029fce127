import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { NOW } from '../fixture.ts';
import { fixedClock, testBackends } from '../helpers.ts';

/**
 * Every operation the server documents is in README's endpoint table, with an example that asks
 * that very route, and has its full description in docs/ENDPOINTS.md (a section of its own for
 * each GET under /v1, the POST forms named in their GET's section); the table names nothing
 * else. The operations are read from the OpenAPI document the app serves, which
 * test/http/routes-documented.test.ts holds equal to the routes it answers.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const ENDPOINTS = readFileSync(join(ROOT, 'docs', 'ENDPOINTS.md'), 'utf8');

interface Row { method: string; path: string; example: string }

/** The rows of README's endpoint table (under "## Endpoints"): `METHOD PATH`, what it answers, example. */
function readmeRows(): Row[] {
  const section = README.split(/^## /m).find((s) => s.startsWith('Endpoints\n'));
  assert.ok(section, 'README has an "Endpoints" section');
  const rows: Row[] = [];
  for (const line of section.split('\n')) {
    const m = /^\| `(GET|POST) ([^`]+)` \|.*\| `(.+)` \|$/.exec(line);
    if (m) rows.push({ method: m[1] ?? '', path: m[2] ?? '', example: m[3] ?? '' });
  }
  return rows;
}

/** An OpenAPI path as a pattern of the URLs that ask it: `{id}` is one path segment. */
function urlPattern(path: string): RegExp {
  const escaped = path.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/?"\']+');
  return new RegExp(`\\$API${escaped}(?:\\?|$|['"\\s])`);
}

const [sqlite] = testBackends();

describe('README\'s endpoint table and docs/ENDPOINTS.md against the OpenAPI document', () => {
  let store: PriceStore;
  let drop: () => Promise<void>;
  let app: FastifyInstance;
  let operations: { method: string; path: string }[] = [];

  before(async () => {
    assert.ok(sqlite);
    ({ store, drop } = await sqlite.create());
    app = await buildApp({ store, clock: fixedClock(NOW) });
    await app.ready();
    const doc = JSON.parse((await app.inject({ url: '/v1/openapi.json' })).body) as { paths: Record<string, Record<string, unknown>> };
    operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => ({ method: method.toUpperCase(), path })));
  });
  after(async () => { await app.close(); await drop(); });

  test('the document has the operations this test expects to find (so the checks below are not empty)', () => {
    assert.ok(operations.length >= 24, `${operations.length} operations`);
    assert.ok(operations.some((o) => o.method === 'POST'));
  });

  test('the table has one row per operation, and no other', () => {
    const rows = readmeRows().map((r) => `${r.method} ${r.path}`).sort();
    assert.deepEqual(rows, operations.map((o) => `${o.method} ${o.path}`).sort());
  });

  test('each row\'s example asks its own route', () => {
    const rows = readmeRows();
    assert.equal(rows.length, operations.length);
    for (const row of rows) assert.match(row.example, urlPattern(row.path), `${row.method} ${row.path}: ${row.example}`);
    for (const row of rows.filter((r) => r.method === 'POST')) assert.match(row.example, /^-d '\{.*\}' /, `${row.path}: a JSON body`);
  });

  test('every GET under /v1 has its section in docs/ENDPOINTS.md, and every POST form is described there', () => {
    const headings = ENDPOINTS.split('\n').filter((line) => /^#{2,3} /.test(line));
    const api = operations.filter((o) => o.path.startsWith('/v1/') && o.path !== '/v1/openapi.json');
    assert.ok(api.length >= 20);
    for (const { method, path } of api) {
      if (method === 'GET') {
        assert.ok(headings.some((h) => h.includes(`\`GET ${path}\``) || h.includes(`\`GET ${path}?`)), `a heading for GET ${path}`);
      } else {
        assert.ok(ENDPOINTS.includes(`\`${method} ${path}\``), `${method} ${path} described`);
      }
    }
  });
});
