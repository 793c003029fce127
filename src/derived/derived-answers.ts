/**
 * Derived answers (docs/DERIVED.md): what is costly to work out from stored rows (a city's cycle
 * and advice: a year of fresh daily means) is computed away from the event loop, on a worker
 * thread with its own read-only connection (runner.ts), kept per data version, and computed again
 * ahead of requests when a write touches it. Searches (kinds.ts lane 'search': cheapest, along) go
 * to a second worker, never behind the first's seconds-long jobs, and are only shared while in
 * flight. A route asks `get(kind, args, now)` and serialises what it gets; the serving thread
 * never runs the computation.
 *
 * - Kept per data version and clock slice (computer.ts): an answer of an older data version is
 *   never given as current. A request that finds none for the current version waits for it
 *   (asynchronously: other requests go on).
 * - Single flight: requests for the same answer while it is computed share one computation (here,
 *   and in the worker with a computation made ahead).
 * - Ahead: every AHEAD_CHECK_MS while answers have been asked for, the data version is read; when it
 *   moved, the AHEAD_JOBS answers asked for last whose city the write touched are computed again in
 *   the worker, before anyone asks.
 * - Bounded: MAX_KEPT answers at most (least recently used out first).
 */
import type { Clock } from '../config.ts';
import { READ_MODELS } from '../read-models/registry.ts';
import type { ReadStore } from '../storage/store.ts';
import { type Computed, clockSlice } from './computer.ts';
import { type DerivedArgs, type DerivedJob, type DerivedKind, type DerivedLane, type DerivedValue, countKey, jobKey, laneOf, sizeOf } from './kinds.ts';
import { type DerivedEvents, type DerivedRunner, InlineRunner, WorkerRunner } from './runner.ts';

export const MAX_KEPT = READ_MODELS.derivedAnswers.bound.entries;
/** And at most this many bytes of them (history answers are bytes: a ten-year city history some 3 MB). */
export const MAX_KEPT_BYTES = READ_MODELS.derivedAnswers.bound.bytes;
export const AHEAD_JOBS = 64;
export const AHEAD_CHECK_MS = 250;

interface Kept {
  version: number;
  value: unknown;
}

export class DerivedAnswers {
  private readonly kept = new Map<string, Kept>();
  private keptBytes = 0;
  private readonly flights = new Map<string, { version: number; promise: Promise<Computed> }>();
  /** The jobs asked for lately, least recent first. */
  private readonly recent = new Map<string, DerivedJob>();
  private readonly counts = new Map<string, number>();
  /** The derived worker (answers of seconds, computed ahead) and the search worker (cheapest, along: milliseconds, never behind the other's work). */
  private readonly runners: Record<DerivedLane, DerivedRunner>;
  private readonly timer: NodeJS.Timeout;
  private seenVersion: number | undefined;
  private checking = false;

  constructor(private readonly store: ReadStore, private readonly clock: Clock, runner?: (events: DerivedEvents, lane: DerivedLane) => DerivedRunner) {
    const events: DerivedEvents = {
      kept: (job, nowSec, computed) => this.keep(`${jobKey(job)}|${clockSlice(nowSec)}`, computed),
      computed: (key) => this.counts.set(key, (this.counts.get(key) ?? 0) + 1),
    };
    const source = store.readerSource?.();
    const make = (lane: DerivedLane): DerivedRunner => runner?.(events, lane) ?? (source ? new WorkerRunner(source, events, lane) : new InlineRunner(store, events));
    this.runners = { derived: make('derived'), search: make('search') };
    this.timer = setInterval(() => { this.check().catch(() => {}); }, AHEAD_CHECK_MS);
    this.timer.unref();
  }

  /** The answer of `kind` for `args` at `nowSec`, as of the current data version. */
  async get<K extends DerivedKind>(kind: K, args: DerivedArgs<K>, nowSec: number): Promise<DerivedValue<K>> {
    const job = { kind, args } as DerivedJob;
    const jobId = jobKey(job);
    const lane = laneOf(kind);
    if (lane === 'search') return this.search(job, jobId, nowSec) as Promise<DerivedValue<K>>;
    this.recent.delete(jobId);
    this.recent.set(jobId, job);
    if (this.recent.size > AHEAD_JOBS) this.recent.delete(this.recent.keys().next().value as string);
    const version = (await this.store.versions()).data;
    this.seenVersion ??= version;
    const key = `${jobId}|${clockSlice(nowSec)}`;
    const kept = this.kept.get(key);
    if (kept?.version === version) {
      this.kept.delete(key);
      this.kept.set(key, kept);
      return kept.value as DerivedValue<K>;
    }
    let flight = this.flights.get(key);
    if (flight?.version !== version) {
      flight = this.fly(key, job, nowSec, version);
      flight.promise.then((computed) => this.keep(key, computed), () => {});
    }
    return (await flight.promise).value as DerivedValue<K>;
  }

  /** A search (lane 'search'): shared with the same search in flight at this version, else sent to the search worker; not kept. */
  private async search(job: DerivedJob, jobId: string, nowSec: number): Promise<unknown> {
    const version = (await this.store.versions()).data;
    const key = `${jobId}|${clockSlice(nowSec)}`;
    const flight = this.flights.get(key);
    return (await (flight?.version === version ? flight : this.fly(key, job, nowSec, version)).promise).value;
  }

  /** The job sent to its lane's runner, as the flight of `key` until it lands. */
  private fly(key: string, job: DerivedJob, nowSec: number, version: number): { version: number; promise: Promise<Computed> } {
    const promise = this.runners[laneOf(job.kind)].run(job, nowSec, version);
    const started = { version, promise };
    this.flights.set(key, started);
    promise.finally(() => { if (this.flights.get(key) === started) this.flights.delete(key); }).catch(() => {});
    return started;
  }

  /** How many times the answer of `kind` for `args` has been computed (in the worker or here): what the tests count. */
  computations<K extends DerivedKind>(kind: K, args: DerivedArgs<K>): number {
    return this.counts.get(countKey({ kind, args })) ?? 0;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([this.runners.derived.close(), this.runners.search.close()]);
  }

  private keep(key: string, computed: Computed): void {
    this.forget(key);
    this.kept.set(key, { version: computed.version, value: computed.value });
    this.keptBytes += sizeOf(computed.value);
    while (this.kept.size > MAX_KEPT || this.keptBytes > MAX_KEPT_BYTES) this.forget(this.kept.keys().next().value as string);
  }

  private forget(key: string): void {
    const kept = this.kept.get(key);
    if (!kept) return;
    this.kept.delete(key);
    this.keptBytes -= sizeOf(kept.value);
  }

  /** The data version moved since the last look: the answers asked for lately are computed again, as far as the write touched them. */
  private async check(): Promise<void> {
    if (this.recent.size === 0 || this.checking) return;
    this.checking = true;
    try {
      const version = this.store.versionsNow()?.data ?? (await this.store.versions()).data;
      if (version === this.seenVersion) return;
      this.seenVersion = version;
      const nowSec = this.clock.now();
      const slice = clockSlice(nowSec);
      // Newest first; those a request has already kept or is computing for this version are left out.
      const jobs = [...this.recent].reverse().filter(([id]) => {
        const key = `${id}|${slice}`;
        return this.kept.get(key)?.version !== version && this.flights.get(key)?.version !== version;
      }).map(([, job]) => job);
      if (jobs.length > 0) this.runners.derived.ahead(jobs, nowSec, version);
    } finally {
      this.checking = false;
    }
  }
}
