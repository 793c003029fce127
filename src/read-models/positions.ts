/**
 * The position index and each fuel's prices by slot of it, the same on both backends (read
 * models: registry.ts `positions`, `fuelPrices`).
 *
 * Every station's position is held as a small index (`Positions`: typed arrays sorted by
 * latitude, some 25 bytes a station), built once per data version from storage's rows: a near
 * search walks only the latitude band of its box, measures the stations in the box
 * (domain/nearby.ts, whole metres) and ranks them as one number each (ranking.ts says the
 * order), with no row read from storage but the page's own stations. Cheapest near a point adds,
 * per output fuel and data version, each station's lowest available price (`FuelPrices`).
 */
import { type Near, boxAround, cosLatitude, metresWithCosines } from '../domain/nearby.ts';
import { GRID_CELL_DEGREES, PositionGrid } from '../domain/position-grid.ts';
import { smallestFirst } from '../domain/smallest.ts';
import { compareIds } from '../domain/today.ts';
import type { FuelPriceRow, PositionRow } from '../storage/store.ts';

/**
 * A near search ranks its stations as one number each, sorted as numbers: price * 2^36 + metres *
 * 2^19 + rank (the price part 0 when only nearness counts; rank: in byte order of ids). Exact, under
 * 2^53: prices below 2^17 tenths (ingest takes at most 100,000: ingest/normalise.ts; a price above
 * is left out), metres below 2^17 (a radius is at most 100 km), fewer than 2^19 stations.
 */
const RANK_SPAN = 2 ** 19;
const METRES_SPAN = 2 ** 17;
const PRICE_SPAN = 2 ** 17;
/** A ranking key's metres (RANK_SPAN's layout). */
export const metresOfKey = (key: number): number => Math.floor(key / RANK_SPAN) - Math.floor(key / (RANK_SPAN * METRES_SPAN)) * METRES_SPAN;

/** Every station's position, sorted by latitude, for near searches in memory. */
export class Positions {
  private readonly latitude: Float64Array;
  private readonly longitude: Float64Array;
  /** Each latitude's cosine, once (the haversine takes it), rather than on every search. */
  private readonly cosLatitude: Float64Array;
  private readonly ids: string[];
  private readonly rank: Float64Array;
  private readonly slotOfKey = new Map<number, number>();
  private readonly slotOfRank: Int32Array;
  /** Room for one search's keys, reused: a search runs to its end before another starts. */
  private readonly scratch: Float64Array;
  private cells: PositionGrid | undefined;

  constructor(rows: readonly PositionRow[]) {
    if (rows.length >= RANK_SPAN) throw new Error(`too many stations for the position index: ${rows.length}`);
    const sorted = [...rows].sort((a, b) => a.latitude - b.latitude);
    this.latitude = Float64Array.from(sorted, (r) => r.latitude);
    this.longitude = Float64Array.from(sorted, (r) => r.longitude);
    this.cosLatitude = Float64Array.from(sorted, (r) => cosLatitude(r.latitude));
    this.ids = sorted.map((r) => r.id);
    sorted.forEach((r, slot) => this.slotOfKey.set(r.key, slot));
    const byId = sorted.map((_, slot) => slot).sort((a, b) => compareIds(this.ids[a] ?? '', this.ids[b] ?? ''));
    this.rank = new Float64Array(sorted.length);
    this.slotOfRank = new Int32Array(sorted.length);
    this.scratch = new Float64Array(sorted.length);
    byId.forEach((slot, rank) => { this.rank[slot] = rank; this.slotOfRank[rank] = slot; });
  }

  get size(): number {
    return this.ids.length;
  }

  slotOf(stationKey: number): number | undefined {
    return this.slotOfKey.get(stationKey);
  }

  idAt(slot: number): string {
    return this.ids[slot] ?? '';
  }

  latitudeAt(slot: number): number {
    return this.latitude[slot] ?? 0;
  }

  longitudeAt(slot: number): number {
    return this.longitude[slot] ?? 0;
  }

  /**
   * The stations within the radius as ranking keys (RANK_SPAN's layout), the first `reach` of them
   * sorted (domain/smallest.ts), the rest after them in no order: nearest first, then by id; with
   * `price` (by slot, -1: none) only the priced ones, cheapest (`descending`: dearest) first. The
   * keys are a view of this index's scratch: read them before the next search.
   */
  ranked(near: Near, reach: number, price?: Int32Array, descending = false): Float64Array {
    const box = boxAround(near.centre, near.radiusKm);
    const limit = Math.round(near.radiusKm * 1000);
    if (!(limit < METRES_SPAN)) throw new RangeError(`a radius of ${near.radiusKm} km is beyond what the index ranks`);
    const scratch = this.scratch;
    const centreCos = cosLatitude(near.centre.latitude);
    let n = 0;
    for (let slot = this.firstAtOrAbove(box.south); slot < this.latitude.length; slot++) {
      const latitude = this.latitude[slot] ?? 0;
      if (latitude > box.north) break;
      const longitude = this.longitude[slot] ?? 0;
      if (longitude < box.west || longitude > box.east) continue;
      let pricePart = 0;
      if (price) {
        const tenths = price[slot] ?? -1;
        if (tenths < 0 || tenths >= PRICE_SPAN) continue;
        pricePart = descending ? PRICE_SPAN - 1 - tenths : tenths;
      }
      const metres = metresWithCosines(near.centre, centreCos, latitude, longitude, this.cosLatitude[slot] ?? 1);
      if (metres <= limit) scratch[n++] = (pricePart * METRES_SPAN + metres) * RANK_SPAN + (this.rank[slot] ?? 0);
    }
    const keys = scratch.subarray(0, n);
    smallestFirst(keys, reach);
    return keys;
  }

  /** The slot of a ranking key's station. */
  slotRanked(key: number): number { return this.slotOfRank[key - Math.floor(key / RANK_SPAN) * RANK_SPAN] ?? 0; }

  /** The positions on a grid of cells, for searches along a path; built at its first use. */
  grid(): PositionGrid {
    this.cells ??= new PositionGrid(GRID_CELL_DEGREES, this.latitude, this.longitude, this.cosLatitude);
    return this.cells;
  }

  private firstAtOrAbove(latitude: number): number {
    let lo = 0;
    let hi = this.latitude.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.latitude[mid] ?? 0) < latitude) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Each station's lowest available price of one output fuel (of equal ones, the later report), by slot of a Positions. */
export class FuelPrices {
  private readonly price: Int32Array;
  private readonly at: Float64Array;

  constructor(positions: Positions, rows: readonly FuelPriceRow[]) {
    this.price = new Int32Array(positions.size).fill(-1);
    this.at = new Float64Array(positions.size);
    for (const row of rows) {
      const slot = positions.slotOf(row.stationKey);
      if (slot === undefined) continue;
      const seen = this.price[slot] ?? -1;
      if (seen < 0 || row.priceTenths < seen || (row.priceTenths === seen && row.reportedAt > (this.at[slot] ?? 0))) {
        this.price[slot] = row.priceTenths;
        this.at[slot] = row.reportedAt;
      }
    }
  }

  /** The slot's price in tenths, -1 when it has none; and when it was reported. */
  priceAt(slot: number): number { return this.price[slot] ?? -1; }
  reportedAtOf(slot: number): number { return this.at[slot] ?? 0; }

  /** Every slot's price (-1: none), as Positions.ranked takes it. */
  get bySlot(): Int32Array { return this.price; }
}
