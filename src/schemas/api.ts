import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { FUELS } from '../domain/fuels.ts';
import { STATES } from '../domain/states.ts';
import { TIMEFRAMES } from '../domain/time.ts';

/**
 * Response and parameter schemas: the one source for validation, serialisation, types and
 * the OpenAPI document. `x-accepts` is the phrase an invalid_parameter message uses.
 */

const NoValue = Type.Literal(false, { description: 'No data for this fuel.' });
const orFalse = <T extends TSchema>(schema: T) => Type.Union([schema, NoValue]);

export const FuelIdSchema = Type.Union(FUELS.map((f) => Type.Literal(f)), { description: 'One of the 19 fuel ids.' });
export const StateIdSchema = Type.Union(STATES.map((s) => Type.Literal(s)), { description: 'State or territory (lowercase short code).' });

export const CitySchema = Type.Object({
  id: Type.String({ description: 'Lowercase slug, hyphen-separated words.', examples: ['sydney'] }),
  name: Type.String({ examples: ['Sydney'] }),
  state: StateIdSchema,
  latitude: Type.String({ description: 'Decimal degrees.', examples: ['-33.8679'] }),
  longitude: Type.String({ description: 'Decimal degrees.', examples: ['151.2073'] }),
}, { $id: 'City' });

export const StationSchema = Type.Object({
  id: Type.String({ description: 'Lowercase slug; -2, -3 may disambiguate.', examples: ['ampol-foodary-kingsford'] }),
  name: Type.String({ examples: ['Ampol Foodary Kingsford'] }),
  brand: Type.String({ examples: ['Ampol'] }),
  address: Type.String({ description: 'May be empty.', examples: ['123 Anzac Parade, Kingsford NSW 2032'] }),
  street: Type.String({ examples: ['123 Anzac Parade'] }),
  suburb: Type.String({ description: 'May be empty.', examples: ['Kingsford'] }),
  postcode: Type.String({ examples: ['2032'] }),
  state: StateIdSchema,
  phone: Type.String({ description: 'May be empty.' }),
  website: Type.String({ description: 'May be empty.' }),
  latitude: Type.String({ examples: ['-33.9240'] }),
  longitude: Type.String({ examples: ['151.2272'] }),
}, { $id: 'Station' });

export const HistoryRecordSchema = Type.Object({
  timestamp: Type.Integer({ description: 'Unix second at which the local day starts.' }),
  date: Type.String({ description: 'The local day, DD-MM-YYYY.', examples: ['23-11-2026'] }),
  average: Type.String({ description: 'City history: dollars per litre, d.dd. Station history: cents per litre, ddd.d.' }),
}, { $id: 'HistoryRecord' });

const FuelRecords = Type.Object({ fuel: FuelIdSchema, records: orFalse(Type.Array(HistoryRecordSchema)) });

/** From the demo dataset, as in the README (abridged). */
const EXAMPLE_STATION_PRICES = { data: { id: 'metro-fuel-black-gardens', name: 'Metro Fuel Black Gardens', prices: [
  { fuel: 'e10', price: '179.9', available: false, updated_at: 1795513286, source: 'demo' },
  { fuel: 'ulp91', price: '179.9', available: true, updated_at: 1795551689, source: 'demo' },
  { fuel: 'ulp98', price: false, available: false, updated_at: false, source: false },
] } };

const named = <T extends Record<string, TSchema>>(extra: T) => Type.Object({ id: Type.String(), name: Type.String(), ...extra });

export const HistoryResponse = Type.Object({ data: named({ history: Type.Array(FuelRecords) }) }, {
  examples: [{ data: { id: 'sydney', name: 'Sydney', history: [
    { fuel: 'e10', records: [{ timestamp: 1795352400, date: '23-11-2026', average: '1.81' }, { timestamp: 1795266000, date: '22-11-2026', average: '1.81' }] },
    { fuel: 'ulp91', records: false },
  ] } }],
  description: 'One entry per fuel id, in the order of the spec (abridged here).',
});
export const UnavailableResponse = Type.Object({
  data: named({
    unavailable: Type.Array(Type.Object({
      fuel: FuelIdSchema,
      stations: orFalse(Type.Array(Type.String(), { description: 'Station ids, ascending.' })),
      count: Type.Integer({ minimum: 0 }),
    })),
  }),
}, {
  examples: [{ data: { id: 'sydney', name: 'Sydney', unavailable: [
    { fuel: 'e10', stations: ['bp-lakehaven', 'metro-petroleum-camby'], count: 2 }, { fuel: 'ulp91', stations: false, count: 0 },
  ] } }],
});
export const SpreadResponse = Type.Object({
  data: named({
    spread: Type.Array(Type.Object({
      fuel: FuelIdSchema,
      average: orFalse(Type.String({ description: 'Dollars, d.dd.', examples: ['1.79'] })),
      min: orFalse(Type.String({ description: 'Cents, ddd.d.', examples: ['169.9'] })),
      max: orFalse(Type.String({ description: 'Cents, ddd.d.', examples: ['199.9'] })),
    })),
  }),
}, {
  examples: [{ data: { id: 'sydney', name: 'Sydney', spread: [
    { fuel: 'e10', average: '1.80', min: '164.9', max: '186.7' }, { fuel: 'e5', average: false, min: false, max: false },
  ] } }],
});
export const AverageResponse = Type.Object({
  data: named({
    averages: Type.Array(Type.Object({ fuel: FuelIdSchema, average: orFalse(Type.String({ description: 'Dollars, d.dd.' })) })),
  }),
}, { examples: [{ data: { id: 'perth', name: 'Perth', averages: [{ fuel: 'e10', average: '1.78' }, { fuel: 'e85', average: false }] } }] });

