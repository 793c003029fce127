/**
 * /v1/prices/cheapest: the stations of a scope ranked by their available price of one fuel.
 *
 * One item per station. For a combined fuel a station's price is the lowest of its members'
 * (what a driver asking for "any unleaded" pays there), whichever the order; for a plain fuel it
 * is its one price. Ranked by price (ascending or descending), then by distance when a point was
 * given, then by station id; so with `asc` the first item's price is the scope's `min` in the
 * spread. Only available prices count.
 */
import { type Near, type Point, metresBetween } from './nearby.ts';
import { compareIds } from './today.ts';

export type PriceOrder = 'asc' | 'desc';
/** The route's orders: net_cost ranks by the net cost of a fill (domain/along.ts rankByNetCost), near a point only. */
export type CheapestOrder = PriceOrder | 'net_cost';

/** An available current price of the fuel asked for (of a member, for a combined fuel), with its station's position. */
export interface PricedStation extends Point {
  stationId: string;
  priceTenths: number;
  /** Unix seconds of the report. */
  reportedAt: number;
}

export interface RankedPrice extends PricedStation {
  /** Whole metres from the point, when one was given. */
  metres: number | undefined;
}

/** The ranked list (one item per station, within the radius when `near` is given), whole: the route pages it. */
export function rankPrices(prices: readonly PricedStation[], order: PriceOrder, near?: Near): RankedPrice[] {
  const limit = near ? Math.round(near.radiusKm * 1000) : 0;
  const ranked: RankedPrice[] = [];
  for (const p of bestPerStation(prices)) {
    const metres = near ? metresBetween(near.centre, p) : undefined;
    if (metres !== undefined && metres > limit) continue;
    // Written out: a spread is far slower than a literal in Node 20.
    ranked.push({ stationId: p.stationId, latitude: p.latitude, longitude: p.longitude, priceTenths: p.priceTenths, reportedAt: p.reportedAt, metres });
  }
  return ranked.sort(byRank(order));
}

/**
 * rankPrices without a point, of prices that are already items (metres undefined): the items
 * themselves ranked, none made (read-models/area-prices.ts keeps a city's or a state's ranking so).
 */
export function rankItems<T extends RankedPrice>(prices: readonly T[], order: PriceOrder): T[] {
  return bestPerStation(prices).sort(byRank(order));
}

/** Each station's lowest member price; of equal ones, the later report (of equal reports, the first given). */
function bestPerStation<T extends PricedStation>(prices: readonly T[]): T[] {
  const best = new Map<string, T>();
  for (const p of prices) {
    const seen = best.get(p.stationId);
    if (!seen || p.priceTenths < seen.priceTenths || (p.priceTenths === seen.priceTenths && p.reportedAt > seen.reportedAt)) best.set(p.stationId, p);
  }
  return [...best.values()];
}

/** By price in the order asked, then metres (when measured), then station id. */
function byRank(order: PriceOrder): (a: RankedPrice, b: RankedPrice) => number {
  const sign = order === 'asc' ? 1 : -1;
  return (a, b) => sign * (a.priceTenths - b.priceTenths) || (a.metres ?? 0) - (b.metres ?? 0) || compareIds(a.stationId, b.stationId);
}

/** A page of a city's or a state's prices of a fuel, ranked. */
export function rankedPage(prices: readonly PricedStation[], order: PriceOrder, limit: number, offset: number): { items: RankedPrice[]; total: number } {
  const ranked = rankPrices(prices, order);
  return { items: ranked.slice(offset, offset + limit), total: ranked.length };
}
