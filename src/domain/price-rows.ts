/**
 * What storage hands the domain to work from: a station's stored days and current reports, a
 * city's sealed means, and the per-city totals storage keeps for today's figures.
 */
import type { FuelId } from './fuels.ts';
import type { LocalDay } from './time.ts';

/** Stored, closed part of one station's day for one reported fuel. */
export interface StationDayRow {
  stationId: string;
  fuel: FuelId;
  day: LocalDay;
  /** Sum of priceTenths x seconds over the closed intervals of that day while available. */
  weightedTenths: number;
  seconds: number;
}

/** A station's latest report for a fuel; the interval from openFrom on is not yet in StationDayRow. */
export interface CurrentPrice {
  stationId: string;
  fuel: FuelId;
  priceTenths: number;
  available: boolean;
  reportedAt: number;
  openFrom: number;
}

/** A station's latest report for a fuel, with the price of its latest report that said available. */
export interface StationReport extends CurrentPrice {
  /** The report's own price when available; when out of stock, the last available report's (undefined: there was none). */
  lastAvailableTenths: number | undefined;
}

/** A station's current reports (none, when it has never reported) and the feed that reports them. */
export interface StationPrices {
  id: string;
  name: string;
  /** The feed the station belongs to (stations are keyed by feed and feed code): `demo` for demo data. */
  feed: string;
  prices: StationReport[];
}

/** A final city mean for an output fuel (combined ids included) on a sealed day. */
export interface CityDayRow {
  fuel: FuelId;
  day: LocalDay;
  meanTenths: number;
}

/** Inclusive local days; from null means no lower bound. */
export interface DayRange {
  from: LocalDay | null;
  to: LocalDay;
}

export interface CityHistoryParts {
  /** The stored city means (city_runs) are final before this day; from it on, the means come from stationDays and current (or liveDay). */
  sealedBefore: LocalDay;
  sealed: CityDayRow[];
  stationDays: StationDayRow[];
  current: CurrentPrice[];
  /**
   * When the only live day is today, storage may total it in one statement instead of handing
   * over every station's rows: then stationDays and current are empty and this holds the day.
   */
  liveDay?: { day: LocalDay; sums: LiveDaySums[] };
  /**
   * Asked with the blocks the caller holds (block -> mark): the mark of every complete sealed
   * block of the range (all its days in the range and sealed), and those of them whose rows were
   * left out of `sealed` because the caller holds them at that mark (derived/history-blocks.ts).
   */
  blocks?: { marks: Map<number, number>; skipped: Set<number> };
}

/**
 * One live day of a city, per reported fuel: the sum and the count of the stations' own means
 * for that day (what stationFuelDayMeans gives, one per station with any available seconds).
 */
export interface LiveDaySums {
  fuel: FuelId;
  sumMeans: number;
  count: number;
}

/**
 * Count and sum of a city's available current prices for one reported fuel: what storage keeps
 * per city and fuel (city_current), so today's average is read, not computed from every
 * station's price.
 */
export interface FuelSums {
  fuel: FuelId;
  count: number;
  sumTenths: number;
}

/** FuelSums with the extremes, which storage finds by an index (today's spread). */
export interface FuelTotals extends FuelSums {
  minTenths: number;
  maxTenths: number;
}

/**
 * A station out of stock for an output fuel: every current report of it that counts towards
 * that output says unavailable (for a plain fuel, its one report; for a combined one, all its
 * members the station sells). Storage finds these (cityOutOfStock), starting from the few
 * reports that say out of stock.
 */
export interface OutOfStock {
  fuel: FuelId;
  stationId: string;
}
