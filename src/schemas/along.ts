import { Type } from '@sinclair/typebox';
import { FUELS } from '../domain/fuels.ts';
import { DEFAULT_CORRIDOR_KM, MAX_CORRIDOR_KM, MAX_PATH_POINTS, MAX_PATH_SWEEP_DEGREES, MIN_CORRIDOR_KM } from '../domain/route.ts';
import { CheapestItemSchema } from './api.ts';
import { ListQuerySchema, maxAgeParameter } from './queries.ts';
import { NetCostSchema, fillParameters } from './fill.ts';
import { bodySchemaOf } from './body.ts';

/**
 * /v1/prices/along (domain/along.ts): the one source for its validation, serialisation and the
 * OpenAPI document. The fill parameters it shares with /v1/prices/cheapest are in fill.ts.
 */

/** The longest `path` taken, in characters: the URL it rides in may be at most ALONG_MAX_URL_LENGTH (http/request/rules.ts). */
export const MAX_PATH_CHARACTERS = 7_000;

export const PATH_ACCEPTS = `must be an encoded polyline (precision 5) of 2 to ${MAX_PATH_POINTS} points, at most ${MAX_PATH_CHARACTERS} characters`;
export const CORRIDOR_ACCEPTS = `must be a distance in km from ${MIN_CORRIDOR_KM} to ${MAX_CORRIDOR_KM}, at most 3 decimals, e.g. 2`;
export const AlongQuerySchema = Type.Object({
  fuel: Type.String({
    enum: [...FUELS], 'x-accepts': `must be one of ${FUELS.join(', ')}`,
    description: 'The fuel (required; case-insensitive): the stations with an available current price of it (a combined id: the lowest of its members\').',
  }),
  path: Type.String({
    maxLength: MAX_PATH_CHARACTERS, 'x-accepts': PATH_ACCEPTS,
    description: `The route as an encoded polyline of precision 5 (what OSRM, Valhalla and Google return): 2 to ${MAX_PATH_POINTS} points, `
      + `at most ${MAX_PATH_CHARACTERS} characters (percent-encoded in the URL, which may be at most 8,192 characters), sweeping at most `
      + `${MAX_PATH_SWEEP_DEGREES} degrees (over its segments, the sum of the larger of each one's change in latitude and longitude).`,
    examples: ['~t{mEkzbz[~zfBvqvB'],
  }),
  corridor: Type.Optional(Type.String({
    pattern: '^[0-9]{1,2}(\\.[0-9]{1,3})?$', 'x-accepts': CORRIDOR_ACCEPTS,
    description: `How far off the path a station may be, km (${MIN_CORRIDOR_KM} to ${MAX_CORRIDOR_KM}); default ${DEFAULT_CORRIDOR_KM}. A station at exactly the corridor (to the metre) is in.`,
  })),
  order: Type.Optional(Type.String({
    enum: ['price', 'along', 'net_cost'], 'x-accepts': 'must be price, along or net_cost',
    description: 'price (default): cheapest first, then along_km, then station id. along: in the order met from the start (along_km), then station id. '
      + 'net_cost (only with litres and consumption): the lowest net cost first (in cents, as shown), then price, then along_km, then station id.',
  })),
  ...fillParameters('The detour is the way to the station from the path and back: detour_km.'),
  max_age: maxAgeParameter('each station ranked by its prices'),
  limit: ListQuerySchema.properties.limit,
  page: ListQuerySchema.properties.page,
  offset: ListQuerySchema.properties.offset,
});

/** The parameters besides the integers that a POST body may give as JSON numbers. */
export const ALONG_NUMERIC = ['corridor', 'litres', 'consumption'] as const;
/** POST /v1/prices/along: the same parameters as a JSON object (http/routes/post-body.ts). */
export const AlongBodySchema = bodySchemaOf(AlongQuerySchema,
  'The parameters of GET /v1/prices/along as a JSON object: each a string as in the query, or a JSON number where the parameter is a number.',
  ALONG_NUMERIC);

export const AlongItemSchema = Type.Object({
  ...CheapestItemSchema.properties,
  distance_km: Type.String({ description: 'To the nearest point of the path, km, one decimal.', examples: ['0.4'] }),
  along_km: Type.String({ description: 'From the start of the path to that point, along the path, km, one decimal.', examples: ['312.6'] }),
  detour_km: Type.String({ description: 'Leaving the path there, driving to the station and back: twice distance_km (a straight-line bound; by road it is longer), km, one decimal.', examples: ['0.8'] }),
  net_cost: NetCostSchema,
});

export const AlongResponse = Type.Object({
  data: Type.Array(AlongItemSchema),
  total_items: Type.Integer({ minimum: 0 }),
  total_pages: Type.Integer({ minimum: 0 }),
  current_page: Type.Integer({ minimum: 1 }),
}, {
  description: 'A page of the stations selling the fuel within the corridor of the path, cheapest first (order=along: from the start; order=net_cost: by net cost).',
  examples: [{
    data: [{
      station_id: 'metro-fuel-holbrook', name: 'Metro Fuel Holbrook', brand: 'Metro Fuel', address: '12 Albury Street, Holbrook NSW 2644',
      latitude: '-35.7290', longitude: '147.3150', price: '179.9', updated_at: 1795551689, distance_km: '0.4', along_km: '312.6', detour_km: '0.8', net_cost: '72.08',
    }],
    total_items: 41, total_pages: 5, current_page: 1,
  }],
});
