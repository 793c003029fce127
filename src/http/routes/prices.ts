import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DerivedAnswers } from '../../derived/derived-answers.ts';
import type { CheapestOrder } from '../../domain/cheapest.ts';
import { cheapestEntries, summaryEntries } from '../../domain/api-entries.ts';
import type { FuelId } from '../../domain/fuels.ts';
import { STATE_NAMES, type StateId } from '../../domain/states.ts';
import { scopeSummary } from '../../domain/today.ts';
import { CheapestResponse, SummaryResponse } from '../../schemas/api.ts';
import { CheapestQuerySchema, SummaryQuerySchema } from '../../schemas/queries.ts';
import type { PriceDay } from '../../read-models/searches.ts';
import type { FuelTotals, PriceArea } from '../../storage/store.ts';
import { apiError, notFound } from '../errors/catalogue.ts';
import { CHEAPEST_COLUMNS, withDistance, withNetCost } from '../representation/csv.ts';
import { pageWindow } from '../representation/pagination.ts';
import { fillQuery, freshSince, nearQuery } from './query.ts';
import { negotiateRepresentation, pageAnswer } from '../representation/negotiation.ts';
import { type RouteDeps, errorResponses, jsonOrCsv, methodNotAllowed } from './responses.ts';

const tags = ['Prices'];
const security = [{ bearerAuth: [] }];
const CHEAPEST_CSV = 'station_id,name,brand,address,latitude,longitude,price,updated_at\r\n'
  + 'united-petroleum-caversham,United Petroleum Caversham,United Petroleum,"12 Great Northern Highway, Caversham WA 6055",-31.8872,115.9731,164.9,1763857800\r\n';

export const priceRoutes: FastifyPluginAsyncTypebox<RouteDeps & { derived: DerivedAnswers }> = async (app, { store, clock, derived }) => {
  const knownCity = async (id: string) => (await store.city(id)) ?? notFound('city', id);

  app.get('/v1/prices', {
    schema: {
      summary: 'Price summary',
      description: 'Today\'s figures per fuel over the nation (no parameter), a state or a city: the average of the available prices in dollars, the min and max in cents, and how many prices they are over. From totals kept on write.',
      tags, security, querystring: SummaryQuerySchema, response: { 200: SummaryResponse, ...errorResponses(404) },
    },
  }, async (request) => {
    const { city, state } = request.query;
    if (city !== undefined && state !== undefined) {
      apiError('invalid_parameter', "Parameters 'city' and 'state' are two scopes; give one of them, or neither for the nation.");
    }
    let scope: { type: 'national' | 'state' | 'city'; id: string; name: string };
    let totals: FuelTotals[];
    if (city !== undefined) {
      const found = await knownCity(city);
      scope = { type: 'city', id: found.id, name: found.name };
      totals = await store.cityTotals(found.id);
    } else if (state !== undefined) {
      scope = { type: 'state', id: state, name: STATE_NAMES[state as StateId] };
      totals = await store.stateTotals(state as StateId);
    } else {
      scope = { type: 'national', id: 'au', name: 'Australia' };
      totals = await store.stateTotals(undefined);
    }
    return { data: { scope, prices: summaryEntries(scopeSummary(totals)) } };
  });

  app.get('/v1/prices/cheapest', {
    schema: {
      summary: 'Cheapest (or dearest) stations for a fuel',
      description: 'The stations of one scope (near a point, a city or a state) with an available price of the fuel, cheapest first (order=desc: dearest first), then nearest (with near), then by id; paginated. One item per station: for a combined id, its lowest member price. '
        + 'With near, litres and consumption, each item gains net_cost (the fill plus the round trip\'s fuel at its price), and order=net_cost ranks by it. '
        + 'With day=tomorrow, the next prices already published instead (WA\'s next day, from about 14:30 WA time): an empty list where none is known.',
      tags, security, querystring: CheapestQuerySchema,
      response: { 200: jsonOrCsv(CheapestResponse, { rows: 'one row per station (distance_km the last column with near)', example: CHEAPEST_CSV }), ...errorResponses(404, 406) },
    },
    preValidation: negotiateRepresentation,
  }, async (request, reply) => {
    const query = request.query;
    const near = nearQuery(query);
    if ([near, query.city, query.state].filter((scope) => scope !== undefined).length !== 1) {
      apiError('invalid_parameter', 'Give exactly one of near=LAT,LNG, city or state: the stations to rank.');
    }
    const fill = fillQuery(query);
    if (fill && !near) apiError('invalid_parameter', "Parameters 'litres' and 'consumption' need near=LAT,LNG: the detour is the round trip from that point to the station.");
    const window = pageWindow(query);
    let area: PriceArea;
    if (near) area = { near };
    else if (query.city !== undefined) area = { city: (await knownCity(query.city)).id };
    else area = { state: query.state as StateId };
    const order = (query.order ?? 'asc') as CheapestOrder;
    const day = (query.day ?? 'today') as PriceDay;
    const now = clock.now();
    const since = day === 'today' ? freshSince(now, query.max_age) : undefined;
    // A search, on the search worker (src/read-models/searches.ts, docs/DERIVED.md): after a write its
    // kept indexes are read again there, not here.
    const page = await derived.get('cheapest', { fuel: query.fuel as FuelId, area, order, limit: window.limit, offset: window.offset, day, fill, since }, now);
    const columns = withNetCost(withDistance(CHEAPEST_COLUMNS, near !== undefined), fill !== undefined);
    return pageAnswer(request, reply, { items: cheapestEntries(page.items, page.stations, fill), total: page.total, window }, { columns, name: `cheapest-${query.fuel}` });
  });

  for (const url of ['/v1/prices', '/v1/prices/cheapest']) methodNotAllowed(app, url);
};
