/**
 * Along a path, from the position index (nearest.ts), the same on both backends: each of the
 * path's stretch boxes (domain/route.ts PathIndex.boxes) is walked in the index's latitude band,
 * each priced station in a box is measured against the few segments near it (PathIndex.locate),
 * and those within the corridor are kept, each once. No station is read from storage but the
 * page's own.
 */
import type { AlongPrice } from '../domain/along.ts';
import type { PathIndex } from '../domain/route.ts';
import type { FuelPrices, Positions } from './nearest.ts';

/** The priced stations within the path's corridor, in no order. */
export function pricedAlong(positions: Positions, prices: FuelPrices, path: PathIndex): AlongPrice[] {
  const seen = new Uint8Array(positions.size);
  const found: AlongPrice[] = [];
  for (const box of path.boxes()) {
    positions.eachInBox(box, (slot) => {
      if (seen[slot] === 1) return;
      seen[slot] = 1;
      const priceTenths = prices.priceAt(slot);
      if (priceTenths < 0) return;
      const latitude = positions.latitudeAt(slot);
      const longitude = positions.longitudeAt(slot);
      const at = path.locateAt(latitude, longitude);
      if (!at) return;
      found.push({
        stationId: positions.idAt(slot), latitude, longitude, priceTenths, reportedAt: prices.reportedAtOf(slot), metres: at.metres, alongKm: at.alongKm,
      });
    });
  }
  return found;
}
