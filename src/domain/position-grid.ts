/**
 * Positions bucketed on a grid of square cells (a fixed size in degrees of latitude and of
 * longitude), for searches along a path (route.ts Path.within): the positions of one row's run
 * of cells are one contiguous run of an array sorted by cell, found by one binary search.
 * Storage keeps one per data version beside its position index (storage/nearest.ts).
 */

/** The cells' size: about 2.2 km north to south, so a 2 km corridor's segment covers a few cells. */
export const GRID_CELL_DEGREES = 0.02;

/** A cell's row and column as one number (rows and columns of cells of at least 0.01° stay within ±2^15). */
function cellKey(row: number, column: number): number {
  return (row + 32_768) * 65_536 + (column + 32_768);
}

export class PositionGrid {
  /** Each slot's cell key, in ascending order of key (then slot). */
  private readonly keys: Float64Array;
  /** The slots in that order. */
  private readonly slots: Int32Array;

  /** Over the positions by slot (the arrays are kept, not copied). */
  constructor(readonly cellDegrees: number, private readonly latitudes: Float64Array, private readonly longitudes: Float64Array) {
    const keyOf = new Float64Array(latitudes.length);
    for (let slot = 0; slot < latitudes.length; slot++) keyOf[slot] = cellKey(this.cellOf(latitudes[slot] ?? 0), this.cellOf(longitudes[slot] ?? 0));
    this.slots = Int32Array.from(keyOf.keys()).sort((a, b) => (keyOf[a] ?? 0) - (keyOf[b] ?? 0) || a - b);
    this.keys = Float64Array.from(this.slots, (slot) => keyOf[slot] ?? 0);
  }

  get size(): number {
    return this.latitudes.length;
  }

  /** The row (of a latitude) or column (of a longitude) of cells that holds it. */
  cellOf(degrees: number): number {
    return Math.floor(degrees / this.cellDegrees);
  }

  latitudeAt(slot: number): number {
    return this.latitudes[slot] ?? 0;
  }

  longitudeAt(slot: number): number {
    return this.longitudes[slot] ?? 0;
  }

  /** Each slot in the row's cells from column `from` to `to`, both included. */
  eachInRow(row: number, from: number, to: number, visit: (slot: number) => void): void {
    const first = cellKey(row, from);
    const last = cellKey(row, to);
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.keys[mid] ?? 0) < first) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.keys.length && (this.keys[i] ?? 0) <= last; i++) visit(this.slots[i] ?? 0);
  }
}
