import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FuelId } from '../../domain/fuels.ts';
import { cityAverages, citySpread, cityUnavailable } from '../../domain/today.ts';
import { tomorrowTotals } from '../../domain/tomorrow.ts';
import { averageEntries, spreadEntries, unavailableEntries } from '../../domain/api-entries.ts';
import type { StateId } from '../../domain/states.ts';
import { DEFAULT_TIMEFRAME, type Timeframe } from '../../domain/time.ts';
import { AverageResponse, CityListResponse, CityResponse, HistoryResponse, SpreadResponse, UnavailableResponse } from '../../schemas/api.ts';
import { IdParams, ListQuerySchema, TimeframeQuerySchema } from '../../schemas/queries.ts';
import { CycleQuerySchema, CycleResponse, DEFAULT_CYCLE_FUEL } from '../../schemas/cycle.ts';
import { notFound } from '../errors/catalogue.ts';
import type { DerivedAnswers } from '../../derived/derived-answers.ts';
import { CITY_COLUMNS } from '../representation/csv.ts';
import { pageWindow } from '../representation/pagination.ts';
import { negotiateRepresentation, pageAnswer } from '../representation/negotiation.ts';
import type { ReadModels } from '../../read-models/read-models.ts';
import { HISTORY_ROWS, type RouteDeps, errorResponses, jsonOrCsv, methodNotAllowed, sendAnswerBytes, sendHistory } from './responses.ts';

const tags = ['Cities'];
const security = [{ bearerAuth: [] }];
const CITIES_CSV = 'id,name,state,latitude,longitude\r\nburnie,Burnie,tas,-41.0558,145.9038\r\n';
const CITY_HISTORY_CSV = 'date,fuel,average\r\n23-11-2026,e10,1.81\r\n22-11-2026,e10,1.81\r\n23-11-2026,ulp91,1.83\r\n';

