/**
 * A city's petrol price cycle, read from its own daily means (the series the history serves).
 * What it advises is in advice.ts; the method, with its measured savings, in docs/CYCLE.md.
 *
 * - The year: the changes on the local days today − 364 to today, each against the day before
 *   (so today − 365 is read too).
 * - A change needs both its days to have a mean (a missing day is never bridged).
 * - Days without news: a day with no mean, or whose mean equals the day before's to the last
 *   digit (no station's price moved all day: in a city with reports that does not happen, so the
 *   feed most likely sent nothing and the mean is the day before's carried forward). The
 *   advice takes no decision on them (advice.ts), and the cheapest weekday is learnt without them.
 * - A restoration starts on a day rising at least RESTORATION_DAY (3.0 c/L) on the day before,
 *   and takes in the days after it while each rises at least RISING_DAY (1.0 c/L) (a jump late
 *   in a day shows in two daily means, and stations follow a leader over days); it counts when
 *   its rise, the sum, is at least RESTORATION (5.0 c/L). Its date is that first day. So a
 *   creeping rise of a cent or two a day is not a restoration (Bunbury's smooth rises), and the
 *   creeping days before a jump do not date it.
 * - Intervals: days between the starts of consecutive restorations; the period is their
 *   median (the mean of the middle two for an even count), rounded to a whole day.
 * - The city cycles when it has at least 4 restorations in the year (3 intervals), the intervals
 *   are regular (their median absolute deviation is at most 35% of their median), and at least 3 in 4
 *   of the restorations but the last were given back, at least half the rise, before the next began: a
 *   cycle's sawtooth, not a wholesale price stepping up and staying there (issue 47: three
 *   wholesale rises 22 and 12 days apart were called a cycle).
 * - Phase, when it cycles: "rising" while the last restoration's run reaches the latest day
 *   or it started today or yesterday; "trough" when at least 0.75 × period days have passed
 *   since it started and the latest mean is within TROUGH_MARGIN (1.0 c/L) of the lowest mean
 *   since its run ended; "falling" otherwise. "none" when it does not cycle.
 * - A weekly cycle (period 7) has a cheapest weekday: the one whose days are cheapest against
 *   the seven days centred on them, over the WEEKDAY_WEEKS (8) weeks before today, given at
 *   least two such days of each weekday with news on all seven.
 * - The last restoration and the days since it are given whenever the year has one, cycle or not,
 *   and so is every restoration of the year (the dashboard marks them on its chart).
 */
import type { DailyMean } from './history.ts';
import type { LocalDay } from './time.ts';

/** Tenths of a cent per litre. */
export const RISING_DAY = 10;
export const RESTORATION_DAY = 30;
export const RESTORATION = 50;
export const TROUGH_MARGIN = 10;
export const YEAR_DAYS = 365;
/** Restorations (so 3 intervals) a cycle needs: with two intervals almost any 2:1 ratio passed the regularity test (issue 47). */
export const MIN_RESTORATIONS = 4;
/** A restoration is given back when prices fall by this share of its rise before the next: a sawtooth, not wholesale steps. */
export const SAWTOOTH_GIVEBACK = 0.5;
/** The share of restorations (all but the last) that must be given back (a wholesale rise during a cycle may keep one). */
export const SAWTOOTH_SHARE = 0.75;
/** Days with news in the year the method needs before it says a city has no cycle (4 restorations of a 45-day cycle). */
export const HISTORY_NEEDED = 180;
export const MAX_RELATIVE_MAD = 0.35;
export const TROUGH_FRACTION = 0.75;
export const WEEKDAY_WEEKS = 8;

export type CyclePhase = 'rising' | 'falling' | 'trough' | 'none';

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
  /** A weekly cycle's cheapest weekday (0 Monday .. 6 Sunday); null otherwise or without the weeks to learn it. */
  cheapestWeekday: number | null;
  /** The latest whole day before `today` with news (see newsDays) in the year, or null. */
  latestNews: LocalDay | null;
}

/** 1970-01-01 was a Thursday: weekday 0 is Monday. */
export function weekday(day: LocalDay): number {
  return (((day + 3) % 7) + 7) % 7;
}

/** The means of the days with news (present, and not the day before's repeated to the last digit), by day. */
export function newsDays(days: readonly DailyMean[]): Map<LocalDay, number> {
  const all = new Map<LocalDay, number>();
  for (const d of days) all.set(d.day, d.meanTenths);
  const news = new Map<LocalDay, number>();
  for (const [day, mean] of all) if (all.get(day - 1) !== mean) news.set(day, mean);
  return news;
}

/** Every restoration in the year up to `today`, oldest first. `days` may come in any order. */
export function restorations(days: readonly DailyMean[], today: LocalDay): Restoration[] {
  return restorationsIn(new Map(days.map((d) => [d.day, d.meanTenths])), today);
}

function restorationsIn(news: ReadonlyMap<LocalDay, number>, today: LocalDay): Restoration[] {
  const from = today - YEAR_DAYS + 1;
  const rise = (day: LocalDay): number | null => {
    const mean = news.get(day);
    const before = news.get(day - 1);
    return mean === undefined || before === undefined ? null : mean - before;
  };
  const found: Restoration[] = [];
  for (let day = from; day <= today; day++) {
    const first = rise(day);
    if (first === null || first < RESTORATION_DAY) continue;
    const run: Restoration = { day, lastDay: day, riseTenths: first };
    for (let next = rise(day + 1); day + 1 <= today && next !== null && next >= RISING_DAY; next = rise(day + 1)) {
      day++;
      run.lastDay = day;
      run.riseTenths += next;
    }
    if (run.riseTenths >= RESTORATION) found.push(run);
  }
  return found;
}

