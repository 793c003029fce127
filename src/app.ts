import { createHash } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Clock } from './config.ts';
import { TokenCache, authenticate, isPublicPath } from './http/auth.ts';
import { ApiError, ErrorBody, sendError, toApiError } from './http/errors.ts';
import { DEFAULT_RATE_LIMIT, MemoryRateLimiter, RATE_WINDOW_SEC, type RateLimiter, rateLimitHeaders } from './http/limits.ts';
import { ResponseCache, clockBucket } from './http/cache.ts';
import { REQUEST_ID, fastPath, stableHeaders } from './http/fast-path.ts';
import { strictQuery } from './http/params.ts';
import { cityRoutes } from './http/routes/cities.ts';
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
}

/** Structured logs (pino); the Authorization header never reaches them. */
export function loggerOptions(level: string, stream?: { write(line: string): void }): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' },
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
  const dataVersions = new WeakMap<object, number>();

  // With the response cache and per-process limits, cached answers to known tokens are served in front of Fastify (http/fast-path.ts).
  let requestLog: Logger | undefined;
  const front = cache && limiter instanceof MemoryRateLimiter
    ? fastPath({ store, clock, cache, tokens, limiter, defaultLimit, log: () => requestLog })
    : undefined;
  const app = Fastify({
    ...(front ? {
      serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => createServer((req, res) => {
        if (!front(req, res)) handler(req, res);
      }),
    } : {}),
    logger: options.logger ?? false,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    },
    bodyLimit: 1024,
    ajv: { customOptions: { keywords: ['x-accepts'] } },
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Errors the router raises before any hook runs: answered in the documented shape too.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      const apiErr = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ApiError('not_found', 'No city or station has an id that long (200 characters at most).')
        : error.code === 'FST_ERR_BAD_URL'
          ? new ApiError('invalid_parameter', 'The URL is not valid: check its percent-encoding.')
          : toApiError(error, request);
      void sendError(reply, apiErr);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (options.logger) requestLog = app.log;

  app.addSchema(ErrorBody);
  app.addSchema(CitySchema);
  app.addSchema(StationSchema);
  app.addSchema(HistoryRecordSchema);

  await app.register(cors, {
    origin: '*',
    methods: ['GET', 'HEAD', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'If-None-Match', 'X-Request-Id'],
    exposedHeaders: ['ETag', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id', 'WWW-Authenticate'],
    maxAge: 86_400,
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    if (request.method === 'OPTIONS') return;
    const path = request.url.split('?', 1)[0] ?? '';
    let key = `ip:${request.ip}`;
    let limit = defaultLimit;
    let authError: ApiError | undefined;
    if (!isPublicPath(path)) {
      try {
        // One read gives the tokens version (for the token cache) and the data version (for the response cache).
        const versions = await store.versions();
        dataVersions.set(request, versions.data);
        const token = await authenticate(request, store, clock, tokens.lookupAt(versions.tokens));
        key = `token:${token.id}`;
        limit = token.rateLimit ?? defaultLimit;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        authError = error;
      }
    }
    const decision = await limiter.consume(key, limit, Date.now());
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
  if (cache) {
    app.addHook('preHandler', async (request, reply) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || !request.url.startsWith('/v1/') || request.url.startsWith('/v1/openapi.json')) return;
      const version = dataVersions.get(request) ?? await store.dataVersion();
      const bucket = clockBucket(request.url, clock.now());
      const hit = cache.get(request.url, version, bucket);
      if (!hit) {
        slots.set(request, { key: request.url, version, bucket });
        return;
      }
      reply.header('etag', hit.etag).type('application/json; charset=utf-8');
      return reply.send(hit.body);
    });
  }

  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 200 || !request.url.startsWith('/v1/') || typeof payload !== 'string') {
      if (reply.statusCode >= 400) reply.header('cache-control', 'no-store');
      return payload;
    }
    const known = reply.getHeader('etag');
    const etag = typeof known === 'string' ? known : `"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
    reply.header('cache-control', `private, max-age=${maxAge}`);
    if (known === undefined) {
      reply.header('etag', etag);
      const slot = slots.get(request);
      if (cache && slot && request.method === 'GET') {
        cache.set(slot.key, slot.version, slot.bucket, { body: payload, etag, headers: stableHeaders(reply.getHeaders()) });
      }
    }
    if (matchesEtag(request.headers['if-none-match'], etag)) {
      reply.code(304);
      return '';
    }
    return payload;
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
      tags: [{ name: 'Cities' }, { name: 'Stations' }, { name: 'Service' }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true } });

  const deps = { store, clock };
  await app.register(metaRoutes, { ...deps, limiter });
  await app.register(cityRoutes, deps);
  await app.register(stationRoutes, deps);
  return app;
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
