/**
 * How every search's page is ordered and paged: cheapest, along and the list near a point. The
 * engines (searches.ts) only supply candidates: the prices of an area, the position index with a
 * fuel's prices for a point, the held prices for tomorrow, the stations found along a path or in
 * a near box; everything that decides which come first and which make the page is here, over the
 * domain's rules (domain/cheapest.ts, along.ts, tomorrow.ts, nearby.ts).
 *
 * Cheapest: by price (asc, or desc: dearest first), then metres when a point was given, then
 * station id; one item per station (a combined fuel: its lowest member price). With order
 * net_cost (near a point, with a fill) every candidate is ranked by price first and then again
 * by net cost (domain/along.ts rankByNetCost) and paged.
 */
import { type AlongOrder, type AlongPrice, type Fill, rankAlong, rankByNetCost } from '../domain/along.ts';
import type { CheapestOrder, PriceOrder, RankedPrice } from '../domain/cheapest.ts';
import { type Near, type Point, withinRadius } from '../domain/nearby.ts';
import { type HeldPrice, rankedTomorrow } from '../domain/tomorrow.ts';
import type { ListResult, ListedStation, PriceArea, Station } from '../storage/store.ts';
import type { Area, AreaPrices } from './area-prices.ts';
import { type FuelPrices, type Positions, metresOfKey } from './positions.ts';

/** What a cheapest engine supplies: the candidates of its area, which this module ranks. */
export type CheapestCandidates =
  | { of: 'area'; area: Area; prices: AreaPrices; since: number | undefined }
  | { of: 'near'; near: Near; positions: Positions; prices: FuelPrices }
  | { of: 'held'; near: Near | undefined; held: readonly HeldPrice[] };

/** What a cheapest page is asked for: its order and window, and the fill of order net_cost. */
export interface CheapestPaging {
  area: PriceArea;
  order: CheapestOrder;
  limit: number;
  offset: number;
  fill?: Fill | undefined;
}

/** A page of cheapest's ranking of the candidates, and how many there are. */
export function rankCheapest(paging: CheapestPaging, candidates: CheapestCandidates): ListResult<RankedPrice> {
  const { order: asked, limit, offset, fill } = paging;
  // By net cost: every station ranked by price, then ranked again by net cost and paged.
  const byNet = asked === 'net_cost' && fill !== undefined;
  const order: PriceOrder = asked === 'net_cost' ? 'asc' : asked;
  const [first, count] = byNet ? [0, Number.MAX_SAFE_INTEGER] : [offset, limit];
  const page = rankedWindow(candidates, order, first, count);
  return byNet ? rankByNetCost(page.items, fill, limit, offset) : page;
}

/** The candidates ranked by price, then metres, then id, the window [first, first + count) made into items. */
function rankedWindow(candidates: CheapestCandidates, order: PriceOrder, first: number, count: number): ListResult<RankedPrice> {
  switch (candidates.of) {
    case 'area': {
      // Each area's ranking is kept once made (area-prices.ts), its rows the items themselves.
      const list = candidates.prices.rank(candidates.area, order, candidates.since);
      return { items: list.slice(first, first + count), total: list.length };
    }
    case 'near': return rankNear(candidates.positions, candidates.prices, candidates.near, order, count, first);
    case 'held': return rankedTomorrow(candidates.held, order, candidates.near, count, first);
  }
}

/**
 * The priced stations within the radius in cheapest's order (price, then metres, then id; one
 * search, its keys ranking by all three at once: positions.ts Positions.ranked), and the page
 * asked for made into items.
 */
export function rankNear(positions: Positions, prices: FuelPrices, near: Near, order: PriceOrder, limit: number, offset: number): ListResult<RankedPrice> {
  const keys = positions.ranked(near, offset + limit, prices.bySlot, order === 'desc');
  const items: RankedPrice[] = [];
  for (const key of keys.subarray(offset, offset + limit)) {
    const slot = positions.slotRanked(key);
    items.push({
      stationId: positions.idAt(slot), latitude: positions.latitudeAt(slot), longitude: positions.longitudeAt(slot),
      priceTenths: prices.priceAt(slot), reportedAt: prices.reportedAtOf(slot), metres: metresOfKey(key),
    });
  }
  return { items, total: keys.length };
}

/** A page along a path: by price, along, or net cost (domain/along.ts rankAlong), of the priced stations found in its corridor. */
export function rankAlongPage(found: AlongPrice[], order: AlongOrder, limit: number, offset: number, fill?: Fill): ListResult<AlongPrice> {
  return rankAlong(found, order, limit, offset, fill);
}

/** A page of the list near a point: its ids nearest first (then by id), their metres, and the total. */
export interface NearestPage {
  ids: string[];
  metres: Map<string, number>;
  total: number;
}

/** A page of the near list from the position index. */
export function indexedNearestPage(positions: Positions, near: Near, limit: number, offset: number): NearestPage {
  const keys = positions.ranked(near, offset + limit);
  const ids: string[] = [];
  const metres = new Map<string, number>();
  for (const key of keys.subarray(offset, offset + limit)) {
    const id = positions.idAt(positions.slotRanked(key));
    ids.push(id);
    metres.set(id, metresOfKey(key));
  }
  return { ids, metres, total: keys.length };
}

/** A page of the stations within the radius from candidates storage found in the box (a near list with other filters). */
export function nearestPage(points: ReadonlyArray<Point & { id: string }>, near: Near, limit: number, offset: number): NearestPage {
  const ranked = withinRadius(points, near);
  const page = ranked.slice(offset, offset + limit);
  return { ids: page.map((p) => p.id), metres: new Map(page.map((p) => [p.id, p.metres])), total: ranked.length };
}

/** The page's stations in its order, each with its metres. */
export function nearestResult(page: NearestPage, stations: readonly Station[]): ListResult<ListedStation> {
  const byId = new Map(stations.map((s) => [s.id, s]));
  const items: ListedStation[] = [];
  for (const id of page.ids) {
    const s = byId.get(id);
    if (!s) continue;
    // A new object, as the rows may be kept ones (read-models.ts KeptStations).
    items.push({ ...s, metres: page.metres.get(id) ?? 0 });
  }
  return { items, total: page.total };
}
