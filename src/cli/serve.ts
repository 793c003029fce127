import cluster from 'node:cluster';
import { setFlagsFromString } from 'node:v8';
import { pino } from 'pino';
import { buildApp } from '../app.ts';
import { errorSerializer, logDestination, loggerOptions } from '../http/server/request-log.ts';
import { type Clock, type Config, clockFor, parsePort } from '../config.ts';
import { DEFAULT_DEMO, writeDemoWithProgress } from './demo.ts';
import { eventLoopGauge } from '../http/server/load-shedding.ts';
import type { IngestStore, ReadStore, TokenStore } from '../storage/store.ts';
import { newToken } from '../tokens.ts';
import { maskSecrets } from '../secrets.ts';
import { UsageError, intOption, parseCommand } from './args.ts';
import { openDatabase } from './database.ts';
import { type ListenSettings, listenError } from './errors.ts';
import { COMMANDS } from './spec.ts';
import { runPrimary, workerChannel } from './cluster.ts';
import { DEMO_LIVE_INTERVAL_SEC, demoLiveAdapter } from '../ingest/demo/live.ts';
import { attributionNote } from '../ingest/attribution.ts';
import { DEMO_FEED } from '../ingest/demo/stations.ts';
import type { Logger } from '../logger.ts';
import { releaseAndSeal, watch } from '../ingest/scheduler.ts';

const SEAL_EVERY_MS = 60_000;
/** A stop (SIGTERM) exits 1 if it has not finished within this: requests in flight, then the log's last lines. */
const STOP_MS = 10_000;
/** How long a stop waits for the log's destination to take its last lines (a reader that has stopped reading). */
const LOG_DRAIN_MS = 5_000;

interface ServeOptions extends ListenSettings {
  demo: boolean;
  /** Make the database when it does not exist (--create, or --demo); otherwise a missing SQLite file is an error. */
  create: boolean;
}

/** What the error for a missing SQLite database suggests to serve. */
const SERVE_CREATE_HINT = '`fuelprice migrate`, or start with `serve --create` (`serve --demo` for the demo dataset)';

/**
 * V8's collector as the server needs it: the answers it keeps and sends are bytes outside the JavaScript heap, some of
 * megabytes (a city's ten-year history), arriving from the derived worker. By default every few tens of MB of such
 * buffers start a full collection on the serving thread (several a second while histories are asked); counted in the
 * heap's own limit, which grows with what stays alive, they start fewer (at au-10y 12 in a stall run against 17 and 18:
 * docs/PERFORMANCE.md). Set before anything is served.
 */
export const COLLECTOR_FLAGS = '--external-memory-accounted-in-global-limit';

export async function serveCommand(config: Config, args: string[]): Promise<number> {
  setFlagsFromString(COLLECTOR_FLAGS);
  const { values } = parseCommand(COMMANDS.serve, args);
  const options: ServeOptions = {
    port: values.port === undefined ? config.port : parsePort(values.port, '--port'),
    portFrom: values.port !== undefined ? '--port' : config.portSet ? 'PORT' : 'default',
    host: values.host ?? config.host,
    hostFrom: values.host === undefined ? 'HOST' : '--host',
    demo: values.demo ?? false,
    create: (values.create ?? false) || (values.demo ?? false),
  };
  const workers = intOption(values.workers, 'workers', 1, 64, 1);
  if (workers > 1 && /^sqlite:(:memory:)?$/.test(config.databaseUrl)) {
    throw new UsageError('--workers above 1 needs a database the workers share: a sqlite: file or postgres://, not sqlite::memory:');
  }
  if (workers === 1) return serveProcess(config, options, 'single');
  if (cluster.isPrimary) return servePrimary(config, options, workers);
  return serveProcess(config, options, 'worker').catch((error: unknown) => {
    // A worker that cannot start must end (its channel to the primary would keep it alive); the primary reports it.
    process.stderr.write(maskSecrets(`fuelprice: worker ${process.pid}: ${error instanceof Error ? error.message : String(error)}\n`));
    process.exit(1);
  });
}

/**
 * The primary of `serve --workers N`: migrates, prepares the demo (once, before any worker
 * exists), seals days (the one process that does), then forks the workers (src/cli/cluster.ts).
 */
