import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { isPublic } from '../request/policy.ts';
import { DOCS_THEME, documentDocsPage } from './docs.ts';

/** The project's licence (package.json, README "Licence"), as an SPDX identifier. */
export const LICENCE = 'MIT';

/** The title of the docs page (/docs). */
export const DOCS_TITLE = 'fuelprice API';

/**
 * Each operation's operationId (the name a generated client gives its method), by the route's
 * URL as Fastify writes it; every route here is a GET. A route missing from the table gets one
 * made from its URL (operationIdOf).
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  '/health': 'getHealth',
  '/ready': 'getReadiness',
  '/v1/openapi.json': 'getOpenApiDocument',
  '/docs': 'getDocsPage',
  '/v1/cities': 'listCities',
  '/v1/cities/:id': 'getCity',
  '/v1/cities/:id/history': 'getCityHistory',
  '/v1/cities/:id/cycle': 'getCityCycle',
  '/v1/cities/:id/unavailable': 'getCityUnavailable',
  '/v1/cities/:id/spread': 'getCitySpread',
  '/v1/cities/:id/average': 'getCityAverage',
  '/v1/stations': 'listStations',
  '/v1/stations/:id': 'getStation',
  '/v1/stations/:id/history': 'getStationHistory',
  '/v1/stations/:id/prices': 'getStationPrices',
  '/v1/stations/prices': 'getStationsPrices',
  '/v1/prices': 'getPriceSummary',
  '/v1/prices/cheapest': 'listCheapestStations',
  '/v1/prices/along': 'listStationsAlongRoute',
  '/v1/prices/changes': 'listPriceChanges',
  '/v1/fuel-types': 'listFuelTypes',
  '/v1/brands': 'listBrands',
};

/** A GET's operationId from the table, else the method and the URL's words: GET /v1/some-thing/:id/more -> getSomeThingMore. */
export function operationIdOf(method: string, url: string): string {
  const listed = method === 'GET' ? OPERATION_IDS[url] : undefined;
  if (listed !== undefined) return listed;
  const words = url.split('/').filter((segment) => segment !== 'v1' && !segment.startsWith(':')).flatMap((segment) => segment.split(/[^A-Za-z0-9]+/));
  return method.toLowerCase() + words.filter((word) => word !== '').map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
}

/**
 * @fastify/swagger's `transform`, for every route shown: the docs page as GET /docs, and what
 * each operation may leave out filled in from one place: its operationId, and its security as
 * the auth hook applies it (none on the public routes, request/policy.ts; the bearer token on the others). A POST
 * form is shown with its body only (its GET's query schema is how the body is checked).
 */
function documentRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }): { schema: FastifySchema; url: string } {
  const shown = documentDocsPage({ schema, url });
  if (!shown.schema || shown.schema.hide) return shown;
  const method = Array.isArray(route.method) ? route.method.join(',') : route.method;
  // A POST form (routes/post-body.ts) checks its body as the GET's query, which is its own schema's querystring: shown as the body alone.
  const { querystring, ...rest } = shown.schema;
  return {
    url: shown.url,
    schema: {
      ...(method === 'POST' ? rest : { ...rest, ...(querystring === undefined ? {} : { querystring }) }),
      operationId: shown.schema.operationId ?? operationIdOf(method, shown.url),
      security: shown.schema.security ?? (isPublic(route.config ?? {}, shown.url) ? [] : [{ bearerAuth: [] }]),
    },
  };
}

/** The sha256 of the inline <style> element swagger-ui's bundle inserts when the page loads (Chromium reports it when blocked). */
const SWAGGER_UI_STYLE_HASH = 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w=';

/**
 * The OpenAPI document (/v1/openapi.json, built from the routes' schemas) and the docs page
 * (/docs). Registered before the routes, so that every route is in the document. The document
 * lints clean with Redocly's recommended rules (test/http/routes/openapi-lint.test.ts, docs/OPENAPI.md).
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
        license: { name: LICENCE, identifier: LICENCE },
      },
      // Relative: the origin that served this document, wherever the server runs.
      servers: [{ url: '/', description: 'The server that served this document.' }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A token from `fuelprice tokens create`.' } } },
      tags: [
        { name: 'Cities', description: 'Cities: their details, daily history, price cycle, and today\'s spread, average and stations out of stock.' },
        { name: 'Stations', description: 'Stations: lists and searches, details, current prices and daily history.' },
        { name: 'Prices', description: 'Prices across stations: the summary of the nation, a state or a city, and the cheapest stations.' },
        { name: 'Fuel types', description: 'The fuel ids every per-fuel list follows.' },
        { name: 'Brands', description: 'The brands of the stations.' },
        { name: 'Service', description: 'Probes and this document; no token needed.' },
        { name: 'Docs', description: 'The docs page; no token needed.' },
      ],
    },
    transform: documentRoute,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => typeof json.$id === 'string' ? json.$id : `def-${i}` },
  });
  await app.register(swaggerUi, {
    // No deep links: swagger-ui puts each as a link inside the operation's button, which axe-core counts as a serious fault (nested-interactive).
    routePrefix: '/docs', staticCSP: true, uiConfig: { deepLinking: false }, theme: { title: DOCS_TITLE, ...DOCS_THEME },
    // swagger-ui's policy, but never framed, and no upgrade-insecure-requests: served over plain HTTP, it would send the page's scripts to https and break it.
    // The one <style> element swagger-ui's bundle (React) adds is allowed by its hash, so that every load is free of a CSP violation
    // (test/browser/dashboard.test.ts loads /docs and fails on one; a swagger-ui update that changes it shows there).
    transformStaticCSP: (policy) => policy.replace("frame-ancestors 'self'", "frame-ancestors 'none'").replace(/\s*upgrade-insecure-requests;?/, '')
      .replace(/style-src ([^;]*?)\s*;/, `style-src $1 '${SWAGGER_UI_STYLE_HASH}';`),
  });
}
