import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { fuelTypes } from '../../domain/fuels.ts';
import { FuelTypesResponse } from '../../schemas/api.ts';
import { FormatQuerySchema } from '../../schemas/queries.ts';
import { FUEL_TYPE_COLUMNS, csvText } from '../representation/csv.ts';
import { negotiateRepresentation, sendCsv, wantsCsv } from '../representation/negotiation.ts';
import { type RouteDeps, errorResponses, jsonOrCsv, methodNotAllowed } from './responses.ts';

const tags = ['Fuel types'];
const security = [{ bearerAuth: [] }];
const FUEL_TYPES_CSV = 'id,name,unit,combined_of\r\ne10,E10,c/L,\r\nulp-combined,Unleaded 91 and E10,c/L,ulp91 e10\r\n';

/** The fuel ids as a list: what every per-fuel array holds, in its order (domain/fuels.ts). */
export const fuelTypeRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app) => {
  const answer = { data: fuelTypes() };
  const csv = csvText(FUEL_TYPE_COLUMNS, answer.data);

  app.get('/v1/fuel-types', {
    schema: {
      summary: 'List fuel types',
      description: 'The 19 fuel ids in the order of every per-fuel array, each with a name, the unit of its prices and, for a combined fuel, the fuels it groups.',
      tags, security, querystring: FormatQuerySchema,
      response: { 200: jsonOrCsv(FuelTypesResponse, { rows: 'one row per fuel (combined_of: the ids it groups, separated by spaces)', example: FUEL_TYPES_CSV }), ...errorResponses(406) },
    },
    preValidation: negotiateRepresentation,
  }, async (request, reply) => (wantsCsv(request) ? sendCsv(reply, csv, 'fuel-types.csv') : answer));

  methodNotAllowed(app, '/v1/fuel-types');
};
