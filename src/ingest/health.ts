/** When a feed counts as stale: shared by /ready and `fuelprice ingest status`. */
import type { FeedHealth } from '../storage/store.ts';

/** No successful poll for three of the feed's intervals, and never sooner than an hour. */
export function staleAfterSec(intervalSec: number): number {
  return Math.max(3_600, 3 * intervalSec);
}

export function feedStatus(health: FeedHealth, now: number): 'ok' | 'stale' {
  return health.lastSuccess !== undefined && now - health.lastSuccess <= staleAfterSec(health.intervalSec) ? 'ok' : 'stale';
}
