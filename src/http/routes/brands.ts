import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { StateId } from '../../domain/states.ts';
import { BrandListResponse, ListQuerySchema } from '../../schemas/api.ts';
import { BRAND_COLUMNS, csvText, pageHeaders } from '../csv.ts';
import { envelope, pageWindow } from '../pagination.ts';
import { negotiateRepresentation, sendCsv, wantsCsv } from '../representation.ts';
import { type RouteDeps, errorResponses, jsonOrCsv, methodNotAllowed } from './responses.ts';

const tags = ['Brands'];
const security = [{ bearerAuth: [] }];

export const brandRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store }) => {
  app.get('/v1/brands', {
    schema: {
      summary: 'List brands',
      description: 'Brands ordered by id (the slug of the brand name), with their station counts, paginated. Stations without a brand name belong to no brand.',
      tags, security, querystring: ListQuerySchema,
      response: { 200: jsonOrCsv(BrandListResponse, { rows: 'one row per brand', example: 'id,name,station_count\r\n7-eleven,7-Eleven,14\r\n' }), ...errorResponses(406) },
    },
    preValidation: negotiateRepresentation,
  }, async (request, reply) => {
    const window = pageWindow(request.query);
    const page = await store.listBrands({ state: request.query.state as StateId | undefined, limit: window.limit, offset: window.offset });
    const items = page.items.map((b) => ({ id: b.id, name: b.name, station_count: b.stationCount }));
    if (!wantsCsv(request)) return envelope(items, page.total, window);
    return sendCsv(reply, csvText(BRAND_COLUMNS, items), `brands-page-${window.currentPage}.csv`, pageHeaders(request.url, window, page.total));
  });

  methodNotAllowed(app, '/v1/brands');
};
