import { pino } from 'pino';
import { type Config, clockFor } from '../config.ts';
import { formatInstant } from '../domain/time.ts';
import type { FeedAdapter } from '../ingest/feed.ts';
import { ensureCities } from '../ingest/cities.ts';
import { ADAPTERS, FEED_IDS, type FeedId, feedConfigs, isFeedId } from '../ingest/feeds/index.ts';
import { feedStatus } from '../ingest/health.ts';
import { disabledLine, missingCredentials, runFeed } from '../ingest/runner.ts';
import { releaseAndSeal, watch } from '../ingest/scheduler.ts';
import type { FeedRun, IngestStore } from '../storage/store.ts';
import { UsageError, intOption, parseCommand } from './args.ts';
import { openDatabase } from './database.ts';
import { COMMANDS } from './spec.ts';
import { errorSerializer } from '../http/server/request-log.ts';
import { holdsDemo } from './guards.ts';

/**
 * `fuelprice ingest FEED... [--watch]` and `fuelprice ingest status`. Without --watch each named
 * feed is polled once (exit 1 if any poll failed); with it, every feed polls on its own interval
 * until SIGTERM or SIGINT. A feed named outright whose credentials are missing is a
 * configuration error (exit 2); under `all` it is left out with one line.
 */
export async function ingestCommand(config: Config, args: string[]): Promise<number> {
  if (args[0] === 'status') return statusCommand(config, args.slice(1));
  const { values, positionals } = parseCommand(COMMANDS.ingest, args);
  const names: string[] = [...positionals];
  if (names.length === 0) throw new UsageError(`name the feeds to ingest: ${FEED_IDS.join(', ')}, or all`);
  const named = new Set<FeedId>();
  for (const name of names) {
    if (name === 'all') FEED_IDS.forEach((id) => named.add(id));
    else if (isFeedId(name)) named.add(name);
    else throw new UsageError(`unknown feed '${name.slice(0, 20)}': use ${FEED_IDS.join(', ')} or all`);
  }
  const everything = names.includes('all');
  const feeds = feedConfigs(process.env);
  const adapters: FeedAdapter[] = [];
  for (const id of named) {
    const adapter = ADAPTERS[id];
    const missing = missingCredentials(adapter, feeds[id]);
    if (missing.length === 0) {
      adapters.push(adapter);
      continue;
    }
    process.stderr.write(`fuelprice: ${disabledLine(adapter, missing)}\n`);
    if (!everything) return 2;
  }
  if (adapters.length === 0) {
    process.stderr.write('fuelprice: no feed is enabled; nothing to do.\n');
    return 2;
  }

  const clock = clockFor(config);
  const log = pino({ level: config.logLevel, serializers: { err: errorSerializer } }, process.stderr);
  const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL' });
  try {
    if (await holdsDemo(store)) return 2;
    if (await ensureCities(store)) log.info({}, 'first run: wrote the 304 towns every station is placed in');
    if (values.watch) {
      const stop = new AbortController();
      const onSignal = (signal: string): void => {
        log.info({ signal }, 'stopping: finishing polls under way');
        stop.abort();
      };
      process.once('SIGTERM', () => onSignal('SIGTERM'));
      process.once('SIGINT', () => onSignal('SIGINT'));
      log.info({ feeds: adapters.map((a) => `${a.id} every ${a.intervalSec} s`) }, 'watching feeds');
      await watch({ store, clock, log, feeds: adapters.map((adapter) => ({ adapter, config: feeds[adapter.id as FeedId] })) }, stop.signal);
      return 0;
    }
    let failed = 0;
    for (const adapter of adapters) {
      const run = await runFeed({ store, adapter, config: feeds[adapter.id as FeedId], clock, log });
      process.stdout.write(`${runLine(run)}\n`);
      if (run.error !== undefined) failed++;
    }
    await releaseAndSeal(store, clock.now());
    return failed > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

async function statusCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(COMMANDS['ingest status'], args);
  const limit = intOption(values.limit, 'limit', 1, 1000, 20);
  if (values.feed !== undefined && !isFeedId(values.feed) && values.feed !== 'demo') {
    throw new UsageError(`unknown feed '${values.feed.slice(0, 20)}': use ${FEED_IDS.join(', ')}`);
  }
  const store: IngestStore = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL' });
  try {
    const health = await store.feedHealth();
    const now = clockFor(config).now();
    process.stdout.write(health.length === 0 ? 'No feed has run yet.\n' : 'feed    last run              last success          status\n');
    for (const h of health) {
      const status = feedStatus(h, now);
      process.stdout.write(`${h.feed.padEnd(8)}${formatInstant(h.lastRun).padEnd(22)}${(h.lastSuccess === undefined ? 'never' : formatInstant(h.lastSuccess)).padEnd(22)}${status}\n`);
    }
    const runs = await store.feedRuns({ ...(values.feed === undefined ? {} : { feed: values.feed }), limit });
    if (runs.length > 0) process.stdout.write('\nRecent runs, newest first:\n');
    for (const run of runs) {
      process.stdout.write(`${runLine(run)}\n`);
      for (const r of run.rejections) process.stdout.write(`    ${r.of === 'stations' ? 'refused' : 'rejected'} ${r.count}: ${r.reason} (e.g. ${r.example})\n`);
    }
  } finally {
    await store.close();
  }
  return 0;
}


/**
 * One line per run, the same for `ingest` and `ingest status`. Its price counts add up: the rows
 * read (and those held by an earlier run, released now) are each stored, already known,
 * corrected, held or rejected; the reasons follow in `ingest status`. Runs recorded before rows
 * read were counted keep their older line.
 */
export function runLine(run: FeedRun): string {
  const took = run.finishedAt - run.startedAt;
  const refused = run.rejections.reduce((sum, r) => sum + (r.of === 'stations' ? r.count : 0), 0);
  const stations = `stations +${run.stationsAdded} ~${run.stationsUpdated}${refused > 0 ? ` (${refused} refused)` : ''}`;
  const counts = run.pricesRead === undefined
    ? `stations +${run.stationsAdded} ~${run.stationsUpdated}, prices ${run.pricesAccepted} accepted, `
      + `${run.pricesIgnored} already known, ${run.pricesHeld} held, ${run.rejected} rejected`
    : `${stations}, prices ${run.pricesRead} read${run.pricesReleased ? ` + ${run.pricesReleased} released from hold` : ''}: `
      + `${run.pricesAccepted} stored, ${run.pricesIgnored} already known, ${run.pricesCorrected ?? 0} corrected, `
      + `${run.pricesHeld} held, ${run.rejected} rejected`;
  return `${formatInstant(run.startedAt)}  ${run.feed.padEnd(5)} ${run.error === undefined ? 'ok    ' : 'FAILED'} ${took}s  ${counts}`
    + (run.error === undefined ? '' : `\n    error: ${run.error}`);
}
