import type { StateId } from '../domain/states.ts';
import { type LocalDay, splitByLocalDay } from '../domain/time.ts';

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

/** Adds [from, to) at a price to per-day totals, only while the fuel is available. */
export function addInterval(totals: Map<LocalDay, DayTotal>, state: StateId, from: number, to: number, report: Report): void {
  if (!report.available || to <= from) return;
  for (const slice of splitByLocalDay(state, from, to)) {
    const total = totals.get(slice.day);
    const weighted = report.priceTenths * slice.seconds;
    if (total) { total.weighted += weighted; total.seconds += slice.seconds; } else {
      totals.set(slice.day, { day: slice.day, weighted, seconds: slice.seconds });
    }
  }
}

/**
 * Reports later than the current one, in time order: each closes the interval of the one
 * before it. Returns the totals to add and the new open state.
 */
export function advance(state: StateId, current: OpenState | undefined, reports: readonly Report[]): { totals: Map<LocalDay, DayTotal>; open: OpenState | undefined } {
  const totals = new Map<LocalDay, DayTotal>();
  let open = current;
  for (const report of reports) {
    if (open) addInterval(totals, state, open.openFrom, report.at, open);
    open = { ...report, openFrom: report.at };
  }
  return { totals, open };
}

/**
 * Rebuilds a station's days for one fuel from `fromDay` on, after a report arrived out of
 * order: replays every report in force from the start of that day up to `closeUntil` (the
 * open interval's start, which stays where it was).
 */
export function replay(
  state: StateId, dayStartSec: number, inForce: Report | undefined, reports: readonly Report[], closeUntil: number,
): { totals: Map<LocalDay, DayTotal>; open: OpenState | undefined } {
  const totals = new Map<LocalDay, DayTotal>();
  let previous: { from: number; report: Report } | undefined = inForce ? { from: dayStartSec, report: inForce } : undefined;
  for (const report of reports) {
    if (previous) addInterval(totals, state, previous.from, Math.min(report.at, closeUntil), previous.report);
    previous = { from: report.at, report };
  }
  if (!previous) return { totals, open: undefined };
  const openFrom = Math.max(closeUntil, previous.from);
  addInterval(totals, state, previous.from, openFrom, previous.report);
  return { totals, open: { ...previous.report, openFrom } };
}
