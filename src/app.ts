import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import { type Clock, OSM_TILES, type TileConfig, type TrustProxy } from './config.ts';
import { addAnswerCache } from './http/cache/answer-cache.ts';
import { DEFAULT_CACHE_LIMITS, AnswerStore } from './http/cache/answer-store.ts';
import { EVERY_ANSWER, SECURITY_HEADERS, answerHeaders } from './http/request/headers.ts';
import { TokenCache } from './http/auth/token-cache.ts';
import { ErrorBody } from './http/errors/catalogue.ts';
import { addErrorHandlers } from './http/errors/handlers.ts';
import { fastPath } from './http/cache/fast-path.ts';
import type pino from 'pino';
import type { IncomingMessage } from 'node:http';
import { type AccessLog, accessLog, frontAnswerLog } from './http/server/request-log.ts';
import { unavailableReason } from './http/errors/unavailable.ts';
import { parseQueryString } from './http/request/query-string.ts';
import { StationTexts } from './http/cache/station-texts.ts';
import { DEFAULT_RATE_LIMIT, MemoryRateLimiter, type RateLimiter, countsInProcess } from './http/auth/rate-limits.ts';
import { type LoadGauge, shedInFront } from './http/server/load-shedding.ts';
import { addOpenApi } from './http/routes/openapi.ts';
import { strictQuery } from './http/routes/query.ts';
import { clientAddress, trustFunction } from './http/server/client-address.ts';
import { brandRoutes } from './http/routes/brands.ts';
import { cityRoutes } from './http/routes/cities.ts';
import { dashboardRoutes } from './http/routes/dashboard.ts';
import { fuelTypeRoutes } from './http/routes/fuel-types.ts';
import { metaRoutes } from './http/routes/meta.ts';
import { stationRoutes } from './http/routes/stations.ts';
import { priceRoutes } from './http/routes/prices.ts';
import { alongRoutes } from './http/routes/along.ts';
import { changeRoutes } from './http/routes/changes.ts';
import { ChangeWatcher } from './http/server/change-watcher.ts';
import { lazySerializers } from './http/representation/serializers.ts';
import { DEFAULT_LIMITS, type ServerLimits, clientErrorAnswer, drainIdleConnections, limitedServer } from './http/server/server-limits.ts';
import { frameworkError, requestHooks } from './http/request/hooks.ts';
import { REQUEST_ID_HEADER, RequestRules, requestIdOf } from './http/request/rules.ts';
import { CitySchema, HistoryRecordSchema, StationSchema } from './schemas/api.ts';
import type { PriceStore } from './storage/store.ts';
import { DerivedAnswers } from './derived/derived-answers.ts';
import { ReadModels } from './read-models/read-models.ts';

export interface AppOptions {
  store: PriceStore;
  clock: Clock;
  logger?: FastifyServerOptions['logger'];
  rateLimiter?: RateLimiter;
  defaultRateLimit?: number; // requests a minute per token that sets none
  maxAgeSec?: number; // Cache-Control max-age of a /v1 answer
  dataNote?: string; // where the data comes from, on the docs page
  answerCache?: boolean; // keep /v1 answers until the data changes (http/cache/answer-cache.ts); on by default
  trustProxy?: TrustProxy; // which X-Forwarded-For hops to believe (TRUST_PROXY); none by default
  loadGauge?: LoadGauge; // load shedding (http/server/load-shedding.ts), closed with the app; none when absent
  limits?: Partial<ServerLimits>; // the server's timeouts and caps; DEFAULT_LIMITS for any not given
  metricsToken?: string; // GET /metrics to this bearer token (METRICS_TOKEN, http/server/metrics.ts); no /metrics without it
  metricsFromPrimary?: () => Promise<string>; // a worker of `serve --workers N`: /metrics answers every worker's, added up by the primary
  tiles?: TileConfig | null; // the dashboard map's tile server (TILE_URL): OpenStreetMap's when absent, none with null
  maxChangeWaiters?: number; // requests waiting on /v1/prices/changes (wait=N, event streams) at once; DEFAULT_MAX_WAITERS when absent
  derived?: DerivedAnswers; // derived answers (src/derived/, docs/DERIVED.md), closed with the app; one on the store's own worker thread when absent
}

