import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../errors.ts';
import type { RateLimiter } from '../limits.ts';
import { type RouteDeps, methodNotAllowed } from './route.ts';

const tags = ['Service'];

const ReadyBody = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')], {
    description: '`degraded`: storage is reachable and requests are served, but Redis is not, so rate limits are counted per process until it returns.',
  }),
  backend: Type.String({ description: 'Storage backend: `sqlite` or `postgres`.' }),
  redis: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('unreachable')], {
    description: 'Only when REDIS_URL is set: whether the shared rate limits are reachable.',
  })),
});

/** Probes and the API description: no token needed. */
export const metaRoutes: FastifyPluginAsyncTypebox<RouteDeps & { limiter?: RateLimiter }> = async (app, { store, limiter }) => {
  app.get('/health', {
    schema: { summary: 'Process alive', tags, response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/ready', {
    schema: {
      summary: 'Storage reachable',
      description: '200 while the process can serve: storage reachable. With REDIS_URL set, `redis` says whether the shared rate limits are reachable; '
        + 'when they are not the answer is still 200 (the process serves correctly with per-process limits) with `status: "degraded"`. 503 when storage is out of reach.',
      tags,
      response: { 200: ReadyBody, 503: { $ref: 'Error#' } },
    },
  }, async () => {
    try {
      await store.ping();
    } catch {
      throw new ApiError('unavailable', 'Storage is not reachable.', { 'retry-after': '5' });
    }
    const shared = limiter?.status?.();
    if (shared === undefined) return { status: 'ready' as const, backend: store.backend };
    return shared === 'ok'
      ? { status: 'ready' as const, backend: store.backend, redis: 'ok' as const }
      : { status: 'degraded' as const, backend: store.backend, redis: 'unreachable' as const };
  });

  app.get('/v1/openapi.json', {
    schema: { summary: 'This API as an OpenAPI 3.1 document', tags, response: { 200: Type.Object({}, { additionalProperties: true }) } },
  }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())));

  for (const url of ['/health', '/ready', '/v1/openapi.json']) methodNotAllowed(app, url);
};
