import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import type { FuelId } from '../../domain/fuels.ts';
import { batchPricesPieces, batchPricesRest, stationPricesAnswer, stationPricesText } from '../../domain/prices-json.ts';
import { stationPriceEntries } from '../../domain/api-entries.ts';
import { jsonBody } from '../representation/pieced-body.ts';
import { formatKm } from '../../domain/nearby.ts';
import { freshSince, nearQuery } from './query.ts';
import { bodyAsQuery } from './post-body.ts';
import { MAX_POST_BODY_BYTES } from '../request/rules.ts';
import { stationTomorrow } from '../../domain/tomorrow.ts';
import { reportedSince } from '../../domain/fresh.ts';
import type { StateId } from '../../domain/states.ts';
import { DEFAULT_TIMEFRAME, type Timeframe } from '../../domain/time.ts';
import { BatchPricesResponse, HistoryResponse, StationListResponse, StationPricesResponse, StationResponse } from '../../schemas/api.ts';
import { BatchPricesBodySchema, BatchPricesQuerySchema, IdParams, MAX_BATCH_IDS, StationListQuerySchema, StationPricesQuerySchema, TimeframeQuerySchema } from '../../schemas/queries.ts';
import { apiError, notFound } from '../errors/catalogue.ts';
import type { ListedStation, Station } from '../../storage/store.ts';
import { type StationText, type StationTexts, batchEtag } from '../cache/station-texts.ts';
import type { DerivedAnswers } from '../../derived/derived-answers.ts';
import { STATION_COLUMNS, csvText, withDistance } from '../representation/csv.ts';
import { pageWindow } from '../representation/pagination.ts';
import { negotiateRepresentation, pageAnswer, sendJsonText } from '../representation/negotiation.ts';
import type { ReadModels } from '../../read-models/read-models.ts';
import { HISTORY_ROWS, type RouteDeps, errorResponses, jsonOrCsv, methodNotAllowed, movedStation, sendHistory } from './responses.ts';

const tags = ['Stations'];
const security = [{ bearerAuth: [] }];
/** The list's CSV example: its JSON example's stations as CSV, so that both show every column the schema has. */
const STATIONS_CSV = csvText(STATION_COLUMNS, (StationListResponse.examples as Array<{ data: object[] }>)[0]?.data ?? []);
const STATION_HISTORY_CSV = 'date,fuel,average\r\n23-11-2026,e10,181.4\r\n22-11-2026,e10,180.6\r\n';

/** A listed station as the API shows it: with distance_km when it has a distance. */
function listedStationOut(s: ListedStation): Station & { distance_km?: string } {
  if (s.metres === undefined) return s;
  const { metres, ...station } = s;
  return { ...station, distance_km: formatKm(metres) };
}

