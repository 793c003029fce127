import { write, writeSync, writev } from 'node:fs';
import { LINE_BUFFER_DEFAULTS, type LineBufferOptions, lineCut } from './log-writes.ts';

/**
 * Log lines to a file descriptor (stdout as `serve` logs): encoded at once into a byte buffer
 * until there are enough of them (minBytes), then written out asynchronously, one write at a
 * time, in order. Written out too when flush() is called (every second, by logDestination) and
 * synchronously by flushSync() (on exit).
 *
 * Why not sonic-boom (pino.destination), which does the same: its write() measures the byte
 * length of its whole pending buffer on every line, so each line costs in proportion to what
 * is already buffered. The server writes one line a request, so that was most of what logging
 * cost it (bench/RESULTS.md, "Logging as shipped").
 * Bytes rather than a string kept growing: the access line (request-log.ts) is encoded straight
 * into the buffer through reserve() and commit(), with no string made for it at all.
 *
 * A destination that cannot keep up (a pipe nobody reads) must not take the server's memory:
 * past maxBytes, lines are dropped and counted, and once it drains a warning line says how many.
 */

/**
 * A buffer's size, at least: lines are encoded into one until it is full, then into another (the
 * spare, once all of its bytes are written). Twice minBytes, so that a chunk is usually handed to
 * a write before the buffer fills, and the buffer is used again from its start once that write
 * is done and nothing waits.
 */
const BUFFER_BYTES = 64 * 1024;

/**
 * Written buffers kept to be filled again. In the steady state one is enough (a write is done
 * long before the next buffer fills); a few more keep a burst that outruns the writes from
 * making new ones (test/http/server/log-buffer.test.ts): 512 KiB at the defaults.
 */
const SPARES = 4;

/** Bytes to be written: `in` the buffer they lie in when it is the one lines go to, and the buffer they free, once written, when they are its last. */
interface Waiting {
  bytes: Buffer;
  in?: Buffer;
  frees?: Buffer;
}

export class LineBuffer {
  /** Where lines are encoded: bytes [start, end) wait to be written; from end on it is free. */
  private buffer: Buffer;
  private start = 0;
  private end = 0;
  /** Waiting bytes of buffers filled before this one, in order (a destination that is slow), each with its buffer. */
  private older: Waiting[] = [];
  private olderBytes = 0;
  /** What is being written, in order (what is left of it: a write may take only part), as `older`'s entries are. */
  private chunk: Waiting[] | undefined;
  /**
   * Filled buffers all of whose bytes are written, to be filled again (SPARES at most): a buffer
   * new to the process costs a page fault a 4 KiB page on first touch, which on some virtual
   * machines is dearer than the lines written into it (bench/RESULTS.md, "The shipped bar on a
   * machine with cheaper system calls").
   */
  private readonly spares: Buffer[] = [];
  private made = 0;
  private dropped = 0;
  private failed = false;
  /** Told when everything is written (true) or the log has failed (false): drain()'s callers. */
  private drainers: Array<(written: boolean) => void> = [];
  private readonly options: Required<LineBufferOptions>;
  private readonly bufferBytes: number;

  constructor(private readonly fd: number, options: LineBufferOptions = {}) {
    this.options = { ...LINE_BUFFER_DEFAULTS, ...options };
    this.bufferBytes = Math.max(BUFFER_BYTES, 2 * this.options.minBytes);
    this.buffer = this.newBuffer(this.bufferBytes);
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
    try {
      for (const piece of this.takeWaiting()) {
        let rest = piece.bytes;
        while (rest.length > 0) rest = rest.subarray(writeSync(this.fd, rest, 0, lineCut(rest, this.options.maxWriteBytes)));
      }
    } catch {
      // Nowhere left to write to (the reader is gone, or still full on exit): lost with the process.
    }
  }

  /**
   * Writes out everything buffered and resolves true once all of it, and whatever is written
   * meanwhile, has reached the descriptor; false if that has not happened within `withinMs` (a
   * reader that does not read) or the log has failed. For a stop that can wait (serve's SIGTERM):
   * unlike flushSync(), it never races a write under way, so no line is lost or out of order.
   * Its timer keeps the process alive while it waits (EAGAIN's retry timer does not).
   */
  drain(withinMs: number): Promise<boolean> {
    this.flush();
    if (this.failed || this.idle) return Promise.resolve(!this.failed);
    return new Promise((resolve) => {
      const told = (written: boolean): void => {
        clearTimeout(timer);
        this.drainers = this.drainers.filter((drainer) => drainer !== told);
        resolve(written);
      };
      const timer = setTimeout(() => told(false), withinMs);
      this.drainers.push(told);
    });
  }

  /** How many buffers this LineBuffer has allocated (with spares kept, two in the steady state). */
  get buffersMade(): number {
    return this.made;
  }

  /** Nothing waiting and no write under way: everything written has reached the descriptor. */
  get idle(): boolean {
    return this.chunk === undefined && this.waiting === 0;
  }

  private get waiting(): number {
    return this.olderBytes + this.end - this.start;
  }

