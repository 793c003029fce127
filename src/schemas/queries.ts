import { type Static, Type } from '@sinclair/typebox';
import { FUELS } from '../domain/fuels.ts';
import { STATES } from '../domain/states.ts';
import { TIMEFRAMES } from '../domain/time.ts';
import { fillParameters } from './fill.ts';
import { bodySchemaOf } from './body.ts';
import { DEFAULT_RADIUS_KM, MAX_RADIUS_KM, MIN_RADIUS_KM, NEAR_PATTERN, RADIUS_PATTERN } from '../domain/nearby.ts';

/**
 * Parameter schemas (query strings, path ids, the POST forms' bodies): with the response schemas
 * of api.ts, the one source for validation, types and the OpenAPI document. `x-accepts` is the
 * phrase an invalid_parameter message uses.
 */

/** Query integers arrive as text; their syntax is checked strictly before coercion (see http/routes/query.ts). */
export const queryInteger = (minimum: number, maximum: number | undefined, accepts: string, description: string) =>
  Type.Integer({ minimum, ...(maximum === undefined ? {} : { maximum }), description, 'x-accepts': accepts });
/** `max_age`: fresh prices only (issue 31). Hours, whole: a price reported longer ago than that is left out. */
export const MAX_AGE_HOURS = 8760;
export const maxAgeParameter = (what: string) => Type.Optional(queryInteger(
  1, MAX_AGE_HOURS, `must be a whole number of hours from 1 to ${MAX_AGE_HOURS}`,
  `Fresh prices only: ${what} reported at most this many hours ago (1 to ${MAX_AGE_HOURS}). Every price carries its report's instant as updated_at.`,
));

/** GET /v1/stations/prices: many stations' current prices in one request. */
export const MAX_BATCH_IDS = 100;
export const BatchPricesQuerySchema = Type.Object({
  ids: Type.String({
    description: `1 to ${MAX_BATCH_IDS} station ids separated by commas (as /v1/stations lists them). Each is answered once, in the order first asked; ids no station has are listed in unknown.`,
    maxLength: MAX_BATCH_IDS * 201,
    'x-accepts': `must be 1 to ${MAX_BATCH_IDS} station ids separated by commas`,
    examples: ['metro-fuel-black-gardens,7-eleven-craigwell'],
  }),
  max_age: maxAgeParameter('each entry\'s price; an older one is answered as no report (false throughout; tomorrow still given)'),
});
/** POST /v1/stations/prices: the same parameters as a JSON object, `ids` as an array (http/routes/post-body.ts). */
export const BatchPricesBodySchema = bodySchemaOf(BatchPricesQuerySchema,
  'The parameters of GET /v1/stations/prices as a JSON object: ids as an array of ids (or one string of them separated by commas), max_age a number.',
  [], { ids: `1 to ${MAX_BATCH_IDS} station ids, each answered once, in the order first asked (an id holds no comma).` });
/** GET /v1/stations/{id}/prices: max_age, as the batch route takes it. */
export const StationPricesQuerySchema = Type.Object({ max_age: BatchPricesQuerySchema.properties.max_age });
/** `format` on the routes that answer CSV too (http/representation/negotiation.ts): it wins over Accept. */
const formatParameter = Type.Optional(Type.String({
  enum: ['csv', 'json'],
  description: 'csv: the answer as CSV (text/csv, docs/CSV.md); json: as JSON. Decides over the Accept header; without it, Accept decides (JSON by default). Case-insensitive.',
  'x-accepts': 'must be csv or json',
}));

/** Only `format`: a list that is not paginated (/v1/fuel-types). */
export const FormatQuerySchema = Type.Object({ format: formatParameter });

export const ListQuerySchema = Type.Object({
  state: Type.Optional(Type.String({
    enum: [...STATES],
    description: 'Only this state or territory; case-insensitive.',
    'x-accepts': `must be one of ${STATES.join(', ')}`,
  })),
  limit: Type.Optional(queryInteger(1, 100, 'must be a whole number from 1 to 100', 'Items per page, 1 to 100; default 10.')),
  page: Type.Optional(queryInteger(1, 1_000_000_000, 'must be a whole number from 1 to 1000000000', 'Page to return, from 1; default 1. Not with offset.')),
  offset: Type.Optional(queryInteger(0, 1_000_000_000, 'must be a whole number from 0 to 1000000000', 'Items to skip. Not with page.')),
  format: formatParameter,
});
export type ListQueryInput = Static<typeof ListQuerySchema>;

/** A lowercase slug, as city and brand ids are (domain/places.ts). */
const SLUG = '^[a-z0-9]+(-[a-z0-9]+)*$';
export const slugParameter = (what: string, description: string) => Type.String({
  pattern: SLUG, maxLength: 80, description,
  'x-accepts': `must be a ${what} id: lowercase letters and digits in hyphen-separated words, at most 80 characters`,
});

