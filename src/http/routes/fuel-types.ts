import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { fuelTypes } from '../../domain/fuels.ts';
import { FuelTypesResponse } from '../../schemas/api.ts';
import { type RouteDeps, errorResponses, methodNotAllowed } from './responses.ts';

const tags = ['Fuel types'];
const security = [{ bearerAuth: [] }];

/** The fuel ids as a list: what every per-fuel array holds, in its order (domain/fuels.ts). */
export const fuelTypeRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app) => {
  const answer = { data: fuelTypes() };

  app.get('/v1/fuel-types', {
    schema: {
      summary: 'List fuel types',
      description: 'The 19 fuel ids in the order of every per-fuel array, each with a name, the unit of its prices and, for a combined fuel, the fuels it groups.',
      tags, security, response: { 200: FuelTypesResponse, ...errorResponses() },
    },
  }, async () => answer);

  methodNotAllowed(app, '/v1/fuel-types');
};
