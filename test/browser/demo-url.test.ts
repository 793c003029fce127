import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { writeDemo } from '../../src/ingest/demo.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import { NOW } from '../fixture.ts';
import { type ServeProcess, startServe, waitFor } from '../helpers.ts';

describe('serve --demo prints the dashboard with its token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-demo-url-'));
  let server: ServeProcess | undefined;
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test('a URL to / with the new token in its fragment: the page is served, and the token works', async () => {
    const store = new SqliteStore(join(dir, 'demo.db'));
    await store.migrate();
    await writeDemo(store, { seed: 1, years: 0, scale: 'small', nowSec: NOW });
    await store.close();

    server = await startServe(['--demo', '--port', '0'], { DATABASE_URL: `sqlite:${join(dir, 'demo.db')}`, FUELPRICE_NOW: new Date(NOW * 1000).toISOString() });
    assert.match(server.stderr(), /serving on http:\/\/\S+ {2}\(dashboard: http:\/\/\S+\/, docs: http:\/\/\S+\/docs\)/);
    await waitFor('the dashboard line', () => server?.stdout().includes('Or open the dashboard') === true);
    const match = /^Or open the dashboard with it: (http:\/\/\S+)\/#token=(fp_\S+)$/m.exec(server.stdout());
    assert.ok(match, server.stdout());
    const [, address, token] = match as unknown as [string, string, string];
    assert.equal(address, server.address);
    assert.ok(server.stdout().includes(`\n  ${token}\n`), 'the same token as the one printed above it');

    const page = await fetch(`${address}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>fuelprice dashboard<\/title>/);
    const cities = await fetch(`${address}/v1/cities?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(cities.status, 200);
  });
});
