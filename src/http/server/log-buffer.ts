import { write, writeSync } from 'node:fs';

/**
 * Log lines to a file descriptor (stdout as `serve` logs): encoded at once into a byte buffer
 * until there are enough of them (minBytes), then written out asynchronously, one write at a
 * time, in order. Written out too when flush() is called (every second, by logDestination) and
 * synchronously by flushSync() (on exit).
 *
 * Why not sonic-boom (pino.destination), which does the same: its write() measures the byte
 * length of its whole pending buffer on every line, so each line costs in proportion to what
 * is already buffered: about 4.5 µs a line with an 8 KiB buffer (docs/PERFORMANCE.md, "Access
 * logging"). The server writes one line a request, so that was most of what logging cost it.
 * Bytes rather than a string kept growing: the access line (request-log.ts) is encoded straight
 * into the buffer through reserve() and commit(), with no string made for it at all.
 *
 * A destination that cannot keep up (a pipe nobody reads) must not take the server's memory:
 * past maxBytes, lines are dropped and counted, and once it drains a warning line says how many.
 */
export interface LineBufferOptions {
  /** Bytes waiting before a write starts. */
  minBytes?: number;
  /** Bytes kept at most while the destination is busy; lines past it are dropped, and counted. */
  maxBytes?: number;
  /** How long to wait before trying again when the destination is full (EAGAIN on a non-blocking pipe). */
  retryMs?: number;
}

export const LINE_BUFFER_DEFAULTS: Required<LineBufferOptions> = { minBytes: 64 * 1024, maxBytes: 16 * 1024 * 1024, retryMs: 20 };

/**
 * A buffer's size, at least: lines are encoded into one until it is full, then into a new one.
 * Twice minBytes, so that a chunk is usually handed to a write before the buffer fills, and the
 * buffer is used again from its start once that write is done and nothing waits.
 */
const BUFFER_BYTES = 64 * 1024;

export class LineBuffer {
  /** Where lines are encoded: bytes [start, end) wait to be written; from end on it is free. */
  private buffer: Buffer;
  private start = 0;
  private end = 0;
  /** Waiting bytes of buffers filled before this one, in order (a destination that is slow). */
  private older: Buffer[] = [];
  private olderBytes = 0;
  /** The chunk being written and how much of it is out: a write may take only part of it. */
  private chunk: Buffer | undefined;
  private dropped = 0;
  private failed = false;
  private readonly options: Required<LineBufferOptions>;
  private readonly bufferBytes: number;

  constructor(private readonly fd: number, options: LineBufferOptions = {}) {
    this.options = { ...LINE_BUFFER_DEFAULTS, ...options };
    this.bufferBytes = Math.max(BUFFER_BYTES, 2 * this.options.minBytes);
    this.buffer = Buffer.allocUnsafeSlow(this.bufferBytes);
  }

  write(line: string): void {
    // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4).
    const at = this.reserve(line.length * 3);
    if (at >= 0) this.commit(at + this.buffer.write(line, at));
  }

  /**
   * For a writer that encodes its own line: the offset in `target` from which `most` bytes are
   * free, or -1 when the line is to be dropped (counted) or the log has failed. The line's bytes
   * go into `target` from there, then commit() is told where they end.
   */
  reserve(most: number): number {
    if (this.failed) return -1;
    if (this.waiting + most > this.options.maxBytes) {
      this.dropped++;
      return -1;
    }
    if (this.buffer.length - this.end < most) this.renew(most);
    return this.end;
  }

  /** The buffer reserve()'s offset is in (until the next reserve). */
  get target(): Buffer {
    return this.buffer;
  }

  /** The line reserved for ends at `end`: it waits to be written. */
  commit(end: number): void {
    this.end = end;
    if (this.chunk === undefined && this.waiting >= this.options.minBytes) this.writeNext();
  }

  /** Starts writing what is buffered, if no write is under way (the one under way writes it next). */
  flush(): void {
    if (this.chunk === undefined && !this.failed && (this.waiting > 0 || this.dropped > 0)) this.writeNext();
  }

  /**
   * Writes out what is buffered, synchronously, on exit. A write already handed to the thread
   * pool is left to it: written (most likely before these lines, as it started first) or lost
   * with the process, never twice.
   */
  flushSync(): void {
    if (this.failed) return;
    let rest = this.takeWaiting();
    try {
      while (rest.length > 0) rest = rest.subarray(writeSync(this.fd, rest));
    } catch {
      // Nowhere left to write to (the reader is gone, or still full on exit): lost with the process.
    }
  }

  /** Nothing waiting and no write under way: everything written has reached the descriptor. */
  get idle(): boolean {
    return this.chunk === undefined && this.waiting === 0;
  }

  private get waiting(): number {
    return this.olderBytes + this.end - this.start;
  }

  /** A new buffer with room for `most` bytes; what waits in this one waits on (no copy). */
  private renew(most: number): void {
    if (this.end > this.start) {
      this.older.push(this.buffer.subarray(this.start, this.end));
      this.olderBytes += this.end - this.start;
    }
    this.buffer = Buffer.allocUnsafeSlow(Math.max(this.bufferBytes, most));
    this.start = 0;
    this.end = 0;
  }

  /** Everything waiting, in order, behind the count of dropped lines if any: it no longer waits. */
  private takeWaiting(): Buffer {
    const parts = this.older;
    if (this.end > this.start) parts.push(this.buffer.subarray(this.start, this.end));
    this.start = this.end;
    this.older = [];
    this.olderBytes = 0;
    if (this.dropped > 0) {
      parts.unshift(Buffer.from(`{"level":40,"time":${Date.now()},"dropped":${this.dropped},"msg":"log lines dropped: the log's destination did not keep up"}\n`));
      this.dropped = 0;
    }
    return parts.length === 1 ? parts[0] as Buffer : Buffer.concat(parts);
  }

  private writeNext(): void {
    this.chunk = this.takeWaiting();
    this.writeChunk();
  }

  private writeChunk(): void {
    const chunk = this.chunk as Buffer;
    write(this.fd, chunk, 0, chunk.length, null, (error, written) => {
      if (error) {
        if (error.code === 'EAGAIN') {
          setTimeout(() => this.writeChunk(), this.options.retryMs).unref();
          return;
        }
        this.fail(error);
        return;
      }
      if (written < chunk.length) {
        this.chunk = chunk.subarray(written);
        this.writeChunk();
        return;
      }
      this.chunk = undefined;
      // Nothing written or waiting refers to this buffer any more: lines go to its start again.
      if (this.start === this.end) this.start = this.end = 0;
      if (this.waiting >= this.options.minBytes) this.writeNext();
    });
  }

  private fail(error: NodeJS.ErrnoException): void {
    this.failed = true;
    this.chunk = undefined;
    this.older = [];
    this.olderBytes = 0;
    this.start = this.end;
    try {
      writeSync(2, `fuelprice: the log can no longer be written (${error.code ?? error.message}); logging stops\n`);
    } catch {
      // stderr is gone too.
    }
  }
}