const NEAR_ACCEPTS = 'must be LAT,LNG in decimal degrees (latitude -90 to 90, longitude -180 to 180), e.g. -33.8688,151.2093';
const RADIUS_ACCEPTS = `must be a distance in km from ${MIN_RADIUS_KM} to ${MAX_RADIUS_KM}, at most 3 decimals, e.g. 2.5`;
/** `near` and `radius`: their patterns check the syntax; parseNear and parseRadius the ranges, with the same messages. */
export const nearParameters = (what: string) => ({
  near: Type.Optional(Type.String({
    pattern: NEAR_PATTERN, maxLength: 32, 'x-accepts': NEAR_ACCEPTS,
    description: `${what} within the radius of this point (LAT,LNG), nearest first (then by id), each with distance_km.`,
  })),
  radius: Type.Optional(Type.String({
    pattern: RADIUS_PATTERN, 'x-accepts': RADIUS_ACCEPTS,
    description: `With near: the radius in km, ${MIN_RADIUS_KM} to ${MAX_RADIUS_KM}; default ${DEFAULT_RADIUS_KM}. A station at exactly the radius (to the metre) is in.`,
  })),
});
export const NEAR_MESSAGES = { near: NEAR_ACCEPTS, radius: RADIUS_ACCEPTS } as const;

/** /v1/stations: the list's parameters and its filters, all of them combined. */
export const StationListQuerySchema = Type.Object({
  ...ListQuerySchema.properties,
  city: Type.Optional(slugParameter('city', 'Only stations of this city (a city id, case-insensitive; an unknown id matches none).')),
  city_id: Type.Optional(slugParameter('city', 'The same as city; given with city, both must be the same.')),
  suburb: Type.Optional(Type.String({
    pattern: "^[A-Za-z0-9][A-Za-z0-9 .'()-]*$", maxLength: 64,
    description: 'Only stations of this suburb: the whole name, case-insensitive.',
    'x-accepts': "must be a suburb name: letters, digits, spaces and . ' ( ) -, starting with a letter or digit, at most 64 characters",
  })),
  postcode: Type.Optional(Type.String({ pattern: '^[0-9]{4}$', description: 'Only stations with this postcode.', 'x-accepts': 'must be 4 digits' })),
  brand: Type.Optional(slugParameter('brand', 'Only stations of this brand (a brand id from /v1/brands, case-insensitive; an unknown id matches none).')),
  fuel: Type.Optional(Type.String({
    enum: [...FUELS],
    description: 'Only stations selling this fuel now: an available current price (a combined id: of any of its members). Case-insensitive.',
    'x-accepts': `must be one of ${FUELS.join(', ')}`,
  })),
  ...nearParameters('Only stations'),
  max_age: maxAgeParameter('only stations with an available price (of `fuel` when given, else of any fuel)'),
});

const fuelParameter = (description: string) => Type.String({ enum: [...FUELS], description, 'x-accepts': `must be one of ${FUELS.join(', ')}` });

/** /v1/prices/cheapest: the fuel, exactly one scope, the order, and the list's pages. */
export const CheapestQuerySchema = Type.Object({
  fuel: fuelParameter('The fuel to rank by (required; case-insensitive). A combined id ranks each station by its lowest member price.'),
  city: Type.Optional(slugParameter('city', 'Scope: the stations of this city (404 for an unknown id).')),
  state: ListQuerySchema.properties.state,
  ...nearParameters('Scope: the stations'),
  order: Type.Optional(Type.String({
    enum: ['asc', 'desc', 'net_cost'], 'x-accepts': 'must be asc, desc or net_cost',
    description: 'asc (default): cheapest first; desc: dearest first. net_cost (only with near, litres and consumption): the lowest net cost first '
      + '(in cents, as shown), then price, then distance, then station id.',
  })),
  ...fillParameters('The detour is the round trip from near to the station: twice distance_km (so litres and consumption need near).'),
  day: Type.Optional(Type.String({
    enum: ['today', 'tomorrow'],
    description: 'today (default): the prices in force now. tomorrow: the next prices already published and not yet in force (WA: from about 14:30 WA time, '
      + 'in force from 06:00 the next day), each item\'s updated_at the instant its price takes effect; only stations with such a price are listed, '
      + 'so a scope where none is known (every state but WA; WA before 14:30) answers an empty list.',
    'x-accepts': 'must be today or tomorrow',
  })),
  max_age: maxAgeParameter('each station ranked by its prices (with day=tomorrow: not applied; those prices are published for the next day)'),
  limit: ListQuerySchema.properties.limit,
  page: ListQuerySchema.properties.page,
  offset: ListQuerySchema.properties.offset,
  format: formatParameter,
});

/** /v1/prices: the nation (no parameter), a state, or a city. */
export const SummaryQuerySchema = Type.Object({
  state: ListQuerySchema.properties.state,
  city: Type.Optional(slugParameter('city', 'A city\'s summary (404 for an unknown id). Not with state.')),
});

export const TimeframeQuerySchema = Type.Object({
  timeframe: Type.Optional(Type.String({
    enum: [...TIMEFRAMES],
    description: 'Period of the records; default last-month. Windows include today, in the state\'s own time zone.',
    'x-accepts': `must be one of ${TIMEFRAMES.join(', ')}`,
  })),
  format: formatParameter,
});

export const IdParams = Type.Object({ id: Type.String({ description: 'The city or station id.' }) });
