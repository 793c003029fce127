/**
 * Positions bucketed on a grid of square cells (a fixed size in degrees of latitude and of
 * longitude), for searches along a path (route.ts Path.within): the positions of one row's run
 * of cells are one contiguous run of an array sorted by row, then column, found from the row's
 * first entry (an index by row) by one binary search over that row's columns.
 * The search worker keeps one per data version beside its position index (read-models/positions.ts).
 */
import { putUnit } from './arc.ts';
import { cosLatitude } from './nearby.ts';

/** The cells' size: about 2.2 km north to south, so a 2 km corridor's segment covers a few cells. */
export const GRID_CELL_DEGREES = 0.02;

/** Per-slot working space for one search at a time (searches are synchronous, so one grid needs one). */
export interface GridScratch {
  /** This search's mark: `marks[slot] === mark` met and kept, `=== -mark` met and not kept; anything else not met yet. */
  readonly mark: number;
  readonly marks: Int32Array;
  readonly values: Float64Array;
  readonly others: Float64Array;
  readonly nearest: Float64Array;
  readonly states: Int32Array;
}

export class PositionGrid {
  /** Each slot's cosine of its latitude (what measuring at the slot scales longitudes by). */
  readonly cosines: Float64Array;
  /** The slots, by row, then column, then slot. */
  readonly slots: Int32Array;
  /** Each entry's column, in that order. */
  private readonly columns: Int32Array;
  /** The first row with a position, and for each row from it, the index of its first entry (one more at the end). */
  private readonly firstRow: number;
  private readonly rowStarts: Int32Array;
  private marks: Int32Array | undefined;
  private values: Float64Array | undefined;
  private others: Float64Array | undefined;
  private nearest: Float64Array | undefined;
  private states: Int32Array | undefined;
  private unitVectors: Float64Array | undefined;
  private lastMark = 0;

  /**
   * Over the positions by slot (the arrays are kept, not copied), with each one's cosLatitude when
   * the caller has them already (storage's position index does).
   */
  constructor(readonly cellDegrees: number, readonly latitudes: Float64Array, readonly longitudes: Float64Array,
    cosines?: Float64Array) {
    const count = latitudes.length;
    this.cosines = cosines ?? Float64Array.from(latitudes, cosLatitude);
    const rowOf = Int32Array.from(latitudes, (latitude) => this.cellOf(latitude));
    const columnOf = Int32Array.from(longitudes, (longitude) => this.cellOf(longitude));
    this.slots = Int32Array.from(rowOf.keys()).sort((a, b) => (rowOf[a] ?? 0) - (rowOf[b] ?? 0) || (columnOf[a] ?? 0) - (columnOf[b] ?? 0) || a - b);
    this.columns = Int32Array.from(this.slots, (slot) => columnOf[slot] ?? 0);
    this.firstRow = count === 0 ? 0 : (rowOf[this.slots[0] ?? 0] ?? 0);
    const rows = count === 0 ? 0 : (rowOf[this.slots[count - 1] ?? 0] ?? 0) - this.firstRow + 1;
    // starts[r]: how many entries are in the rows before firstRow + r (a count per row, then summed).
    const starts = new Int32Array(rows + 1);
    for (let slot = 0; slot < count; slot++) {
      const r = (rowOf[slot] ?? 0) - this.firstRow + 1;
      starts[r] = (starts[r] ?? 0) + 1;
    }
    for (let r = 1; r <= rows; r++) starts[r] = (starts[r] ?? 0) + (starts[r - 1] ?? 0);
    this.rowStarts = starts;
  }

  get size(): number {
    return this.latitudes.length;
  }

  /** The row (of a latitude) or column (of a longitude) of cells that holds it. */
  cellOf(degrees: number): number {
    return Math.floor(degrees / this.cellDegrees);
  }

  /**
   * The entries of the row's cells from column `from` to `to`, both included, as indexes into
   * `slots`: `into[0]` the first, `into[1]` one past the last (written into, not allocated).
   */
  runOf(row: number, from: number, to: number, into: Int32Array): void {
    const r = row - this.firstRow;
    if (r < 0 || r + 1 >= this.rowStarts.length) { into[0] = 0; into[1] = 0; return; }
    let lo = this.rowStarts[r] ?? 0;
    const rowEnd = this.rowStarts[r + 1] ?? 0;
    let hi = rowEnd;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.columns[mid] ?? 0) < from) lo = mid + 1;
      else hi = mid;
    }
    let end = lo;
    while (end < rowEnd && (this.columns[end] ?? 0) <= to) end++;
    into[0] = lo;
    into[1] = end;
  }

  /**
   * Working space for one search, cleared by a new mark rather than by writing every slot
   * (storage keeps the grid for a data version, so a search allocates nothing of its size).
   */
  scratch(): GridScratch {
    const size = this.size;
    if (this.marks === undefined || this.lastMark >= 0x7fff_fffe) {
      this.marks = new Int32Array(size);
      this.values = new Float64Array(size);
      this.others = new Float64Array(size);
      this.nearest = new Float64Array(size);
      this.states = new Int32Array(size);
      this.lastMark = 0;
    }
    this.lastMark++;
    return { mark: this.lastMark, marks: this.marks, values: this.values as Float64Array, others: this.others as Float64Array,
      nearest: this.nearest as Float64Array, states: this.states as Int32Array };
  }

  /** Each slot's position as a unit vector (arc.ts putUnit), x, y, z by slot: made at the first search along a path, then kept. */
  units(): Float64Array {
    if (this.unitVectors === undefined) {
      const units = new Float64Array(this.size * 3);
      for (let slot = 0; slot < this.size; slot++) putUnit(this.latitudes[slot] ?? 0, this.longitudes[slot] ?? 0, units, 3 * slot);
      this.unitVectors = units;
    }
    return this.unitVectors;
  }
}
