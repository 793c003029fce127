import { FUELS, type FuelId } from '../../domain/fuels.ts';
import { formatCoordinate } from '../../domain/rounding.ts';
import type { StateId } from '../../domain/states.ts';
import type { AreaPriceRow, City, CurrentPrice, FeedCounts, FeedHealth, FeedRun, FeedStation, FuelSums, FuelTotals, LiveDaySums, OutOfStock, PriceEvent, PricedStation, StationDayRow, TokenRecord, FuelPriceRow, HeldRow, PositionRow } from '../store.ts';
import type { StationReport } from '../../domain/price-rows.ts';
import type { DayRun, OpenState, Report } from '../write-plan/day-totals.ts';
import type { BrandCount } from '../brands.ts';
import type { Row } from './dialect.ts';
import type { HeldPrice } from '../../domain/tomorrow.ts';

/* Rows as the backends return them (dialect.ts, Row) turned into the store's objects. */

export function fuelAt(index: unknown): FuelId {
  const fuel = FUELS[Number(index)];
  if (!fuel) throw new Error(`unknown fuel index ${String(index)}`);
  return fuel;
}

export function flag(value: unknown): boolean {
  return value === true || value === 1;
}

export function toCity(r: Row): City {
  return {
    id: String(r.id), name: String(r.name), state: r.state as StateId,
    latitude: formatCoordinate(Number(r.latitude)), longitude: formatCoordinate(Number(r.longitude)),
  };
}

/** A brand name and its station count (brandCounts). */
export function toBrandCount(r: Row): BrandCount {
  return { brand: String(r.brand), count: Number(r.n) };
}

/* A station's row: toStation in ../station-shape.ts, beside the station's columns. */

export function toStationDay(stationId: string, r: Row): StationDayRow {
  return { stationId, fuel: fuelAt(r.fuel), day: Number(r.day), weightedTenths: Number(r.weighted_tenths), seconds: Number(r.seconds) };
}


export function toCurrent(r: Row): CurrentPrice {
  return {
    stationId: String(r.station_id), fuel: fuelAt(r.fuel), priceTenths: Number(r.price_tenths), available: flag(r.available),
    reportedAt: Number(r.reported_at), openFrom: Number(r.open_from),
  };
}

/** A row of READ.stationPricesByKeys, as an array: station key, fuel, price, available, reported at, open from, last available. */
export type StationPriceArray = [unknown, unknown, unknown, unknown, unknown, unknown, unknown];

/** The station's report of such a row: its current price, with the last available one. */
export function toStationReport(stationId: string, r: StationPriceArray): StationReport {
  const [, fuel, priceTenths, available, reportedAt, openFrom, lastAvailable] = r;
  return {
    stationId, fuel: fuelAt(fuel), priceTenths: Number(priceTenths), available: flag(available), reportedAt: Number(reportedAt),
    openFrom: Number(openFrom), lastAvailableTenths: optionalNumber(lastAvailable),
  };
}

/** A column that may be NULL as a number, or undefined. */
function optionalNumber(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : Number(value);
}

export function toReport(r: Row): Report {
  return { at: Number(r.at), priceTenths: Number(r.price_tenths), available: flag(r.available) };
}

/** A station_runs row (from_day, to_day, price_tenths) as a run of whole days. */
export function toDayRun(r: Row): DayRun {
  return { from: Number(r.from_day), to: Number(r.to_day), priceTenths: Number(r.price_tenths) };
}

/**
 * A current_prices row as the writers carry it on. Written out, not spread from toReport: in
 * Node 20 an object spread with properties added is far slower than a literal (bench/RESULTS.md),
 * and this runs once per open price in every seal.
 */
export function toOpenState(r: Row): OpenState {
  return { at: Number(r.reported_at), priceTenths: Number(r.price_tenths), available: flag(r.available), openFrom: Number(r.open_from) };
}

export function toToken(r: Row): TokenRecord {
  const nullable = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  return {
    id: String(r.id), name: String(r.name), hash: r.hash as Buffer, createdAt: Number(r.created_at),
    expiresAt: nullable(r.expires_at), revokedAt: nullable(r.revoked_at), rateLimit: nullable(r.rate_limit),
  };
}

/**
 * The rejections column holds the run's rejections as a JSON list, or (since rows read were
 * counted) an object with that list and the counts feed_runs has no column for, so that
 * `ingest status` prints the same line as `ingest` without a migration. Old rows stay lists.
 */
type RunExtras = { rejections: FeedRun['rejections']; pricesRead: number; pricesReleased: number; pricesCorrected: number };

function runExtras(text: string): { rejections: FeedRun['rejections'] } | RunExtras {
  const parsed = JSON.parse(text) as FeedRun['rejections'] | RunExtras;
  return Array.isArray(parsed) ? { rejections: parsed } : parsed;
}

