/**
 * /metrics in the Prometheus text format (prom-client), for operators: requests by route and
 * status, their latency, the answer cache, load shedding, the feeds' health as stored, the
 * PostgreSQL pool, and Node's own (event-loop delay, GC, memory). Off unless a metrics token is
 * configured (METRICS_TOKEN); then only `Authorization: Bearer <METRICS_TOKEN>` reads it. Hidden
 * from the API description. One registry per app; under `serve --workers N` the worker that takes
 * a scrape asks the primary, which adds up every worker's registry (docs/METRICS.md).
 *
 * Per request the cost is a Map lookup, a counter increment and a histogram observe: the
 * label children are kept per route and status, whose values are bounded (route patterns,
 * never raw URLs; statuses of the error catalogue). Everything read from storage is read on
 * scrape, never per request. prom-client is imported here only; the request path sees the
 * small interfaces below.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Clock } from '../../config.ts';
import { feedStatus, lastRunFailed } from '../../ingest/health.ts';
import type { FeedCounts, IngestStore, StoreBase } from '../../storage/store.ts';
import { BEARER, authorizationCount } from '../auth/bearer.ts';
import { ApiError } from '../errors/catalogue.ts';
import { UNAVAILABLE_REASONS, type UnavailableReason, unavailableReason } from '../errors/unavailable.ts';

export const METRICS_PATH = '/metrics';
/** Seconds: from a cached answer (well under a millisecond) to a request that should have timed out. */
export const LATENCY_BUCKETS_SEC: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** The route label of a request no route answered: an unknown path, or one shed before routing. */
export const NO_ROUTE = 'none';

/** What the answer cache (answer-cache.ts) tells the metrics: an answer sent from it, or worked out for want of it. */
export interface CacheCounts {
  cacheHit(): void;
  cacheMiss(): void;
}

/** A request listener in front of Fastify (fast-path.ts, load-shedding.ts): true when it answered. */
type Front = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface MetricsSources {
  store: Pick<StoreBase, 'backend' | 'poolStats'> & Pick<IngestStore, 'feedHealth' | 'feedRuns' | 'feedCounts'>;
  clock: Clock;
  /** The answer cache's entries, when answers are kept. */
  cache?: { readonly size: number };
  /** Load shedding, when on. */
  loadGauge?: { readonly overloaded: boolean };
}

interface RouteSeries {
  duration: ReturnType<Histogram<'route'>['labels']>;
  byStatus: Map<number, ReturnType<Counter<'route' | 'status'>['labels']>>;
}

export class Metrics implements CacheCounts {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'status'>;
  private readonly duration: Histogram<'route'>;
  private readonly fastHits: ReturnType<Counter<'path'>['labels']>;
  private readonly fullHits: ReturnType<Counter<'path'>['labels']>;
  private readonly misses: Counter;
  private readonly shed: Counter;
  private readonly unavailable: Counter<'reason'>;
  private readonly routes = new Map<string, RouteSeries>();

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'fuelprice_http_requests_total', help: 'HTTP requests answered, by route pattern and status', labelNames: ['route', 'status'], registers,
    });
    this.duration = new Histogram({
      name: 'fuelprice_http_request_duration_seconds', help: 'Time to answer an HTTP request, by route pattern',
      labelNames: ['route'], buckets: [...LATENCY_BUCKETS_SEC], registers,
    });
    const hits = new Counter({
      name: 'fuelprice_answer_cache_hits_total', help: 'Answers sent from the answer cache: in front of Fastify (fast) or after its hooks (full)',
      labelNames: ['path'], registers,
    });
    this.misses = new Counter({ name: 'fuelprice_answer_cache_misses_total', help: 'Cacheable requests whose answer was worked out', registers });
    this.shed = new Counter({ name: 'fuelprice_http_requests_shed_total', help: 'Requests refused with 503 by load shedding', registers });
    this.unavailable = new Counter({
      name: 'fuelprice_http_unavailable_total', help: 'Requests answered 503, by reason (shed, overloaded, storage, waiters, metrics, unavailable)',
      labelNames: ['reason'], registers,
    });
    // Every reason's series exists from the start, at 0.
    for (const reason of UNAVAILABLE_REASONS) this.unavailable.labels(reason).inc(0);
    this.fastHits = hits.labels('fast');
    this.fullHits = hits.labels('full');
    // Both series exist from the start, at 0.
    this.fastHits.inc(0);
    this.fullHits.inc(0);
    addScrapedGauges(registers, sources);
    collectDefaultMetrics({ register: this.registry });
  }

  /** One answered request, counted under its route pattern and status, its time observed; a 503 also under its reason. */
  observe(route: string, status: number, seconds: number, reason?: UnavailableReason): void {
    if (status === 503) this.unavailable.labels(reason ?? 'unavailable').inc();
    let series = this.routes.get(route);
    if (!series) {
      series = { duration: this.duration.labels(route), byStatus: new Map() };
      this.routes.set(route, series);
    }
    let count = series.byStatus.get(status);
    if (!count) {
      count = this.requests.labels(route, String(status));
      series.byStatus.set(status, count);
    }
    count.inc();
    series.duration.observe(seconds);
  }

  cacheHit(): void {
    this.fullHits.inc();
  }

  cacheMiss(): void {
    this.misses.inc();
  }

  /** A cached answer the fast path sent, kept from an answer of `route`, the request begun at `startedMs` (performance.now()). */
  fastAnswer(route: string | undefined, startedMs: number): void {
    this.fastHits.inc();
    this.observe(route ?? NO_ROUTE, 200, (performance.now() - startedMs) / 1000);
  }

  /**
   * shedInFront (load-shedding.ts) with its answers counted: a shed request under no route, or
   * /ready's own 503 while overloaded (which shedInFront also answers) under /ready. A scrape
   * is never shed: overload is when it is most wanted, and it costs little.
   */
  countShed(front: Front): Front {
    return (req, res) => {
      const url = req.url ?? '';
      if (isPath(url, METRICS_PATH)) return false;
      const started = performance.now();
      if (!front(req, res)) return false;
      const ready = isPath(url, '/ready');
      if (!ready) this.shed.inc();
      this.observe(ready ? '/ready' : NO_ROUTE, res.statusCode, (performance.now() - started) / 1000, unavailableReason(res));
      return true;
    };
  }
}

