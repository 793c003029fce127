/** Today's figures of a city per output fuel, from the current prices: average, spread and the stations out of stock. */
import { type FuelId, outputsOf } from './fuels.ts';
import type { CurrentPrice, FuelSums, FuelTotals, OutOfStock } from './price-rows.ts';

export interface Spread {
  meanTenths: number;
  minTenths: number;
  maxTenths: number;
}

/** The totals of a list of current prices, per reported fuel: what storage maintains, worked out from scratch. */
export function fuelTotals(current: readonly CurrentPrice[]): FuelTotals[] {
  const acc = new Map<FuelId, FuelTotals>();
  for (const price of current) {
    if (!price.available) continue;
    const a = acc.get(price.fuel);
    if (a) {
      a.sumTenths += price.priceTenths; a.count += 1;
      a.minTenths = Math.min(a.minTenths, price.priceTenths); a.maxTenths = Math.max(a.maxTenths, price.priceTenths);
    } else acc.set(price.fuel, { fuel: price.fuel, count: 1, sumTenths: price.priceTenths, minTenths: price.priceTenths, maxTenths: price.priceTenths });
  }
  return [...acc.values()];
}

/**
 * Today's mean per output fuel, in tenths, over the current prices that are available: the
 * members of a combined fuel pool their counts and sums (a mean over all their prices). The
 * average endpoint answers this; the spread's average is the same figure (citySpread).
 */
export function cityAverages(sums: readonly FuelSums[]): Map<FuelId, number> {
  const out = new Map<FuelId, number>();
  for (const [fuel, pool] of pooled(sums)) out.set(fuel, pool.sum / pool.count);
  return out;
}

/** Today's spread per output fuel: the average as cityAverages works it out, and the extremes over the members of a combined fuel. */
export function citySpread(totals: readonly FuelTotals[]): Map<FuelId, Spread> {
  const out = new Map<FuelId, Spread>();
  for (const [fuel, pool] of pooled(totals)) out.set(fuel, { meanTenths: pool.sum / pool.count, minTenths: pool.min, maxTenths: pool.max });
  return out;
}

/** A summary's figures per output fuel (/v1/prices): the spread and how many prices it is over. */
export interface Summary extends Spread {
  /** Available prices pooled: a combined fuel adds its members' (a station selling both counts in each). */
  count: number;
}

/**
 * The summary of a scope from its totals per reported fuel: rows for the same fuel (one per state,
 * for the nation) add up as a combined fuel's members do.
 */
export function scopeSummary(totals: readonly FuelTotals[]): Map<FuelId, Summary> {
  const out = new Map<FuelId, Summary>();
  for (const [fuel, pool] of pooled(totals)) out.set(fuel, { meanTenths: pool.sum / pool.count, minTenths: pool.min, maxTenths: pool.max, count: pool.count });
  return out;
}

/** Per output fuel, the reported fuels' counts and sums added up in their order, and their extremes when given (NaN otherwise). */
function pooled(rows: ReadonlyArray<FuelSums & Partial<FuelTotals>>): Map<FuelId, { sum: number; count: number; min: number; max: number }> {
  const acc = new Map<FuelId, { sum: number; count: number; min: number; max: number }>();
  for (const t of rows) {
    if (t.count <= 0) continue;
    const min = t.minTenths ?? Number.NaN;
    const max = t.maxTenths ?? Number.NaN;
    for (const output of outputsOf(t.fuel)) {
      const a = acc.get(output);
      if (a) {
        a.sum += t.sumTenths; a.count += t.count;
        a.min = Math.min(a.min, min); a.max = Math.max(a.max, max);
      } else acc.set(output, { sum: t.sumTenths, count: t.count, min, max });
    }
  }
  return acc;
}

/** Stations out of stock per output fuel, ids ascending. */
export function cityUnavailable(outOfStock: readonly OutOfStock[]): Map<FuelId, string[]> {
  const out = new Map<FuelId, string[]>();
  for (const { fuel, stationId } of outOfStock) {
    const ids = out.get(fuel);
    if (ids) ids.push(stationId);
    else out.set(fuel, [stationId]);
  }
  for (const ids of out.values()) ids.sort(compareIds);
  return out;
}

/** Byte order, the same as SQL's binary collation on ASCII ids, so both backends agree. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
