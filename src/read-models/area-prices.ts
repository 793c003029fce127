/**
 * Every station's available prices of one output fuel with its city and state, read in one
 * statement (ReadStore.areaPriceRows) once a data version and kept per output fuel, for `cheapest` in a city or a state:
 * the area's rows are looked up, and its ranking (domain/cheapest.ts rankItems: the rows
 * themselves, in order) made once and paged from then on. With max_age, the kept rows are
 * filtered and ranked for that request.
 *
 * Why: read per request, Sydney's 1,750 rows of ulp91 took 1.6 ms of SQLite and their ranking
 * 0.34 ms more (bench/RESULTS.md, "Cheapest in a city or a state, ranked once a data
 * version"). Near searches keep their own per data version (positions.ts), over
 * positioned stations only; these rows include the stations without a position, which a
 * city's or a state's list shows.
 */
import { type PriceOrder, type RankedPrice, rankItems } from '../domain/cheapest.ts';
import { reportedSince } from '../domain/fresh.ts';
import type { AreaPriceRow } from '../storage/store.ts';
import { pushTo } from './map-lists.ts';

export type Area = { city: string } | { state: string };

export class AreaPrices {
  private readonly byArea = new Map<string, RankedPrice[]>();
  /** Each area's ranking per order, made on first asking: the rows themselves, in order (no item made). */
  private readonly ranked = new Map<string, readonly RankedPrice[]>();

  constructor(rows: readonly AreaPriceRow[]) {
    for (const { price, cityId, state } of rows) {
      if (cityId !== undefined) pushTo(this.byArea, `city\u0000${cityId}`, price);
      pushTo(this.byArea, `state\u0000${state}`, price);
    }
  }

  /** The area's stations ranked (each by its lowest member price); with max_age's `since`, of the reports since then only. */
  rank(area: Area, order: PriceOrder, since?: number): readonly RankedPrice[] {
    const key = 'city' in area ? `city\u0000${area.city}` : `state\u0000${area.state}`;
    const prices = this.byArea.get(key) ?? [];
    if (since !== undefined) return rankItems(reportedSince(prices, since), order);
    const rankedKey = `${order}\u0000${key}`;
    let ranked = this.ranked.get(rankedKey);
    if (ranked === undefined) {
      ranked = rankItems(prices, order);
      this.ranked.set(rankedKey, ranked);
    }
    return ranked;
  }
}