async function servePrimary(config: Config, options: ServeOptions, workers: number): Promise<number> {
  const clock = clockFor(config);
  const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL', create: options.create, createHint: SERVE_CREATE_HINT });
  let sealer: NodeJS.Timeout | undefined;
  try {
    const demoToken = options.demo ? await prepareDemo(store, clock.now()) : undefined;
    await releaseAndSeal(store, clock.now()); // WA prices already due are applied now, not at the first tick
    const logger = pino({ level: config.logLevel, base: { pid: process.pid, role: 'primary' }, serializers: { err: errorSerializer } });
    sealer = startSealer(store, clock, (error) => logger.error({ err: error }, 'sealing days failed'));
    const live = options.demo ? await startDemoFeed(store, config, logger) : undefined;
    logger.info({ workers }, 'starting workers');
    // With METRICS_TOKEN, a scrape of any worker is answered with every worker's metrics, added up here.
    const aggregator = config.metricsToken ? new (await import('prom-client')).AggregatorRegistry() : undefined;
    return await runPrimary({
      workers,
      logger,
      clusterMetrics: aggregator && (() => aggregator.clusterMetrics()),
      onListening: (address) => announce(address, options.host, demoToken),
      onStop: async () => {
        clearInterval(sealer);
        await live?.stop();
        await store.close();
      },
    });
  } catch (error) {
    clearInterval(sealer);
    await store.close();
    throw error;
  }
}

/**
 * One serving process: the whole server (`single`), or one worker of `serve --workers N`, which
 * leaves migrating, the demo, sealing and the announcement to the primary.
 */
