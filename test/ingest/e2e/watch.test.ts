import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { type WaFake, WA_ROUND_1_NOW, startWaFake } from '../../fakes/wa.ts';
import { BIN, runCli, waitFor } from '../../helpers.ts';
import { type E2eDatabase, e2eBackends, isoAt } from './harness.ts';

/** `fuelprice ingest wa --watch` in its own process, with JSON logs on stderr. */
function watchWa(fake: WaFake, databaseUrl: string): { lines(msg: string): Array<Record<string, unknown>>; stop(): Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'ingest', 'wa', '--watch'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, FUELPRICE_NOW: isoAt(WA_ROUND_1_NOW), LOG_LEVEL: 'info', WA_FUELWATCH_URL: fake.url, WA_FUELWATCH_SOURCE: 'rss' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    lines: (msg) => stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === msg),
    stop: async () => { child.kill('SIGTERM'); return exited; },
  };
}

const [sqlite] = e2eBackends();

describe('ingest --watch', () => {
  let fake: WaFake;
  let db: E2eDatabase;
  before(async () => {
    fake = await startWaFake();
    if (!sqlite) throw new Error('no sqlite backend');
    db = await sqlite.create();
  });
  after(async () => {
    await fake.close();
    await db.drop();
  });

  test('polls a feed that never ran at once, stops cleanly on SIGTERM, and after a restart waits out the interval instead of polling again', async () => {
    const first = watchWa(fake, db.url);
    await waitFor('the first poll', () => first.lines('feed run done').length === 1, 20_000);
    assert.deepEqual(first.lines('feed scheduled').map((l) => [l.feed, l.firstPollInSec, l.everySec]), [['wa', 0, 3600]]);
    assert.equal(fake.server.requests.length, 14); // 7 products, today and tomorrow
    assert.equal(await first.stop(), 0);

    // Same clock: the last run was just now, so the whole interval is left before the next poll.
    const second = watchWa(fake, db.url);
    await waitFor('the restart to schedule the feed', () => second.lines('feed scheduled').length === 1, 20_000);
    assert.deepEqual(second.lines('feed scheduled').map((l) => [l.feed, l.firstPollInSec]), [['wa', 3600]]);
    assert.equal(await second.stop(), 0);
    assert.equal(fake.server.requests.length, 14);
    assert.equal(second.lines('feed run done').length, 0);

    const status = await runCli(['ingest', 'status', '--feed', 'wa'], { DATABASE_URL: db.url });
    assert.equal(status.stdout.split('\n').filter((l) => / wa {4}ok /.test(l)).length, 1);
  });
});