/** Builds the whole HTTP app; the server, the tests and the benchmarks all start here. Wiring only. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { store, clock } = options;
  const limiter = options.rateLimiter ?? new MemoryRateLimiter();
  const defaultLimit = options.defaultRateLimit ?? DEFAULT_RATE_LIMIT;
  // The fast path (below) answers only where the limit is counted in this process; only it sends an answer's text.
  const fast = countsInProcess(limiter);
  const cache = options.answerCache === false ? undefined : new AnswerStore(DEFAULT_CACHE_LIMITS, fast);
  const gauge = options.loadGauge;
  // prom-client is loaded only when metrics are on (METRICS_TOKEN).
  const metricsModule = options.metricsToken ? await import('./http/server/metrics.ts') : undefined;
  const metrics = metricsModule && new metricsModule.Metrics({ store, clock, cache, loadGauge: gauge });
  // The one set of request rules (headers aside): both the fast path and Fastify's hooks call it.
  const rules = new RequestRules({ store, clock, tokens: new TokenCache(store), limiter, defaultLimit });
  const trust = trustFunction(options.trustProxy ?? false);
  const limits: ServerLimits = { ...DEFAULT_LIMITS, ...options.limits };
  let requestLog: AccessLog | undefined;
  // Without a trusted proxy the peer is the client, and req.headers (a fifth of the fast path) is never built.
  const address = trust
    ? (req: IncomingMessage) => clientAddress(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], trust)
    : (req: IncomingMessage) => req.socket.remoteAddress ?? '';
  // Every shed request given its access line and counted, with its reason, like any other 503.
  const shedding = gauge && shedInFront(gauge, EVERY_ANSWER, frontAnswerLog(() => requestLog, address));
  const shed = shedding && metrics ? metrics.countShed(shedding) : shedding;
  // Cached answers to tokens seen before, within a limit counted in this process, are sent in front of Fastify.
  // The front's access lines go to the app's log (as Fastify's hook writes them), with the address as Fastify's request.ip gives it.
  const hitLog = { log: () => requestLog, address };
  const front = cache && fast ? fastPath({
    rules, cache, hitLog,
    answered: metrics && ((route, startedMs) => metrics.fastAnswer(route, startedMs)),
  }) : undefined;

  const app = Fastify({
    // Our own server, so that its timeouts and limits are the ones chosen in http/server/server-limits.ts.
    // The fast path leaves requests that declare a body to the full path, which refuses them.
    serverFactory: (handler) => limitedServer(limits, (req, res) => front?.(req, res) || shed?.(req, res) || handler(req, res)),
    clientErrorHandler: clientErrorAnswer(SECURITY_HEADERS, limits.maxHeaderBytes),
    // On close, requests still arriving on open connections are answered (with Connection: close), not given Fastify's own 503 body.
    return503OnClosing: false,
    logger: options.logger ?? false,
    // One access line a request, written by our own hook (both paths alike: http/server/request-log.ts), not Fastify's pair.
    logController: new LogController({ disableRequestLogging: true }),
    // One trust function for Fastify's request.ip and the fast path (Fastify itself ignores a bare hop count).
    trustProxy: trust,
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers[REQUEST_ID_HEADER]),
    bodyLimit: 1024,
    ajv: { customOptions: { keywords: ['x-accepts'] } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers() } },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200, querystringParser: (query) => (query.length === 0 ? {} : parseQueryString(query)) },
    frameworkErrors: frameworkError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (options.logger) {
    const logAccess = accessLog(app.log as unknown as pino.Logger);
    requestLog = logAccess;
    app.addHook('onResponse', (request, reply, done) => {
      const length = reply.getHeader('content-length');
      logAccess({
        reqId: request.id, method: request.method, url: request.url, route: request.routeOptions.url, status: reply.statusCode,
        reason: reply.statusCode === 503 ? unavailableReason(reply.raw) : undefined,
        bytes: length === undefined ? undefined : Number(length), ms: reply.elapsedTime, token: request.tokenId ?? undefined, ip: request.ip,
      });
      done();
    });
  }
  if (gauge) app.addHook('onListen', async () => gauge.restart?.()).addHook('onClose', async () => gauge.close());
  // One watcher of new changes per process (http/server/change-watcher.ts); closed first, so that waiting requests answer and streams end.
  const watcher = new ChangeWatcher(() => store.lastChange(), options.maxChangeWaiters);
  app.addHook('preClose', async () => { watcher.close(); });
  app.addHook('preClose', async () => { if (app.server.listening) drainIdleConnections(app.server); });
  for (const schema of [ErrorBody, CitySchema, StationSchema, HistoryRecordSchema]) app.addSchema(schema);

  // In this order: headers first (answers made in hooks carry them), then auth and limits,
  // parameter checks, and the answer cache around the handler.
  await app.register(answerHeaders);
  await app.register(requestHooks, { rules, store, maxUrlLength: limits.maxUrlLength });
  app.addHook('preValidation', strictQuery);
  addAnswerCache(app, { rules, cache, maxAgeSec: options.maxAgeSec ?? 60, counts: metrics });
  addErrorHandlers(app);
  await addOpenApi(app, options.dataNote ?? '');
  if (metricsModule && metrics && options.metricsToken) {
    if (options.metricsFromPrimary) metricsModule.shareWithPrimary(metrics);
    metricsModule.addMetrics(app, metrics, options.metricsToken, options.metricsFromPrimary);
  }

  const deps = { store, clock };
  await app.register(metaRoutes, { ...deps, limiter });
  // Costly answers (a city's cycle) are worked out on a worker thread and kept per data version, searches (cheapest,
  // along) on a second one (src/derived/).
  const derived = options.derived ?? new DerivedAnswers(store, clock);
  app.addHook('onClose', async () => derived.close());
  // The serving thread's read models (src/read-models/registry.ts: the held prices of spreads, averages and station prices).
  const models = new ReadModels(store);
  await app.register(cityRoutes, { ...deps, derived, models });
  await app.register(stationRoutes, { ...deps, stationTexts: new StationTexts(), derived, models });
  await app.register(priceRoutes, { ...deps, derived });
  await app.register(alongRoutes, { ...deps, derived });
  await app.register(changeRoutes, { ...deps, watcher });
  await app.register(fuelTypeRoutes, deps);
  await app.register(brandRoutes, deps);
  await app.register(dashboardRoutes, { tiles: options.tiles === undefined ? OSM_TILES : options.tiles });
  return app;
}