async function serveProcess(config: Config, options: ServeOptions, role: 'single' | 'worker'): Promise<number> {
  const clock = clockFor(config);
  const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL', create: options.create, createHint: SERVE_CREATE_HINT, migrate: role === 'single' });

  const demoToken = role === 'single' && options.demo ? await prepareDemo(store, clock.now()) : undefined;
  if (role === 'single') await releaseAndSeal(store, clock.now()); // as the primary does

  // With REDIS_URL, rate limits are shared by every process; without it (or while Redis is out of reach), per process.
  // ioredis is loaded when asked for: loading it would slow down every start that does not use it.
  const rateLimiter = config.redisUrl
    ? new (await import('../http/auth/redis-limiter.ts')).RedisRateLimiter({ url: config.redisUrl, prefix: config.redisPrefix })
    : undefined;
  // The gauge may report before buildApp returns; the app's logger takes its lines from then on.
  let shedLog: Logger | undefined;
  // Buffered and written asynchronously (pretty lines on a terminal): flushed every second, drained on a stop, flushed on exit.
  const destination = await logDestination({ shared: role === 'worker' });
  process.once('exit', () => destination.flushSync());
  const app = await buildApp({
    store, clock, rateLimiter, trustProxy: config.trustProxy,
    logger: loggerOptions(config.logLevel, destination.stream),
    // Past capacity, shed load with 503 rather than let every answer wait (MAX_EVENT_LOOP_DELAY_MS; 0 turns it off).
    ...(config.maxEventLoopDelayMs > 0 ? {
      loadGauge: eventLoopGauge({
        maxDelayMs: config.maxEventLoopDelayMs,
        onChange: (shedding, delayMs) => {
          const fields = { eventLoopDelayMs: Math.round(delayMs), limitMs: config.maxEventLoopDelayMs };
          if (shedding) shedLog?.warn(fields, 'over capacity: shedding load');
          else shedLog?.info(fields, 'load shedding stopped');
        },
      }),
    } : {}),
    limits: { maxConnections: config.maxConnections, keepAliveTimeoutMs: config.keepAliveTimeoutMs },
    metricsToken: config.metricsToken, // GET /metrics (docs/METRICS.md); off when unset
    tiles: config.tiles, // the dashboard map's tiles (TILE_URL)
    metricsFromPrimary: role === 'worker' ? () => workerChannel.clusterMetrics() : undefined,
    dataNote: options.demo
      ? '**Sample data.** This server runs the demo dataset: real towns and brands, invented stations and prices.'
      : attributionNote((await store.feedHealth()).map((h) => h.feed)),
  });
  shedLog = app.log;
  // Days are sealed (made final) as local midnights pass, so history reads stay small; with workers, the primary does it.
  const sealer = role === 'single' ? startSealer(store, clock, (error) => app.log.error({ err: error }, 'sealing days failed')) : undefined;
  const live = role === 'single' && options.demo ? await startDemoFeed(store, config, app.log.child({ component: 'demo-feed' })) : undefined;
  if (rateLimiter) await rateLimiter.connect({ logger: app.log.child({ component: 'rate-limits' }), timeoutMs: 2000 });

  /** Closes what this process opened, in order: no new requests, then Redis, then storage. */
  const closeAll = async (): Promise<void> => {
    clearInterval(sealer);
    // Stop accepting at once, while the demo feed finishes a poll under way; storage closes after both.
    await Promise.all([app.close(), live?.stop()]);
    await rateLimiter?.close();
    await store.close();
  };
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    const force = setTimeout(() => process.exit(1), STOP_MS);
    force.unref();
    void closeAll().then(() => 0, () => 1).then(async (code) => {
      // The log's last lines out before the exit: flushSync on exit would race a write under way (a slow reader).
      if (!(await destination.drain(LOG_DRAIN_MS))) process.stderr.write(`fuelprice: the log's destination did not take its last lines within ${LOG_DRAIN_MS} ms\n`);
      process.exit(code);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  if (role === 'worker') workerChannel.onStop(() => stop('primary'));

  let address: string;
  try {
    address = await app.listen({ port: options.port, host: options.host });
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw listenError(error, options) ?? error;
  }
  if (role === 'worker') workerChannel.listening(address);
  else announce(address, options.host, demoToken);
  return new Promise<number>(() => {
    // Runs until a signal stops it; stop() exits the process.
  });
}

/** Every minute: applies held prices now due (WA's next-day prices at 06:00) and seals finished days. */
function startSealer(store: IngestStore, clock: Clock, onError: (error: unknown) => void): NodeJS.Timeout {
  const sealer = setInterval(() => {
    releaseAndSeal(store, clock.now()).catch(onError);
  }, SEAL_EVERY_MS);
  sealer.unref();
  return sealer;
}

/**
 * With --demo on a demo database, the demo's simulated feed keeps prices moving through the
 * ingest path. Off with a fixed clock (FUELPRICE_NOW): every poll would report the same instant.
 */
async function startDemoFeed(store: IngestStore & Pick<ReadStore, 'currentForStation'>, config: Config, log: Logger): Promise<{ stop(): Promise<void> } | undefined> {
  if (config.fixedNow !== undefined) {
    log.info({}, 'FUELPRICE_NOW fixes the clock: the demo\'s live feed is off');
    return undefined;
  }
  if ((await store.feedStations(DEMO_FEED)).length === 0) return undefined;
  const controller = new AbortController();
  const clock = clockFor(config);
  log.info({ everySec: DEMO_LIVE_INTERVAL_SEC }, 'demo feed: prices will keep moving while the server runs');
  const done = watch({
    store, clock, log, feeds: [{ adapter: demoLiveAdapter(store, DEFAULT_DEMO.seed), config: { url: '', credentials: {} } }],
  }, controller.signal).catch((error: unknown) => log.error({ error: String(error) }, 'demo feed stopped'));
  return { stop: async () => { controller.abort(); await done; } };
}

/** Wildcard hosts: Fastify gives a loopback address to open, which alone would hide that every interface listens. */
const EVERY_INTERFACE: ReadonlySet<string> = new Set(['0.0.0.0', '::', '[::]']);

function announce(address: string, host: string, demoToken: string | undefined): void {
  const also = EVERY_INTERFACE.has(host) ? ` and every interface (${host})` : '';
  process.stderr.write(`fuelprice is serving on ${address}${also}  (dashboard: ${address}/, docs: ${address}/docs)\n`);
  if (demoToken) {
    // One banner, written once, for the person at the terminal: on stdout when that is one;
    // otherwise on stderr, never among the JSON log lines stdout carries to a log collector.
    const out = process.stdout.isTTY === true ? process.stdout : process.stderr;
    out.write(demoBanner(address, demoToken));
  }
}

/**
 * The new demo token and how to use it. The dashboard link carries it in the URL's fragment,
 * which the browser keeps to itself, so it never reaches a request log.
 */
export function demoBanner(address: string, token: string): string {
  return `\nYour API token (shown once; make more with: npm run fuelprice -- tokens create --name NAME):\n\n  TOKEN=${token}\n\n`
    + `Try: curl -H "Authorization: Bearer $TOKEN" ${address}/v1/cities/sydney/spread\n\n`
    + `Or open the dashboard with it: ${address}/#token=${token}\n\n`;
}

/** Fills an empty database with the demo dataset; returns a new token when none existed. */
async function prepareDemo(store: IngestStore & Pick<ReadStore, 'counts'> & TokenStore, now: number): Promise<string | undefined> {
  const counts = await store.counts();
  if (counts.stations === 0) {
    process.stderr.write('Empty database: writing the demo dataset (sample data, seed 1, 2 years)...\n');
    await writeDemoWithProgress(store, { ...DEFAULT_DEMO, nowSec: now });
  }
  if ((await store.listTokens()).length === 0) {
    const created = newToken('demo', now);
    await store.createToken(created.record);
    return created.token;
  }
  process.stderr.write('Tokens exist already; list them with `npm run fuelprice -- tokens list` or make one with `tokens create --name NAME`.\n');
  return undefined;
}
