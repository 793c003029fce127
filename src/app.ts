import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Clock } from './config.ts';
import { TokenCache, authenticate, authorizationCount, isPublicPath } from './http/auth.ts';
import { ApiError, ErrorBody, sendError, toApiError } from './http/errors.ts';
import { DEFAULT_RATE_LIMIT, MemoryRateLimiter, RATE_WINDOW_SEC, type RateLimiter, rateLimitHeaders } from './http/limits.ts';
import { PiecedBody, etagOf } from './http/body.ts';
import { ResponseCache, SingleFlight, clockBucket } from './http/cache.ts';
import { fastPath, stableHeaders } from './http/fast-path.ts';
import { HistoryBlocks } from './http/history-blocks.ts';
import {
  DEFAULT_LIMITS, type LoadGauge, type ServerLimits, REQUEST_ID, admission, clientErrorAnswer, drainIdleConnections, limitedServer,
  shedInFront,
} from './http/overload.ts';
import { strictQuery } from './http/params.ts';
import { lazySerializers } from './http/serializers.ts';
import { type TrustProxy, clientAddress, trustFunction } from './http/proxy.ts';
import { redactUrl } from './tokens.ts';
import { cityRoutes } from './http/routes/cities.ts';
import { documentDocsRoot, documentDocsRoutes } from './http/routes/docs.ts';
import { metaRoutes } from './http/routes/meta.ts';
import { stationRoutes } from './http/routes/stations.ts';
import { CitySchema, HistoryRecordSchema, StationSchema } from './schemas/api.ts';
import type { Logger } from './ingest/feed.ts';
import type { PriceStore } from './storage/store.ts';

export interface AppOptions {
  store: PriceStore;
  clock: Clock;
  logger?: FastifyServerOptions['logger'];
  rateLimiter?: RateLimiter;
  /** Requests per minute per token when the token sets none. */
  defaultRateLimit?: number;
  /** Seconds a client may cache a /v1 answer (Cache-Control max-age). */
  maxAgeSec?: number;
  /** Text shown on the docs page about where the data comes from. */
  dataNote?: string;
  /**
   * Keep each /v1 answer (its bytes and ETag) until the data version changes (and, for answers
   * that depend on the clock, for at most a minute). On by default; the benchmarks turn it off
   * to measure the uncached path.
   */
  responseCache?: boolean;
  /** Which X-Forwarded-For hops to believe for the client's address (TRUST_PROXY); none by default. */
  trustProxy?: TrustProxy;
  /** Load shedding (http/overload.ts): none when absent. Closed with the app. */
  loadGauge?: LoadGauge;
  /** The HTTP server's timeouts and limits; DEFAULT_LIMITS for any not given (tests shorten them). */
  limits?: Partial<ServerLimits>;
}

/**
 * Headers for a JSON API on every answer (the docs page gets its own CSP from swagger-ui).
 * No HSTS: this process does not terminate TLS; the proxy that does should send it.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

/** Response headers a browser script may read (CORS); also on answers made in front of Fastify. */
const EXPOSED_HEADERS = ['ETag', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'WWW-Authenticate'] as const;

/** What every answer carries: the security headers, and CORS's for a simple request (any origin; a preflight adds its own). */
const EVERY_ANSWER: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS, 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED_HEADERS.join(', '),
};

/** A request as the request log line shows it: Fastify's fields, with credentials in the URL blanked. */
interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, string | string[] | undefined>;
  socket?: { remotePort?: number };
}

/** Structured logs (pino); the Authorization header never reaches them. */
export function loggerOptions(level: string, stream?: { write(line: string): void }): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' },
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method, url: redactUrl(req.url ?? ''), version: headerText(req.headers?.['accept-version']), host: req.host,
        remoteAddress: req.ip, remotePort: req.socket?.remotePort,
      }),
    },
    ...(stream ? { stream } : {}),
  };
}

