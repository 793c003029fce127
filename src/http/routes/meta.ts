import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../errors.ts';
import { type RouteDeps, methodNotAllowed } from './route.ts';

const tags = ['Service'];

/** Probes and the API description: no token needed. */
export const metaRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store }) => {
  app.get('/health', {
    schema: { summary: 'Process alive', tags, response: { 200: Type.Object({ status: Type.Literal('ok') }) } },
  }, async () => ({ status: 'ok' as const }));

  app.get('/ready', {
    schema: {
      summary: 'Storage reachable', tags,
      response: { 200: Type.Object({ status: Type.Literal('ready'), backend: Type.String() }), 503: { $ref: 'Error#' } },
    },
  }, async () => {
    try {
      await store.ping();
    } catch {
      throw new ApiError('unavailable', 'Storage is not reachable.', { 'retry-after': '5' });
    }
    return { status: 'ready' as const, backend: store.backend };
  });

  app.get('/v1/openapi.json', {
    schema: { summary: 'This API as an OpenAPI 3.1 document', tags, response: { 200: Type.Object({}, { additionalProperties: true }) } },
  }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())));

  for (const url of ['/health', '/ready', '/v1/openapi.json']) methodNotAllowed(app, url);
};
