import type { StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import { type RunDays, type RunRow, runCursors } from '../rows.ts';
import { RowBuffer, type Sql } from './row-buffer.ts';

/**
 * City means on SQLite: per city, output fuel and day, the mean of its stations' daily means
 * (weighted_tenths / seconds) over every station of the city with seconds on that day.
 *
 * One `GROUP BY city, output, day` over station_daily computes the same, but has SQLite sort
 * every row of the range: sealing ten years of a national dataset sorted hundreds of millions
 * of rows. Here each station's days are read in key order, which needs no sort, and summed per
 * (output, day) as SQLite's avg() sums: Kahan-Babuska-Neumaier compensated (SQLite 3.43 on),
 * then (sum + error) / count. Compensated sums do not depend on the order of their terms but
 * in the last bit of pathological cases, so the means are those avg() gives (compared bit for
 * bit on the whole small and national demo datasets).
 */

/** Days summed in one pass: a city's sums over this many days stay in memory. */
const WINDOW_DAYS = 4096;
/** Sum slots per day: every output fuel index is below 32. */
const SLOTS = 32;

export function recomputeCityDays(sql: Sql, which: { cityId: string } | { state: StateId }, from: LocalDay, to: LocalDay): void {
  if (to < from) return;
  const [cities, stations, arg] = 'cityId' in which
    ? ['id = ?', 'city_id = ? AND city_id IS NOT NULL', which.cityId] as const
    : ['state = ?', 'state = ? AND city_id IS NOT NULL', which.state] as const;
  sql(`DELETE FROM city_daily WHERE day BETWEEN ? AND ? AND city_id IN (SELECT id FROM cities WHERE ${cities})`).run(from, to, arg);
  const members = sql(`SELECT key, city_id FROM stations WHERE ${stations} ORDER BY city_id, key`).raw().all(arg) as Array<[number, string]>;
  if (members.length === 0) return;
  // Which output fuels each reported fuel counts towards (itself, and its combined id if any).
  const outputsOf: number[][] = [];
  for (const [fuel, output] of sql('SELECT fuel, output FROM fuel_groups ORDER BY fuel, output').raw().all() as Array<[number, number]>) {
    (outputsOf[fuel] ??= []).push(output);
  }
  // Two reads in the same (key) order, numbers only: each row's day and fuel, and its mean.
  const where = 'FROM station_daily WHERE station_key = ? AND day BETWEEN ? AND ? AND seconds > 0 ORDER BY day, fuel';
  const slotsOf = sql(`SELECT (day - ?) * ${SLOTS} + fuel ${where}`).pluck();
  const meansOf = sql(`SELECT CAST(weighted_tenths AS REAL) / seconds ${where}`).pluck();
  // Whole days at one price: each day's mean is the price itself.
  const runsOf = sql(`SELECT fuel, from_day, to_day, price_tenths FROM station_runs
    WHERE station_key = ? AND to_day >= ? AND from_day <= ? ORDER BY fuel, from_day`).raw();
  const out = new RowBuffer(sql, 'INSERT INTO city_daily (city_id, fuel, day, mean_tenths)', 4, '');
  for (let low = from; low <= to; low += WINDOW_DAYS) {
    const high = Math.min(to, low + WINDOW_DAYS - 1);
    const sums = new CompensatedSums((high - low + 1) * SLOTS);
    const add = (slot: number, value: number): void => {
      const fuel = slot % SLOTS;
      const outputs = outputsOf[fuel];
      if (!outputs) return; // a fuel no output counts (fuel_groups lists every known fuel)
      for (const output of outputs) sums.add(slot - fuel + output, value);
    };
    for (let first = 0; first < members.length;) {
      const cityId = members[first]?.[1] ?? '';
      let end = first;
      for (; end < members.length && members[end]?.[1] === cityId; end++) {
        const key = members[end]?.[0];
        const slots = slotsOf.all(low, key, low, high) as number[];
        const values = meansOf.all(key, low, high) as number[];
        if (slots.length !== values.length) throw new Error('station_daily changed between two reads of one transaction');
        const runs = runsOf.all(key, low, high) as RunRow[];
        if (runs.length === 0) for (let i = 0; i < slots.length; i++) add(slots[i] ?? 0, values[i] ?? 0);
        else inSlotOrder(slots, values, runs, low, high, add);
      }
      // In key order (day, then fuel), emptying the sums for the next city.
      sums.drain((slot, mean) => {
        out.values.push(cityId, slot % SLOTS, low + Math.floor(slot / SLOTS), mean);
        out.added();
      });
      first = end;
    }
  }
  out.flush();
}

/**
 * A station's sums (slot, mean) and its runs' days (slot, price) in one slot order, which is
 * (day, fuel) order: the order the sums were added in when every day was a station_daily row,
 * so the city means keep their last digits. One cursor per fuel (its runs are disjoint and read
 * in day order) merged with the rows.
 */
function inSlotOrder(slots: readonly number[], values: readonly number[], runs: readonly RunRow[], low: LocalDay, high: LocalDay,
  visit: (slot: number, value: number) => void): void {
  const cursors = runCursors(runs, low, high);
  const slotOf = (cursor: RunDays): number => (cursor.day === Infinity ? Infinity : (cursor.day - low) * SLOTS + cursor.fuel);
  let r = 0;
  for (;;) {
    let best = r < slots.length ? (slots[r] ?? 0) : Infinity;
    let pick: RunDays | undefined;
    for (const cursor of cursors) {
      const slot = slotOf(cursor);
      if (slot < best) { best = slot; pick = cursor; }
    }
    if (best === Infinity) return;
    if (pick) { visit(best, pick.price); pick.next(); } else { visit(best, values[r] ?? 0); r++; }
  }
}

/** Per slot, a sum as SQLite's sum()/avg() keep one (sumStep on REAL values, avgFinalize). */
class CompensatedSums {
  private readonly sum: Float64Array;
  private readonly error: Float64Array;
  private readonly count: Float64Array;
  private low = Infinity;
  private high = -Infinity;

  constructor(slots: number) {
    this.sum = new Float64Array(slots);
    this.error = new Float64Array(slots);
    this.count = new Float64Array(slots);
  }

  add(slot: number, value: number): void {
    const s = this.sum[slot] ?? 0;
    const t = s + value;
    // kahanBabuskaNeumaierStep
    if (Math.abs(s) > Math.abs(value)) this.error[slot] = (this.error[slot] ?? 0) + ((s - t) + value);
    else this.error[slot] = (this.error[slot] ?? 0) + ((value - t) + s);
    this.sum[slot] = t;
    this.count[slot] = (this.count[slot] ?? 0) + 1;
    if (slot < this.low) this.low = slot;
    if (slot > this.high) this.high = slot;
  }

  /** Each slot's mean in slot order, then every slot back to zero. */
  drain(emit: (slot: number, mean: number) => void): void {
    for (let slot = this.low; slot <= this.high; slot++) {
      const count = this.count[slot] ?? 0;
      if (count === 0) continue;
      const error = this.error[slot] ?? 0;
      // avgFinalize: the error term is left out only when it overflowed.
      const total = Number.isFinite(error) ? (this.sum[slot] ?? 0) + error : (this.sum[slot] ?? 0);
      emit(slot, total / count);
      this.sum[slot] = 0;
      this.error[slot] = 0;
      this.count[slot] = 0;
    }
    this.low = Infinity;
    this.high = -Infinity;
  }
}