/** Builds the whole HTTP app; the server, the tests and the benchmarks all start here. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { store, clock } = options;
  const limiter = options.rateLimiter ?? new MemoryRateLimiter();
  const defaultLimit = options.defaultRateLimit ?? DEFAULT_RATE_LIMIT;
  const maxAge = options.maxAgeSec ?? 60;
  const cache = options.responseCache === false ? undefined : new ResponseCache();
  const tokens = new TokenCache(store);
  const trust = trustFunction(options.trustProxy ?? false);
  const dataVersions = new WeakMap<object, number>();

  // With the response cache and per-process limits, cached answers to known tokens are served in front of Fastify (http/fast-path.ts).
  let requestLog: Logger | undefined;
  const front = cache && limiter instanceof MemoryRateLimiter
    ? fastPath({
      store, clock, cache, tokens, limiter, defaultLimit, log: () => requestLog,
      address: (req) => clientAddress(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], trust),
    })
    : undefined;
  const limits: ServerLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const gauge = options.loadGauge;
  const shed = gauge && shedInFront(gauge, EVERY_ANSWER);
  const app = Fastify({
    // Our own server, so that its timeouts and limits are the ones chosen in http/overload.ts.
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => limitedServer(limits, (req, res) => {
      // The fast path leaves requests that declare a body to the full path (scanHeaders), which refuses them.
      if (front?.(req, res)) return;
      if (shed?.(req, res)) return;
      handler(req, res);
    }),
    clientErrorHandler: clientErrorAnswer(SECURITY_HEADERS, limits.maxHeaderBytes),
    // On close, requests still arriving on open connections are answered (with Connection: close), not given Fastify's own 503 body.
    return503OnClosing: false,
    logger: options.logger ?? false,
    // One trust function for Fastify's request.ip and the fast path (Fastify itself ignores a bare hop count).
    trustProxy: trust,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    },
    bodyLimit: 1024,
    ajv: { customOptions: { keywords: ['x-accepts'] } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers() } },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Errors the router raises before any hook runs: answered in the documented shape too.
    frameworkErrors: (error, request, reply) => {
      // Raised before any hook runs, so onRequest's and onSend's headers are set here.
      reply.header('x-request-id', request.id).header('cache-control', 'no-store').headers(SECURITY_HEADERS);
      const apiErr = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ApiError('not_found', 'No city or station has an id that long (200 characters at most).')
        : error.code === 'FST_ERR_BAD_URL'
          ? new ApiError('invalid_parameter', 'The URL is not valid: check its percent-encoding.')
          : toApiError(error, request);
      void sendError(reply, apiErr);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (options.logger) requestLog = app.log;
  if (gauge) {
    app.addHook('onListen', async () => gauge.restart?.());
    app.addHook('onClose', async () => gauge.close());
  }
  app.addHook('preClose', async () => { if (app.server.listening) drainIdleConnections(app.server); });

  app.addSchema(ErrorBody);
  app.addSchema(CitySchema);
  app.addSchema(StationSchema);
  app.addSchema(HistoryRecordSchema);

  // First of all hooks, so that answers made in hooks (CORS preflight, 401, 429) carry them too.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id).headers(EVERY_ANSWER);
    done();
  });

  // Preflight only: @fastify/cors in a scope of its own, where its hook runs for its OPTIONS
  // route alone. Every other answer has the same static CORS headers from the hook above: the
  // plugin's hook copied its options and joined the exposed headers on every request (2 to 3 us
  // of an uncached answer, bench/compare.ts). test/http/conventions.test.ts and
  // security-headers.test.ts check both kinds of answer.
  await app.register(async (preflight) => {
    await preflight.register(cors, {
      origin: '*',
      methods: ['GET', 'HEAD', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'If-None-Match', 'X-Request-Id'],
      exposedHeaders: [...EXPOSED_HEADERS],
      maxAge: 86_400,
      // Any OPTIONS gets the 204 and CORS headers; the strict default answers a bare OPTIONS with a text/plain 400 outside the error shape.
      strictPreflight: false,
    });
  });

  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    const refused = admission(request, limits.maxUrlLength);
    if (refused) throw refused;
    // The route the router chose, so that `/v1/openapi.json#x` or `/v1/%6Fpenapi.json` is as public as `/v1/openapi.json`.
    const path = request.routeOptions.url ?? request.url.split(/[?#]/, 1)[0] ?? '';
    let key: string | undefined;
    let limit = defaultLimit;
    let authError: ApiError | undefined;
    if (!isPublicPath(path)) {
      try {
        // One read gives the tokens version (for the token cache) and the data version (for the response cache);
        // on SQLite, and on PostgreSQL while the last reading may be reused, without waiting.
        const versions = store.versionsNow() ?? await store.versions();
        dataVersions.set(request, versions.data);
        const header = request.headers.authorization ?? '';
        // The very header a token has already passed with at this tokens version (compared in constant time,
        // as the fast path does) is not hashed and looked up again; any other goes through every check.
        let token = authorizationCount(request.raw.rawHeaders) === 1 ? tokens.passedBefore(versions.tokens, header, clock.now()) : undefined;
        if (!token) {
          token = await authenticate(request, store, clock, tokens.lookupAt(versions.tokens));
          tokens.passedWith(versions.tokens, token, header);
        }
        key = `token:${token.id}`;
        limit = token.rateLimit ?? defaultLimit;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        authError = error;
      }
    }
    key ??= `ip:${request.ip}`;
    // Per process, counted without a promise; a shared limiter (Redis) is waited for.
    const decision = limiter instanceof MemoryRateLimiter ? limiter.consumeNow(key, limit, Date.now()) : await limiter.consume(key, limit, Date.now());
    reply.headers(rateLimitHeaders(decision, RATE_WINDOW_SEC));
    if (!decision.allowed) {
      throw new ApiError('rate_limited', `Rate limit of ${decision.limit} requests a minute exceeded; retry in ${decision.resetSec} s.`, {
        'retry-after': String(decision.resetSec),
      });
    }
    if (authError) throw authError;
  });

  app.addHook('preValidation', strictQuery);

  // After auth, limits and validation: a cached answer skips the handler, the serialiser and the hash.
  const slots = new WeakMap<object, { key: string; version: number; bucket: number }>();
  // One answer worked out at a time per URL, data version and clock bucket: requests that miss
  // while the same answer is being worked out wait for it and take it from the cache, rather than
  // all reading storage at once (every cached answer misses together after each ingest batch).
  const misses = new SingleFlight();
  if (cache) {
    app.addHook('preHandler', async (request, reply) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || !request.url.startsWith('/v1/') || request.url.startsWith('/v1/openapi.json')) return;
      const version = dataVersions.get(request) ?? await store.dataVersion();
      const bucket = clockBucket(request.url, clock.now());
      let hit = cache.get(request.url, version, bucket);
      if (!hit) {
        const flight = `${version}\u0000${bucket}\u0000${request.url}`;
        // Waits only for a GET's answer: a HEAD's or an error's is not kept, and the waiter then works out its own.
        if (await misses.wait(flight)) hit = cache.get(request.url, version, bucket);
        if (!hit) {
          if (request.method === 'GET') misses.lead(flight, request);
          slots.set(request, { key: request.url, version, bucket });
          return;
        }
      }
      reply.header('etag', hit.etag).type('application/json; charset=utf-8');
      return reply.send(hit.body);
    });
    // A leader lands in onSend, its answer kept or not; these are for a request that ends without sending.
    app.addHook('onResponse', async (request) => misses.land(request));
    app.addHook('onRequestAbort', async (request) => misses.land(request));
  }

  app.addHook('onSend', async (request, reply, payload) => {
    // A string from the serialiser, a Buffer from a route or the cache (preHandler above), or a large answer's pieces (http/body.ts).
    const pieced = payload instanceof PiecedBody;
    if (reply.statusCode !== 200 || !request.url.startsWith('/v1/') || (typeof payload !== 'string' && !Buffer.isBuffer(payload) && !pieced)) {
      if (reply.statusCode >= 400) reply.header('cache-control', 'no-store');
      misses.land(request);
      return payload;
    }
    const known = reply.getHeader('etag');
    const etag = typeof known === 'string' ? known : etagOf(payload);
    reply.header('cache-control', `private, max-age=${maxAge}`);
    let body: string | Buffer | PiecedBody = payload;
    if (known === undefined) {
      reply.header('etag', etag);
      const slot = slots.get(request);
      if (cache && slot && request.method === 'GET') {
        // Kept joined: the cache and the fast path send one Buffer.
        if (body instanceof PiecedBody) body = body.joined();
        cache.set(slot.key, slot.version, slot.bucket, { body, etag, headers: stableHeaders(reply.getHeaders()) });
      }
    }
    misses.land(request);
    if (matchesEtag(request.headers['if-none-match'], etag)) {
      reply.code(304);
      return '';
    }
    // A stream's length is not worked out by Fastify: set here, HEAD's included.
    if (body instanceof PiecedBody) reply.header('content-length', String(body.length));
    return body;
  });

  app.setErrorHandler((error, request, reply) => {
    const apiErr = toApiError(error instanceof Error ? error : new Error(String(error)), request);
    if (apiErr.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, apiErr);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new ApiError('not_found', `No route ${request.method} ${request.url.split('?', 1)[0]?.slice(0, 200) ?? ''}.`)));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'fuelprice',
        version: '1.0.0',
        description: [
          'Australian fuel prices: cities, stations, daily history, today\'s spread and average, and stations out of stock,',
          'for all eight states and territories. Read-only; every /v1 route needs `Authorization: Bearer <token>`.',
          '',
          'Prices: station values in cents per litre (`ddd.d`), city values in dollars per litre (`d.dd`); `false` means no data.',
          options.dataNote ?? '',
        ].join('\n'),
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A token from `fuelprice tokens create`.' } } },
      tags: [{ name: 'Cities' }, { name: 'Stations' }, { name: 'Service' }, { name: 'Docs', description: 'The docs page (served by @fastify/swagger-ui).' }],
    },
    // Every route served is in the document, the docs page's own included (test/http/routes-documented.test.ts).
    transform: documentDocsRoutes,
    transformObject: documentDocsRoot,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true },
    // swagger-ui's policy, but never framed, and no upgrade-insecure-requests: served over plain HTTP, it would send the page's scripts to https and break it.
    transformStaticCSP: (policy) => policy.replace("frame-ancestors 'self'", "frame-ancestors 'none'").replace(/\s*upgrade-insecure-requests;?/, ''),
  });

  const deps = { store, clock };
  await app.register(metaRoutes, { ...deps, limiter });
  await app.register(cityRoutes, { ...deps, historyBlocks: new HistoryBlocks() });
  await app.register(stationRoutes, deps);
  return app;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
