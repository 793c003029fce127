import { KEEP_ALIVE } from '../../domain/changes.ts';

/**
 * The one watcher of a process for the changes feed (GET /v1/prices/changes with wait, and its
 * event streams): while anyone waits, one timer reads the last change number from storage every
 * WATCH_INTERVAL_MS (meta.change_seq: one row, one index step) and wakes every waiter when it
 * has grown. Storage is the one place every process sees, so a change stored by `fuelprice
 * ingest` in another process, or by another worker of `serve --workers`, wakes the waiters of
 * this one within the interval. Idle waiters cost no timer of their own and no read: the
 * timer runs only while someone waits, and expires waits that have run out on its ticks.
 */

/** How often the last change number is read while anyone waits: a change reaches every waiter within this (plus a read). */
export const WATCH_INTERVAL_MS = 200;
/** Event streams are sent a comment this often (proxies close connections idle for a minute or so). */
export const KEEP_ALIVE_MS = 15_000;
/** Requests waiting (wait=N) and event streams open at once, per process; beyond it 503 (docs/DEPLOY.md). */
export const DEFAULT_MAX_WAITERS = 2_000;

export type WakeReason = 'change' | 'timeout' | 'closed';

interface Waiter {
  after: number;
  deadline: number;
  wake(reason: WakeReason): void;
}

export class ChangeWatcher {
  private readonly waiters = new Set<Waiter>();
  private readonly streams = new Set<(text: string) => void>();
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  private lastKeepAlive = 0;
  private held = 0;
  private closed = false;
  private readonly closing = new AbortController();

  constructor(
    private readonly lastChange: () => Promise<number>,
    readonly maxWaiters = DEFAULT_MAX_WAITERS,
    private readonly intervalMs = WATCH_INTERVAL_MS,
  ) {}

  /** A place among the waiters, or false when they are maxWaiters already (or the watcher is closed); give it back with leave(). */
  enter(): boolean {
    if (this.closed || this.held >= this.maxWaiters) return false;
    this.held++;
    return true;
  }

  leave(): void {
    this.held = Math.max(0, this.held - 1);
  }

  /** Waiters and streams in place now (/metrics, tests). */
  get waiting(): number {
    return this.held;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Aborted when the server closes: for a stream waiting on something else than a change (its client's reading). */
  get closedSignal(): AbortSignal {
    return this.closing.signal;
  }

  /**
   * Resolves 'change' once the last change number read is above `after`, 'timeout' at the first
   * tick past `deadline` (performance.now() ms; Infinity: never), 'closed' when the server closes
   * or `gone` is aborted (the client went away: its place is given up at once, not at the next change).
   */
  wait(after: number, deadline: number, gone?: AbortSignal): Promise<WakeReason> {
    if (this.closed || gone?.aborted) return Promise.resolve('closed');
    return new Promise((resolve) => {
      const onGone = () => waiter.wake('closed');
      const waiter: Waiter = {
        after, deadline,
        wake: (reason) => { this.waiters.delete(waiter); gone?.removeEventListener('abort', onGone); resolve(reason); },
      };
      gone?.addEventListener('abort', onGone, { once: true });
      this.waiters.add(waiter);
      this.start();
    });
  }

  /** An event stream, sent a keep-alive comment every KEEP_ALIVE_MS while open (`send` may skip it); returns its removal. */
  stream(send: (text: string) => void): () => void {
    this.streams.add(send);
    return () => { this.streams.delete(send); };
  }

  /** Wakes every waiter ('closed') and stops: the server is closing. */
  close(): void {
    this.closed = true;
    this.closing.abort();
    for (const waiter of [...this.waiters]) waiter.wake('closed');
    this.stop();
  }

  private start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    void this.tick();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      const latest = await this.lastChange().catch(() => undefined);
      const now = performance.now();
      for (const waiter of [...this.waiters]) {
        if (latest !== undefined && latest > waiter.after) waiter.wake('change');
        else if (now >= waiter.deadline) waiter.wake('timeout');
      }
      if (this.streams.size > 0 && now - this.lastKeepAlive >= KEEP_ALIVE_MS) {
        this.lastKeepAlive = now;
        for (const send of this.streams) send(KEEP_ALIVE);
      }
    } finally {
      this.reading = false;
      if (this.waiters.size === 0 && this.streams.size === 0) this.stop();
    }
  }
}
