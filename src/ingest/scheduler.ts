/**
 * `fuelprice ingest ... --watch`: every feed polls on its own interval, independently of the
 * others (one slow or broken feed never holds the rest back). A failed poll is retried sooner,
 * with exponential backoff and jitter, but never more often than the feed's quota allows over
 * time; a restart waits out the interval since the feed's last recorded run instead of
 * spending quota again. At start, and then once a minute, it releases held prices that are now
 * due and seals days: a start after 06:00 WA serves that day's prices at once, not a minute late.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock, FeedConfig } from '../config.ts';
import type { IngestStore } from '../storage/store.ts';
import type { Logger } from '../logger.ts';
import type { FeedAdapter } from './feed.ts';
import type { FeedHttp } from './feed-fetch.ts';
import { runFeed } from './runner.ts';

/** The first retry after a failed poll, in seconds; it doubles per failure up to the feed's interval. */
export const FIRST_RETRY_SEC = 60;
export const HOUSEKEEPING_SEC = 60;

/** Seconds until a feed's next poll: its interval after a success; after failures, a jittered backoff no longer than the interval. */
export function nextPollDelay(intervalSec: number, failures: number, random: () => number): number {
  if (failures === 0) return intervalSec;
  const backoff = Math.min(intervalSec, FIRST_RETRY_SEC * 2 ** Math.min(failures - 1, 20));
  return Math.max(1, Math.round(backoff * (0.5 + random() / 2)));
}

/** Seconds to wait before a feed's first poll after a start: what is left of its interval since its last run. */
export function firstPollDelay(intervalSec: number, lastRun: number | undefined, now: number): number {
  return lastRun === undefined ? 0 : Math.max(0, Math.min(intervalSec, lastRun + intervalSec - now));
}

export interface WatchOptions {
  store: IngestStore;
  clock: Clock;
  log: Logger;
  feeds: ReadonlyArray<{ adapter: FeedAdapter; config: FeedConfig }>;
  random?: () => number;
  /** Per-feed HTTP client (tests pass one that does not wait between retries). */
  http?: (adapter: FeedAdapter) => FeedHttp;
}

/** Runs until `signal` aborts; resolves once every loop has stopped (a poll under way is finished first). */
export async function watch(options: WatchOptions, signal: AbortSignal): Promise<void> {
  const { store, clock, log } = options;
  const random = options.random ?? Math.random;
  if (!signal.aborted) await housekeep(store, clock, log);
  const health = new Map((await store.feedHealth()).map((h) => [h.feed, h.lastRun]));
  const loops = options.feeds.map(async ({ adapter, config }) => {
    let wait = firstPollDelay(adapter.intervalSec, health.get(adapter.id), clock.now());
    log.info({ feed: adapter.id, firstPollInSec: wait, everySec: adapter.intervalSec }, 'feed scheduled');
    let failures = 0;
    while (await sleep(wait, signal)) {
      const run = await runFeed({
        store, adapter, config, clock, log, ...(options.http ? { http: options.http(adapter) } : {}),
      });
      failures = run.error === undefined ? 0 : failures + 1;
      wait = nextPollDelay(adapter.intervalSec, failures, random);
      if (failures > 0) log.warn({ feed: adapter.id, failures, retryInSec: wait }, 'feed will be polled again early');
    }
  });
  const housekeeping = (async () => {
    while (await sleep(HOUSEKEEPING_SEC, signal)) await housekeep(store, clock, log);
  })();
  await Promise.all([...loops, housekeeping]);
}

/** releaseAndSeal, logged: a failure is said and left for the next minute. */
async function housekeep(store: IngestStore, clock: Clock, log: Logger): Promise<void> {
  try {
    const released = await releaseAndSeal(store, clock.now());
    if (released > 0) log.info({ released }, 'held prices now due applied');
  } catch (error) {
    log.error({ error: error instanceof Error ? error.message : String(error) }, 'releasing held prices or sealing days failed');
  }
}

/** Applies held prices that are now due and seals finished days; answers how many held prices were applied. */
export async function releaseAndSeal(store: IngestStore, now: number): Promise<number> {
  const { pricesReleased } = await store.releaseDue(now);
  await store.seal(now);
  return pricesReleased;
}

/** False once the signal has aborted. */
async function sleep(seconds: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (seconds <= 0) return true;
  try {
    await delay(seconds * 1_000, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
