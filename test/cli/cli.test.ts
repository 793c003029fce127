import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli, startServe } from '../helpers.ts';

describe('the fuelprice command', () => {
  let dir: string;
  let env: Record<string, string>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'fuelprice-cli-'));
    env = { DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, LOG_LEVEL: 'silent' };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('migrate says what it did: created a new database, then already up to date', async () => {
    const path = join(dir, 'cli.db');
    const r = await runCli(['migrate'], env);
    assert.equal(r.code, 0);
    const version = /\(schema version (\d+)\)/.exec(r.stderr)?.[1] ?? 'none';
    assert.equal(r.stderr, `Created a new database at ${path} (schema version ${version}).\n`);
    const again = await runCli(['migrate'], env);
    assert.equal(again.code, 0);
    assert.equal(again.stderr, `The schema of ${env.DATABASE_URL} is already up to date (version ${version}); nothing changed.\n`);
  });

  test('tokens create prints the token as the only line; list never shows it; revoke works once', async () => {
    const created = await runCli(['tokens', 'create', '--name', 'ci-bot', '--expires-in', '90d', '--rate-limit', '120'], env);
    assert.equal(created.code, 0);
    assert.match(created.stdout, /^fp_[a-z2-7]{8}_[A-Za-z0-9_-]{43}\n$/);
    const token = created.stdout.trim();
    const id = token.slice(3, 11);

    const listed = await runCli(['tokens', 'list'], env);
    assert.equal(listed.code, 0);
    assert.ok(listed.stdout.includes(id));
    assert.ok(listed.stdout.includes('ci-bot'));
    assert.ok(listed.stdout.includes('120'));
    assert.ok(!listed.stdout.includes(token.slice(12)));

    assert.equal((await runCli(['tokens', 'revoke', id], env)).code, 0);
    const again = await runCli(['tokens', 'revoke', id], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no active token has the id/);
  });

  test('bad usage exits 2 with one clear line', async () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['tokens', 'create'], {}, /tokens create needs --name NAME/],
      [['tokens', 'create', '--name', 'x', '--expires-in', 'soon'], {}, /--expires-in must look like 90d/],
      [['tokens', 'frobnicate'], {}, /tokens needs create, list or revoke/],
      [['demo', '--scale', 'huge'], {}, /--scale must be small or au/],
      [['serve', '--port', 'eighty'], {}, /--port: must be a port number/],
      [['teleport'], {}, /unknown command 'teleport'/],
      [['migrate'], { PORT: 'abc' }, /^fuelprice: PORT: must be a port number from 0 to 65535, got 'abc'\n$/],
      [['migrate'], { DATABASE_URL: 'mysql://x' }, /^fuelprice: DATABASE_URL: must start with sqlite: or postgres:\/\//],
      [['migrate'], { FUELPRICE_NOW: 'yesterday' }, /^fuelprice: FUELPRICE_NOW: must be an ISO instant/],
      [['migrate'], { LOG_LEVEL: 'loud' }, /^fuelprice: LOG_LEVEL: must be one of/],
    ];
    for (const [args, extraEnv, message] of cases) {
      const r = await runCli(args, { ...env, ...extraEnv });
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
    }
  });

  test('demo refuses a database that already has stations', async () => {
    const seeded = { ...env, DATABASE_URL: `sqlite:${join(dir, 'seeded.db')}` };
    const { SqliteStore } = await import('../../src/storage/sqlite/sqlite-store.ts');
    const { loadFixture } = await import('../fixture.ts');
    const store = new SqliteStore(join(dir, 'seeded.db'));
    await store.migrate();
    await loadFixture(store);
    await store.close();
    const r = await runCli(['demo'], seeded);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /already has stations/);
  });

  test('serve answers on its port and exits 0 on SIGTERM', async () => {
    const server = await startServe(['--port', '0'], env);
    assert.match(server.address, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(server.stderr().includes(`serving on ${server.address}  (dashboard: ${server.address}/, docs: ${server.address}/docs)\n`), server.stderr());
    assert.equal((await fetch(`${server.address}/health`)).status, 200);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });

  test('serve on a wildcard host says that every interface listens, beside the loopback address to open', async () => {
    const server = await startServe(['--port', '0', '--host', '0.0.0.0'], env);
    assert.match(server.address, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(server.stderr().includes(`serving on ${server.address} and every interface (0.0.0.0)  (dashboard: ${server.address}/,`), server.stderr());
    assert.equal((await fetch(`${server.address}/health`)).status, 200);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });
});
