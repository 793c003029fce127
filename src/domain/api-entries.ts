import { type FuelId, perFuel } from './fuels.ts';
import type { RankedPrice } from './cheapest.ts';
import { type AlongPrice, type Fill, formatCentsAsDollars, netCostCents } from './along.ts';
import { formatKm } from './nearby.ts';
import type { FuelSeries } from './history.ts';
import type { StationReport } from './price-rows.ts';
import type { Spread, Summary } from './today.ts';
import type { NextPrice } from './tomorrow.ts';
import { formatCents, formatDollars } from './rounding.ts';
import type { StateId } from './states.ts';
import { dayStart, formatLocalDay } from './time.ts';

/** Turns domain values into the API's per-fuel entries: text at the edge, `false` for no value. */

export interface HistoryRecordOut { timestamp: number; date: string; average: string }

export function historyEntries(series: FuelSeries, state: StateId, format: (meanTenths: number) => string): Array<{ fuel: FuelId; records: HistoryRecordOut[] | false }> {
  // Every fuel has a record for much the same days: each day's instant and date are worked out once.
  const dayParts = new Map<number, { timestamp: number; date: string }>();
  const partsOf = (day: number): { timestamp: number; date: string } => {
    let parts = dayParts.get(day);
    if (!parts) dayParts.set(day, (parts = { timestamp: dayStart(state, day), date: formatLocalDay(day) }));
    return parts;
  };
  return perFuel((fuel) => {
    const days = series.get(fuel);
    if (!days || days.length === 0) return { fuel, records: false as const };
    return { fuel, records: days.map((d) => { const { timestamp, date } = partsOf(d.day); return { timestamp, date, average: format(d.meanTenths) }; }) };
  });
}

export function spreadEntries(spread: Map<FuelId, Spread>): Array<{ fuel: FuelId; average: string | false; min: string | false; max: string | false }> {
  return perFuel((fuel) => {
    const s = spread.get(fuel);
    return s
      ? { fuel, average: formatDollars(s.meanTenths), min: formatCents(s.minTenths), max: formatCents(s.maxTenths) }
      : { fuel, average: false as const, min: false as const, max: false as const };
  });
}

/** /v1/prices: the spread's figures and the count of prices behind them; a fuel with none is false, false, false and 0. */
export function summaryEntries(summary: Map<FuelId, Summary>): Array<{ fuel: FuelId; average: string | false; min: string | false; max: string | false; stations: number }> {
  return perFuel((fuel) => {
    const s = summary.get(fuel);
    return s
      ? { fuel, average: formatDollars(s.meanTenths), min: formatCents(s.minTenths), max: formatCents(s.maxTenths), stations: s.count }
      : { fuel, average: false as const, min: false as const, max: false as const, stations: 0 };
  });
}

export function averageEntries(averages: Map<FuelId, number>): Array<{ fuel: FuelId; average: string | false }> {
  return perFuel((fuel) => {
    const meanTenths = averages.get(fuel);
    return { fuel, average: meanTenths === undefined ? (false as const) : formatDollars(meanTenths) };
  });
}

export function unavailableEntries(unavailable: Map<FuelId, string[]>): Array<{ fuel: FuelId; stations: string[] | false; count: number }> {
  return perFuel((fuel) => {
    const ids = unavailable.get(fuel);
    return ids && ids.length > 0 ? { fuel, stations: ids, count: ids.length } : { fuel, stations: false as const, count: 0 };
  });
}

export interface StationPriceOut {
  price: string | false; available: boolean; updated_at: number | false; source: string | false;
  tomorrow: { price: string; from: number } | false;
}

/** One fuel's entry of a station's current prices. */
export type StationPriceEntry = { fuel: FuelId } & StationPriceOut;

/**
 * A station's current prices, one entry per fuel: its latest report for the fuel (when, by which
 * feed, in stock or not) with the price in cents (ddd.d) of its latest report that was in stock:
 * an out-of-stock fuel keeps its last real price, and one never reported in stock has `price`
 * false. A fuel with no report is false throughout. Nothing is derived: a combined id shows only
 * a report a feed made under that id, never one of its members' prices. `tomorrow` is the next
 * price already published for the fuel (held until in force: tomorrow.ts), or false.
 */
export function stationPriceEntries(prices: readonly StationReport[], source: string, next: ReadonlyMap<FuelId, NextPrice> = new Map()): StationPriceEntry[] {
  const byFuel = new Map(prices.map((p) => [p.fuel, p]));
  return perFuel((fuel): StationPriceEntry => {
    const report = byFuel.get(fuel);
    const held = next.get(fuel);
    // Tomorrow's price is shown whether or not the fuel has a report today (a station's first day in a feed).
    const tomorrow = held ? { price: formatCents(held.priceTenths), from: held.from } : false as const;
    if (!report) return { fuel, price: false, available: false, updated_at: false, source: false, tomorrow };
    const shown = report.available ? report.priceTenths : report.lastAvailableTenths;
    return { fuel, price: shown === undefined ? false : formatCents(shown), available: report.available, updated_at: report.reportedAt, source, tomorrow };
  });
}

export interface CheapestOut {
  station_id: string; name: string; brand: string; address: string; latitude: string | false; longitude: string | false;
  price: string; updated_at: number; distance_km?: string; net_cost?: string;
}

/** What an item shows of its station (a store's Station has it). */
interface StationShown { id: string; name: string; brand: string; address: string; latitude: string | false; longitude: string | false }

/**
 * A page of ranked prices as items with their stations' details, in page order (a station not
 * found is left out): the part cheapest's and along's items share, which `finish` completes.
 */
function pricedItems<P extends { stationId: string; priceTenths: number; reportedAt: number }, O extends CheapestOut>(
  page: readonly P[], stations: readonly StationShown[], finish: (item: CheapestOut, p: P) => O,
): O[] {
  const byId = new Map(stations.map((s) => [s.id, s]));
  const out: O[] = [];
  for (const p of page) {
    const s = byId.get(p.stationId);
    if (!s) continue;
    out.push(finish({
      station_id: s.id, name: s.name, brand: s.brand, address: s.address, latitude: s.latitude, longitude: s.longitude,
      price: formatCents(p.priceTenths), updated_at: p.reportedAt,
    }, p));
  }
  return out;
}

/** /v1/prices/cheapest's items; with a fill, each item's net_cost: its detour the round trip from the point (twice its metres). */
export function cheapestEntries(page: readonly RankedPrice[], stations: readonly StationShown[], fill?: Fill): CheapestOut[] {
  return pricedItems(page, stations, (item, p) => {
    if (p.metres !== undefined) item.distance_km = formatKm(p.metres);
    if (fill) item.net_cost = formatCentsAsDollars(netCostCents(p.priceTenths, fill, p.metres ?? 0));
    return item;
  });
}

export interface AlongOut extends CheapestOut {
  distance_km: string; along_km: string; detour_km: string;
}

/** A page of /v1/prices/along: as cheapest's items, with distance_km (to the path), along_km, detour_km, and net_cost when ranked with a fill. */
export function alongEntries(page: readonly AlongPrice[], stations: readonly StationShown[]): AlongOut[] {
  return pricedItems(page, stations, (base, p) => {
    const item: AlongOut = Object.assign(base, {
      distance_km: formatKm(p.metres), along_km: formatKm(Math.round(p.alongKm * 1000)), detour_km: formatKm(2 * p.metres),
    });
    if (p.netCents !== undefined) item.net_cost = formatCentsAsDollars(p.netCents);
    return item;
  });
}
