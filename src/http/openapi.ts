import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { documentDocsRoot, documentDocsRoutes } from './routes/docs.ts';

/**
 * The OpenAPI document (/v1/openapi.json, built from the routes' schemas) and the docs page
 * (/docs). Registered before the routes, so that every route is in the document.
 */
export async function addOpenApi(app: FastifyInstance, dataNote: string): Promise<void> {
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
          dataNote,
        ].join('\n'),
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A token from `fuelprice tokens create`.' } } },
      tags: [{ name: 'Cities' }, { name: 'Stations' }, { name: 'Service' }, { name: 'Docs', description: 'The docs page (served by @fastify/swagger-ui).' }],
    },
    // Every route served is in the document, the docs page's own included (test/http/routes-documented.test.ts).
    transform: documentDocsRoutes,
    transformObject: documentDocsRoot,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => typeof json.$id === 'string' ? json.$id : `def-${i}` },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: true },
    // swagger-ui's policy, but never framed, and no upgrade-insecure-requests: served over plain HTTP, it would send the page's scripts to https and break it.
    transformStaticCSP: (policy) => policy.replace("frame-ancestors 'self'", "frame-ancestors 'none'").replace(/\s*upgrade-insecure-requests;?/, ''),
  });
}