/** A restoration was given back before `before`: some day after its run, the mean was SAWTOOTH_GIVEBACK of its rise or more below its last day's. */
export function givenBack(means: ReadonlyMap<LocalDay, number>, r: Restoration, before: LocalDay): boolean {
  const peak = means.get(r.lastDay);
  let low = Infinity;
  for (let day = r.lastDay + 1; day < before; day++) low = Math.min(low, means.get(day) ?? Infinity);
  return peak !== undefined && peak - low >= SAWTOOTH_GIVEBACK * r.riseTenths;
}

/** At least SAWTOOTH_SHARE of the restorations but the last fell back by SAWTOOTH_GIVEBACK of their rise before the next began. */
function sawtooth(means: ReadonlyMap<LocalDay, number>, found: readonly Restoration[]): boolean {
  let given = 0;
  for (let i = 0; i + 1 < found.length; i++) {
    const r = found[i];
    const next = found[i + 1];
    if (r && next && givenBack(means, r, next.day)) given++;
  }
  return given >= SAWTOOTH_SHARE * (found.length - 1);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] ?? 0 : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * The weekday cheapest against the days around it: each day's mean less the mean of the seven
 * days centred on it (so a steady rise or fall over the weeks does not make the week's last day
 * look cheapest), averaged per weekday; undefined unless every weekday has at least two such days.
 */
export function cheapestWeekday(days: readonly DailyMean[]): number | undefined {
  return weekdayPattern(days)?.weekday;
}

/**
 * The cheapest weekday as cheapestWeekday finds it, with the pattern's depth: how far the dearest weekday's mean
 * deviation is above the cheapest's, tenths (a weekly cycle: Perth's about 100; a town without one: a few), and each
 * weekday's mean deviation itself (`offsets`, by weekday as `weekday` numbers them, tenths).
 */
export function weekdayPattern(days: readonly DailyMean[]): { weekday: number; depthTenths: number; offsets: number[] } | undefined {
  const byDay = new Map(days.map((d) => [d.day, d.meanTenths]));
  const sums = Array.from({ length: 7 }, () => ({ sum: 0, n: 0 }));
  for (const [day, mean] of byDay) {
    let around = 0;
    let whole = true;
    for (let d = day - 3; d <= day + 3; d++) { const m = byDay.get(d); if (m === undefined) { whole = false; break; } around += m; }
    const s = sums[weekday(day)];
    if (whole && s) { s.sum += mean - around / 7; s.n++; }
  }
  if (sums.some((s) => s.n < 2)) return undefined;
  let best: number | undefined;
  let bestValue = Infinity;
  let worst = -Infinity;
  for (const [i, s] of sums.entries()) {
    if (s.sum / s.n < bestValue) { bestValue = s.sum / s.n; best = i; }
    worst = Math.max(worst, s.sum / s.n);
  }
  return best === undefined ? undefined : { weekday: best, depthTenths: worst - bestValue, offsets: sums.map((s) => s.sum / s.n) };
}

/**
 * The cycle as of `today` (a local day), from one fuel's daily means in tenths of a cent.
 * `latest`, when given, is the mean of the prices in force now: it stands for today's mean in
 * the phase (the day is not over, and today's time-weighted mean is mostly yesterday's prices).
 */
export function priceCycle(days: readonly DailyMean[], today: LocalDay, latest?: number): PriceCycle {
  const present = new Map<LocalDay, number>();
  for (const d of days) if (d.day <= today) present.set(d.day, d.meanTenths);
  if (latest !== undefined) present.set(today, latest);
  const found = restorationsIn(present, today);
  const last = found[found.length - 1] ?? null;
  const daysSince = last ? today - last.day : null;
  const news = newsDays(days.filter((d) => d.day < today));
  let latestNews: LocalDay | null = null;
  for (const day of news.keys()) if (day > today - YEAR_DAYS && (latestNews === null || day > latestNews)) latestNews = day;
  const none: PriceCycle = {
    restorations: found, cycles: false, periodDays: null, lastRestoration: last, daysSinceRestoration: daysSince, phase: 'none', cheapestWeekday: null, latestNews,
  };
  if (!last || daysSince === null || found.length < MIN_RESTORATIONS) return none;
  const intervals = found.slice(1).map((r, i) => r.day - (found[i]?.day ?? r.day));
  const mid = median(intervals);
  const mad = median(intervals.map((x) => Math.abs(x - mid)));
  if (mid <= 0 || mad > MAX_RELATIVE_MAD * mid || !sawtooth(present, found)) return none;
  const period = Math.round(mid);

  const recent = [...present].filter(([day]) => day > last.lastDay).map(([, mean]) => mean);
  let latestDay: LocalDay | null = null;
  for (const day of present.keys()) if (latestDay === null || day > latestDay) latestDay = day;
  const latestMean = latestDay === null ? undefined : present.get(latestDay);
  let phase: CyclePhase;
  if (daysSince <= 1 || latestDay === null || latestDay <= last.lastDay) phase = 'rising';
  else if (latestMean !== undefined && daysSince >= TROUGH_FRACTION * period && latestMean <= Math.min(...recent) + TROUGH_MARGIN) phase = 'trough';
  else phase = 'falling';
  const weekly = period === 7
    ? cheapestWeekday([...news].filter(([day]) => day < today && day >= today - 7 * WEEKDAY_WEEKS).map(([day, meanTenths]) => ({ day, meanTenths })))
    : undefined;
  return { restorations: found, cycles: true, periodDays: period, lastRestoration: last, daysSinceRestoration: daysSince, phase, cheapestWeekday: weekly ?? null, latestNews };
}
