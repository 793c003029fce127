import { type TSchema, Type } from '@sinclair/typebox';
import { FUELS } from '../domain/fuels.ts';
import { STATES } from '../domain/states.ts';
import { NetCostSchema } from './fill.ts';

/**
 * Response schemas (parameters: queries.ts): the one source for validation, serialisation, types and
 * the OpenAPI document. `x-accepts` is the phrase an invalid_parameter message uses.
 */

const NoValue = Type.Literal(false, { description: 'No data for this fuel.' });
export const orFalse = <T extends TSchema>(schema: T) => Type.Union([schema, NoValue]);

export const FuelIdSchema = Type.Union(FUELS.map((f) => Type.Literal(f)), { description: 'One of the 19 fuel ids.' });
export const StateIdSchema = Type.Union(STATES.map((s) => Type.Literal(s)), { description: 'State or territory (lowercase short code).' });

export const CitySchema = Type.Object({
  id: Type.String({ description: 'Lowercase slug, hyphen-separated words.', examples: ['sydney'] }),
  name: Type.String({ examples: ['Sydney'] }),
  state: StateIdSchema,
  latitude: Type.String({ description: 'Decimal degrees.', examples: ['-33.8679'] }),
  longitude: Type.String({ description: 'Decimal degrees.', examples: ['151.2073'] }),
}, { $id: 'City' });

/** A station's coordinate: decimal degrees as text, or false when its source gives no position (never made up). */
const stationCoordinate = (example: string) => Type.Union([Type.String({ examples: [example] }), Type.Literal(false)], {
  description: 'Decimal degrees, or false for a station whose source gives no position (the NSW and WA history files have none): '
    + 'such a station is in no city and in no near search. Latitude and longitude are false together.',
});

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
  latitude: stationCoordinate('-33.9240'),
  longitude: stationCoordinate('151.2272'),
}, { $id: 'Station' });

export const HistoryRecordSchema = Type.Object({
  timestamp: Type.Integer({ description: 'Unix second at which the local day starts.' }),
  date: Type.String({ description: 'The local day, DD-MM-YYYY.', examples: ['23-11-2026'] }),
  average: Type.String({ description: 'City history: dollars per litre, d.dd. Station history: cents per litre, ddd.d.' }),
}, { $id: 'HistoryRecord' });

const FuelRecords = Type.Object({ fuel: FuelIdSchema, records: orFalse(Type.Array(Type.Ref(HistoryRecordSchema))) });

/** A price already published, in force from a later instant (held: domain/tomorrow.ts). */
const NextPriceSchema = Type.Object({
  price: Type.String({ description: 'Cents, ddd.d.', examples: ['229.3'] }),
  from: Type.Integer({ description: 'Unix second from which it is in force (WA: 06:00 WA time).', examples: [1774908000] }),
});