export const StationPricesResponse = Type.Object({
  data: named({
    prices: Type.Array(Type.Object({
      fuel: FuelIdSchema,
      price: orFalse(Type.String({ description: 'Cents, ddd.d: the last reported price, kept when out of stock.', examples: ['185.9'] })),
      available: Type.Boolean({ description: 'In stock at the last report; false too when there is no report.' }),
      updated_at: orFalse(Type.Integer({ description: 'Unix second of the last report.' })),
      source: orFalse(Type.String({ description: 'The feed that reported it (the station\'s feed; demo for demo data).', examples: ['demo'] })),
    })),
  }),
}, {
  description: 'One entry per fuel id, in the order of the spec (abridged here). A combined id has a price only when a feed reports that id itself.',
  examples: [EXAMPLE_STATION_PRICES],
});

const pageEnvelope = <T extends TSchema>(item: T, example: unknown) => Type.Object({
  data: Type.Array(item),
  total_items: Type.Integer({ minimum: 0 }),
  total_pages: Type.Integer({ minimum: 0 }),
  current_page: Type.Integer({ minimum: 1 }),
}, { examples: [example] });
export const CityListResponse = pageEnvelope(Type.Ref(CitySchema), {
  data: [{ id: 'burnie', name: 'Burnie', state: 'tas', latitude: '-41.0558', longitude: '145.9038' }], total_items: 15, total_pages: 15, current_page: 1,
});
export const StationListResponse = pageEnvelope(Type.Ref(StationSchema), {
  data: [{
    id: '7-eleven-craigwell', name: '7-Eleven Craigwell', brand: '7-Eleven', address: '265 Monaro Highway, Craigwell ACT 2616',
    street: '265 Monaro Highway', suburb: 'Craigwell', postcode: '2616', state: 'act', phone: '(02) 7010 6342', website: '',
    latitude: '-35.2241', longitude: '149.0406',
  }],
  total_items: 14, total_pages: 14, current_page: 1,
});
export const CityResponse = Type.Object({ data: Type.Ref(CitySchema) }, {
  examples: [{ data: { id: 'sydney', name: 'Sydney', state: 'nsw', latitude: '-33.8679', longitude: '151.2073' } }],
});
export const StationResponse = Type.Object({ data: Type.Ref(StationSchema) });

/** Query integers arrive as text; their syntax is checked strictly before coercion (see http/params.ts). */
const queryInteger = (minimum: number, maximum: number | undefined, accepts: string, description: string) =>
  Type.Integer({ minimum, ...(maximum === undefined ? {} : { maximum }), description, 'x-accepts': accepts });

export const ListQuerySchema = Type.Object({
  state: Type.Optional(Type.String({
    enum: [...STATES],
    description: 'Only this state or territory; case-insensitive.',
    'x-accepts': `must be one of ${STATES.join(', ')}`,
  })),
  limit: Type.Optional(queryInteger(1, 100, 'must be a whole number from 1 to 100', 'Items per page, 1 to 100; default 10.')),
  page: Type.Optional(queryInteger(1, 1_000_000_000, 'must be a whole number from 1 to 1000000000', 'Page to return, from 1; default 1. Not with offset.')),
  offset: Type.Optional(queryInteger(0, 1_000_000_000, 'must be a whole number from 0 to 1000000000', 'Items to skip. Not with page.')),
});
export type ListQueryInput = Static<typeof ListQuerySchema>;

/** A lowercase slug, as city and brand ids are (storage/places.ts). */
const SLUG = '^[a-z0-9]+(-[a-z0-9]+)*$';
const slugParameter = (what: string, description: string) => Type.String({
  pattern: SLUG, maxLength: 80, description,
  'x-accepts': `must be a ${what} id: lowercase letters and digits in hyphen-separated words, at most 80 characters`,
});

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
});

export const FuelTypeSchema = Type.Object({
  id: FuelIdSchema,
  name: Type.String({ examples: ['Unleaded 91'] }),
  unit: Type.Union([Type.Literal('c/L'), Type.Literal('c/kWh'), Type.Literal('c/kg')], { description: 'What prices of this fuel are per: cents a litre, kilowatt-hour or kilogram.' }),
  combined_of: Type.Union([Type.Array(FuelIdSchema), Type.Literal(false)], { description: 'The fuels a combined fuel groups, else false.' }),
});
export const FuelTypesResponse = Type.Object({ data: Type.Array(FuelTypeSchema) }, {
  description: 'The 19 fuel ids, in the order of every per-fuel array (abridged here).',
  examples: [{ data: [
    { id: 'e10', name: 'E10', unit: 'c/L', combined_of: false },
    { id: 'ulp-combined', name: 'Unleaded 91 and E10', unit: 'c/L', combined_of: ['ulp91', 'e10'] },
  ] }],
});

export const BrandSchema = Type.Object({
  id: Type.String({ description: 'The slug of the brand name; the brand parameter of /v1/stations.', examples: ['7-eleven'] }),
  name: Type.String({ description: 'As most of its stations spell it.', examples: ['7-Eleven'] }),
  station_count: Type.Integer({ minimum: 1, description: 'Its stations (in the state asked for).' }),
});
export const BrandListResponse = pageEnvelope(BrandSchema, {
  data: [{ id: '7-eleven', name: '7-Eleven', station_count: 14 }], total_items: 9, total_pages: 9, current_page: 1,
});

export const TimeframeQuerySchema = Type.Object({
  timeframe: Type.Optional(Type.String({
    enum: [...TIMEFRAMES],
    description: 'Period of the records; default last-month. Windows include today, in the state\'s own time zone.',
    'x-accepts': `must be one of ${TIMEFRAMES.join(', ')}`,
  })),
});

export const IdParams = Type.Object({ id: Type.String({ description: 'The city or station id.' }) });
