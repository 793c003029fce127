/**
 * Whole log lines through a pipe whose reader lags. First, `serve` stopped by SIGTERM while its
 * log's reader lags (a log collector behind, as `docker logs` or journald can be): the lines
 * still buffered, and the write under way, reach the log
 * before the process exits, whole and in order, and the exit is 0. stdout is a FIFO the test
 * reads only once the server has stopped listening (and a moment more, so that a server that
 * did not wait would have exited by then). Both kinds of pipe: one whose writes wait when it is
 * full (a child's stdout, usually), and a non-blocking one (EAGAIN). Then `serve --workers 2`,
 * whose workers write to one stdout: read slowly, every line arrives whole.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { NOW, fixtureFile } from '../fixture.ts';
import { BIN, getOnce, readNow, refused, waitFor, wholeJsonLines } from '../helpers.ts';

/** What these tests read of a log line. */
interface LogLine {
  msg?: string;
  url?: string;
  status?: number;
  pid?: number;
}

/** Requests made, each with its own index in a padded URL: some 300 KB of access lines, several times a pipe's 64 KiB. */
const REQUESTS = 120;
const PAD = 'x'.repeat(2_000);

/** Everything read from a non-blocking descriptor until end of file (every writer gone). */
async function readToEnd(fd: number): Promise<string> {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const n = readNow(fd, buffer);
    if (n === 0) return Buffer.concat(chunks).toString('utf8');
    if (n > 0) {
      chunks.push(Buffer.from(buffer.subarray(0, n)));
      continue;
    }
    if (Date.now() > deadline) throw new Error('timed out reading the log');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('serve: SIGTERM with a log reader that lags', () => {
  for (const mode of ['blocking', 'non-blocking'] as const) {
    test(`every access line reaches a ${mode} pipe read late, whole and in order, and the exit is 0`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'fuelprice-drain-'));
      const path = join(dir, 'drain.db');
      const created = await fixtureFile(path, 'drain');
      const fifo = join(dir, 'stdout.fifo');
      execFileSync('mkfifo', [fifo]);
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writer = openSync(fifo, constants.O_WRONLY | (mode === 'non-blocking' ? constants.O_NONBLOCK : 0));
      const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1'], {
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'info', FUELPRICE_NOW: new Date(NOW * 1000).toISOString() },
        stdio: ['ignore', writer, 'pipe'],
      });
      closeSync(writer); // the child's copy is the only writer: end of file once it exits
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      try {
        await waitFor('the address', () => /serving on http:\/\/\S+/.test(stderr), 30_000);
        const address = /serving on (http:\/\/\S+)/.exec(stderr)?.[1] as string;
        for (let i = 0; i < REQUESTS; i++) {
          const r = await fetch(`${address}/v1/cities?pad=${i}-${PAD}`, { headers: { authorization: `Bearer ${created.token}` } });
          assert.equal(r.status, 200);
          await r.arrayBuffer();
        }
        child.kill('SIGTERM');
        const port = Number(new URL(address).port);
        await waitFor('the server to stop listening', () => refused(port), 10_000);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const text = await readToEnd(reader);
        assert.equal(await exited, 0, stderr);
        const lines = wholeJsonLines<LogLine>(text);
        const requests = lines.filter((l) => l.msg === 'request');
        assert.deepEqual(requests.map((l) => [Number(/pad=(\d+)-/.exec(l.url ?? '')?.[1]), l.status]), Array.from({ length: REQUESTS }, (_, i) => [i, 200]));
        assert.equal(lines.filter((l) => l.msg === 'shutting down: finishing requests in flight').length, 1);
        assert.doesNotMatch(stderr, /did not take its last lines/);
      } finally {
        child.kill('SIGKILL');
        closeSync(reader);
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('serve --workers 2: two processes write one stdout', () => {
  test('read slowly, every access line of both workers arrives whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-shared-'));
    const path = join(dir, 'shared.db');
    const created = await fixtureFile(path, 'shared', { rateLimit: 100_000 });
    const fifo = join(dir, 'stdout.fifo');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    const child = spawn(process.execPath, [BIN, 'serve', '--workers', '2', '--port', '0', '--host', '127.0.0.1'], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'info', FUELPRICE_NOW: new Date(NOW * 1000).toISOString() },
      stdio: ['ignore', writer, 'pipe'],
    });
    closeSync(writer);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // A reader that lags: 4 KiB every 2 ms at most, so the pipe is full most of the time.
    const chunks: Buffer[] = [];
    let reading = true;
    const slowReader = (async () => {
      const piece = Buffer.alloc(4096);
      while (reading) {
        const n = readNow(reader, piece);
        if (n > 0) chunks.push(Buffer.from(piece.subarray(0, n)));
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    try {
      await waitFor('the address', () => /serving on http:\/\/\S+/.test(stderr), 30_000);
      const address = /serving on (http:\/\/\S+)/.exec(stderr)?.[1] as string;
      const count = 1_600;
      for (let i = 0; i < count; i += 16) {
        const statuses = await Promise.all(Array.from({ length: 16 }, (_, k) => getOnce(`${address}/v1/cities?pad=${i + k}-${PAD}`, created.token)));
        assert.deepEqual(statuses, statuses.map(() => 200));
      }
      child.kill('SIGTERM');
      reading = false;
      await slowReader;
      const text = Buffer.concat(chunks).toString('utf8') + await readToEnd(reader);
      assert.equal(await exited, 0, stderr);
      const lines = wholeJsonLines<LogLine>(text);
      const requests = lines.filter((l) => l.msg === 'request');
      assert.deepEqual(requests.map((l) => Number(/pad=(\d+)-/.exec(l.url ?? '')?.[1])).sort((a, b) => a - b), Array.from({ length: count }, (_, i) => i));
      assert.equal(new Set(requests.map((l) => l.pid)).size, 2, 'both workers answered');
    } finally {
      reading = false;
      child.kill('SIGKILL');
      closeSync(reader);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
