/**
 * SIGTERM, as an orchestrator sends it, to the real executable in its own process: `serve`
 * stops accepting, finishes the request in flight, closes kept-alive connections and exits 0
 * (within its own ten-second limit, past which it exits 1); `ingest --watch` finishes the
 * batch under way and exits 0. "In flight" is made certain, not timed: the request waits on a
 * PostgreSQL table lock the test holds, the feed poll on an answer the fake holds back, and
 * each is released only once the process has logged that it received the signal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/storage/open.ts';
import { newToken } from '../../src/tokens.ts';
import { FakeFeedServer } from '../fakes/server.ts';
import { WA_ROUND_1_NOW, waFixture } from '../fakes/wa.ts';
import { NOW, loadFixture } from '../fixture.ts';
import { BIN, createPostgresDatabase, postgresServerUrl, refused, runCli, startServe, waitFor } from '../helpers.ts';

function isoAt(sec: number): string {
  return new Date(sec * 1000).toISOString();
}

/** A database at `url` holding the fixture and one token; returns the token. */
async function prepare(url: string): Promise<string> {
  const store = await openStore(url);
  try {
    await loadFixture(store);
    const created = newToken('shutdown', NOW);
    await store.createToken(created.record);
    return created.token;
  } finally {
    await store.close();
  }
}

/** A kept-alive connection that has had one answer and now sits idle. */
async function idleKeepAlive(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const answered = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString())));
  socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  assert.match(await answered, /^HTTP\/1\.1 200 OK\r\n[\s\S]*connection: keep-alive/i);
  return { socket, closed };
}


describe('serve on SIGTERM', () => {
  test('with idle kept-alive connections open, it closes them, stops listening and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-shutdown-'));
    const url = `sqlite:${join(dir, 'shutdown.db')}`;
    try {
      await prepare(url);
      const server = await startServe(['--port', '0'], { DATABASE_URL: url, FUELPRICE_NOW: isoAt(NOW), LOG_LEVEL: 'info' });
      const port = Number(new URL(server.address).port);
      const idle = await Promise.all([idleKeepAlive(port), idleKeepAlive(port), idleKeepAlive(port)]);
      server.child.kill('SIGTERM');
      await Promise.all(idle.map((c) => c.closed));
      assert.equal(await server.exited, 0);
      assert.equal(await refused(port), true);
      assert.equal(server.logs('shutting down: finishing requests in flight').length, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const postgres = postgresServerUrl();
  test('a request in flight when SIGTERM arrives gets its whole 200; new connections are refused meanwhile; exit 0', {
    skip: postgres ? false : 'holding a request in flight needs PostgreSQL (FUELPRICE_TEST_POSTGRES): it waits on a table lock',
  }, async () => {
    if (!postgres) return;
    const database = await createPostgresDatabase(postgres);
    const locker = new pg.Client({ connectionString: database.url });
    try {
      const token = await prepare(database.url);
      const server = await startServe(['--port', '0'], { DATABASE_URL: database.url, FUELPRICE_NOW: isoAt(NOW), LOG_LEVEL: 'info' });
      const port = Number(new URL(server.address).port);
      const idle = await idleKeepAlive(port);

      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE stations IN ACCESS EXCLUSIVE MODE');
      const inFlight = fetch(`${server.address}/v1/stations/alpha-sydney`, { headers: { authorization: `Bearer ${token}` } })
        .then(async (response) => ({ status: response.status, body: await response.json() as { data?: { id?: string } } }));
      await waitFor('the request to wait on the lock', async () => {
        const waiting = await locker.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
        return (waiting.rows[0] as { n: number }).n === 1;
      }, 10_000);

      server.child.kill('SIGTERM');
      await waitFor('the signal to be taken', () => server.logs('shutting down: finishing requests in flight').length === 1, 10_000);
      await waitFor('the port to refuse new connections', () => refused(port), 10_000);
      await idle.closed;
      assert.equal(server.child.exitCode, null, 'still running: the request in flight holds it');

      await locker.query('COMMIT');
      const answer = await inFlight;
      assert.equal(answer.status, 200);
      assert.equal(answer.body.data?.id, 'alpha-sydney');
      assert.equal(await server.exited, 0);
    } finally {
      await locker.end().catch(() => undefined);
      await database.drop();
    }
  });
});

describe('ingest --watch on SIGTERM', () => {
  test('finishes the batch under way (writes it, logs it, records the run) and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-shutdown-'));
    const url = `sqlite:${join(dir, 'watch.db')}`;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    // The WA fake's answers for round 1, each held back until the test lets them go.
    const fake = new FakeFeedServer(async (request) => {
      await held;
      const day = request.query.get('Day') ?? '';
      const body = waFixture(1, day, request.query.get('Product') ?? '')
        ?? '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>FuelWatch Prices</title></channel></rss>\n';
      return { headers: { 'content-type': 'text/xml; charset=UTF-8' }, body };
    });
    const feedUrl = await fake.start();
    try {
      // ingest opens an existing database only (a missing SQLite file is a typo until migrate makes it).
      assert.equal((await runCli(['migrate'], { DATABASE_URL: url })).code, 0);
      const child = spawn(process.execPath, [BIN, 'ingest', 'wa', '--watch'], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, FUELPRICE_NOW: isoAt(WA_ROUND_1_NOW), LOG_LEVEL: 'info', WA_FUELWATCH_URL: feedUrl },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const lines = (msg: string): Array<Record<string, unknown>> => stderr.split('\n').filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === msg);

      await waitFor('the first poll to reach the feed', () => fake.requests.length > 0, 20_000);
      child.kill('SIGTERM');
      await waitFor('the signal to be taken', () => lines('stopping: finishing polls under way').length === 1, 10_000);
      assert.equal(lines('feed run done').length, 0, 'the poll is still under way');
      release();
      assert.equal(await exited, 0);
      const [run] = lines('feed run done');
      assert.equal(run?.feed, 'wa');
      assert.ok(Number(run?.pricesAccepted) > 0, 'the batch was written');

      const status = await runCli(['ingest', 'status', '--feed', 'wa'], { DATABASE_URL: url, FUELPRICE_NOW: isoAt(WA_ROUND_1_NOW) });
      assert.equal(status.code, 0);
      assert.equal(status.stdout.split('\n').filter((l) => / wa {4}ok /.test(l)).length, 1);
    } finally {
      release();
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
