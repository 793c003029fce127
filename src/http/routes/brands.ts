import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { StateId } from '../../domain/states.ts';
import { BrandListResponse, ListQuerySchema } from '../../schemas/api.ts';
import { envelope, pageWindow } from '../pagination.ts';
import { type RouteDeps, errorResponses, methodNotAllowed } from './responses.ts';

const tags = ['Brands'];
const security = [{ bearerAuth: [] }];

export const brandRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { store }) => {
  app.get('/v1/brands', {
    schema: {
      summary: 'List brands',
      description: 'Brands ordered by id (the slug of the brand name), with their station counts, paginated. Stations without a brand name belong to no brand.',
      tags, security, querystring: ListQuerySchema, response: { 200: BrandListResponse, ...errorResponses() },
    },
  }, async (request) => {
    const window = pageWindow(request.query);
    const page = await store.listBrands({ state: request.query.state as StateId | undefined, limit: window.limit, offset: window.offset });
    return envelope(page.items.map((b) => ({ id: b.id, name: b.name, station_count: b.stationCount })), page.total, window);
  });

  methodNotAllowed(app, '/v1/brands');
};