/** Whether the request URL is `path`, with or without a query. */
function isPath(url: string, path: string): boolean {
  return url.startsWith(path) && (url.length === path.length || url.charCodeAt(path.length) === 0x3f /* ? */);
}

interface FeedReading {
  feed: string;
  lastSuccess: number;
  lastRun: number;
  failed: number;
  stale: number;
}

interface FeedReadings {
  /** Per feed in the run log (pruned after 90 days). */
  health: FeedReading[];
  /** Per feed that has ever run: its runs and failures, which only go up. */
  counts: FeedCounts[];
}

/**
 * The feeds' health as stored, read once per scrape: every metric below asks at once (prom-client
 * collects them together), the first read is shared. Undefined when storage did not answer.
 */
function feedReadings(store: MetricsSources['store'], clock: Clock): () => Promise<FeedReadings | undefined> {
  const read = async (): Promise<FeedReadings | undefined> => {
    try {
      const now = clock.now();
      const health: FeedReading[] = [];
      for (const feed of await store.feedHealth()) {
        health.push({
          feed: feed.feed, lastSuccess: feed.lastSuccess ?? 0, lastRun: feed.lastRun,
          failed: await lastRunFailed(store, feed.feed) ? 1 : 0, stale: feedStatus(feed, now) === 'stale' ? 1 : 0,
        });
      }
      return { health, counts: await store.feedCounts() };
    } catch {
      return undefined;
    }
  };
  let pending: Promise<FeedReadings | undefined> | undefined;
  return () => pending ??= read().finally(() => { pending = undefined; });
}

