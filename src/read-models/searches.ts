/**
 * The searches (on the search worker: derived/search-answers.ts): cheapest, along a path, and the
 * stations near a point. Each engine supplies candidates from the read models (read-models.ts) at
 * one data version; ranking.ts orders and pages them; the page's stations come last.
 */
import type { AlongOrder, Fill } from '../domain/along.ts';
import type { CheapestOrder } from '../domain/cheapest.ts';
import type { FuelId } from '../domain/fuels.ts';
import type { Path } from '../domain/route.ts';
import type { AlongPage, CheapestPage, ListResult, ListedStation, PriceArea, StationListQuery } from '../storage/store.ts';
import { pricedAlong } from './along.ts';
import { type CheapestCandidates, indexedNearestPage, nearestPage, nearestResult, rankAlongPage, rankCheapest } from './ranking.ts';
import type { ReadModels } from './read-models.ts';

/** Which prices /v1/prices/cheapest ranks: those in force now, or the next ones already published (held: domain/tomorrow.ts). */
export type PriceDay = 'today' | 'tomorrow';

/** Cheapest's question: a fuel's stations of an area, in an order, a page of them. */
export interface CheapestQuery {
  fuel: FuelId;
  area: PriceArea;
  order: CheapestOrder;
  limit: number;
  offset: number;
  /** today (default): the prices in force; tomorrow: the next held prices. */
  day?: PriceDay | undefined;
  /** Litres and consumption, for order net_cost and each item's net cost. */
  fill?: Fill | undefined;
  /** max_age's earliest report time (Unix seconds; today's prices only): prices reported before it are left out. */
  since?: number | undefined;
}

/** Along's question: a fuel's stations within a path's corridor, in an order, a page of them. */
export interface AlongQuery {
  fuel: FuelId;
  path: Path;
  order: AlongOrder;
  limit: number;
  offset: number;
  fill?: Fill | undefined;
  since?: number | undefined;
}

/**
 * A page of the stations of an area ranked by their available price of an output fuel (ranking.ts), how many there are, and the page's stations.
 * With day `tomorrow`, ranked by their next held prices in stock instead. Order net_cost needs the fill (and the area near a point).
 */
export async function cheapest(models: ReadModels, query: CheapestQuery): Promise<CheapestPage> {
  const version = await models.version();
  const page = rankCheapest(query, await cheapestCandidates(models, version, query));
  return { items: page.items, total: page.total, stations: await models.stations(version, page.items.map((p) => p.stationId)) };
}

/** The engine of the query's area and day: what it ranks. */
async function cheapestCandidates(models: ReadModels, version: number, { fuel, area, day = 'today', since }: CheapestQuery): Promise<CheapestCandidates> {
  if (day === 'tomorrow') {
    const index = await models.held(version);
    const held = 'city' in area ? index.ofCity(area.city, fuel) : 'state' in area ? index.ofState(area.state, fuel) : index.ofPositioned(fuel);
    return { of: 'held', near: 'near' in area ? area.near : undefined, held };
  }
  // max_age (since): reports before it are left out before each station's lowest member price is taken.
  if ('near' in area) return { of: 'near', near: area.near, positions: await models.positions(version), prices: await models.fuelPrices(version, fuel, since) };
  return { of: 'area', area, prices: await models.areaPrices(version, fuel), since };
}

/** A page of the stations with an available price of an output fuel within the path's corridor, ranked, and the page's stations. */
export async function along(models: ReadModels, { fuel, path, order, limit, offset, fill, since }: AlongQuery): Promise<AlongPage> {
  const version = await models.version();
  const prices = await models.fuelPrices(version, fuel, since);
  const page = rankAlongPage(pricedAlong(await models.positions(version), prices, path), order, limit, offset, fill);
  return { ...page, stations: await models.stations(version, page.items.map((p) => p.stationId)) };
}

/** A near search with no other filter: answered from the position index; with filters, from storage's stations in the box. */
export function onlyNear(query: StationListQuery): boolean {
  return query.state === undefined && query.city === undefined && query.suburb === undefined && query.postcode === undefined
    && query.brand === undefined && query.fuel === undefined && query.freshSince === undefined;
}

/** A page of the stations within the radius that pass the filters, nearest first (then by id), each with its metres; without near, storage's list. */
export async function nearStations(models: ReadModels, query: StationListQuery): Promise<ListResult<ListedStation>> {
  const near = query.near;
  if (!near) return models.store.listStations(query);
  const version = await models.version();
  const page = onlyNear(query)
    ? indexedNearestPage(await models.positions(version), near, query.limit, query.offset)
    : nearestPage(await models.store.nearPoints({ ...query, near }), near, query.limit, query.offset);
  return nearestResult(page, await models.stations(version, page.ids));
}
