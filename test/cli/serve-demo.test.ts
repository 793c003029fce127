import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { writeDemo } from '../../src/ingest/demo.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import { type ServeProcess, runCli, startServe, waitFor } from '../helpers.ts';

describe('serve --demo keeps the demo alive', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-live-'));
  const databaseUrl = `sqlite:${join(dir, 'demo.db')}`;
  let server: ServeProcess | undefined;
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test('on the real clock the simulated feed polls at once through ingest: /ready and ingest status show it; a real-data ingest is refused', async () => {
    // A demo database written up to now (no history: the test is about what happens next).
    const store = new SqliteStore(join(dir, 'demo.db'));
    await store.migrate();
    // Written two minutes back, so the live feed's first reports (dated now) are never the same instant as the demo's own.
    await writeDemo(store, { seed: 1, years: 0, scale: 'small', nowSec: Math.floor(Date.now() / 1000) - 120 });
    await store.close();

    server = await startServe(['--demo', '--port', '0'], { DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' });
    await waitFor('the first demo poll', () => server?.logs('feed run done').some((l) => l.feed === 'demo') === true, 20_000);
    const [run] = server.logs('feed run done');
    assert.equal(run?.rejected, 0);
    assert.ok(Number(run?.pricesAccepted) > 0);

    const ready = await fetch(`${server.address}/ready`);
    const body = await ready.json() as { status: string; feeds: Array<{ feed: string; status: string }> };
    assert.equal(ready.status, 200);
    assert.equal(body.status, 'ready');
    assert.deepEqual(body.feeds.map((f) => [f.feed, f.status]), [['demo', 'ok']]);

    const status = await runCli(['ingest', 'status'], { DATABASE_URL: databaseUrl });
    assert.equal(status.code, 0);
    assert.match(status.stdout, /^demo {4}\S+ +\S+ +ok$/m);
    assert.match(status.stdout, / demo {2}ok {5}\d+s {2}stations \+0 ~0, prices [1-9]\d* read: [1-9]\d* stored/);

    const refused = await runCli(['ingest', 'wa'], { DATABASE_URL: databaseUrl, WA_FUELWATCH_URL: 'http://127.0.0.1:1' });
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr, 'fuelprice: this database holds the demo dataset; point DATABASE_URL at a new database for real data (e.g. DATABASE_URL=sqlite:./data/live.db).\n');
  });
});
