/**
 * /v1/prices/along (and net_cost on /v1/prices/cheapest): the stations selling a fuel within a
 * corridor of a path, ranked, and what a fill costs at each once the detour is paid for.
 *
 * - A station's detour is the round trip off the path (along) or from the point (cheapest near):
 *   twice its distance in whole metres, a straight-line bound (route.ts).
 * - net_cost = litres × price + (detour_km × consumption / 100) × price, the price in dollars a
 *   litre (route.ts netCostDollars), rounded half away from zero to whole cents once, at the end.
 * - Orders, each with a stable key to break ties:
 *   price: price, then along_km, then station id;
 *   along: along_km, then station id;
 *   net_cost: net cost in cents (as shown), then price, then along_km, then station id.
 */
import { netCostDollars } from './route.ts';
import { roundHalfAwayFromZero } from './rounding.ts';
import { smallestFirst } from './smallest.ts';
import { compareIds } from './today.ts';

export const ALONG_ORDERS = ['price', 'along', 'net_cost'] as const;
export type AlongOrder = (typeof ALONG_ORDERS)[number];

/** A fill: litres (1 to 200) and the car's consumption in litres per 100 km (1 to 50). */
export interface Fill {
  litres: number;
  consumption: number;
}
export const LITRES_RANGE = { min: 1, max: 200 } as const;
export const CONSUMPTION_RANGE = { min: 1, max: 50 } as const;

/** A station selling the fuel within the corridor: its available price, and where it stands against the path. */
export interface AlongPrice {
  stationId: string;
  latitude: number;
  longitude: number;
  priceTenths: number;
  /** Unix seconds of the report. */
  reportedAt: number;
  /** To the path, whole metres. */
  metres: number;
  /** From the path's start to its nearest point, km. */
  alongKm: number;
  /** net_cost in whole cents, when a fill was given. */
  netCents?: number;
}

/** The net cost of a fill in whole cents: the detour is twice `metres` there and back. */
export function netCostCents(priceTenths: number, fill: Fill, metres: number): number {
  return roundHalfAwayFromZero(netCostDollars(priceTenths, fill.litres, (2 * metres) / 1000, fill.consumption) * 100);
}

/** Whole cents as dollars, d.dd. */
export function formatCentsAsDollars(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/**
 * The found stations ranked (each with its net cost given a fill), the page asked for, and how
 * many there are. Only what can reach the page is sorted in full: each order's first key is a
 * number, and every station of the first `offset + limit` has a first key at most the
 * (offset + limit)-th smallest, so the others are left out before the sort (a page of 20 of the
 * 300 stations along a long route sorts a few dozen).
 */
export function rankAlong(found: AlongPrice[], order: AlongOrder, limit: number, offset: number, fill?: Fill): { items: AlongPrice[]; total: number } {
  if (fill) for (const f of found) f.netCents = netCostCents(f.priceTenths, fill, f.metres);
  const byPrice = (a: AlongPrice, b: AlongPrice): number => a.priceTenths - b.priceTenths || a.alongKm - b.alongKm || compareIds(a.stationId, b.stationId);
  const compare = order === 'along' ? (a: AlongPrice, b: AlongPrice): number => a.alongKm - b.alongKm || compareIds(a.stationId, b.stationId)
    : order === 'net_cost' ? (a: AlongPrice, b: AlongPrice): number => (a.netCents ?? 0) - (b.netCents ?? 0) || byPrice(a, b)
      : byPrice;
  const firstKey = order === 'along' ? (a: AlongPrice): number => a.alongKm : order === 'net_cost' ? (a: AlongPrice): number => a.netCents ?? 0 : (a: AlongPrice): number => a.priceTenths;
  const reach = offset + limit;
  let candidates = found;
  if (reach < found.length) {
    const keys = new Float64Array(found.length);
    for (let i = 0; i < found.length; i++) keys[i] = firstKey(found[i] as AlongPrice);
    const bound = smallestFirst(keys, reach)[reach - 1] ?? Infinity;
    candidates = [];
    for (const f of found) if (firstKey(f) <= bound) candidates.push(f);
  }
  candidates.sort(compare);
  return { items: candidates.slice(offset, reach), total: found.length };
}

/** Cheapest near a point by net cost: net cents, then price, then metres, then id (each item needs its metres). */
export function rankByNetCost<T extends { stationId: string; priceTenths: number; metres: number | undefined }>(
  items: readonly T[], fill: Fill, limit: number, offset: number,
): { items: T[]; total: number } {
  const keyed = items.map((item) => ({ item, cents: netCostCents(item.priceTenths, fill, item.metres ?? 0) }));
  keyed.sort((a, b) => a.cents - b.cents || a.item.priceTenths - b.item.priceTenths || (a.item.metres ?? 0) - (b.item.metres ?? 0)
    || compareIds(a.item.stationId, b.item.stationId));
  return { items: keyed.slice(offset, offset + limit).map((k) => k.item), total: keyed.length };
}
