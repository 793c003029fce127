import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LineBuffer } from '../../../src/http/server/log-buffer.ts';
import { PIPE_ATOMIC_BYTES, lineCut } from '../../../src/http/server/log-writes.ts';
import { readNow, waitFor, wholeJsonLines } from '../../helpers.ts';

/** Line i, of varied length and with a character outside ASCII now and then (bytes differ from UTF-16 units). */
const line = (i: number): string => `{"n":${i},"url":"/v1/stations?q=${'x'.repeat(i % 97)}${i % 13 === 0 ? 'é' : ''}"}\n`;
const numbers = (text: string): number[] => text.split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { n: number }).n);
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('LineBuffer: log lines to a descriptor, buffered and written asynchronously', () => {
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'fuelprice-logbuf-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('below minBytes nothing is written until flush(); then every line once, in order', async () => {
    const path = join(dir, 'small.log');
    const fd = openSync(path, 'w');
    const lines = new LineBuffer(fd, { minBytes: 4096 });
    for (let i = 0; i < 10; i++) lines.write(line(i));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(readFileSync(path, 'utf8'), '', 'under minBytes: still buffered');
    lines.flush();
    await waitFor('the write', () => lines.idle);
    assert.equal(readFileSync(path, 'utf8'), range(10).map(line).join(''));
    closeSync(fd);
  });

  test('past minBytes writes start by themselves: 20,000 lines arrive whole and in order, with flushSync for the rest', async () => {
    const path = join(dir, 'many.log');
    const fd = openSync(path, 'w');
    const lines = new LineBuffer(fd, { minBytes: 1024 });
    for (let i = 0; i < 20_000; i++) {
      lines.write(line(i));
      if (i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve)); // let writes finish meanwhile
    }
    // flushSync() leaves a write already under way to the thread pool (it may then land after the lines it writes):
    // the writes that started by themselves are let finish first, so the order is the buffer's.
    await waitFor('the writes under way', () => lines.idle);
    assert.ok(readFileSync(path).length > 0, 'past minBytes, writes started without a flush');
    lines.flushSync();
    await waitFor('the last asynchronous write', () => lines.idle);
    assert.deepEqual(numbers(readFileSync(path, 'utf8')), range(20_000));
    assert.equal(readFileSync(path, 'utf8'), range(20_000).map(line).join(''));
    closeSync(fd);
  });

  test('a steady stream reuses its buffers once written (no new memory a buffer-full), and every line arrives exact and in order', async () => {
    const path = join(dir, 'steady.log');
    const fd = openSync(path, 'w');
    const lines = new LineBuffer(fd, { minBytes: 16 * 1024 });
    const count = 60_000;
    let bytes = 0;
    for (let i = 0; i < count; i++) {
      lines.write(line(i));
      bytes += Buffer.byteLength(line(i));
      // 10 KB a millisecond, less than the writes take away, as under a server's load (some 8 MB a second at 30,000 lines).
      if (i % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await waitFor('the writes', () => { lines.flush(); return lines.idle; });
    assert.equal(readFileSync(path, 'utf8'), range(count).map(line).join(''));
    // Some 5 MB through 64 KiB buffers: a new buffer each time one fills would be some 80 of them.
    const buffersFilled = Math.ceil(bytes / (64 * 1024));
    assert.ok(buffersFilled > 60, `the stream fills ${buffersFilled} buffers`);
    assert.ok(lines.buffersMade <= 6, `${lines.buffersMade} buffers made for ${buffersFilled} filled`);
    closeSync(fd);
  });

  test('lines longer than a chunk and characters of 2, 3 and 4 bytes arrive exact, whatever buffer they fall in', async () => {
    const path = join(dir, 'wide.log');
    const fd = openSync(path, 'w');
    const lines = new LineBuffer(fd, { minBytes: 256 });
    // é (2 bytes), € (3), 🙂 (4: a surrogate pair), and every 50th line some 3 KB long.
    const wide = (i: number): string => `{"n":${i},"t":"${'é€🙂'.repeat(i % 7)}${i % 50 === 0 ? '€'.repeat(1000) : ''}"}\n`;
    const expected = range(3_000).map(wide).join('');
    for (let i = 0; i < 3_000; i++) {
      lines.write(wide(i));
      if (i % 300 === 299) await new Promise((resolve) => setImmediate(resolve));
    }
    // flush() starts nothing while a write is under way: asked again until all is out, as the server's timer does.
    await waitFor('the writes', () => { lines.flush(); return lines.idle; });
    assert.equal(readFileSync(path, 'utf8'), expected);
    assert.equal(readFileSync(path).length, Buffer.byteLength(expected));
    closeSync(fd);
  });

  test('a full pipe (EAGAIN) is waited for, not lost: a reader that comes late gets every line in order', async () => {
    const { reader, writer, close } = openFifo(dir, 'full.fifo');
    try {
      const lines = new LineBuffer(writer, { minBytes: 512, retryMs: 5 });
      const count = 6_000; // some 400 KB: several times a pipe's 64 KiB
      for (let i = 0; i < count; i++) lines.write(line(i));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(lines.idle, false, 'the pipe is full and nobody reads it');
      const text = await readAll(reader, () => lines.idle);
      assert.deepEqual(numbers(text), range(count));
    } finally {
      close();
    }
  });

  test('past maxBytes while the pipe is full, lines are dropped and counted, and a warning says how many', async () => {
    const { reader, writer, close } = openFifo(dir, 'drop.fifo');
    try {
      const lines = new LineBuffer(writer, { minBytes: 512, maxBytes: 16 * 1024, retryMs: 5 });
      const count = 6_000;
      for (let i = 0; i < count; i++) {
        lines.write(line(i));
        if (i % 500 === 499) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      lines.flush();
      const text = await readAll(reader, () => lines.idle);
      const parsed = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { n?: number; level?: number; dropped?: number; msg?: string });
      const warnings = parsed.filter((l) => l.n === undefined);
      const kept = parsed.flatMap((l) => (l.n === undefined ? [] : [l.n]));
      assert.ok(warnings.length >= 1, 'at least one warning');
      for (const w of warnings) {
        assert.equal(w.level, 40);
        assert.equal(w.msg, "log lines dropped: the log's destination did not keep up");
      }
      const dropped = warnings.reduce((sum, w) => sum + (w.dropped ?? 0), 0);
      assert.ok(dropped > 0);
      assert.equal(kept.length + dropped, count, 'every line is written or counted as dropped');
      assert.deepEqual(kept, [...kept].sort((a, b) => a - b), 'in order');
      assert.equal(new Set(kept).size, kept.length, 'none twice');
    } finally {
      close();
    }
  });

  test('drain() waits for a reader that comes late: true once every line, those written while it waits too, has reached the pipe, in order', async () => {
    const { reader, writer, close } = openFifo(dir, 'drain.fifo');
    try {
      const lines = new LineBuffer(writer, { minBytes: 512, retryMs: 5 });
      const count = 6_000; // some 400 KB: the pipe is full long before the end
      for (let i = 0; i < count; i++) lines.write(line(i));
      let drained: boolean | undefined;
      const drain = lines.drain(10_000).then((written) => { drained = written; });
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(drained, undefined, 'nobody reads: still waiting');
      // Fewer bytes than minBytes, written while drain() waits: out with the rest, not left for a later flush.
      for (let i = count; i < count + 3; i++) lines.write(line(i));
      const text = await readAll(reader, () => drained !== undefined);
      await drain;
      assert.equal(drained, true);
      assert.deepEqual(numbers(text), range(count + 3));
      assert.equal(lines.idle, true);
      assert.equal(await lines.drain(10), true, 'nothing buffered: true at once');
    } finally {
      close();
    }
  });

  test('drain() gives false past its bound while nobody reads, and nothing is lost by it; false too once the log has failed', async () => {
    const { reader, writer, close } = openFifo(dir, 'stuck.fifo');
    try {
      const lines = new LineBuffer(writer, { minBytes: 512, retryMs: 5 });
      for (let i = 0; i < 6_000; i++) lines.write(line(i));
      assert.equal(await lines.drain(50), false);
      assert.equal(lines.idle, false, 'the lines still wait');
      const text = await readAll(reader, () => lines.idle);
      assert.deepEqual(numbers(text), range(6_000));
    } finally {
      close();
    }
    // A pipe whose reader is gone: the write fails (EPIPE), logging stops, and drain() says so.
    const gone = openFifo(dir, 'gone.fifo');
    closeSync(gone.reader);
    const goneWriter = gone.writer;
    try {
      const lines = new LineBuffer(goneWriter, { minBytes: 512 });
      lines.write(line(0));
      assert.equal(await lines.drain(5_000), false);
      assert.equal(await lines.drain(5_000), false, 'and at once after');
    } finally {
      closeSync(goneWriter);
    }
  });

  test('maxWriteBytes: two writers on one pipe read slowly (two processes, as serve\'s workers), every line whole, each writer\'s in order', async () => {
    const { reader, writer, close } = openFifo(dir, 'shared.fifo');
    const second = openSync(join(dir, 'shared.fifo'), constants.O_WRONLY | constants.O_NONBLOCK);
    try {
      const writers = [writer, second].map((fd) => new LineBuffer(fd, { minBytes: 8 * 1024, retryMs: 1, maxWriteBytes: PIPE_ATOMIC_BYTES }));
      const count = 4_000; // some 250 KB each: the pipe fills, and writes wait for a reader that takes 4 KiB at a time
      const tagged = (w: number, i: number): string => line(i).replace('{"n"', `{"w":${w},"n"`);
      const chunks: Buffer[] = [];
      const piece = Buffer.alloc(4096);
      for (let i = 0; i < count; i++) {
        writers.forEach((lines, w) => lines.write(tagged(w, i)));
        if (i % 200 === 199) {
          const n = readNow(reader, piece);
          if (n > 0) chunks.push(Buffer.from(piece.subarray(0, n)));
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }
      const rest = await readAll(reader, () => writers.every((lines) => { lines.flush(); return lines.idle; }));
      const text = Buffer.concat(chunks).toString('utf8') + rest;
      const parsed = wholeJsonLines<{ w: number; n: number }>(text);
      for (const w of [0, 1]) assert.deepEqual(parsed.filter((l) => l.w === w).map((l) => l.n), range(count));
    } finally {
      closeSync(second);
      close();
    }
  });

  test('lineCut: the most whole lines that fit a write; a line longer than the limit whole', () => {
    const text = Buffer.from(range(200).map(line).join(''));
    for (const most of [1, 40, 100, 512, 4096, text.length, text.length + 10]) {
      // The reference: the end of the last line that ends within `most` bytes, else the end of the first line.
      const ends: number[] = [];
      for (let i = 0; i < text.length; i++) if (text[i] === 0x0a) ends.push(i + 1);
      const fitting = ends.filter((end) => end <= most);
      assert.equal(lineCut(text, most), fitting.length > 0 ? fitting[fitting.length - 1] : ends[0], `most ${most}`);
    }
    assert.equal(lineCut(Buffer.from('no newline at all'), 4), 17, 'no line end: all of it');
  });
});

/** A FIFO in `dir` opened at both ends, neither waiting: a pipe whose reader the test controls. */
function openFifo(dir: string, name: string): { reader: number; writer: number; close: () => void } {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  return { reader, writer, close: () => { closeSync(writer); closeSync(reader); } };
}

/** Reads a non-blocking descriptor until `done()` holds and nothing more comes. */
async function readAll(fd: number, done: () => boolean): Promise<string> {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const n = readNow(fd, buffer);
    if (n > 0) {
      chunks.push(Buffer.from(buffer.subarray(0, n)));
      continue;
    }
    if (done()) return Buffer.concat(chunks).toString('utf8');
    if (Date.now() > deadline) throw new Error('timed out reading the pipe');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