export const cityRoutes: FastifyPluginAsyncTypebox<RouteDeps & { derived: DerivedAnswers; models: ReadModels }> = async (app, { store, clock, derived, models }) => {
  const findCity = async (id: string) => (await store.city(id)) ?? notFound('city', id);

  app.get('/v1/cities', {
    schema: {
      summary: 'List cities', description: 'Cities ordered by id, paginated. As CSV too.', tags, security,
      querystring: ListQuerySchema,
      response: { 200: jsonOrCsv(CityListResponse, { rows: 'one row per city', example: CITIES_CSV }), ...errorResponses(406) },
    },
    preValidation: negotiateRepresentation,
  }, async (request, reply) => {
    const window = pageWindow(request.query);
    const page = await store.listCities({ state: request.query.state as StateId | undefined, limit: window.limit, offset: window.offset });
    return pageAnswer(request, reply, { items: page.items, total: page.total, window }, { columns: CITY_COLUMNS, name: 'cities' });
  });

  app.get('/v1/cities/:id', {
    schema: { summary: 'Get a city', tags, security, params: IdParams, response: { 200: CityResponse, ...errorResponses(404) } },
  }, async (request) => ({ data: await findCity(request.params.id) }));

  app.get('/v1/cities/:id/history', {
    config: { cache: 'clock' }, // today's point is a time-weighted mean up to now
    schema: {
      summary: 'City price history',
      description: 'One record per local day, newest first: the mean of the daily values of the city\'s stations, in dollars (d.dd). As CSV too.',
      tags, security, params: IdParams, querystring: TimeframeQuerySchema,
      response: { 200: jsonOrCsv(HistoryResponse, { rows: HISTORY_ROWS, example: CITY_HISTORY_CSV }), ...errorResponses(404, 406) },
    },
    preValidation: negotiateRepresentation,
  }, async (request, reply) => {
    const city = await findCity(request.params.id);
    const timeframe = (request.query.timeframe as Timeframe | undefined) ?? DEFAULT_TIMEFRAME;
    return sendHistory(request, reply, derived, 'cityHistory', { id: city.id, name: city.name, state: city.state }, timeframe, clock.now());
  });

  app.get('/v1/cities/:id/cycle', {
    config: { cache: 'clock' }, // today, its days since, its fresh prices
    schema: {
      summary: 'City price cycle',
      description: 'The price cycle of one fuel (default ulp91), read from the city\'s daily means over the last 365 local days '
        + '(the history\'s, but of fresh prices only: a station\'s price counts on the day of its latest report and the 1 (WA) or '
        + '14 days after it, so closed stations do not dilute a restoration), and when to fill up. Days without news (no mean, or the day before\'s repeated to the last digit) are '
        + 'never read as a change. A restoration starts on a day rising at least 3.0 c/L and takes in the days after it while each '
        + 'rises at least 1.0 c/L; it counts at 5.0 c/L in all. The city cycles (state cycle) with at least 4 restorations whose intervals have a median '
        + 'absolute deviation of at most 35% of their median, 3 in 4 of them given back by half before the next (a sawtooth, not wholesale steps); '
        + 'otherwise no-cycle over at least 180 days with news, insufficient-history under that. period_days is the median interval, rounded. Phase: rising while the last '
        + 'restoration still runs or began today or yesterday; trough once 0.75 x period days have passed and the latest mean is '
        + 'within 1.0 c/L of the lowest since the rise ended; falling otherwise; none without a cycle. A weekly cycle gives its '
        + 'cheapest weekday. Advice, the first that applies (signal names it): tomorrow\'s published prices (WA) higher than now, fill-up, '
        + 'unless the weekday pattern of the last 8 weeks (3.0 c/L deep or more) falls from tomorrow\'s weekday to a day 2 or 3 days ahead '
        + 'by more than twice the rise, then wait; else wait (tomorrow); no cycle: a weekday pattern of at least 3.0 c/L decides (weekday), else a fall on the latest day with news '
        + 'waits up to 3 days (trend), else no-cycle, or unknown with insufficient history; no news for two days, unknown; where restorations '
        + 'run over days (3 or more), fill-up while one still climbs, wait once it slows and for half a period after it began, then wait while '
        + 'the mean falls and fill-up once it stops (restoration, phase); elsewhere rising, wait; a weekly cycle, fill-up on its cheapest weekday; '
        + 'fill-up in the trough, wait while falling. horizon: wait at most so many days, and the next rise expected. track_record: what '
        + 'following the advice saved here over the last 90 days (fills due every 7 days, up to 3 late) against the fixed weekday, the best '
        + 'simple rule and hindsight. docs/CYCLE.md has the method and its measured savings.',
      tags, security, params: IdParams, querystring: CycleQuerySchema, response: { 200: CycleResponse, ...errorResponses(404) },
    },
  }, async (request, reply) => {
    const city = await findCity(request.params.id);
    const fuel = (request.query.fuel ?? DEFAULT_CYCLE_FUEL) as FuelId;
    // Worked out and written off the event loop, kept per data version as bytes (src/derived/, docs/DERIVED.md): here only sent.
    return sendAnswerBytes(reply, await derived.get('cycle', { city, fuel }, clock.now()));
  });

  app.get('/v1/cities/:id/unavailable', {
    schema: {
      summary: 'Stations out of stock', description: 'Per fuel, the ids of the city\'s stations whose latest report says out of stock.',
      tags, security, params: IdParams, response: { 200: UnavailableResponse, ...errorResponses(404) },
    },
  }, async (request) => {
    const city = await findCity(request.params.id);
    const unavailable = cityUnavailable(await store.cityOutOfStock(city.id));
    return { data: { id: city.id, name: city.name, unavailable: unavailableEntries(unavailable) } };
  });

  app.get('/v1/cities/:id/spread', {
    schema: {
      summary: "Today's spread", description: 'Per fuel, over current available prices: average in dollars (d.dd), min and max in cents (ddd.d). '
        + 'tomorrow: the same over the next prices already published (WA: from about 14:30 WA time, in force from 06:00 the next day), or false where none is known.',
      tags, security, params: IdParams, response: { 200: SpreadResponse, ...errorResponses(404) },
    },
  }, async (request) => {
    const city = await findCity(request.params.id);
    const [totals, held] = await Promise.all([store.cityTotals(city.id), models.heldForCity(city.id)]);
    const next = tomorrowTotals(held);
    const tomorrow = next ? { from: next.from, spread: spreadEntries(citySpread(next.totals)) } : false as const;
    return { data: { id: city.id, name: city.name, spread: spreadEntries(citySpread(totals)), tomorrow } };
  });

  app.get('/v1/cities/:id/average', {
    schema: {
      summary: "Today's average", description: "Per fuel, the mean of current available prices in dollars; equals the spread's average. "
        + "tomorrow: the same over the next prices already published (WA's next day), or false where none is known.",
      tags, security, params: IdParams, response: { 200: AverageResponse, ...errorResponses(404) },
    },
  }, async (request) => {
    const city = await findCity(request.params.id);
    // Count and sum only: the extremes the spread needs cost two index steps per fuel.
    const [sums, held] = await Promise.all([store.citySums(city.id), models.heldForCity(city.id)]);
    const next = tomorrowTotals(held);
    const tomorrow = next ? { from: next.from, averages: averageEntries(cityAverages(next.totals)) } : false as const;
    return { data: { id: city.id, name: city.name, averages: averageEntries(cityAverages(sums)), tomorrow } };
  });

  for (const url of ['/v1/cities', '/v1/cities/:id', '/v1/cities/:id/history', '/v1/cities/:id/cycle', '/v1/cities/:id/unavailable', '/v1/cities/:id/spread', '/v1/cities/:id/average']) {
    methodNotAllowed(app, url);
  }
};
