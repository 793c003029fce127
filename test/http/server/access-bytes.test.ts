import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { putHundredths } from '../../../src/http/server/access-bytes.ts';
import { LineBuffer } from '../../../src/http/server/log-buffer.ts';
import { type AccessEntry, accessLog } from '../../../src/http/server/request-log.ts';
import { waitFor } from '../../helpers.ts';

/** A duration as the string line writes it: JavaScript's own text for the number rounded to hundredths. */
const written = (ms: number): string => `${Math.round(ms * 100) / 100}`;

const base: AccessEntry = {
  reqId: '0b6f1c8e-2f4d-4c1a-9a8e-3f1d2c4b5a69', method: 'GET', url: '/v1/cities/sydney/spread', route: '/v1/cities/:id/spread',
  status: 200, bytes: 612, ms: 0.123456, token: 'abcdefgh', ip: '127.0.0.1',
};

/** Entries the byte encoder writes itself, and ones it must leave to the string line (odd text, a huge duration). */
const ENTRIES: AccessEntry[] = [
  base,
  { ...base, token: undefined },
  { ...base, reqId: 'client.chosen:id-1', ip: '::ffff:10.0.0.7', ms: 0 },
  { ...base, ms: 12.999, status: 404, route: undefined, bytes: undefined, url: '/v1/nowhere?q="é"\\' },
  { ...base, ms: 1234567.891 },
  { ...base, ms: 3e7 }, // past 2^31 hundredths: the string way
  { ...base, ip: '203.0.113.7, "x"' }, // a forwarded address a proxy wrote: escaped
  { ...base, reqId: 'r\u00e9' },
  { ...base, token: 'ab"cd' },
  { ...base, route: '/health' }, // a probe: written at debug only
];

describe('access lines encoded straight into the log buffer', () => {
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'fuelprice-access-bytes-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a duration is written as JavaScript writes it, to the hundredth', () => {
    const target = Buffer.alloc(32);
    const samples = [0, 0.001, 0.004, 0.005, 0.015, 0.1, 0.5, 0.995, 1, 1.005, 9.999, 10, 99.995, 100.1, 1234.5, 21474836.47, 21474836.4];
    for (let i = 0; i < 20_000; i++) samples.push(Math.random() * 10 ** (i % 8));
    for (const ms of samples) {
      const hundredths = Math.round(ms * 100);
      if (hundredths >= 2 ** 31) continue;
      const end = putHundredths(target, 3, hundredths);
      assert.equal(target.subarray(3, end).toString('latin1'), written(ms), String(ms));
    }
  });

  for (const level of ['info', 'debug'] as const) {
    test(`at ${level}: the bytes in the log are the string line's, character for character, on both paths`, async () => {
      const path = join(dir, `${level}.log`);
      const fd = openSync(path, 'w');
      const buffer = new LineBuffer(fd, { minBytes: 256 });
      const strings: string[] = [];
      // The same bindings for both loggers, so that only the way of writing differs.
      const settings = { level, base: { pid: 4242, hostname: 'host-é' } };
      const bytesLog = accessLog(pino(settings, buffer));
      const stringLog = accessLog(pino(settings, { write: (line: string) => { strings.push(line); } }));
      const before = Date.now();
      for (const entry of ENTRIES) {
        for (const log of [bytesLog, stringLog]) {
          log(entry); // the full path
          log.withPart(log.answerPart(entry), entry.reqId, entry.ms, entry.token, entry.ip); // the fast path
        }
      }
      const afterMs = Date.now();
      // Every write done before the file is closed and read: a write handed to the thread pool
      // (minBytes is small here) is not flushSync()'s to write, and closing the descriptor under it
      // would lose it (one CI run read 19 lines of 20).
      await waitFor('the writes', () => { buffer.flush(); return buffer.idle; });
      closeSync(fd);
      const text = readFileSync(path, 'utf8');
      const lines = text.split('\n').slice(0, -1);
      const expectedCount = 2 * (ENTRIES.length - (level === 'info' ? 1 : 0));
      assert.equal(lines.length, expectedCount);
      assert.equal(strings.length, expectedCount);
      const timeless = (line: string): string => line.replace(/"time":\d+/, '"time":0').replace(/\n$/, '');
      assert.deepEqual(lines.map(timeless), strings.map(timeless));
      for (const line of lines) {
        const time = (JSON.parse(line) as { time: number }).time;
        assert.ok(time >= before && time <= afterMs, `time ${time} between ${before} and ${afterMs}`);
      }
    });
  }

  test('a line past maxBytes is dropped and counted whichever way it is written, and the warning says how many', () => {
    const path = join(dir, 'dropped.log');
    const fd = openSync(path, 'w');
    const buffer = new LineBuffer(fd, { minBytes: 1 << 20, maxBytes: 2048 });
    const log = accessLog(pino({ level: 'info' }, buffer));
    const part = log.answerPart(base);
    for (let i = 0; i < 40; i++) log.withPart(part, base.reqId, base.ms, base.token, base.ip);
    buffer.flushSync();
    closeSync(fd);
    const lines = readFileSync(path, 'utf8').split('\n').slice(0, -1).map((line) => JSON.parse(line) as { msg: string; dropped?: number });
    const kept = lines.filter((line) => line.msg === 'request').length;
    assert.equal(lines[0]?.msg, "log lines dropped: the log's destination did not keep up");
    assert.equal(kept + (lines[0]?.dropped ?? 0), 40);
    assert.ok(kept > 0 && kept < 40);
  });
});
