import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { writeDemo } from '../../src/ingest/demo.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import { NOW } from '../fixture.ts';
import { type ServeProcess, startServe, waitFor } from '../helpers.ts';

describe('serve --demo prints the dashboard with its token, once, to the person and never to the log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-demo-url-'));
  let server: ServeProcess | undefined;
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test('a URL to / with the new token in its fragment: the page is served, and the token works; with stdout not a terminal, the banner is on stderr once and stdout (the JSON log) holds nothing of it', async () => {
    const store = new SqliteStore(join(dir, 'demo.db'));
    await store.migrate();
    await writeDemo(store, { seed: 1, years: 0, scale: 'small', nowSec: NOW });
    await store.close();

    server = await startServe(['--demo', '--port', '0'], { DATABASE_URL: `sqlite:${join(dir, 'demo.db')}`, FUELPRICE_NOW: new Date(NOW * 1000).toISOString() });
    assert.match(server.stderr(), /serving on http:\/\/\S+ {2}\(dashboard: http:\/\/\S+\/, docs: http:\/\/\S+\/docs\)/);
    await waitFor('the dashboard line', () => server?.stderr().includes('Or open the dashboard') === true);
    const match = /^Or open the dashboard with it: (http:\/\/\S+)\/#token=(fp_\S+)$/m.exec(server.stderr());
    assert.ok(match, server.stderr());
    const [, address, token] = match as unknown as [string, string, string];
    assert.equal(address, server.address);
    assert.ok(server.stderr().includes(`\n  TOKEN=${token}\n`), 'the same token as the one printed above it');
    assert.equal(server.stderr().split('Your API token').length, 2, 'one banner');
    assert.equal(server.stderr().split(token).length, 3, 'the token twice in it: TOKEN= and the link, not in the curl line');
    assert.match(server.stderr(), /^Try: curl -H "Authorization: Bearer \$TOKEN" http:\/\/\S+\/v1\/cities\/sydney\/spread$/m);
    assert.doesNotMatch(server.stdout(), /fp_|Your API token|#token=/, 'stdout, the log, holds nothing of it');
    for (const line of server.stdout().split('\n').filter((l) => l !== '')) JSON.parse(line);

    const page = await fetch(`${address}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>fuelprice dashboard<\/title>/);
    const cities = await fetch(`${address}/v1/cities?limit=1`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(cities.status, 200);
  });
});
