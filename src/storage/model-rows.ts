/**
 * The rows the read models (src/read-models/) are built from: storage reads them (ReadStore's
 * positionRows, fuelPriceRows, areaPriceRows, heldRows), the models keep them per data version
 * and the searches rank them. store.ts re-exports these.
 */
import type { RankedPrice } from '../domain/cheapest.ts';
import type { HeldPrice } from '../domain/tomorrow.ts';

/** A positioned station as the position index is built from it (read-models/positions.ts). */
export interface PositionRow {
  key: number;
  id: string;
  latitude: number;
  longitude: number;
}

/** An available price of an output fuel (of a member, for a combined one), by station key. */
export interface FuelPriceRow {
  stationKey: number;
  priceTenths: number;
  reportedAt: number;
}

/** A station's available price of a member of the output fuel (as an item: metres undefined), with its station's city and state. */
export interface AreaPriceRow {
  price: RankedPrice;
  cityId: string | undefined;
  state: string;
}

/** A held price as read, with where its station is (read-models/held-index.ts). */
export interface HeldRow {
  price: HeldPrice;
  cityId: string | undefined;
  state: string;
  /** Whether the station has a position (price.latitude and longitude are 0 when it has none). */
  positioned: boolean;
}
