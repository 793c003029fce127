import { FUELS, type FuelId } from '../domain/fuels.ts';
import type { StateId } from '../domain/states.ts';
import { type LocalDay, dayLength, dayStart } from '../domain/time.ts';
import type { DayRange, StationDayRow } from './store.ts';
import type { Row } from './sql/dialect.ts';
import { fuelAt } from './sql/row-mappers.ts';

/** Runs of whole days at one price (station_runs) expanded, on read, into the days they stand for. */

const FUEL_ORDER: ReadonlyMap<FuelId, number> = new Map(FUELS.map((fuel, index) => [fuel, index]));

/** A station_runs row as the readers take it: fuel index, first day, last day, price. */
export type RunRow = [fuel: number, from: LocalDay, to: LocalDay, priceTenths: number];

export function toRunRow(r: Row): RunRow {
  return [Number(r.fuel), Number(r.from_day), Number(r.to_day), Number(r.price_tenths)];
}

/**
 * One station's days with the whole days of its runs within `range` added as days of their own
 * (the price times each day's seconds, as a station_daily row had them before runs), in (day,
 * fuel) order: the order the readers gave when every day was a row, which is the order the
 * history's means are summed in. `days` must come in (day, fuel) order and `runs` in (fuel,
 * day) order (the readers' ORDER BY): a merge of the rows with one cursor per fuel, no sort.
 */
export function withRunDays(stationId: string, state: StateId, days: StationDayRow[], runs: readonly RunRow[], range: DayRange): StationDayRow[] {
  if (runs.length === 0) return days;
  const cursors = runCursors(runs, range.from ?? -Infinity, range.to, state);
  const out: StationDayRow[] = [];
  for (let r = 0; ;) {
    const row = days[r];
    let day = row ? row.day : Infinity;
    let fuel = row ? (FUEL_ORDER.get(row.fuel) ?? 0) : Infinity;
    let pick: RunDays | undefined;
    for (const cursor of cursors) {
      // A day is a row or in a run, never both: ties are only between exhausted cursors (Infinity).
      if (cursor.day < day || (cursor.day === day && cursor.day !== Infinity && cursor.fuel < fuel)) { day = cursor.day; fuel = cursor.fuel; pick = cursor; }
    }
    if (pick) {
      out.push({ stationId, fuel: fuelAt(pick.fuel), day, weightedTenths: pick.price * pick.seconds, seconds: pick.seconds });
      pick.next();
    } else if (row) {
      out.push(row);
      r++;
    } else {
      return out;
    }
  }
}

/**
 * One cursor per fuel over `runs` (a station's, in (fuel, day) order), each walking its fuel's
 * days within [low, high] in day order, with each day's price and seconds; those with no day in
 * the range are left out.
 */
function runCursors(runs: readonly RunRow[], low: number, high: LocalDay, state: StateId): RunDays[] {
  const cursors: RunDays[] = [];
  for (let i = 0; i < runs.length;) {
    let j = i;
    while (j < runs.length && runs[j]?.[0] === runs[i]?.[0]) j++;
    const cursor = new RunDays(runs, i, j, low, high, state);
    if (cursor.day !== Infinity) cursors.push(cursor);
    i = j;
  }
  return cursors;
}

/** Walks the days of one fuel's runs (disjoint, in day order) within [low, high]; `day` is Infinity once past the last. */
class RunDays {
  readonly fuel: number;
  day = Infinity;
  price = 0;
  /** The day's length. */
  seconds = 0;
  private last = 0;
  private start = 0;
  private index: number;

  constructor(private readonly runs: readonly RunRow[], first: number, private readonly end: number,
    private readonly low: number, private readonly high: LocalDay, private readonly state: StateId) {
    this.fuel = runs[first]?.[0] ?? 0;
    this.index = first - 1;
    this.nextRun();
  }

  next(): void {
    if (this.day < this.last) {
      this.day++;
      this.start += this.seconds;
      this.seconds = dayLength(this.state, this.day, this.start);
    } else {
      this.nextRun();
    }
  }

  private nextRun(): void {
    for (this.index++; this.index < this.end; this.index++) {
      const [, from, to, price] = this.runs[this.index] ?? [0, 0, -1, 0];
      const first = Math.max(from, this.low);
      const last = Math.min(to, this.high);
      if (first > last) continue;
      this.day = first;
      this.last = last;
      this.price = price;
      this.start = dayStart(this.state, first);
      this.seconds = dayLength(this.state, first, this.start);
      return;
    }
    this.day = Infinity;
  }
}

/**
 * withRunDays for the stations of a city: `days` in (station, day, fuel) order, `runs` (with
 * their station's id and state) in (station, fuel, day) order; stations in id order.
 */
export function withRunDaysByStation(days: StationDayRow[], runs: ReadonlyArray<{ stationId: string; state: StateId; run: RunRow }>, range: DayRange): StationDayRow[] {
  if (runs.length === 0) return days;
  const ids = [...new Set([...days.map((d) => d.stationId), ...runs.map((r) => r.stationId)])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: StationDayRow[] = [];
  let d = 0;
  let r = 0;
  for (const id of ids) {
    const first = d;
    while (d < days.length && days[d]?.stationId === id) d++;
    const own: RunRow[] = [];
    const state = runs[r]?.stationId === id ? runs[r]?.state : undefined;
    for (; r < runs.length && runs[r]?.stationId === id; r++) own.push(runs[r]?.run ?? [0, 0, -1, 0]);
    const stationDays = days.slice(first, d);
    for (const day of state ? withRunDays(id, state, stationDays, own, range) : stationDays) out.push(day);
  }
  return out;
}