export function toFeedRun(r: Row): FeedRun {
  const extras = runExtras(String(r.rejections));
  return {
    feed: String(r.feed), startedAt: Number(r.started_at), finishedAt: Number(r.finished_at),
    stationsAdded: Number(r.stations_added), stationsUpdated: Number(r.stations_updated), pricesAccepted: Number(r.prices_accepted),
    pricesIgnored: Number(r.prices_ignored), pricesHeld: Number(r.prices_held), rejected: Number(r.rejected),
    error: typeof r.error === 'string' ? r.error : undefined,
    intervalSec: Number(r.interval_sec), ...extras,
  };
}

export function feedRunValues(run: FeedRun): Array<string | number | null> {
  return [run.feed, run.startedAt, run.finishedAt, run.stationsAdded, run.stationsUpdated, run.pricesAccepted, run.pricesIgnored,
    run.pricesHeld, run.rejected, JSON.stringify(run.pricesRead === undefined ? run.rejections : {
      rejections: run.rejections, pricesRead: run.pricesRead, pricesReleased: run.pricesReleased ?? 0, pricesCorrected: run.pricesCorrected ?? 0,
    }), run.error ?? null, run.intervalSec];
}

export function toFeedStation(r: Row): FeedStation {
  return {
    id: String(r.id), feedCode: String(r.feed_code), name: String(r.name), brand: String(r.brand), address: String(r.address),
    street: String(r.street), suburb: String(r.suburb), postcode: String(r.postcode), state: r.state as StateId,
  };
}

/** A held price (pending_prices) as the event it will be when due. */
export function toPending(r: Row): PriceEvent {
  return {
    feed: String(r.feed), feedCode: String(r.feed_code), fuel: fuelAt(r.fuel), at: Number(r.at),
    priceTenths: Number(r.price_tenths), available: flag(r.available),
  };
}

/** A held price with its station's id and position (0, 0 for a station without one: it is never in a near search). */
export function toHeldRow(r: Row): HeldRow {
  const price: HeldPrice = {
    stationId: String(r.station_id), latitude: Number(r.latitude), longitude: Number(r.longitude), fuel: fuelAt(r.fuel),
    at: Number(r.at), priceTenths: Number(r.price_tenths), available: flag(r.available),
  };
  return { price, ...placeOf(r), positioned: r.latitude !== null };
}

/** A row's station's city (none for a station outside every city) and state. */
function placeOf(r: Row): { cityId: string | undefined; state: string } {
  return { cityId: typeof r.city_id === 'string' ? r.city_id : undefined, state: String(r.state) };
}

export function toFeedHealth(r: Row): FeedHealth {
  return { feed: String(r.feed), lastRun: Number(r.last_run), lastSuccess: r.last_success === null ? undefined : Number(r.last_success),
    intervalSec: Number(r.interval_sec) };
}

export function toFeedCounts(r: Row): FeedCounts {
  return { feed: String(r.feed), runs: Number(r.runs), failures: Number(r.failures) };
}

export function toOutOfStock(r: Row): OutOfStock {
  return { fuel: fuelAt(r.fuel), stationId: String(r.station_id) };
}

export function toLiveDaySums(r: Row): LiveDaySums {
  return { fuel: fuelAt(r.fuel), sumMeans: Number(r.sum_means), count: Number(r.n) };
}

export function toFuelSums(r: Row): FuelSums {
  return { fuel: fuelAt(r.fuel), count: Number(r.available_count), sumTenths: Number(r.sum_tenths) };
}

export function toFuelTotals(r: Row): FuelTotals {
  // Written out, not spread from toFuelSums: a spread is far slower than a literal in Node 20 (see toOpenState).
  return {
    fuel: fuelAt(r.fuel), count: Number(r.available_count), sumTenths: Number(r.sum_tenths),
    minTenths: Number(r.min_tenths), maxTenths: Number(r.max_tenths),
  };
}


/** A station's id and position (a near search's candidates). */
export function toPoint(r: Row): { id: string; latitude: number; longitude: number } {
  return { id: String(r.id), latitude: Number(r.latitude), longitude: Number(r.longitude) };
}

/** An available price of a fuel with its station's position (fuelPrices). */
export function toPricedStation(r: Row): PricedStation {
  return {
    stationId: String(r.station_id), latitude: Number(r.latitude), longitude: Number(r.longitude),
    priceTenths: Number(r.price_tenths), reportedAt: Number(r.reported_at),
  };
}

/** A priced station as an item (metres undefined: no point), with its city and state; read once a data version, so spread freely. */
export function toAreaPriceRow(r: Row): AreaPriceRow {
  return { price: { ...toPricedStation(r), metres: undefined }, ...placeOf(r) };
}

/** A station's key, id and position (the position index: read-models/positions.ts). */
export function toPositionRow(r: Row): PositionRow {
  return { key: Number(r.key), id: String(r.id), latitude: Number(r.latitude), longitude: Number(r.longitude) };
}

export function toFuelPriceRow(r: Row): FuelPriceRow {
  return { stationKey: Number(r.station_key), priceTenths: Number(r.price_tenths), reportedAt: Number(r.reported_at) };
}
