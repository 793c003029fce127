import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runFeed } from '../../src/ingest/runner.ts';
import { openStore } from '../../src/storage/open.ts';
import { NOW } from '../fixture.ts';
import { createPostgresDatabase, postgresServerUrl, waitFor } from '../helpers.ts';
import { BATCHES, crashAdapter, partialAdapter, prepare, silentLog } from './crash-feed.ts';
import { canonicalDump as dump } from './kill-harness.ts';

const ROOT = join(import.meta.dirname, '..', '..');

async function runToEnd(url: string, adapter = crashAdapter): Promise<void> {
  const store = await openStore(url);
  try {
    const run = await runFeed({ store, adapter, config: { url: '', credentials: {} }, clock: { now: () => NOW }, log: silentLog });
    assert.equal(run.error, undefined);
  } finally {
    await store.close();
  }
}

function startCrashFeed(url: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'ingest', 'crash-feed.ts')], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, TSX_DISABLE_CACHE: '1' }, stdio: ['ignore', 'ignore', 'inherit'],
  });
}

interface Db { url: string; drop(): Promise<void> }

function databases(): Array<{ name: string; create(): Promise<Db> }> {
  const list = [{
    name: 'sqlite',
    async create(): Promise<Db> {
      const dir = mkdtempSync(join(tmpdir(), 'fuelprice-crash-'));
      return { url: `sqlite:${join(dir, 'crash.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  }];
  const server = postgresServerUrl();
  if (server) list.push({ name: 'postgres', create: () => createPostgresDatabase(server) });
  return list;
}

for (const backend of databases()) {
  describe(`ingest killed mid-run on ${backend.name}`, () => {
    const made: Db[] = [];
    after(async () => { for (const db of made) await db.drop(); });

    test('kill -9 leaves whole batches and their cursor; the next run converges to an uninterrupted run', async () => {
      const [killed, clean, partial] = [await backend.create(), await backend.create(), await backend.create()];
      made.push(killed, clean, partial);
      for (const db of [killed, clean, partial]) await prepare(db.url);

      const child = startCrashFeed(killed.url);
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      const watcher = await openStore(killed.url, { migrate: false });
      try {
        // Kill it once a few batches are committed: it is then inside the next one.
        await waitFor('three batches committed', async () => Number(await watcher.feedCursor('crash')) >= 2, 60_000);
      } finally {
        child.kill('SIGKILL');
        await watcher.close();
      }
      assert.equal(await exited, 'SIGKILL');

      // What survived is exactly the batches up to the stored cursor: nothing of the one under way.
      const survivor = await openStore(killed.url);
      const committed = Number(await survivor.feedCursor('crash'));
      assert.ok(committed >= 2 && committed < BATCHES - 1, `killed after batch ${committed}: too late to prove anything`);
      await runToEnd(partial.url, partialAdapter(committed + 1));
      const partialStore = await openStore(partial.url);
      try {
        assert.equal(await dump(survivor), await dump(partialStore));
      } finally {
        await partialStore.close();
        await survivor.close();
      }

      // The next run resumes after the cursor and ends where a run never interrupted ends.
      await runToEnd(killed.url);
      await runToEnd(clean.url);
      const [a, b] = [await openStore(killed.url), await openStore(clean.url)];
      try {
        assert.equal(await a.feedCursor('crash'), String(BATCHES - 1));
        assert.equal(await dump(a), await dump(b));
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}
