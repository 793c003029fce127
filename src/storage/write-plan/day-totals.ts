import { DaySums } from '../../domain/history.ts';
import type { StateId } from '../../domain/states.ts';
import { type LocalDay, dayStart, localDayOf, utcOffsetSeconds } from '../../domain/time.ts';

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

/** Whole local days [from, to] at one price: the days an interval covers from midnight to midnight. */
export interface DayRun {
  from: LocalDay;
  to: LocalDay;
  priceTenths: number;
}

/**
 * Per-day sums of one station's fuel, in day order, and the runs of whole days at one price.
 * A day that an interval covers only in part (the days a report arrives, mostly) is a sum; the
 * whole days between two reports are one run, not a sum each (station_runs beside
 * station_daily: a price in force for a week is one row, not seven).
 */
export class DayTotals extends DaySums {
  readonly runs: DayRun[] = [];

  get size(): number {
    return this.days.length + this.runs.length;
  }

  /** Whole days [from, to] at a price; joins the run before it when it follows on at the same price. */
  addRun(from: LocalDay, to: LocalDay, priceTenths: number): void {
    const last = this.runs[this.runs.length - 1];
    if (last && last.to === from - 1 && last.priceTenths === priceTenths) last.to = to;
    else this.runs.push({ from, to, priceTenths });
  }

  /** Each day's sums as an object, in day order (runs apart). */
  *values(): IterableIterator<DayTotal> {
    for (let i = 0; i < this.days.length; i++) {
      yield { day: this.days[i] ?? 0, weighted: this.weighted[i] ?? 0, seconds: this.seconds[i] ?? 0 };
    }
  }
}

/**
 * The first instant of `day`, from the UTC offset at `near` (an instant of that day or the one
 * before) when the offset is the same either side of that midnight, which time.ts's cache
 * answers without a search; dayStart otherwise.
 */
function startOfDay(state: StateId, day: LocalDay, near: number): number {
  const offset = utcOffsetSeconds(state, near);
  const t = day * DAY - offset;
  return utcOffsetSeconds(state, t) === offset && utcOffsetSeconds(state, t - 1) === offset ? t : dayStart(state, day);
}

/**
 * Adds [from, to) at a price to per-day totals, only while the fuel is available: the part
 * days it starts and ends in as sums, the whole days between as one run. Each day gets the
 * seconds it has (DAY, or an hour less or more across a daylight-saving change).
 */
export function addInterval(totals: DayTotals, state: StateId, from: number, to: number, report: Report): void {
  if (!report.available || to <= from) return;
  const price = report.priceTenths;
  const firstDay = localDayOf(state, from);
  let runFrom = firstDay;
  if (from !== startOfDay(state, firstDay, from)) {
    const end = Math.min(to, startOfDay(state, firstDay + 1, from));
    totals.add(firstDay, price * (end - from), end - from);
    if (end === to) return;
    runFrom = firstDay + 1;
  }
  const lastDay = localDayOf(state, to - 1);
  const lastStart = startOfDay(state, lastDay, to - 1);
  const endsAtMidnight = to === startOfDay(state, lastDay + 1, to - 1);
  const runTo = endsAtMidnight ? lastDay : lastDay - 1;
  if (runFrom <= runTo) totals.addRun(runFrom, runTo, price);
  if (!endsAtMidnight) totals.add(lastDay, price * (to - lastStart), to - lastStart);
}

/**
 * Reports later than the current one and its open interval's start, in time order: each closes
 * the interval of the one before it. Adds to `totals` (new ones by default) and returns them
 * with the new open state.
 */
export function advance(state: StateId, current: OpenState | undefined, reports: readonly Report[], totals = new DayTotals()): { totals: DayTotals; open: OpenState | undefined } {
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
export function openState(report: Report, openFrom: number): OpenState {
  return { at: report.at, priceTenths: report.priceTenths, available: report.available, openFrom };
}
