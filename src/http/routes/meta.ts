import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import { formatInstant } from '../../domain/time.ts';
import { feedStatus } from '../../ingest/health.ts';
import { ApiError } from '../errors/catalogue.ts';
import { sendJsonText } from '../representation/negotiation.ts';
import type { RateLimiter } from '../auth/rate-limits.ts';
import type { IngestStore } from '../../storage/store.ts';
import { type RouteDeps, commonResponses, methodNotAllowed, notModified } from './responses.ts';

const tags = ['Service'];

const ReadyBody = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')], {
    description: '`degraded`: storage is reachable and requests are served, but Redis is not (rate limits are counted per process until it returns) or a feed is stale.',
  }),
  backend: Type.String({ description: 'Storage backend: `sqlite` or `postgres`.' }),
  redis: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('unreachable')], {
    description: 'Only when REDIS_URL is set: whether the shared rate limits are reachable.',
  })),
  feeds: Type.Optional(Type.Array(Type.Object({
    feed: Type.String({ description: 'Feed id, as `fuelprice ingest` names it (`nsw`, `wa`, ...), or `demo` for the demo\'s simulated feed.' }),
    status: Type.Union([Type.Literal('ok'), Type.Literal('stale')], {
      description: '`stale`: no successful poll for three of the feed\'s intervals (at least an hour); prices are still served, but may be old.',
    }),
    last_success: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  }), { description: 'Only once feeds have run (`fuelprice ingest`): each feed\'s health. A stale feed makes the status `degraded`.' })),
}, { description: 'The process can serve: storage is reachable (`status` says whether it is degraded).' });

/** Feed health is read at most this often: probes may call /ready every second. */
const FEED_HEALTH_TTL_SEC = 10;

/** Probes and the API description: no token needed. */
export const metaRoutes: FastifyPluginAsyncTypebox<RouteDeps & { store: Pick<IngestStore, 'feedHealth'>; limiter?: RateLimiter }> = async (app, { store, clock, limiter }) => {
  app.get('/health', {
    schema: { summary: 'Process alive', tags, response: { 200: Type.Object({ status: Type.Literal('ok') }, { description: 'The process is alive.' }), ...commonResponses({ unavailable: false }) } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/ready', {
    schema: {
      summary: 'Storage reachable',
      description: '200 while the process can serve: storage reachable. With REDIS_URL set, `redis` says whether the shared rate limits are reachable; '
        + 'when they are not the answer is still 200 (the process serves correctly with per-process limits) with `status: "degraded"`. '
        + 'Once feeds have run, `feeds` gives each one\'s health; a stale feed also answers 200 with `status: "degraded"` (old prices beat no answer, '
        + 'and a load balancer should not take every replica out because a state\'s feed is down). 503 when storage is out of reach.',
      tags,
      response: { 200: ReadyBody, ...commonResponses() },
    },
  }, async () => {
    let feeds: Static<typeof ReadyBody>['feeds'];
    try {
      await store.ping();
      feeds = await feedHealth();
    } catch {
      throw new ApiError('unavailable', 'Storage is not reachable.', { 'retry-after': '5' }, 'storage');
    }
    const shared = limiter?.status?.();
    const degraded = shared === 'degraded' || (feeds ?? []).some((f) => f.status === 'stale');
    return {
      status: degraded ? 'degraded' as const : 'ready' as const,
      backend: store.backend,
      ...(shared === undefined ? {} : { redis: shared === 'ok' ? 'ok' as const : 'unreachable' as const }),
      ...(feeds === undefined ? {} : { feeds }),
    };
  });

  let cached: { at: number; feeds: Static<typeof ReadyBody>['feeds'] } | undefined;
  async function feedHealth(): Promise<Static<typeof ReadyBody>['feeds']> {
    const now = clock.now();
    if (cached && now >= cached.at && now - cached.at < FEED_HEALTH_TTL_SEC) return cached.feeds;
    const health = await store.feedHealth();
    const feeds = health.length === 0 ? undefined : health.map((h) => ({
      feed: h.feed, status: feedStatus(h, now),
      last_success: h.lastSuccess === undefined ? null : formatInstant(h.lastSuccess),
    }));
    cached = { at: now, feeds };
    return feeds;
  }

  app.get('/v1/openapi.json', {
    config: { public: true },
    schema: { summary: 'This API as an OpenAPI 3.1 document', tags, response: { 200: Type.Object({}, { additionalProperties: true, description: 'This document.' }), 304: notModified, ...commonResponses() } },
  }, async (_request, reply) => sendJsonText(reply, JSON.stringify(app.swagger())));

  for (const url of ['/health', '/ready']) methodNotAllowed(app, url);
  methodNotAllowed(app, '/v1/openapi.json', [], { public: true });
};
