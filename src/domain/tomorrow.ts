/**
 * Tomorrow: prices already published but not yet in force. A feed may report a price dated ahead
 * (WA's FuelWatch publishes the next day's prices at about 14:30 WA time, in force from 06:00 the
 * next day); ingest holds such a report until it is due. What is held is what `tomorrow` shows:
 * for each station and fuel, its next held report (the earliest), when it is in stock.
 */
import { type PriceOrder, type PricedStation, type RankedPrice, rankPrices } from './cheapest.ts';
import { type FuelId, outputsOf } from './fuels.ts';
import type { Near, Point } from './nearby.ts';
import type { CurrentPrice, FuelTotals } from './price-rows.ts';

/** A held report of one station and fuel, with the station's position (0, 0 when it has none). */
export interface HeldPrice extends Point {
  stationId: string;
  fuel: FuelId;
  /** Unix second from which it is in force. */
  at: number;
  priceTenths: number;
  available: boolean;
}

/** A station's next price for a fuel: its price and the instant it takes effect. */
export interface NextPrice {
  priceTenths: number;
  from: number;
}

/** Per station and fuel, the earliest held report: the next change; later ones follow it. */
export function nextHeld(held: readonly HeldPrice[]): HeldPrice[] {
  const first = new Map<string, HeldPrice>();
  for (const h of held) {
    const key = `${h.stationId}\u0000${h.fuel}`;
    const seen = first.get(key);
    if (!seen || h.at < seen.at) first.set(key, h);
  }
  return [...first.values()];
}

/** The next prices in stock, per fuel, of one station's held reports (a next report out of stock is no price). */
export function stationTomorrow(held: readonly HeldPrice[]): Map<FuelId, NextPrice> {
  const out = new Map<FuelId, NextPrice>();
  for (const h of nextHeld(held)) if (h.available) out.set(h.fuel, { priceTenths: h.priceTenths, from: h.at });
  return out;
}

/** The next prices in stock as prices to rank (cheapest.ts): `reportedAt` is the instant each takes effect. */
export function tomorrowPriced(held: readonly HeldPrice[]): PricedStation[] {
  return nextHeld(held).filter((h) => h.available)
    .map((h) => ({ stationId: h.stationId, latitude: h.latitude, longitude: h.longitude, priceTenths: h.priceTenths, reportedAt: h.at }));
}

/** A page of the next prices ranked as today's are (one item per station; within the radius with near), and how many there are. */
export function rankedTomorrow(held: readonly HeldPrice[], order: PriceOrder, near: Near | undefined, limit: number, offset: number): { items: RankedPrice[]; total: number } {
  const ranked = rankPrices(tomorrowPriced(held), order, near);
  return { items: ranked.slice(offset, offset + limit), total: ranked.length };
}

/**
 * A city's next prices in stock as totals per reported fuel (count, sum, min, max), as storage
 * keeps today's: today.ts's citySpread and cityAverages then pool them by output fuel alike.
 * Undefined when nothing in stock is held: tomorrow is not known.
 */
export function tomorrowTotals(held: readonly HeldPrice[]): { totals: FuelTotals[]; from: number } | undefined {
  const acc = new Map<FuelId, FuelTotals>();
  let from = Number.POSITIVE_INFINITY;
  for (const h of nextHeld(held)) {
    if (!h.available) continue;
    from = Math.min(from, h.at);
    const a = acc.get(h.fuel);
    if (a) {
      a.count += 1; a.sumTenths += h.priceTenths;
      a.minTenths = Math.min(a.minTenths, h.priceTenths); a.maxTenths = Math.max(a.maxTenths, h.priceTenths);
    } else acc.set(h.fuel, { fuel: h.fuel, count: 1, sumTenths: h.priceTenths, minTenths: h.priceTenths, maxTenths: h.priceTenths });
  }
  return acc.size === 0 ? undefined : { totals: [...acc.values()], from };
}

/**
 * Today against tomorrow for one output fuel, over the same prices: each station's reported fuel
 * counting towards `fuel` (outputsOf) that is in stock now and has a next price in stock, its
 * current price and that next price averaged alike (as cityAverages pools a combined fuel).
 * Undefined when no station has both. Comparing like with like keeps a station that has not
 * published tomorrow yet (or is closed tomorrow) out of the difference.
 */
export function pairedTomorrow(current: readonly CurrentPrice[], held: readonly HeldPrice[], fuel: FuelId): { nowTenths: number; tomorrowTenths: number; count: number } | undefined {
  const next = new Map<string, number>();
  for (const h of nextHeld(held)) if (h.available && outputsOf(h.fuel).includes(fuel)) next.set(`${h.stationId}\u0000${h.fuel}`, h.priceTenths);
  let now = 0;
  let tomorrow = 0;
  let count = 0;
  for (const c of current) {
    const price = next.get(`${c.stationId}\u0000${c.fuel}`);
    if (price === undefined || !c.available) continue;
    now += c.priceTenths;
    tomorrow += price;
    count++;
  }
  return count === 0 ? undefined : { nowTenths: now / count, tomorrowTenths: tomorrow / count, count };
}
