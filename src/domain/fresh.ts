/**
 * Fresh prices: the series the cycle and its advice read, in which a station's price counts only
 * while its report is recent. The history keeps DESIGN's rule (a price holds until the next
 * report), so a station that closed, or a feed that went quiet, goes on counting at its last
 * price there; in a restoration such stale prices dilute the rise (issue 29: a restoration
 * hidden below the 5 c threshold by closed stations).
 *
 * - A price is fresh on the day of its station's latest report for the fuel and the
 *   FRESH_DAYS[state] local days after it. In storage a day part of which had another price (a
 *   report's day, mostly) is a station_daily row, fresh; whole days at one price are
 *   station_runs, and a run's day is fresh when a report of its station and fuel (the one that
 *   set its price, or one at midnight repeating it) fell on it or at most FRESH_DAYS days before.
 * - WA: 1. FuelWatch publishes every open station's price for every day, so a price that was
 *   not published again for the next day belongs to a station that is not selling.
 * - Every other state: 14. Stations report when their price changes; in a city with a cycle a
 *   station that takes part changes its price at least every week or two (Sydney's slowest
 *   cycles run about six weeks, falling a little every few days), and a price unchanged for a
 *   fortnight in such a city is most likely a station that closed or stopped reporting.
 * - A day's fresh mean is the plain mean over the fresh station days, as the history's mean is
 *   over all of them; a day with none has no mean (a missing day, never carried forward).
 * - The mean now (the cycle's `now`) is over the current prices reported on the last
 *   FRESH_DAYS + 1 local days (today included).
 */
import type { DailyMean } from './history.ts';
import type { CurrentPrice } from './price-rows.ts';
import type { StateId } from './states.ts';
import { type LocalDay, localDayOf } from './time.ts';

export const FRESH_DAYS: Readonly<Record<StateId, number>> = { wa: 1, nsw: 14, act: 14, vic: 14, qld: 14, sa: 14, tas: 14, nt: 14 };
/** The most of FRESH_DAYS: how far before a run storage looks for reports. */
export const MAX_FRESH_DAYS = 14;

/** What storage gives for one output fuel of one city over a range of sealed days. */
export interface FreshParts {
  /** Days with reports: per day, the sum and count of the stations' daily means (station_daily). */
  rowDays: ReadonlyArray<{ day: LocalDay; sum: number; count: number }>;
  /**
   * Whole days at one price (station_runs), each with the local days of its station and fuel's
   * reports from MAX_FRESH_DAYS days before its first day to its last (any order; others may come too).
   */
  runs: ReadonlyArray<{ from: LocalDay; to: LocalDay; priceTenths: number; reportDays: readonly LocalDay[] }>;
}

/** The fresh daily means of days [from, to], in day order; days without a fresh price are left out. */
export function freshDailyMeans(parts: FreshParts, freshDays: number, from: LocalDay, to: LocalDay): DailyMean[] {
  if (to < from) return [];
  const sum = new Float64Array(to - from + 1);
  const count = new Uint32Array(to - from + 1);
  for (const { day, sum: s, count: n } of parts.rowDays) {
    if (day < from || day > to) continue;
    sum[day - from] = (sum[day - from] ?? 0) + s;
    count[day - from] = (count[day - from] ?? 0) + n;
  }
  for (const run of parts.runs) {
    const reports = [...run.reportDays].sort((a, b) => a - b);
    for (let day = Math.max(run.from, from), r = 0, latest = -Infinity; day <= Math.min(run.to, to); day++) {
      for (; r < reports.length && (reports[r] ?? Infinity) <= day; r++) latest = reports[r] ?? latest;
      if (day - latest > freshDays) continue;
      sum[day - from] = (sum[day - from] ?? 0) + run.priceTenths;
      count[day - from] = (count[day - from] ?? 0) + 1;
    }
  }
  const out: DailyMean[] = [];
  for (let i = 0; i < count.length; i++) {
    const n = count[i] ?? 0;
    if (n > 0) out.push({ day: from + i, meanTenths: (sum[i] ?? 0) / n });
  }
  return out;
}

/** The current prices that are fresh on `nowSec`'s local day: reported on it or the FRESH_DAYS days before. */
export function freshCurrent(state: StateId, prices: readonly CurrentPrice[], nowSec: number): CurrentPrice[] {
  const oldest = localDayOf(state, nowSec) - FRESH_DAYS[state];
  return prices.filter((p) => localDayOf(state, p.reportedAt) >= oldest);
}

/**
 * The cycle's series: the fresh means of the sealed days, and after them (days storage has not
 * sealed yet: today, and any day a late seal left open) the history's own means.
 */
export function cycleSeries(fresh: readonly DailyMean[], history: readonly DailyMean[], sealedBefore: LocalDay): DailyMean[] {
  return [...fresh.filter((d) => d.day < sealedBefore), ...history.filter((d) => d.day >= sealedBefore)].sort((a, b) => a.day - b.day);
}

/** max_age (issue 31): the rows reported at or after `since`, exactly N hours ago included; all of them without it. */
export function reportedSince<T extends { reportedAt: number }>(rows: readonly T[], since: number | undefined): readonly T[] {
  return since === undefined ? rows : rows.filter((r) => r.reportedAt >= since);
}