export const stationRoutes: FastifyPluginAsyncTypebox<RouteDeps & { stationTexts: StationTexts; derived: DerivedAnswers; models: ReadModels }> = async (app, { store, clock, stationTexts, derived, models }) => {
  /**
   * An old id (a history station the live feed took over: docs/DATA.md "Ids") answers with a
   * permanent redirect to the station's id now, the rest of the URL kept; any other unknown id is a 404.
   */
  const movedOrNotFound = async (request: FastifyRequest, reply: FastifyReply, id: string, rest: string): Promise<FastifyReply> => {
    const now = await store.stationAlias(id);
    if (now === undefined) notFound('station', id);
    const at = request.url.indexOf('?');
    return reply.redirect(`/v1/stations/${encodeURIComponent(now)}${rest}${at < 0 ? '' : request.url.slice(at)}`, 301);
  };
  /** Stations' current prices as /v1/stations/{id}/prices answers each in `data`, with max_age's `since`, as JSON text by id (ids no station has absent). */
  const pricesOf = async (ids: readonly string[], since: number | undefined): Promise<Map<string, Buffer>> => {
    const texts = new Map<string, Buffer>();
    for (const [id, { station, held }] of await models.stationsPrices(ids)) {
      // max_age: an older price is answered as no report (the entry false throughout; tomorrow's published price still given).
      const entries = stationPriceEntries(reportedSince(station.prices, since), station.feed, stationTomorrow(held));
      texts.set(id, Buffer.from(stationPricesText(station.id, station.name, entries)));
    }
    return texts;
  };
  /**
   * Each id's station text in order, or null where no station has the id: kept for the data
   * version with its hash (cache/station-texts.ts); with max_age, made for the request without one.
   */
  const stationsOf = async (request: FastifyRequest, ids: readonly string[], maxAge: number | undefined): Promise<Array<StationText | null>> => {
    const since = freshSince(clock.now(), maxAge);
    if (since !== undefined) {
      const texts = await pricesOf(ids, since);
      return ids.map((id) => {
        const text = texts.get(id);
        return text ? { text } : null;
      });
    }
    const version = request.dataVersion ?? (await store.versions()).data;
    return stationTexts.get(ids, version, (missing) => pricesOf(missing, undefined));
  };

  app.get('/v1/stations', {
    schema: {
      summary: 'List stations',
      description: 'Stations ordered by id, paginated; the filters combine (an unknown city or brand id matches no station). With near, only those within the radius, nearest first, each with distance_km.',
      tags, security, querystring: StationListQuerySchema,
      response: { 200: jsonOrCsv(StationListResponse, { rows: 'one row per station (distance_km the last column with near)', example: STATIONS_CSV }), ...errorResponses(406) },
    },
    preValidation: negotiateRepresentation,
  }, async (request, reply) => {
    const window = pageWindow(request.query);
    const { state, city, city_id: cityId, suburb, postcode, brand, fuel } = request.query;
    const near = nearQuery(request.query);
    if (city !== undefined && cityId !== undefined && city !== cityId) {
      apiError('invalid_parameter', "Parameters 'city' and 'city_id' are the same filter; give one of them, or the same id in both.");
    }
    const now = clock.now();
    const query = {
      state: state as StateId | undefined, city: city ?? cityId, suburb, postcode, brand, fuel: fuel as FuelId | undefined, near,
      freshSince: freshSince(now, request.query.max_age), limit: window.limit, offset: window.offset,
    };
    // Near a point: a search on the search worker (after a write its position index is built again there,
    // tens of milliseconds at national scale: docs/DERIVED.md); a plain list is one indexed read here.
    const page = near === undefined ? await store.listStations(query) : await derived.get('nearStations', query, now);
    const columns = withDistance(STATION_COLUMNS, near !== undefined);
    return pageAnswer(request, reply, { items: page.items.map(listedStationOut), total: page.total, window }, { columns, name: 'stations' });
  });

  app.get('/v1/stations/:id', {
    schema: { summary: 'Get a station', tags, security, params: IdParams, response: { 200: StationResponse, 301: movedStation, ...errorResponses(404) } },
  }, async (request, reply) => {
    const station = await store.station(request.params.id);
    return station ? { data: station } : movedOrNotFound(request, reply, request.params.id, '');
  });

  app.get('/v1/stations/:id/history', {
    config: { cache: 'clock' }, // today's point is a time-weighted mean up to now
    schema: {
      summary: 'Station price history',
      description: 'One record per local day, newest first: the time-weighted mean price while available, in cents (ddd.d). As CSV too.',
      tags, security, params: IdParams, querystring: TimeframeQuerySchema,
      response: { 200: jsonOrCsv(HistoryResponse, { rows: HISTORY_ROWS, example: STATION_HISTORY_CSV }), 301: movedStation, ...errorResponses(404, 406) },
    },
    preValidation: negotiateRepresentation,
  }, async (request, reply) => {
    const station = await store.station(request.params.id);
    if (!station) return movedOrNotFound(request, reply, request.params.id, '/history');
    const timeframe = (request.query.timeframe as Timeframe | undefined) ?? DEFAULT_TIMEFRAME;
    return sendHistory(request, reply, derived, 'stationHistory', { id: station.id, name: station.name, state: station.state }, timeframe, clock.now());
  });

  app.get('/v1/stations/:id/prices', {
    schema: {
      summary: 'Station current prices',
      description: 'The station\'s last report per fuel, one entry per fuel id: in stock or not, when and by which feed, and the last price in cents (ddd.d) reported in stock (kept while out of stock; false when never in stock); false throughout when it has no report. A combined id has a price only when a feed reports that id itself. '
        + 'tomorrow: the next price already published and not yet in force ({price, from}; WA publishes the next day\'s at about 14:30 WA time, in force from 06:00), else false.',
      tags, security, params: IdParams, querystring: StationPricesQuerySchema, response: { 200: StationPricesResponse, 301: movedStation, ...errorResponses(404) },
    },
  }, async (request, reply) => {
    const [station] = await stationsOf(request, [request.params.id], request.query.max_age);
    if (!station) return movedOrNotFound(request, reply, request.params.id, '/prices');
    // As JSON bytes (StationPricesResponse's shape, byte for byte: domain/prices-json.ts), as the batch route sends its stations.
    return sendJsonText(reply, stationPricesAnswer(station.text));
  });

  /**
   * An old id in a batch (docs/DATA.md "Ids") is answered, where it was asked, by its station now,
   * whose entry carries the id now; a station asked by its id too, or by two old ids, is answered once.
   * Returns the old ids followed (none of them is unknown).
   */
  const followAliases = async (request: FastifyRequest, ids: readonly string[], stations: Array<StationText | null>, maxAge: number | undefined): Promise<Set<string>> => {
    const followed = new Set<string>();
    const missing = ids.flatMap((id, i) => (stations[i] === null ? [{ i, id }] : []));
    if (missing.length === 0) return followed;
    const now = await Promise.all(missing.map(({ id }) => store.stationAlias(id)));
    const answered = new Set(ids.filter((_, i) => stations[i] !== null));
    for (const [k, { id }] of missing.entries()) if (now[k] !== undefined) followed.add(id);
    const wanted = [...new Set(now.filter((id): id is string => id !== undefined && !answered.has(id)))];
    if (wanted.length === 0) return followed;
    const texts = new Map(wanted.map((id, i) => [id, i]));
    const found = await stationsOf(request, wanted, maxAge);
    for (const [k, { i }] of missing.entries()) {
      const id = now[k];
      const at = id === undefined ? undefined : texts.get(id);
      if (at === undefined || answered.has(id ?? '')) continue;
      stations[i] = found[at] ?? null;
      answered.add(id ?? '');
    }
    return followed;
  };

  const batchDescription = `Up to ${MAX_BATCH_IDS} stations' current prices in one request (one against the rate limit): each as /v1/stations/{id}/prices answers it, `
    + 'in the order asked; an id asked twice is answered once, where it was first asked; an id a station had before is answered by that station (its entry shows its id now); ids no station has are listed in unknown.';
  const batch = async (request: FastifyRequest, reply: FastifyReply, query: Static<typeof BatchPricesQuerySchema>) => {
    const asked = query.ids.split(',');
    if (asked.length > MAX_BATCH_IDS || asked.some((id) => id === '' || id.length > 200)) {
      apiError('invalid_parameter', `Parameter 'ids' must be 1 to ${MAX_BATCH_IDS} station ids separated by commas.`);
    }
    const ids = [...new Set(asked)];
    const stations = await stationsOf(request, ids, query.max_age);
    const followed = await followAliases(request, ids, stations, query.max_age);
    const found = stations.filter((station) => station !== null);
    const rest = batchPricesRest(ids.filter((id, i) => stations[i] === null && !followed.has(id)));
    // Kept stations' hashes make the ETag, and the 200 KB of 100 stations is not hashed again; with
    // max_age (texts made for the request) the answer's bytes are hashed as any answer's are.
    const etag = request.method === 'GET' || request.method === 'HEAD' ? batchEtag(found, rest) : undefined;
    if (etag) reply.header('etag', etag);
    return sendJsonText(reply, jsonBody(batchPricesPieces(found.map((station) => station.text), rest)));
  };
  app.get('/v1/stations/prices', {
    schema: {
      summary: 'Many stations\' current prices', description: batchDescription,
      tags, security, querystring: BatchPricesQuerySchema, response: { 200: BatchPricesResponse, ...errorResponses() },
    },
  }, async (request, reply) => batch(request, reply, request.query));
  // The same with the ids in a JSON body (100 real ids do not always fit a URL): the GET's answer, byte for byte (post-body.ts).
  app.post('/v1/stations/prices', {
    bodyLimit: MAX_POST_BODY_BYTES,
    config: { maxBody: MAX_POST_BODY_BYTES },
    schema: {
      summary: 'Many stations\' current prices (ids in the body)',
      description: `${batchDescription} As GET /v1/stations/prices, with ids as a JSON array in the body (body at most ${MAX_POST_BODY_BYTES} bytes): `
        + 'the same answer, byte for byte, the same 400s, one request against the rate limit; not cached.',
      tags, security, body: BatchPricesBodySchema, querystring: BatchPricesQuerySchema, response: { 200: BatchPricesResponse, ...errorResponses() },
    },
    preValidation: bodyAsQuery(BatchPricesQuerySchema.properties, [], ['ids']),
  }, async (request, reply) => batch(request, reply, request.query));

  for (const url of ['/v1/stations', '/v1/stations/:id', '/v1/stations/:id/history', '/v1/stations/:id/prices']) methodNotAllowed(app, url);
  methodNotAllowed(app, '/v1/stations/prices', ['POST']);
};
