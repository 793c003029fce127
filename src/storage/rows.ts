import { FUELS, type FuelId } from '../domain/fuels.ts';
import { formatCoordinate } from '../domain/rounding.ts';
import type { StateId } from '../domain/states.ts';
import type { Report } from '../ingest/plan.ts';
import type { City, CurrentPrice, Station, StationDayRow, TokenRecord } from './store.ts';

/**
 * Rows as every SQL backend returns them, turned into the store's objects. Column names are
 * the same in each schema; flags may come back as 0/1 (SQLite) or true/false (PostgreSQL).
 */
export type Row = Record<string, unknown>;

export const STATION_COLUMNS = 'id, name, brand, address, street, suburb, postcode, state, phone, website, latitude, longitude';

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

export function toStation(r: Row): Station {
  return {
    id: String(r.id), name: String(r.name), brand: String(r.brand), address: String(r.address), street: String(r.street),
    suburb: String(r.suburb), postcode: String(r.postcode), state: r.state as StateId, phone: String(r.phone),
    website: String(r.website), latitude: formatCoordinate(Number(r.latitude)), longitude: formatCoordinate(Number(r.longitude)),
  };
}

export function toStationDay(stationId: string, r: Row): StationDayRow {
  return { stationId, fuel: fuelAt(r.fuel), day: Number(r.day), weightedTenths: Number(r.weighted_tenths), seconds: Number(r.seconds) };
}

export function toCurrent(r: Row): CurrentPrice {
  return {
    stationId: String(r.station_id), fuel: fuelAt(r.fuel), priceTenths: Number(r.price_tenths), available: flag(r.available),
    reportedAt: Number(r.reported_at), openFrom: Number(r.open_from),
  };
}

export function toReport(r: Row): Report {
  return { at: Number(r.at), priceTenths: Number(r.price_tenths), available: flag(r.available) };
}

export function toToken(r: Row): TokenRecord {
  const nullable = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  return {
    id: String(r.id), name: String(r.name), hash: r.hash as Buffer, createdAt: Number(r.created_at),
    expiresAt: nullable(r.expires_at), revokedAt: nullable(r.revoked_at), rateLimit: nullable(r.rate_limit),
  };
}