  /**
   * A buffer with room for `most` bytes in place of this one; what waits in this one waits on (no
   * copy). The one left is kept as a spare once nothing waiting or being written lies in it.
   */
  private renew(most: number): void {
    const left = this.buffer;
    if (this.end > this.start) {
      // Its last bytes: written, they free it.
      this.older.push({ bytes: left.subarray(this.start, this.end), frees: left });
      this.olderBytes += this.end - this.start;
    } else if (this.chunk?.at(-1)?.in === left) {
      // Only the last piece of a write can lie in the buffer lines go to.
      (this.chunk.at(-1) as Waiting).frees = left;
    } else {
      this.keep(left);
    }
    const size = Math.max(this.bufferBytes, most);
    this.buffer = (size === this.bufferBytes ? this.spares.pop() : undefined) ?? this.newBuffer(size);
    this.start = 0;
    this.end = 0;
  }

  private newBuffer(size: number): Buffer {
    this.made++;
    return Buffer.allocUnsafeSlow(size);
  }

  /** A buffer nothing refers to any more: a spare, when it is of the usual size (a larger one, for a long line, is let go). */
  private keep(free: Buffer): void {
    if (free.length === this.bufferBytes && this.spares.length < SPARES) this.spares.push(free);
  }

  /**
   * Everything waiting, in order, which then no longer waits: the count of dropped lines if any,
   * then what waits in buffers filled before this one, then what waits in this one. Pieces, not
   * one buffer: joining them would copy them into memory new to the process (see `spares`).
   */
  private takeWaiting(): Waiting[] {
    const pieces = this.older;
    if (this.end > this.start) pieces.push({ bytes: this.buffer.subarray(this.start, this.end), in: this.buffer });
    this.start = this.end;
    this.older = [];
    this.olderBytes = 0;
    if (this.dropped > 0) {
      pieces.unshift({ bytes: Buffer.from(`{"level":40,"time":${Date.now()},"dropped":${this.dropped},"msg":"log lines dropped: the log's destination did not keep up"}\n`) });
      this.dropped = 0;
    }
    return pieces;
  }

  private writeNext(): void {
    this.chunk = this.takeWaiting();
    this.writeChunk(this.chunk);
  }

  /** Writes `pieces` (this.chunk) in one system call, what a partial write left again, then what waits meanwhile. */
  private writeChunk(pieces: Waiting[]): void {
    const done = (error: NodeJS.ErrnoException | null, written: number): void => {
      if (error) {
        if (error.code === 'EAGAIN') {
          setTimeout(() => this.writeChunk(pieces), this.options.retryMs).unref();
          return;
        }
        this.fail(error);
        return;
      }
      if (written < lengthOf(pieces)) {
        this.writeChunk(this.afterWritten(pieces, written));
        return;
      }
      this.chunk = undefined;
      for (const piece of pieces) if (piece.frees !== undefined) this.keep(piece.frees);
      // Nothing written or waiting refers to this buffer any more: lines go to its start again.
      if (this.start === this.end) this.start = this.end = 0;
      // While drain() waits, what came meanwhile goes out at once, however little.
      const draining = this.drainers.length > 0;
      if (this.waiting >= this.options.minBytes || (draining && (this.waiting > 0 || this.dropped > 0))) this.writeNext();
      else if (draining) this.tellDrainers(true);
    };
    this.chunk = pieces;
    // One piece; or, under maxWriteBytes, the first piece's lines up to it (the rest next, as after a partial write).
    if (pieces.length === 1 || this.options.maxWriteBytes !== Infinity) {
      const { bytes } = pieces[0] as Waiting;
      write(this.fd, bytes, 0, lineCut(bytes, this.options.maxWriteBytes), null, done);
    } else {
      writev(this.fd, pieces.map((piece) => piece.bytes), null, done);
    }
  }

  /**
   * What is left of `pieces` once `written` bytes of them are out, the first cut. A piece written
   * whole frees its buffer at once (if it was that buffer's last): its bytes are the kernel's now,
   * and a write holds at most one piece of any buffer.
   */
  private afterWritten(pieces: readonly Waiting[], written: number): Waiting[] {
    let rest = written;
    let i = 0;
    while (rest >= (pieces[i] as Waiting).bytes.length) {
      const whole = pieces[i++] as Waiting;
      rest -= whole.bytes.length;
      if (whole.frees !== undefined) this.keep(whole.frees);
    }
    const first = pieces[i] as Waiting;
    return [{ ...first, bytes: first.bytes.subarray(rest) }, ...pieces.slice(i + 1)];
  }

  private tellDrainers(written: boolean): void {
    for (const drainer of [...this.drainers]) drainer(written);
  }

  private fail(error: NodeJS.ErrnoException): void {
    this.failed = true;
    this.chunk = undefined;
    this.older = [];
    this.olderBytes = 0;
    this.start = this.end;
    this.tellDrainers(false);
    try {
      writeSync(2, `fuelprice: the log can no longer be written (${error.code ?? error.message}); logging stops\n`);
    } catch {
      // stderr is gone too.
    }
  }
}

function lengthOf(pieces: readonly Waiting[]): number {
  let length = 0;
  for (const piece of pieces) length += piece.bytes.length;
  return length;
}
