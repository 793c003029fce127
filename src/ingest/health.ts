/** When a feed counts as stale (shared by /ready and `fuelprice ingest status`), and whether its last run failed. */
import type { FeedHealth, IngestStore } from '../storage/store.ts';

/** No successful poll for three of the feed's intervals, and never sooner than an hour. */
export function staleAfterSec(intervalSec: number): number {
  return Math.max(3_600, 3 * intervalSec);
}

export function feedStatus(health: FeedHealth, now: number): 'ok' | 'stale' {
  return health.lastSuccess !== undefined && now - health.lastSuccess <= staleAfterSec(health.intervalSec) ? 'ok' : 'stale';
}

/**
 * Whether the feed's newest recorded run failed. By record order, not by comparing the last run's
 * and the last success's times: those are whole seconds, and a failure in the same second as a
 * success would pass for a success.
 */
export async function lastRunFailed(store: Pick<IngestStore, 'feedRuns'>, feed: string): Promise<boolean> {
  const [last] = await store.feedRuns({ feed, limit: 1 });
  return last !== undefined && last.error !== undefined;
}
