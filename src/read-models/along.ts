/**
 * Along a path, from the position index (positions.ts), the same on both backends: the path's
 * segments search the index's grid of positions (domain/route.ts Path.within), keeping the
 * stations with an available price of the fuel. No station is read from storage but the page's own.
 */
import type { AlongPrice } from '../domain/along.ts';
import type { Path } from '../domain/route.ts';
import type { FuelPrices, Positions } from './positions.ts';

/** The priced stations within the path's corridor, in no order. */
export function pricedAlong(positions: Positions, prices: FuelPrices, path: Path): AlongPrice[] {
  return path.within(positions.grid(), (slot) => prices.priceAt(slot) >= 0, (slot, metres, alongKm): AlongPrice => ({
    stationId: positions.idAt(slot), latitude: positions.latitudeAt(slot), longitude: positions.longitudeAt(slot),
    priceTenths: prices.priceAt(slot), reportedAt: prices.reportedAtOf(slot), metres, alongKm,
  }));
}
