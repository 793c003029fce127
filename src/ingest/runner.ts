/**
 * One run of one feed: read its cursor, pull, apply each batch with its cursor in one
 * transaction, and record the run (what was accepted, what was rejected and why, or the error).
 * A poll that fails applies nothing; a crash between batches leaves whole batches and the
 * cursor of the last one, so the next run resumes from there.
 */
import type { Clock, FeedConfig } from '../config.ts';
import type { FeedBatchOptions, FeedRun, IngestStore } from '../storage/store.ts';
import type { Logger } from '../logger.ts';
import type { FeedAdapter, KeptValues } from './feed.ts';
import { oneLine } from './feed-error.ts';
import { FeedHttp } from './feed-fetch.ts';
import { lastRunFailed } from './health.ts';
import { Normaliser, type Rejection, UnknownFuels } from './normalise.ts';

/**
 * What one batch did with its price rows. They add up: read + released = accepted + ignored +
 * corrected + held + the counts of the price rejections (stations refused are listed apart).
 */
export interface ApplyOutcome {
  stationsAdded: number;
  stationsUpdated: number;
  /** Price rows the adapter read from the feed. */
  pricesRead: number;
  /** Rows held by an earlier run and now due: applied with this batch, so counted in accepted, ignored or corrected. */
  pricesReleased: number;
  pricesAccepted: number;
  /** Already known: the same report stored (or held) before, or known to the adapter (its cursor). */
  pricesIgnored: number;
  pricesCorrected: number;
  /** Dated ahead of now and kept aside for the first time. */
  pricesHeld: number;
  /** Price rows by reason, then stations refused (`of: 'stations'`). */
  rejected: Rejection[];
}

export const UNKNOWN_STATION = 'unknown station';
/** The longest error a run records. */
export const RUN_ERROR_CHARS = 500;

/**
 * Applies one normaliser's batch and the cursor in one transaction. Prices of stations neither
 * in the batch nor stored are left out and counted as 'unknown station', beside the
 * normaliser's own rejections.
 */
export async function applyNormalised(
  store: IngestStore, normaliser: Normaliser, options: FeedBatchOptions,
): Promise<ApplyOutcome> {
  const batch = normaliser.batch();
  const result = await store.applyFeedBatch(batch, options);
  const rejected = normaliser.rejected();
  const example = result.unknownStation[0];
  if (result.unknownStationCount > 0 && example) {
    rejected.push({ reason: UNKNOWN_STATION, count: result.unknownStationCount, example: `${example.feed}/${example.feedCode}`.slice(0, 160) });
  }
  // The store holds every row dated after now; those it held already (the same instant) are known,
  // or corrected when their price or availability changed.
  let dueLater = 0;
  for (const price of batch.prices) if (price.at > options.now) dueLater++;
  return {
    stationsAdded: result.stationsAdded, stationsUpdated: result.stationsUpdated,
    pricesRead: normaliser.pricesRead, pricesReleased: result.pricesReleased, pricesAccepted: result.pricesAccepted,
    pricesIgnored: result.pricesIgnored + (dueLater - result.pricesHeld - result.pricesHeldCorrected) + normaliser.pricesKnown,
    pricesCorrected: result.pricesCorrected + result.pricesHeldCorrected, pricesHeld: result.pricesHeld,
    rejected: [...rejected, ...normaliser.stationsRejected()],
  };
}

/** The environment variables an adapter needs that are not set. */
export function missingCredentials(adapter: FeedAdapter, config: FeedConfig): string[] {
  return adapter.requires.filter((name) => !config.credentials[name]);
}

/** The one line said when a feed is left out for want of credentials. */
export function disabledLine(adapter: FeedAdapter, missing: readonly string[]): string {
  return `feed ${adapter.id} (${adapter.name}) disabled: set ${missing.join(' and ')} (how to get them: docs/FEEDS-SETUP.md)`;
}

