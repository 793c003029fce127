import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DerivedAnswers } from '../../derived/derived-answers.ts';
import type { Static } from '@sinclair/typebox';
import type { AlongOrder } from '../../domain/along.ts';
import { alongEntries } from '../../domain/api-entries.ts';
import type { FuelId } from '../../domain/fuels.ts';
import { DEFAULT_CORRIDOR_KM, MAX_CORRIDOR_KM, MIN_CORRIDOR_KM, decodePolyline, sweepError } from '../../domain/route.ts';
import { ALONG_NUMERIC, AlongBodySchema, AlongQuerySchema, AlongResponse, CORRIDOR_ACCEPTS } from '../../schemas/along.ts';
import { ALONG_MAX_URL_LENGTH, MAX_POST_BODY_BYTES } from '../request/rules.ts';
import { bodyAsQuery } from './post-body.ts';
import { apiError } from '../errors/catalogue.ts';
import { envelope, pageWindow } from '../representation/pagination.ts';
import { fillQuery, freshSince } from './query.ts';
import { type RouteDeps, errorResponses, methodNotAllowed } from './responses.ts';

/** The corridor in km, default 2; a 400 naming it outside 0.1 to 20 (its syntax the schema's pattern checks). */
function corridorQuery(text: string | undefined): number {
  if (text === undefined) return DEFAULT_CORRIDOR_KM;
  const km = Number(text);
  return km >= MIN_CORRIDOR_KM && km <= MAX_CORRIDOR_KM ? km : apiError('invalid_parameter', `Parameter 'corridor' ${CORRIDOR_ACCEPTS}.`);
}

/** GET /v1/prices/along: the stations selling a fuel within a corridor of a route (domain/route.ts, domain/along.ts, read-models/along.ts). */
export const alongRoutes: FastifyPluginAsyncTypebox<RouteDeps & { derived: DerivedAnswers }> = async (app, { clock, derived }) => {
  const description = 'The stations with an available price of the fuel within the corridor of the path (an encoded polyline, as routing engines return it), '
    + 'each with its distance to the path, how far along the path it is first passed and the detour there and back; cheapest first (order=along: from the start; '
    + 'order=net_cost: by the net cost of a fill, litres and consumption given); paginated. One item per station: for a combined id, its lowest member price.';
  const answer = async (query: Static<typeof AlongQuerySchema>) => {
    const points = decodePolyline(query.path);
    if ('error' in points) apiError('invalid_parameter', `Parameter 'path' ${points.error}.`);
    const sweep = sweepError(points);
    if (sweep !== undefined) apiError('invalid_parameter', `Parameter 'path' ${sweep}.`);
    const corridorKm = corridorQuery(query.corridor);
    const fill = fillQuery(query);
    const window = pageWindow(query);
    const now = clock.now();
    const since = freshSince(now, query.max_age);
    // A search, on the search worker (src/derived/search-answers.ts, docs/DERIVED.md): the corridor is measured there.
    const page = await derived.get('along', {
      fuel: query.fuel as FuelId, points, corridorKm, order: (query.order ?? 'price') as AlongOrder, limit: window.limit, offset: window.offset, fill, since,
    }, now);
    return envelope(alongEntries(page.items, page.stations), page.total, window);
  };
  app.get('/v1/prices/along', {
    config: { maxUrl: ALONG_MAX_URL_LENGTH }, // the route's polyline rides in the URL
    schema: {
      summary: 'Stations selling a fuel along a route', description,
      tags: ['Prices'], security: [{ bearerAuth: [] }], querystring: AlongQuerySchema, response: { 200: AlongResponse, ...errorResponses() },
    },
  }, async (request) => answer(request.query));
  // The same with the parameters in a JSON body (a route too long for a URL): the GET's answer, byte for byte (post-body.ts).
  app.post('/v1/prices/along', {
    bodyLimit: MAX_POST_BODY_BYTES,
    config: { maxBody: MAX_POST_BODY_BYTES },
    schema: {
      summary: 'Stations selling a fuel along a route (parameters in the body)',
      description: `${description} As GET /v1/prices/along, with its parameters as a JSON object in the body (for a route whose polyline a URL cannot carry; `
        + `body at most ${MAX_POST_BODY_BYTES} bytes): the same answer, byte for byte, the same 400s, one request against the rate limit; not cached.`,
      tags: ['Prices'], security: [{ bearerAuth: [] }], body: AlongBodySchema, querystring: AlongQuerySchema, response: { 200: AlongResponse, ...errorResponses() },
    },
    preValidation: bodyAsQuery(AlongQuerySchema.properties, ALONG_NUMERIC),
  }, async (request) => answer(request.query));

  methodNotAllowed(app, '/v1/prices/along', ['POST']);
};
