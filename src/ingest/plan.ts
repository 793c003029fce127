import type { StateId } from '../domain/states.ts';
import { type LocalDay, splitByLocalDay, utcOffsetSeconds } from '../domain/time.ts';

const DAY = 86_400;

/**
 * Pure arithmetic of the writer, shared by every storage backend: how a station's reports for
 * one fuel turn into closed per-day intervals and a new current state.
 */

export interface Report {
  at: number;
  priceTenths: number;
  available: boolean;
}

export interface OpenState extends Report {
  /** Start of the interval not yet added to the daily sums. */
  openFrom: number;
}

export interface DayTotal {
  day: LocalDay;
  weighted: number;
  seconds: number;
}

/**
 * Per-day sums of one station's fuel, in day order. Intervals are added in time order, so a
 * sum almost always goes to the last day or starts the next one: three flat arrays rather
 * than an object and a map entry per day (ten years of a national dataset make 130 million).
 */
export class DayTotals {
  readonly days: LocalDay[] = [];
  readonly weighted: number[] = [];
  readonly seconds: number[] = [];

  get size(): number {
    return this.days.length;
  }

  add(day: LocalDay, weighted: number, seconds: number): void {
    const { days } = this;
    let i = days.length - 1;
    const last = days[i];
    if (last === undefined || day > last) {
      days.push(day);
      this.weighted.push(weighted);
      this.seconds.push(seconds);
      return;
    }
    // The same day again (a day split by a transition), or an earlier one: keep day order.
    while (i >= 0 && (days[i] ?? 0) > day) i--;
    if (days[i] === day) {
      this.weighted[i] = (this.weighted[i] ?? 0) + weighted;
      this.seconds[i] = (this.seconds[i] ?? 0) + seconds;
    } else {
      days.splice(i + 1, 0, day);
      this.weighted.splice(i + 1, 0, weighted);
      this.seconds.splice(i + 1, 0, seconds);
    }
  }

  /** Each day's sums as an object, in day order. */
  *values(): IterableIterator<DayTotal> {
    for (let i = 0; i < this.days.length; i++) {
      yield { day: this.days[i] ?? 0, weighted: this.weighted[i] ?? 0, seconds: this.seconds[i] ?? 0 };
    }
  }
}

/** Adds [from, to) at a price to per-day totals, only while the fuel is available. */
export function addInterval(totals: DayTotals, state: StateId, from: number, to: number, report: Report): void {
  if (!report.available || to <= from) return;
  const price = report.priceTenths;
  // The writer adds millions of intervals: walk the days without allocating slices. Within a
  // day whose UTC offset is the same at both ends the day ends at the next local midnight
  // (time.ts counts on no zone changing its offset twice in a day); a day with a transition
  // takes splitByLocalDay's path. Either way each day gets the same seconds.
  let t = from;
  while (t < to) {
    const offset = utcOffsetSeconds(state, t);
    const day = Math.floor((t + offset) / DAY);
    const end = Math.min(to, (day + 1) * DAY - offset);
    if (utcOffsetSeconds(state, end - 1) !== offset) {
      for (const slice of splitByLocalDay(state, t, to)) totals.add(slice.day, price * slice.seconds, slice.seconds);
      return;
    }
    totals.add(day, price * (end - t), end - t);
    t = end;
  }
}

/**
 * Reports later than the current one, in time order: each closes the interval of the one
 * before it. Returns the totals to add and the new open state.
 */
export function advance(state: StateId, current: OpenState | undefined, reports: readonly Report[]): { totals: DayTotals; open: OpenState | undefined } {
  const totals = new DayTotals();
  let previous: Report | undefined = current;
  let openFrom = current?.openFrom ?? 0;
  for (const report of reports) {
    if (previous) addInterval(totals, state, openFrom, report.at, previous);
    previous = report;
    openFrom = report.at;
  }
  return { totals, open: previous ? openState(previous, openFrom) : undefined };
}

/** A report as the open interval it starts (a fresh object: the report may be a batch's PriceEvent). */
function openState(report: Report, openFrom: number): OpenState {
  return { at: report.at, priceTenths: report.priceTenths, available: report.available, openFrom };
}

/**
 * Rebuilds a station's days for one fuel from `fromDay` on, after a report arrived out of
 * order: replays every report in force from the start of that day up to `closeUntil` (the
 * open interval's start, which stays where it was).
 */
export function replay(
  state: StateId, dayStartSec: number, inForce: Report | undefined, reports: readonly Report[], closeUntil: number,
): { totals: DayTotals; open: OpenState | undefined } {
  const totals = new DayTotals();
  let previous: { from: number; report: Report } | undefined = inForce ? { from: dayStartSec, report: inForce } : undefined;
  for (const report of reports) {
    if (previous) addInterval(totals, state, previous.from, Math.min(report.at, closeUntil), previous.report);
    previous = { from: report.at, report };
  }
  if (!previous) return { totals, open: undefined };
  const openFrom = Math.max(closeUntil, previous.from);
  addInterval(totals, state, previous.from, openFrom, previous.report);
  return { totals, open: openState(previous.report, openFrom) };
}
