/**
 * Near a point, the same on both backends.
 *
 * Every station's position is held in each process as a small index (`Positions`: typed arrays
 * sorted by latitude, some 25 bytes a station), read once per data version: a near search walks
 * only the latitude band of its box, measures the stations in the box (domain/nearby.ts, whole
 * metres) and ranks them, with no row read from storage but the page's own stations. Cheapest
 * near a point adds, per output fuel and data version, each station's lowest available price
 * (`FuelPrices`). A near search with other filters (state, brand, fuel, ...) goes to storage
 * instead: the stations of the box that pass them, measured and ranked by the same rule.
 */
import type { PriceOrder, RankedPrice } from '../domain/cheapest.ts';
import { reportedSince } from '../domain/fresh.ts';
import { type Near, type Point, boxAround, cosLatitude, metresWithCosines, withinRadius } from '../domain/nearby.ts';
import { GRID_CELL_DEGREES, PositionGrid } from '../domain/position-grid.ts';
import { smallestFirst } from '../domain/smallest.ts';
import { compareIds } from '../domain/today.ts';
import type { ListResult, ListedStation, Station, StationListQuery } from './store.ts';

/** A near search with no other filter: answered from the position index. */
export function onlyNear(query: StationListQuery): boolean {
  return query.state === undefined && query.city === undefined && query.suburb === undefined && query.postcode === undefined
    && query.brand === undefined && query.fuel === undefined && query.freshSince === undefined;
}

export interface NearestPage {
  /** The page's ids, nearest first. */
  ids: string[];
  metres: Map<string, number>;
  total: number;
}

/** A page of the stations within the radius from candidates storage found in the box (a search with other filters). */
export function nearestPage(points: ReadonlyArray<Point & { id: string }>, near: Near, limit: number, offset: number): NearestPage {
  const ranked = withinRadius(points, near);
  const page = ranked.slice(offset, offset + limit);
  return { ids: page.map((p) => p.id), metres: new Map(page.map((p) => [p.id, p.metres])), total: ranked.length };
}

/** The page's stations in its order, each with its metres. */
export function nearestResult(page: NearestPage, stations: readonly Station[]): ListResult<ListedStation> {
  const byId = new Map(stations.map((s) => [s.id, s]));
  const items: ListedStation[] = [];
  for (const id of page.ids) {
    const s = byId.get(id);
    if (!s) continue;
    // A new object, as the rows may be kept ones (NearbyCache).
    items.push({ ...s, metres: page.metres.get(id) ?? 0 });
  }
  return { items, total: page.total };
}

/** A station as the position index is built from it. */
export interface PositionRow {
  key: number;
  id: string;
  latitude: number;
  longitude: number;
}

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
const metresOfKey = (key: number): number => Math.floor(key / RANK_SPAN) - Math.floor(key / (RANK_SPAN * METRES_SPAN)) * METRES_SPAN;

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

/** A page of the near list from the index: ids, metres and the total. */
export function indexedNearestPage(positions: Positions, near: Near, limit: number, offset: number): NearestPage {
  const keys = positions.ranked(near, offset + limit);
  const ids: string[] = [];
  const metres = new Map<string, number>();
  for (const key of keys.subarray(offset, offset + limit)) {
    const id = positions.idAt(positions.slotRanked(key));
    ids.push(id);
    metres.set(id, metresOfKey(key));
  }
  return { ids, metres, total: keys.length };
}

/** An available price of an output fuel (of a member, for a combined one), by station key. */
export interface FuelPriceRow {
  stationKey: number;
  priceTenths: number;
  reportedAt: number;
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

  /**
   * The priced stations within the radius in domain/cheapest.ts's order (price, then metres, then
   * id; one search, its keys ranking by all three at once), and the page asked for made into items.
   */
  rankNear(positions: Positions, near: Near, order: PriceOrder, limit: number, offset: number): ListResult<RankedPrice> {
    const keys = positions.ranked(near, offset + limit, this.price, order === 'desc');
    const items: RankedPrice[] = [];
    for (const key of keys.subarray(offset, offset + limit)) {
      const slot = positions.slotRanked(key);
      items.push({
        stationId: positions.idAt(slot), latitude: positions.latitudeAt(slot), longitude: positions.longitudeAt(slot),
        priceTenths: this.price[slot] ?? 0, reportedAt: this.at[slot] ?? 0, metres: metresOfKey(key),
      });
    }
    return { items, total: keys.length };
  }
}

/**
 * The position index and the fuel prices of the data version last read, per process. A process
 * that sees a newer data version builds them again on its next near search (a few milliseconds:
 * one read of every station's position, and of every available price of the fuel asked for).
 */
export class NearbyCache {
  private positions: { version: number; value: Positions } | undefined;
  /** Per output fuel; built over one Positions, and kept only while that is the one in use. */
  private readonly prices = new Map<number, { version: number; positions: Positions; value: FuelPrices; rows: readonly FuelPriceRow[] }>();
  /** Station rows read for near searches and cheapest lists, for the data version last read: a page's rows, read once. */
  private stations: { version: number; byId: Map<string, Station> } = { version: Number.NaN, byId: new Map() };

  /** The position index kept for this version, if any; the store reads the rows and calls keepPositions otherwise. */
  keptPositions(version: number): Positions | undefined {
    return this.positions?.version === version ? this.positions.value : undefined;
  }

  keepPositions(version: number, rows: readonly PositionRow[]): Positions {
    this.positions = { version, value: new Positions(rows) };
    return this.positions.value;
  }

  /**
   * The fuel's prices kept for this version and this position index, if any (else keepPrices);
   * with max_age's `since`, built for the request from the kept rows reported since then.
   */
  keptPrices(version: number, fuel: number, positions: Positions, since?: number): FuelPrices | undefined {
    const kept = this.prices.get(fuel);
    return kept?.version === version && kept.positions === positions ? sinceKept(kept, since) : undefined;
  }

  keepPrices(version: number, fuel: number, positions: Positions, rows: readonly FuelPriceRow[], since?: number): FuelPrices {
    const kept = { version, positions, value: new FuelPrices(positions, rows), rows };
    this.prices.set(fuel, kept);
    return sinceKept(kept, since);
  }

  /** The kept rows of these ids at this version, and the ids to read. */
  keptStations(version: number, ids: readonly string[]): { kept: Station[]; missing: string[] } {
    if (this.stations.version !== version) this.stations = { version, byId: new Map() };
    const kept: Station[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const row = this.stations.byId.get(id);
      if (row) kept.push(row);
      else missing.push(id);
    }
    return { kept, missing };
  }

  keepStations(version: number, rows: readonly Station[]): void {
    if (this.stations.version !== version) return;
    for (const row of rows) this.stations.byId.set(row.id, row);
  }
}

/** Kept prices as a request asks for them: as kept, or with max_age's `since` built from the kept rows reported since then. */
function sinceKept(kept: { positions: Positions; value: FuelPrices; rows: readonly FuelPriceRow[] }, since: number | undefined): FuelPrices {
  return since === undefined ? kept.value : new FuelPrices(kept.positions, reportedSince(kept.rows, since));
}