/** What is read on scrape: the feeds' health as stored, storage's pool, the cache's size, load shedding. */
function addScrapedGauges(registers: Registry[], sources: MetricsSources): void {
  const { store, clock } = sources;
  // Feeds run in another process (`ingest --watch`) or in this one (`serve --demo`): what they record in storage is read, whichever.
  const reading = feedReadings(store, clock);
  const feedGauge = (name: string, help: string, value: (feed: FeedReading) => number): void => {
    new Gauge({
      name, help, labelNames: ['feed'], registers, aggregator: 'first', // the same stored records, whichever worker reads them
      async collect() {
        this.reset();
        for (const feed of (await reading())?.health ?? []) this.set({ feed: feed.feed }, value(feed));
      },
    });
  };
  // Counters kept in storage by whichever process records the runs: read on scrape, as they stand.
  const feedCounter = (name: string, help: string, value: (feed: FeedCounts) => number): void => {
    new Counter({
      name, help, labelNames: ['feed'], registers, aggregator: 'first',
      async collect() {
        this.reset();
        for (const feed of (await reading())?.counts ?? []) this.inc({ feed: feed.feed }, value(feed));
      },
    });
  };
  feedCounter('fuelprice_feed_runs_total', 'Runs of the feed recorded since the database was made, failed ones included', (f) => f.runs);
  feedCounter('fuelprice_feed_failures_total', 'Failed runs of the feed recorded since the database was made', (f) => f.failures);
  feedGauge('fuelprice_feed_last_success_timestamp_seconds', 'When the feed\'s last successful run ended (Unix seconds; 0: none recorded)', (f) => f.lastSuccess);
  feedGauge('fuelprice_feed_last_run_timestamp_seconds', 'When the feed\'s last run ended (Unix seconds)', (f) => f.lastRun);
  feedGauge('fuelprice_feed_last_run_failed', '1 when the feed\'s last recorded run failed, else 0', (f) => f.failed);
  feedGauge('fuelprice_feed_stale', '1 when the feed has had no successful run for three of its intervals (at least an hour), as /ready says, else 0', (f) => f.stale);
  new Gauge({
    name: 'fuelprice_storage_up', help: '1 when storage answered this scrape\'s reads of the feeds\' health, else 0', registers, aggregator: 'min',
    async collect() { this.set(await reading() ? 1 : 0); },
  });
  new Gauge({
    name: 'fuelprice_db_pool_connections', help: 'PostgreSQL pool: open connections (state="total"), idle ones, the pool\'s maximum, and queries waiting for one',
    labelNames: ['state'], registers,
    collect() {
      const stats = store.poolStats?.();
      if (!stats) return;
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'max' }, stats.max);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
  new Gauge({
    name: 'fuelprice_storage_backend_info', help: 'The storage backend, as a label', labelNames: ['backend'], registers, aggregator: 'first',
    collect() { this.set({ backend: store.backend }, 1); },
  });
  const { cache, loadGauge } = sources;
  if (cache) {
    new Gauge({ name: 'fuelprice_answer_cache_entries', help: 'Answers kept in the answer cache', registers, collect() { this.set(cache.size); } });
  }
  if (loadGauge) {
    new Gauge({
      name: 'fuelprice_overloaded', help: '1 while load shedding refuses a share of requests (and /ready answers 503), else 0', registers, aggregator: 'max',
      collect() { this.set(loadGauge.overloaded ? 1 : 0); },
    });
  }
}

/**
 * A worker of `serve --workers N`: its registry is the one the primary reads when it adds up every
 * worker's metrics (prom-client's cluster support answers the primary over the IPC channel).
 */
export function shareWithPrimary(metrics: Metrics): void {
  AggregatorRegistry.setRegistries([metrics.registry]);
  // Constructing one adds prom-client's listener for the primary's requests; that is all it is for here.
  void new AggregatorRegistry();
}

/** The SHA-256 of a text: equal-length buffers for a constant-time comparison whatever the lengths. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

const REALM = 'Bearer realm="fuelprice-metrics"';

/**
 * Counts every request Fastify answers (onResponse: after the answer is sent, its route pattern
 * or NO_ROUTE) and serves GET /metrics to `Authorization: Bearer <token>` only. The token is
 * compared by digest in constant time and never written anywhere.
 */
export function addMetrics(app: FastifyInstance, metrics: Metrics, token: string, fromPrimary?: () => Promise<string>): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request.routeOptions.url ?? NO_ROUTE, reply.statusCode, reply.elapsedTime / 1000, reply.statusCode === 503 ? unavailableReason(reply.raw) : undefined);
    done();
  });
  const expected = digest(token);
  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      throw new ApiError('unauthorized', 'Metrics need an Authorization header: Bearer <METRICS_TOKEN>.', { 'www-authenticate': REALM });
    }
    const given = BEARER.exec(header)?.[1];
    if (given === undefined || authorizationCount(request.raw.rawHeaders) !== 1 || !timingSafeEqual(digest(given), expected)) {
      throw new ApiError('invalid_token', 'The metrics token is wrong.', { 'www-authenticate': `${REALM}, error="invalid_token"` });
    }
    let text: string;
    try {
      text = fromPrimary ? await fromPrimary() : await metrics.registry.metrics();
    } catch (error) {
      request.log.warn({ err: error }, 'metrics: the workers\' sum could not be read');
      throw new ApiError('unavailable', 'The workers\' metrics could not be added up just now; try again.', { 'retry-after': '1' }, 'metrics');
    }
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(text);
  });
}
