import type { StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import type { Connection } from './connection.ts';
import { SLOTS, writeCityRuns } from './city-runs.ts';
import { INGEST_STATEMENTS as SQL } from './ingest-statements.ts';

/**
 * City means, written once for both backends: per city, output fuel and day, the mean of its
 * stations' daily means (weighted_tenths / seconds) over every station of the city with seconds
 * on that day, as DESIGN.md defines the city's daily value.
 *
 * - The means of station_daily rows are summed per (output, day) in the order of the stations'
 *   keys, then day, then fuel, Kahan-Babuska-Neumaier compensated (as SQLite's avg() sums REAL
 *   values, 3.43 on), so both backends give the same bits: each reads the same rows in the same
 *   order (CityDaysSource), and the sums are made here.
 * - A run of whole days at one price gives each of its days that whole number, so runs are summed
 *   exactly, by their first and last day only: a running total per output fuel (a difference
 *   array) gives each day its sum and count when the city is done, in time proportional to the
 *   runs, not to the days they cover.
 * - A day's mean is (exact sum of its runs' prices + compensated sum of its rows' means) / count:
 *   the bits avg() gives when a day has only runs or only rows, and otherwise within a few units
 *   in the last place of them (on the national one-year sample 5,857 of 777,260 means differ from
 *   avg()'s, by at most 4.3e-16 of the mean, and none by a displayed cent).
 * - What differs between the backends is only how a city's rows are read (sqlite/ and postgres/
 *   say why): SQLite reads each station's rows in key order, which needs no sort (one GROUP BY
 *   over station_daily had SQLite sort every row of the range: sealing ten years of a national
 *   dataset sorted hundreds of millions of rows); PostgreSQL reads a city's rows in one
 *   statement (one round trip a city, not one a station), a window of days at a time.
 */

/** Sum slots per day (city-runs.ts). */
export { SLOTS };

/**
 * What a backend hands over of a city's rows of days [low, high] (one window), as numbers, to a
 * visitor (no array of the city's rows is made): each station_daily row's slot ((day − low) ×
 * SLOTS + fuel) and mean, in (station key, day, fuel) order; each run's first slot
 * ((max(from, low) − low) × SLOTS + fuel), last day (min(to, high) − low) and price, in any order.
 */
export interface CityRowsVisitor {
  mean(slot: number, mean: number): void;
  run(firstSlot: number, lastDay: number, priceTenths: number): void;
}

/** How a backend reads a city's rows (the one part of city means that differs). */
export interface CityDaysSource {
  /** Days read and summed in one pass: a city's sums over this many days are held in memory. */
  readonly windowDays: number;
  /** The rows of the city's stations (`keys`, ascending) for days [low, high], given to `visit`. */
  read(tx: Connection, cityId: string, keys: readonly number[], low: LocalDay, high: LocalDay, visit: CityRowsVisitor): Promise<void>;
}

/**
 * Recomputes the city means of days [from, to] of one city or of every city of a state, and
 * writes only what changed (city-runs.ts): each city's stored runs of the window are read beside
 * the new means, and only runs that differ are deleted and inserted. What is stored afterwards is
 * exactly the new means, as deleting the days and inserting them again would leave it; rewriting
 * years of unchanged days (a late report of 2020 touches every day since for its city) is what is
 * saved, and so are the marks of blocks that did not change.
 */
export async function recomputeCityDays(
  tx: Connection, source: CityDaysSource, which: { cityId: string } | { state: StateId }, from: LocalDay, to: LocalDay,
): Promise<void> {
  if (to < from) return;
  const [stations, arg] = 'cityId' in which ? ['city_id = $1 AND city_id IS NOT NULL', which.cityId] as const : ['state = $1 AND city_id IS NOT NULL', which.state] as const;
  const keysOf = new Map<string, number[]>();
  for (const [key, cityId] of await tx.arrays<[number, string]>(`SELECT key, city_id FROM stations WHERE ${stations} ORDER BY city_id, key`, [arg])) {
    let keys = keysOf.get(String(cityId));
    if (!keys) keysOf.set(String(cityId), (keys = []));
    keys.push(Number(key));
  }
  // Every city whose days are recomputed: a state's cities with no station left lose their means.
  const cityIds = 'cityId' in which ? [which.cityId] : (await tx.arrays<[string]>(SQL.citiesOfState, [which.state])).map(([id]) => String(id));
  for (const cityId of keysOf.keys()) if (!cityIds.includes(cityId)) cityIds.push(cityId);
  cityIds.sort();
  // Which output fuels each reported fuel counts towards (itself, and its combined id if any).
  const outputsOf: number[][] = [];
  for (const [fuel, output] of await tx.arrays<[number, number]>('SELECT fuel, output FROM fuel_groups ORDER BY fuel, output')) {
    (outputsOf[Number(fuel)] ??= []).push(Number(output));
  }
  for (let low = from; low <= to; low += source.windowDays) {
    const high = Math.min(to, low + source.windowDays - 1);
    const sums = new CitySums(high - low + 1);
    // Each row's mean to every output fuel its fuel counts towards; each run likewise.
    const visit: CityRowsVisitor = {
      mean(slot, mean) {
        const outputs = outputsOf[slot % SLOTS];
        if (outputs) for (const output of outputs) sums.addMean(slot - (slot % SLOTS) + output, mean);
      },
      run(firstSlot, lastDay, priceTenths) {
        const outputs = outputsOf[firstSlot % SLOTS];
        if (!outputs) return; // a fuel no output counts (fuel_groups lists every known fuel)
        const firstDay = Math.floor(firstSlot / SLOTS);
        for (const output of outputs) sums.addRun(firstDay, lastDay, output, priceTenths);
      },
    };
    for (const cityId of cityIds) {
      const keys = keysOf.get(cityId) ?? [];
      if (keys.length > 0) await source.read(tx, cityId, keys, low, high, visit);
      await writeCityRuns(tx, cityId, low, high, (emit) => sums.drain(emit));
    }
  }
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
