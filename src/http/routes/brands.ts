import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { StateId } from '../../domain/states.ts';
import { BrandListResponse } from '../../schemas/api.ts';
import { ListQuerySchema } from '../../schemas/queries.ts';
import { BRAND_COLUMNS } from '../representation/csv.ts';
import { pageWindow } from '../representation/pagination.ts';
import { negotiateRepresentation, pageAnswer } from '../representation/negotiation.ts';
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
    return pageAnswer(request, reply, { items, total: page.total, window }, { columns: BRAND_COLUMNS, name: 'brands' });
  });

  methodNotAllowed(app, '/v1/brands');
};
