/**
 * A city's petrol price cycle, read from its own daily means (the series the history serves).
 *
 * The method (README, endpoint 10, says the same):
 * - The year: the changes on the local days today − 364 to today, each against the day before
 *   (so today − 365 is read too); a change needs both days present.
 * - A rising day: its mean is at least RISING_DAY (1.0 c/L) above the day before's.
 * - A restoration: a maximal run of consecutive rising days whose rises sum to at least
 *   RESTORATION (5.0 c/L); its date is its first day, its rise that sum.
 * - Intervals: days between the starts of consecutive restorations; the period is their
 *   median (the mean of the middle two for an even count), rounded to a whole day.
 * - The city cycles when it has at least 3 restorations in the year and the intervals are
 *   regular: their median absolute deviation is at most 35% of their median.
 * - Phase, when it cycles: "rising" while the last restoration's run reaches the latest day
 *   or it started today or yesterday; "trough" when at least 0.75 × period days have passed
 *   since it started and the latest mean is within TROUGH_MARGIN (1.0 c/L) of the lowest mean
 *   since its run ended; "falling" otherwise. "none" when it does not cycle.
 * - Advice: "fill-up" in the trough (prices at their lowest, a rise is due), "wait" when rising
 *   or falling, "no-cycle" when it does not cycle.
 * - The last restoration and the days since it are given whenever the year has one, cycle or not,
 *   and so is every restoration of the year (the dashboard marks them on its chart).
 */
import type { DailyMean } from './history.ts';
import type { LocalDay } from './time.ts';

/** Tenths of a cent per litre. */
export const RISING_DAY = 10;
export const RESTORATION = 50;
export const TROUGH_MARGIN = 10;
export const YEAR_DAYS = 365;
export const MIN_RESTORATIONS = 3;
export const MAX_RELATIVE_MAD = 0.35;
export const TROUGH_FRACTION = 0.75;

export type CyclePhase = 'rising' | 'falling' | 'trough' | 'none';
export type CycleAdvice = 'fill-up' | 'wait' | 'no-cycle';

export interface Restoration {
  /** First day of the run. */
  day: LocalDay;
  /** Last day of the run. */
  lastDay: LocalDay;
  riseTenths: number;
}

export interface PriceCycle {
  /** Every restoration in the year, oldest first (the last is lastRestoration), cycle or not. */
  restorations: Restoration[];
  cycles: boolean;
  periodDays: number | null;
  lastRestoration: Restoration | null;
  daysSinceRestoration: number | null;
  phase: CyclePhase;
  advice: CycleAdvice;
}

/** Every restoration in the year up to `today`, oldest first. `days` may come in any order. */
export function restorations(days: readonly DailyMean[], today: LocalDay): Restoration[] {
  // Changes on the last 365 days, each against the day before (so the day before them is read too).
  const from = today - YEAR_DAYS + 1;
  const byDay = new Map<LocalDay, number>();
  for (const d of days) if (d.day >= from - 1 && d.day <= today) byDay.set(d.day, d.meanTenths);
  const found: Restoration[] = [];
  let run: Restoration | null = null;
  const close = (): void => {
    if (run && run.riseTenths >= RESTORATION) found.push(run);
    run = null;
  };
  for (let day = from; day <= today; day++) {
    const mean = byDay.get(day);
    const before = byDay.get(day - 1);
    const rise = mean === undefined || before === undefined ? null : mean - before;
    if (rise === null || rise < RISING_DAY) { close(); continue; }
    if (run) { run.lastDay = day; run.riseTenths += rise; } else run = { day, lastDay: day, riseTenths: rise };
  }
  close();
  return found;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] ?? 0 : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** The cycle as of `today` (a local day), from one fuel's daily means in tenths of a cent. */
export function priceCycle(days: readonly DailyMean[], today: LocalDay): PriceCycle {
  const found = restorations(days, today);
  const last = found[found.length - 1] ?? null;
  const daysSince = last ? today - last.day : null;
  const none: PriceCycle = { restorations: found, cycles: false, periodDays: null, lastRestoration: last, daysSinceRestoration: daysSince, phase: 'none', advice: 'no-cycle' };
  if (!last || daysSince === null || found.length < MIN_RESTORATIONS) return none;
  const intervals = found.slice(1).map((r, i) => r.day - (found[i]?.day ?? r.day));
  const mid = median(intervals);
  const mad = median(intervals.map((x) => Math.abs(x - mid)));
  if (mid <= 0 || mad > MAX_RELATIVE_MAD * mid) return none;
  const period = Math.round(mid);

  const recent = days.filter((d) => d.day > last.lastDay && d.day <= today);
  const latest = days.filter((d) => d.day <= today).reduce<DailyMean | null>((a, d) => (a && a.day >= d.day ? a : d), null);
  let phase: CyclePhase;
  if (daysSince <= 1 || (latest !== null && latest.day <= last.lastDay)) phase = 'rising';
  else if (latest !== null && daysSince >= TROUGH_FRACTION * period
    && latest.meanTenths <= Math.min(...recent.map((d) => d.meanTenths)) + TROUGH_MARGIN) phase = 'trough';
  else phase = 'falling';
  return { restorations: found, cycles: true, periodDays: period, lastRestoration: last, daysSinceRestoration: daysSince, phase, advice: phase === 'trough' ? 'fill-up' : 'wait' };
}
