import type { StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import { BULK, INGEST_STATEMENTS as SQL } from '../sql/ingest-statements.ts';
import type { SqliteFile } from './sqlite-file.ts';

/**
 * City means on SQLite: per city, output fuel and day, the mean of its stations' daily means
 * (weighted_tenths / seconds) over every station of the city with seconds on that day.
 *
 * One `GROUP BY city, output, day` over station_daily computes the same, but has SQLite sort
 * every row of the range: sealing ten years of a national dataset sorted hundreds of millions
 * of rows. Here each station's rows are read in key order, which needs no sort. The means of
 * station_daily rows are summed per (output, day) as SQLite's avg() sums: Kahan-Babuska-Neumaier
 * compensated (SQLite 3.43 on). A run of whole days at one price gives each of its days that
 * whole number, so runs are summed exactly, by their first and last day only: a running total
 * per output fuel (a difference array) gives each day its sum and count when the city is done,
 * in time proportional to the runs, not to the days they cover. A day's mean is then (exact sum
 * of its runs' prices + compensated sum of its rows' means) / count: the bits avg() gives when a
 * day has only runs or only rows, and otherwise within a few units in the last place of them
 * (avg() adds the same terms in another order; on the national one-year sample 5,857 of 777,260
 * means differ, by at most 4.3e-16 of the mean, and none by a displayed cent).
 */

/** Days summed in one pass: a city's sums over this many days stay in memory. */
const WINDOW_DAYS = 4096;
/** Sum slots per day: every output fuel index is below 32. */
const SLOTS = 32;

export function recomputeCityDays(db: SqliteFile, which: { cityId: string } | { state: StateId }, from: LocalDay, to: LocalDay): void {
  if (to < from) return;
  const [remove, stations, arg] = 'cityId' in which
    ? [SQL.deleteCityDays, 'city_id = $1 AND city_id IS NOT NULL', which.cityId] as const
    : [SQL.deleteStateCityDays, 'state = $1 AND city_id IS NOT NULL', which.state] as const;
  db.run(remove, [from, to, arg]);
  const members = db.arrays<[number, string]>(`SELECT key, city_id FROM stations WHERE ${stations} ORDER BY city_id, key`, [arg]);
  if (members.length === 0) return;
  // Which output fuels each reported fuel counts towards (itself, and its combined id if any).
  const outputsOf: number[][] = [];
  for (const [fuel, output] of db.arrays<[number, number]>('SELECT fuel, output FROM fuel_groups ORDER BY fuel, output')) {
    (outputsOf[fuel] ??= []).push(output);
  }
  // Two reads in the same (key) order, numbers only: each row's day and fuel, and its mean.
  const where = 'FROM station_daily WHERE station_key = ? AND day BETWEEN ? AND ? AND seconds > 0 ORDER BY day, fuel';
  const slotsOf = db.columnStatement(`SELECT (day - ?) * ${SLOTS} + fuel ${where}`);
  const meansOf = db.columnStatement(`SELECT CAST(weighted_tenths AS REAL) / seconds ${where}`);
  // Runs overlapping the window, in key order (no sort), clipped to it: the slot of the first day
  // and the last day (an offset in the window, below WINDOW_DAYS) as one number, then the price
  // (two reads of the same rows: numbers, not a row array each).
  const runs = 'FROM station_runs WHERE station_key = ? AND to_day >= ? AND from_day <= ? ORDER BY to_day, fuel';
  const runSpansOf = db.columnStatement(`SELECT ((max(from_day, ?) - ?) * ${SLOTS} + fuel) * ${WINDOW_DAYS} + min(to_day, ?) - ? ${runs}`);
  const runPricesOf = db.columnStatement(`SELECT price_tenths ${runs}`);
  const out = db.bulk(BULK.cityDaily);
  for (let low = from; low <= to; low += WINDOW_DAYS) {
    const high = Math.min(to, low + WINDOW_DAYS - 1);
    const sums = new CitySums(high - low + 1);
    for (let first = 0; first < members.length;) {
      const cityId = members[first]?.[1] ?? '';
      let end = first;
      for (; end < members.length && members[end]?.[1] === cityId; end++) {
        const key = members[end]?.[0];
        const slots = slotsOf.all(low, key, low, high) as number[];
        const values = meansOf.all(key, low, high) as number[];
        if (slots.length !== values.length) throw new Error('station_daily changed between two reads of one transaction');
        for (let i = 0; i < slots.length; i++) {
          const slot = slots[i] ?? 0;
          const outputs = outputsOf[slot % SLOTS];
          if (outputs) for (const output of outputs) sums.addMean(slot - (slot % SLOTS) + output, values[i] ?? 0);
        }
        const spans = runSpansOf.all(low, low, high, low, key, low, high) as number[];
        if (spans.length === 0) continue;
        const prices = runPricesOf.all(key, low, high) as number[];
        if (prices.length !== spans.length) throw new Error('station_runs changed between two reads of one transaction');
        for (let i = 0; i < spans.length; i++) {
          const span = spans[i] ?? 0;
          const start = Math.floor(span / WINDOW_DAYS);
          const outputs = outputsOf[start % SLOTS];
          if (!outputs) continue; // a fuel no output counts (fuel_groups lists every known fuel)
          const firstDay = Math.floor(start / SLOTS);
          for (const output of outputs) sums.addRun(firstDay, span % WINDOW_DAYS, output, prices[i] ?? 0);
        }
      }
      // In key order (day, then fuel), emptying the sums for the next city.
      sums.drain((slot, mean) => {
        out.values.push(cityId, low + Math.floor(slot / SLOTS), slot % SLOTS, mean);
        out.added();
      });
      first = end;
    }
  }
  out.flush();
}

/**
 * Per slot (day offset x SLOTS + output fuel) of one city: the compensated sum and count of the
 * means of station_daily rows, as SQLite's sum()/avg() keep one (sumStep on REAL values), and
 * the runs as a difference array: +price and +1 at a run's first day, the opposite the day
 * after its last, added up day by day at drain.
 */
class CitySums {
  private readonly sum: Float64Array;
  private readonly error: Float64Array;
  private readonly count: Float64Array;
  private readonly runSum: Float64Array;
  private readonly runCount: Float64Array;
  private low = Infinity;
  private high = -Infinity;

  constructor(private readonly days: number) {
    const slots = days * SLOTS;
    this.sum = new Float64Array(slots);
    this.error = new Float64Array(slots);
    this.count = new Float64Array(slots);
    // One day more: a run to the window's last day ends its difference there.
    this.runSum = new Float64Array(slots + SLOTS);
    this.runCount = new Float64Array(slots + SLOTS);
  }

  addMean(slot: number, value: number): void {
    const s = this.sum[slot] ?? 0;
    const t = s + value;
    // kahanBabuskaNeumaierStep
    if (Math.abs(s) > Math.abs(value)) this.error[slot] = (this.error[slot] ?? 0) + ((s - t) + value);
    else this.error[slot] = (this.error[slot] ?? 0) + ((value - t) + s);
    this.sum[slot] = t;
    this.count[slot] = (this.count[slot] ?? 0) + 1;
    this.widen(slot, slot);
  }

  /** Whole days [firstDay, lastDay] (offsets in the window) at a price, for one output fuel. */
  addRun(firstDay: number, lastDay: number, output: number, priceTenths: number): void {
    const first = firstDay * SLOTS + output;
    const after = (lastDay + 1) * SLOTS + output;
    this.runSum[first] = (this.runSum[first] ?? 0) + priceTenths;
    this.runCount[first] = (this.runCount[first] ?? 0) + 1;
    this.runSum[after] = (this.runSum[after] ?? 0) - priceTenths;
    this.runCount[after] = (this.runCount[after] ?? 0) - 1;
    this.widen(first, after - SLOTS);
  }

  private widen(low: number, high: number): void {
    if (low < this.low) this.low = low;
    if (high > this.high) this.high = high;
  }

  /** Each slot's mean in slot order, then every slot back to zero. */
  drain(emit: (slot: number, mean: number) => void): void {
    if (this.low > this.high) return;
    // The runs' running totals per output fuel, from the first day with anything on to the day
    // after the last (where the last runs' differences end; it may be the window's extra day).
    const runTotal = new Float64Array(SLOTS);
    const runCount = new Float64Array(SLOTS);
    const windowEnd = this.days * SLOTS;
    const end = Math.min(this.high - (this.high % SLOTS) + 2 * SLOTS, windowEnd + SLOTS);
    for (let slot = this.low - (this.low % SLOTS); slot < end; slot++) {
      const output = slot % SLOTS;
      const runs = (runCount[output] = (runCount[output] ?? 0) + (this.runCount[slot] ?? 0));
      const runPrices = (runTotal[output] = (runTotal[output] ?? 0) + (this.runSum[slot] ?? 0));
      this.runSum[slot] = 0;
      this.runCount[slot] = 0;
      if (slot >= windowEnd) continue;
      const count = (this.count[slot] ?? 0) + runs;
      if (count === 0) continue;
      const error = this.error[slot] ?? 0;
      // avgFinalize: the error term is left out only when it overflowed.
      const means = Number.isFinite(error) ? (this.sum[slot] ?? 0) + error : (this.sum[slot] ?? 0);
      emit(slot, (runs === 0 ? means : runPrices + means) / count);
      this.sum[slot] = 0;
      this.error[slot] = 0;
      this.count[slot] = 0;
    }
    this.low = Infinity;
    this.high = -Infinity;
  }
}