/** From the demo dataset, as in docs/ENDPOINTS.md (abridged). */
const EXAMPLE_STATION_PRICES = { data: { id: 'metro-fuel-black-gardens', name: 'Metro Fuel Black Gardens', prices: [
  { fuel: 'e10', price: '179.9', available: false, updated_at: 1795513286, source: 'demo', tomorrow: false },
  { fuel: 'ulp91', price: '179.9', available: true, updated_at: 1795551689, source: 'demo', tomorrow: false },
  { fuel: 'ulp98', price: false, available: false, updated_at: false, source: false, tomorrow: false },
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
  description: 'Per fuel, the city\'s stations whose latest report says out of stock.',
});
const SpreadEntries = Type.Array(Type.Object({
  fuel: FuelIdSchema,
  average: orFalse(Type.String({ description: 'Dollars, d.dd.', examples: ['1.79'] })),
  min: orFalse(Type.String({ description: 'Cents, ddd.d.', examples: ['169.9'] })),
  max: orFalse(Type.String({ description: 'Cents, ddd.d.', examples: ['199.9'] })),
}));
const TOMORROW_KNOWN = 'Tomorrow, where it is known: over the next prices already published (held until in force) of the city\'s stations that have one in stock, '
  + 'or false when none has (every state but WA; in WA before about 14:30 WA time). from: the earliest instant they take effect (WA: 06:00 WA time).';
export const SpreadResponse = Type.Object({
  data: named({
    spread: SpreadEntries,
    tomorrow: Type.Union([Type.Object({ from: Type.Integer({ description: 'Unix second.' }), spread: SpreadEntries }), Type.Literal(false)], { description: TOMORROW_KNOWN }),
  }),
}, {
  examples: [{ data: { id: 'sydney', name: 'Sydney', spread: [
    { fuel: 'e10', average: '1.80', min: '164.9', max: '186.7' }, { fuel: 'e5', average: false, min: false, max: false },
  ], tomorrow: false } }],
  description: 'Per fuel, today\'s spread of the city\'s current available prices; and tomorrow\'s, where it is known.',
});
const AverageEntries = Type.Array(Type.Object({ fuel: FuelIdSchema, average: orFalse(Type.String({ description: 'Dollars, d.dd.' })) }));
export const AverageResponse = Type.Object({
  data: named({
    averages: AverageEntries,
    tomorrow: Type.Union([Type.Object({ from: Type.Integer({ description: 'Unix second.' }), averages: AverageEntries }), Type.Literal(false)], {
      description: `${TOMORROW_KNOWN} Its averages equal the spread's tomorrow averages.`,
    }),
  }),
}, {
  description: 'Per fuel, today\'s average of the city\'s current available prices; and tomorrow\'s, where it is known.',
  examples: [{ data: { id: 'perth', name: 'Perth', averages: [{ fuel: 'e10', average: false }, { fuel: 'ulp91', average: '2.48' }],
    tomorrow: { from: 1774908000, averages: [{ fuel: 'e10', average: false }, { fuel: 'ulp91', average: '2.45' }] } } }],
});

export const StationPricesResponse = Type.Object({
  data: named({
    prices: Type.Array(Type.Object({
      fuel: FuelIdSchema,
      price: orFalse(Type.String({ description: 'Cents, ddd.d: the last price reported in stock, kept while out of stock; false when the fuel was never reported in stock.', examples: ['185.9'] })),
      available: Type.Boolean({ description: 'In stock at the last report; false too when there is no report.' }),
      updated_at: orFalse(Type.Integer({ description: 'Unix second of the last report.' })),
      source: orFalse(Type.String({ description: 'The feed that reported it (the station\'s feed; demo for demo data).', examples: ['demo'] })),
      tomorrow: Type.Union([NextPriceSchema, Type.Literal(false)], {
        description: 'The next price already published for this fuel and not yet in force (WA: published about 14:30 WA time, in force from 06:00 the next day), '
          + 'or false when none is known (no state but WA publishes ahead; in WA, before 14:30, or a station closed all day tomorrow).',
      }),
    })),
  }),
}, {
  description: 'One entry per fuel id, in the order of the spec (abridged here). A combined id has a price only when a feed reports that id itself.',
  examples: [EXAMPLE_STATION_PRICES],
});

export const BatchPricesResponse = Type.Object({
  data: Type.Array(StationPricesResponse.properties.data, { description: 'Each known station, as /v1/stations/{id}/prices answers it, in the order asked.' }),
  unknown: Type.Array(Type.String(), { description: 'The ids asked for that no station has, in the order asked (empty when every id is known).' }),
}, {
  description: 'Many stations\' current prices at once: each as /v1/stations/{id}/prices answers it. One request against the rate limit.',
  examples: [{ data: [EXAMPLE_STATION_PRICES.data], unknown: ['no-such-station'] }],
});

const pageEnvelope = <T extends TSchema>(item: T, description: string, example: unknown) => Type.Object({
  data: Type.Array(item),
  total_items: Type.Integer({ minimum: 0 }),
  total_pages: Type.Integer({ minimum: 0 }),
  current_page: Type.Integer({ minimum: 1 }),
}, { description, examples: [example] });
export const CityListResponse = pageEnvelope(Type.Ref(CitySchema), 'A page of cities, ordered by id.', {
  data: [{ id: 'burnie', name: 'Burnie', state: 'tas', latitude: '-41.0558', longitude: '145.9038' }], total_items: 15, total_pages: 15, current_page: 1,
});
/** A station in a list: with its distance when the list is near a point. */
const ListedStationSchema = Type.Object({
  ...StationSchema.properties,
  distance_km: Type.Optional(Type.String({ description: 'Only with near: great-circle km from the point, one decimal.', examples: ['1.4'] })),
});
export const StationListResponse = pageEnvelope(ListedStationSchema, 'A page of stations: ordered by id, or nearest first with near.', {
  data: [{
    id: '7-eleven-craigwell', name: '7-Eleven Craigwell', brand: '7-Eleven', address: '265 Monaro Highway, Craigwell ACT 2616',
    street: '265 Monaro Highway', suburb: 'Craigwell', postcode: '2616', state: 'act', phone: '(02) 7010 6342', website: '',
    latitude: '-35.2241', longitude: '149.0406',
  }],
  total_items: 14, total_pages: 14, current_page: 1,
});
export const CityResponse = Type.Object({ data: Type.Ref(CitySchema) }, {
  description: 'The city.',
  examples: [{ data: { id: 'sydney', name: 'Sydney', state: 'nsw', latitude: '-33.8679', longitude: '151.2073' } }],
});
export const StationResponse = Type.Object({ data: Type.Ref(StationSchema) }, { description: 'The station.' });


export const CheapestItemSchema = Type.Object({
  station_id: Type.String({ examples: ['ampol-foodary-kingsford'] }),
  name: Type.String(),
  brand: Type.String(),
  address: Type.String({ description: 'May be empty.' }),
  latitude: stationCoordinate('-31.8872'),
  longitude: stationCoordinate('115.9731'),
  price: Type.String({ description: 'Cents, ddd.d: the station\'s available price (for a combined id, its lowest member price).', examples: ['172.9'] }),
  updated_at: Type.Integer({ description: 'Unix second of that price\'s report (with day=tomorrow: from which it is in force).' }),
  distance_km: Type.Optional(Type.String({ description: 'Only with near: great-circle km from the point, one decimal.', examples: ['1.4'] })),
  net_cost: NetCostSchema,
});
export const CheapestResponse = pageEnvelope(CheapestItemSchema, 'A page of the stations selling the fuel, cheapest first (dearest first with order=desc).', {
  data: [{
    station_id: 'united-petroleum-caversham', name: 'United Petroleum Caversham', brand: 'United Petroleum', address: '12 Great Northern Highway, Caversham WA 6055',
    latitude: '-31.8872', longitude: '115.9731', price: '164.9', updated_at: 1763857800,
  }],
  total_items: 112, total_pages: 12, current_page: 1,
});

export const SummaryResponse = Type.Object({
  data: Type.Object({
    scope: Type.Object({
      type: Type.Union([Type.Literal('national'), Type.Literal('state'), Type.Literal('city')]),
      id: Type.String({ description: 'au for the nation, else the state or city id.', examples: ['nsw'] }),
      name: Type.String({ examples: ['New South Wales'] }),
    }),
    prices: Type.Array(Type.Object({
      fuel: FuelIdSchema,
      average: orFalse(Type.String({ description: 'Dollars, d.dd: the mean of the available prices.', examples: ['1.79'] })),
      min: orFalse(Type.String({ description: 'Cents, ddd.d.', examples: ['169.9'] })),
      max: orFalse(Type.String({ description: 'Cents, ddd.d.', examples: ['199.9'] })),
      stations: Type.Integer({ minimum: 0, description: 'Available prices behind the figures: for a plain fuel, the stations selling it; a combined id adds up its members\' (a station selling both counts in each).' }),
    })),
  }),
}, {
  description: 'One entry per fuel id, in the order of the spec (abridged here).',
  examples: [{ data: { scope: { type: 'state', id: 'wa', name: 'Western Australia' }, prices: [
    { fuel: 'e10', average: false, min: false, max: false, stations: 0 },
    { fuel: 'ulp91', average: '1.76', min: '159.9', max: '199.9', stations: 880 },
  ] } }],
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
export const BrandListResponse = pageEnvelope(BrandSchema, 'A page of brands, ordered by id.', {
  data: [{ id: '7-eleven', name: '7-Eleven', station_count: 14 }], total_items: 9, total_pages: 9, current_page: 1,
});