/** The feed's kept values in the feed-cursor table, each under `<name>:<feed>`, written alone (saveCursor). */
export function keptValues(store: IngestStore, feed: string, now: number): KeptValues {
  return {
    read: (name) => store.feedCursor(`${name}:${feed}`),
    write: async (name, value) => {
      await store.saveCursor({ key: `${name}:${feed}`, value }, now);
    },
  };
}

export interface RunFeedOptions {
  store: IngestStore;
  adapter: FeedAdapter;
  config: FeedConfig;
  clock: Clock;
  log: Logger;
  http?: FeedHttp;
}

export async function runFeed(options: RunFeedOptions): Promise<FeedRun> {
  const { store, adapter, config, clock, log } = options;
  const http = options.http ?? new FeedHttp({
    onRetry: ({ attempt, delayMs, reason }) => log.warn({ feed: adapter.id, attempt, delayMs, reason }, 'feed request failed: retrying'),
  });
  const startedAt = clock.now();
  const run: FeedRun = {
    feed: adapter.id, startedAt, finishedAt: startedAt, stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 0,
    pricesIgnored: 0, pricesHeld: 0, rejected: 0, rejections: [], error: undefined, intervalSec: adapter.intervalSec,
    pricesRead: 0, pricesReleased: 0, pricesCorrected: 0,
  };
  const outcomes: ApplyOutcome[] = [];
  try {
    const cursor = await store.feedCursor(adapter.id);
    const previousRunFailed = await lastRunFailed(store, adapter.id);
    const unknown = new UnknownFuels(adapter.id, log);
    const pulled = await adapter.pull({
      http, config, cursor, now: startedAt, log, previousRunFailed, kept: keptValues(store, adapter.id, startedAt),
      storedStations: () => store.feedStations(adapter.id),
      normaliser: () => new Normaliser(adapter.id, adapter.fuels, startedAt, unknown),
    });
    for (const { normaliser, cursor: next } of pulled) {
      outcomes.push(await applyNormalised(store, normaliser, {
        now: startedAt, ...(next === undefined ? {} : { cursor: { key: adapter.id, value: next } }),
      }));
    }
  } catch (error) {
    // One line, bounded: it is printed under the run's line and kept in the run log.
    run.error = oneLine(error instanceof Error ? error.message : String(error), RUN_ERROR_CHARS) || 'failed without a message';
  }
  let [read, released, corrected] = [0, 0, 0];
  for (const o of outcomes) {
    run.stationsAdded += o.stationsAdded;
    run.stationsUpdated += o.stationsUpdated;
    run.pricesAccepted += o.pricesAccepted;
    run.pricesIgnored += o.pricesIgnored;
    run.pricesHeld += o.pricesHeld;
    read += o.pricesRead;
    released += o.pricesReleased;
    corrected += o.pricesCorrected;
  }
  Object.assign(run, { pricesRead: read, pricesReleased: released, pricesCorrected: corrected });
  run.rejections = Normaliser.merge(outcomes.map((o) => o.rejected));
  run.rejected = run.rejections.reduce((sum, r) => sum + (r.of === 'stations' ? 0 : r.count), 0);
  run.finishedAt = Math.max(startedAt, clock.now());
  for (const r of run.rejections) log.warn({ feed: adapter.id, reason: r.reason, count: r.count, example: r.example }, 'records rejected');
  const summary = {
    feed: adapter.id, stationsAdded: run.stationsAdded, stationsUpdated: run.stationsUpdated, pricesRead: read, pricesReleased: released,
    pricesAccepted: run.pricesAccepted, pricesIgnored: run.pricesIgnored, pricesCorrected: corrected, pricesHeld: run.pricesHeld,
    rejected: run.rejected, calls: http.calls,
  };
  if (run.error === undefined) log.info(summary, 'feed run done');
  else log.error({ ...summary, error: run.error }, 'feed run failed');
  try {
    await store.recordRun(run);
  } catch (error) {
    log.error({ feed: adapter.id, error: error instanceof Error ? error.message : String(error) }, 'could not record the run');
  }
  return run;
}
