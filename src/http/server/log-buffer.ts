import { write, writeSync } from 'node:fs';

/**
 * Log lines to a file descriptor (stdout as `serve` logs): kept in one string until there are
 * enough of them (minBytes), then written out asynchronously, one write at a time, in order.
 * Written out too when flush() is called (every second, by logDestination) and synchronously
 * by flushSync() (on exit).
 *
 * Why not sonic-boom (pino.destination), which does the same: its write() measures the byte
 * length of its whole pending buffer on every line, so each line costs in proportion to what
 * is already buffered: about 4.5 µs a line with an 8 KiB buffer, against about 0.5 µs here
 * (docs/PERFORMANCE.md, "Access logging"). The server writes one line a request, so that was
 * most of what logging cost it.
 *
 * A destination that cannot keep up (a pipe nobody reads) must not take the server's memory:
 * past maxBytes, lines are dropped and counted, and once it drains a warning line says how many.
 */
export interface LineBufferOptions {
  /** Bytes (counted as UTF-16 units: the lines are JSON, nearly always ASCII) before a write starts. */
  minBytes?: number;
  /** Bytes kept at most while the destination is busy; lines past it are dropped, and counted. */
  maxBytes?: number;
  /** How long to wait before trying again when the destination is full (EAGAIN on a non-blocking pipe). */
  retryMs?: number;
}

export const LINE_BUFFER_DEFAULTS: Required<LineBufferOptions> = { minBytes: 16 * 1024, maxBytes: 16 * 1024 * 1024, retryMs: 20 };

export class LineBuffer {
  private pending = '';
  /** The chunk being written and how much of it is out: a write may take only part of it. */
  private chunk: Buffer | undefined;
  private dropped = 0;
  private failed = false;
  private readonly options: Required<LineBufferOptions>;

  constructor(private readonly fd: number, options: LineBufferOptions = {}) {
    this.options = { ...LINE_BUFFER_DEFAULTS, ...options };
  }

  write(line: string): void {
    if (this.failed) return;
    if (this.pending.length + line.length > this.options.maxBytes) {
      this.dropped++;
      return;
    }
    this.pending += line;
    if (this.chunk === undefined && this.pending.length >= this.options.minBytes) this.writeNext();
  }

  /** Starts writing what is buffered, if no write is under way (the one under way writes it next). */
  flush(): void {
    if (this.chunk === undefined && !this.failed && (this.pending.length > 0 || this.dropped > 0)) this.writeNext();
  }

  /**
   * Writes out what is buffered, synchronously, on exit. A write already handed to the thread
   * pool is left to it: written (most likely before these lines, as it started first) or lost
   * with the process, never twice.
   */
  flushSync(): void {
    if (this.failed) return;
    this.takeDropped();
    let rest = Buffer.from(this.pending);
    this.pending = '';
    try {
      while (rest.length > 0) rest = rest.subarray(writeSync(this.fd, rest));
    } catch {
      // Nowhere left to write to (the reader is gone, or still full on exit): lost with the process.
    }
  }

  /** Nothing waiting and no write under way: everything written has reached the descriptor. */
  get idle(): boolean {
    return this.chunk === undefined && this.pending.length === 0;
  }

  private writeNext(): void {
    this.takeDropped();
    this.chunk = Buffer.from(this.pending);
    this.pending = '';
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
      if (this.pending.length >= this.options.minBytes) this.writeNext();
    });
  }

  /** Puts the count of dropped lines, as a warning line of their own, before what is written next. */
  private takeDropped(): void {
    if (this.dropped === 0) return;
    const warning = `{"level":40,"time":${Date.now()},"dropped":${this.dropped},"msg":"log lines dropped: the log's destination did not keep up"}\n`;
    this.dropped = 0;
    this.pending = warning + this.pending;
  }

  private fail(error: NodeJS.ErrnoException): void {
    this.failed = true;
    this.chunk = undefined;
    this.pending = '';
    try {
      writeSync(2, `fuelprice: the log can no longer be written (${error.code ?? error.message}); logging stops\n`);
    } catch {
      // stderr is gone too.
    }
  }
}
