/**
 * What computes derived answers, on the derived-answers worker thread (derived-worker.ts, with
 * its own read-only connection) or, where no other thread can open the database (sqlite::memory:),
 * in the serving thread itself. It never reads a clock: `now` comes with every job.
 *
 * - Single flight: a job of the same kind, arguments, clock bucket and data version as one being
 *   computed shares its computation.
 * - Each result is tagged with the data version it was read at: the version is read before and
 *   after the reads (every write that changes an answer moves it), and the work is done again
 *   (twice at most) when a write came in between. A result is never older than the version the
 *   serving thread asked at, which it read before sending the job.
 * - Ahead: after a write, the answers asked for lately whose city the write touched (a change of a
 *   current price there in the changes feed since the last look) are computed before anyone asks.
 *   A write that changed no current price (a seal, a late report) touched, for all it can tell,
 *   every city: all of them are computed again.
 */
import { ReadModels } from '../read-models/read-models.ts';
import { READ_MODELS } from '../read-models/registry.ts';
import type { ReadStore } from '../storage/store.ts';
import { type DerivedJob, countKey, jobKey, laneOf, sizeOf, specOf } from './kinds.ts';

export interface Computed {
  value: unknown;
  /** The data version the value was read at. */
  version: number;
}

/**
 * Answers that depend on the clock are kept for one slice of it, as long as the answer cache keeps
 * them (its CLOCK_BUCKET_SEC, http/cache/answer-store.ts; test/derived/derived-answers.test.ts holds them equal).
 */
export const CLOCK_SLICE_SEC = 10;

export function clockSlice(nowSec: number): number {
  return Math.floor(nowSec / CLOCK_SLICE_SEC);
}

const TRIES = 3;
/** Results kept here after their computation, by the same key as in flight: a request that comes as a result computed ahead is on its way to the serving thread reads it. */
const RECENT_RESULTS = READ_MODELS.recentDerived.bound.entries;
/** And at most this many bytes of them (a ten-year city history is some 3 MB). */
const RECENT_BYTES = READ_MODELS.recentDerived.bound.bytes;

export class DerivedComputer {
  private readonly inflight = new Map<string, Promise<Computed>>();
  private readonly recent = new Map<string, Computed>();
  private recentBytes = 0;
  /** The last change number looked at by ahead() (or read at the first computation): writes after it are news. */
  private cursor: number | undefined;
  /** Bumped by every ahead(): a pass overtaken by a newer write stops. */
  private generation = 0;

  /** `computed` is told of every computation made, once it is done (not of those shared): the counter the tests read. */
  /** This thread's read models (read-models/), over its store. */
  private readonly models: ReadModels;

  constructor(private readonly store: ReadStore, private readonly computed: (key: string) => void = () => {}) {
    this.models = new ReadModels(store);
  }

  run(job: DerivedJob, nowSec: number, version: number): Promise<Computed> {
    const key = `${jobKey(job)}|${clockSlice(nowSec)}|${version}`;
    const done = this.recent.get(key);
    if (done) return Promise.resolve(done);
    let flight = this.inflight.get(key);
    if (!flight) {
      flight = this.compute(job, nowSec).then((computed) => {
        // A search is asked again at once by no one but a request the serving thread already shares: not kept.
        if (laneOf(job.kind) === 'search') return computed;
        this.recent.set(key, computed);
        this.recentBytes += sizeOf(computed.value);
        while (this.recent.size > RECENT_RESULTS || this.recentBytes > RECENT_BYTES) {
          const oldest = this.recent.keys().next().value as string;
          this.recentBytes -= sizeOf(this.recent.get(oldest)?.value);
          this.recent.delete(oldest);
        }
        return computed;
      }).finally(() => this.inflight.delete(key));
      this.inflight.set(key, flight);
    }
    return flight;
  }

  private async compute(job: DerivedJob, nowSec: number): Promise<Computed> {
    const spec = specOf(job.kind);
    this.cursor ??= await this.store.lastChange();
    for (let tries = 1; ; tries++) {
      const before = (await this.store.versions()).data;
      const value = await spec.compute(this.models, job.args, nowSec);
      this.computed(countKey(job));
      const after = (await this.store.versions()).data;
      // Under writes faster than the work, the last try is kept: everything it read is at least as new as `before`.
      if (after === before || tries === TRIES) return { value, version: before };
    }
  }

  /**
   * After a write: computes, one after the other, the jobs whose city a write since the last look
   * touched, and hands each result to `kept`. Stops early when a newer ahead() starts.
   */
  async ahead(jobs: readonly DerivedJob[], nowSec: number, version: number, kept: (job: DerivedJob, computed: Computed) => void): Promise<void> {
    const generation = ++this.generation;
    const latest = await this.store.lastChange();
    const since = this.cursor;
    this.cursor = latest;
    const touched = new Map<string, boolean>();
    const touches = async (city: string): Promise<boolean> => {
      // No price changed since the last look: a write of another kind, which may touch any city.
      if (since === undefined || latest === since) return true;
      let known = touched.get(city);
      if (known === undefined) {
        known = (await this.store.priceChanges({ since, limit: 1, area: { city } })).changes.length > 0;
        touched.set(city, known);
      }
      return known;
    };
    for (const job of jobs) {
      // A turn of the worker's event loop between jobs: a request's job (a run message) waiting meanwhile is taken
      // before the next job computed ahead, instead of after the whole pass (on SQLite every read resolves at once).
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (generation !== this.generation) return;
      const city = specOf(job.kind).city(job.args);
      if (city === undefined || !(await touches(city))) continue;
      kept(job, await this.run(job, nowSec, version));
    }
  }
}
