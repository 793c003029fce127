/**
 * When to fill up, measured: a replay of a city's daily means, day by day and without
 * look-ahead, of a driver who must buy every `every` days and may put a purchase off by up to
 * `delay` days, following one rule or another (docs/BACKTEST.md says the same):
 *
 * - Purchases fall due on `from`, `from + every`, ... up to `to`; each may be made on any day of
 *   its window [due, due + delay] that has a mean (the price paid is that day's city mean). A
 *   window with no day with a mean is left out for every rule alike.
 * - `fixed`: on the day it falls due (a fixed weekday when `every` is 7): the baseline.
 * - `advice`: on the first day of the window whose advice, worked out from what was known on it
 *   (Advisor), is `fill-up`, `no-cycle` or `unknown` (the last two: buy when due, so a city
 *   without a cycle never beats the fixed day by luck); on the window's last day with a mean
 *   when the advice waits throughout.
 * - `cheapest-weekday`: on the first day of the window that falls on the weekday that was
 *   cheapest against its own week over the `learnWeeks` weeks before the window; the due day
 *   when there is no such history or the window misses that weekday.
 * - `tomorrow-higher`: on the first day whose next day's mean is higher (WA publishes tomorrow's
 *   prices the afternoon before, so there this looks ahead at nothing unknown; elsewhere it is a
 *   bound, not a rule a driver can follow); the window's last day otherwise.
 * - `stopped-falling`: on the first day of the window on which the latest known mean is not below
 *   the one before it (buy once prices stop falling); the window's last day otherwise. Known: the
 *   days before, and today's too where tomorrow's prices are published (today's are then known).
 * - `near-low`: on the first day whose latest known mean is within NEAR_LOW_MARGIN (1.0 c/L) of the
 *   lowest of the NEAR_LOW_DAYS (14) days known before it; the window's last day otherwise.
 * - `oracle`: on the window's cheapest day (perfect hindsight).
 * - Each rule's saving is the mean over purchases of (fixed's price − its price), in tenths of a
 *   cent a litre; its share is that saving over the oracle's.
 */
import type { AdviceInput, AdviceValue } from './advice.ts';
import { cheapestWeekday, weekday } from './cycle.ts';
import type { DailyMean } from './history.ts';
import type { LocalDay } from './time.ts';

/**
 * The advice on `today` from what was known at the decision time: the days before it and, where
 * the state publishes tomorrow's prices the day before (`publishesTomorrow`), today's mean as
 * `now` and tomorrow's less today's as `tomorrowChange` (the replay gives it nothing else).
 */
export type Advisor = (known: AdviceInput) => AdviceValue;

export const RULES = ['fixed', 'advice', 'cheapest-weekday', 'tomorrow-higher', 'stopped-falling', 'near-low', 'oracle'] as const;
/** The simple rules a driver could follow instead of the advice (tomorrow-higher only where tomorrow is published). */
export const SIMPLE_RULES = ['cheapest-weekday', 'tomorrow-higher', 'stopped-falling', 'near-low'] as const;
export type SimpleRule = (typeof SIMPLE_RULES)[number];
/** near-low: within this of the lowest mean of the NEAR_LOW_DAYS days known, tenths. */
export const NEAR_LOW_MARGIN = 10;
export const NEAR_LOW_DAYS = 14;
export type Rule = (typeof RULES)[number];

export interface BacktestOptions {
  from: LocalDay;
  to: LocalDay;
  /** Days between purchases falling due. */
  every: number;
  /** Days a purchase may be put off. */
  delay: number;
  /** Weeks of history the cheapest weekday is learnt from. */
  learnWeeks: number;
  /**
   * The state publishes the next day's prices the afternoon before (WA): the advisor decides
   * after that, knowing today's and tomorrow's means. Elsewhere it knows the days before only.
   */
  publishesTomorrow: boolean;
  /**
   * What the advisor reads of the days before (the cycle's fresh series, domain/fresh.ts); the
   * prices paid are always `series`' (the history's means). Default: `series`.
   */
  adviceSeries?: readonly DailyMean[];
}

export interface RuleResult {
  rule: Rule;
  /** Mean price paid, tenths of a cent. */
  meanPaidTenths: number;
  /** Mean saving against `fixed` per purchase, tenths of a cent (negative: dearer). */
  savingTenths: number;
  /** savingTenths over the oracle's; null when the oracle saves nothing. */
  shareOfOracle: number | null;
}

export interface BacktestResult {
  purchases: number;
  /** Windows left out: no day in them had a mean. */
  skipped: number;
  rules: RuleResult[];
}

export function backtest(series: readonly DailyMean[], advisor: Advisor, options: BacktestOptions): BacktestResult {
  const { from, to, every, delay, learnWeeks, publishesTomorrow } = options;
  if (!(every >= 1 && delay >= 0 && from <= to)) throw new RangeError('backtest: every >= 1, delay >= 0 and from <= to');
  const sorted = [...series].sort((a, b) => a.day - b.day);
  const mean = new Map(sorted.map((d) => [d.day, d.meanTenths]));
  const known = options.adviceSeries ?? sorted;
  const before = (day: LocalDay): DailyMean[] => known.filter((d) => d.day < day);
  const paid = new Map<Rule, number[]>(RULES.map((r) => [r, []]));
  /** The means of the days up to `through`, newest first: the latest `count` days that have one, within 2 × count days. */
  const knownMeans = (through: LocalDay, count: number): number[] => {
    const out: number[] = [];
    for (let day = through; day > through - 2 * count && out.length < count; day--) { const m = mean.get(day); if (m !== undefined) out.push(m); }
    return out;
  };
  let skipped = 0;
  for (let due = from; due <= to; due += every) {
    const window: LocalDay[] = [];
    for (let day = due; day <= due + delay; day++) if (mean.has(day)) window.push(day);
    const first = window[0];
    const last = window[window.length - 1];
    if (first === undefined || last === undefined) { skipped++; continue; }
    const price = (day: LocalDay): number => mean.get(day) ?? NaN;
    const choose = (rule: Rule): LocalDay => {
      switch (rule) {
        case 'fixed': return first;
        case 'oracle': return window.reduce((a, d) => (price(d) < price(a) ? d : a), first);
        case 'advice': {
          for (const day of window) {
            const next = mean.get(day + 1);
            const known: AdviceInput = publishesTomorrow
              ? { days: before(day), today: day, now: price(day), tomorrowChange: next === undefined ? undefined : next - price(day) }
              : { days: before(day), today: day };
            const advice = advisor(known);
            if (advice === 'no-cycle' || advice === 'unknown') return day;
            if (advice === 'fill-up') return day;
          }
          return last;
        }
        case 'cheapest-weekday': {
          const learnt = cheapestWeekday(sorted.filter((d) => d.day < due && d.day >= due - 7 * learnWeeks));
          return window.find((d) => weekday(d) === learnt) ?? first;
        }
        case 'stopped-falling': {
          return window.find((d) => {
            const seen = knownMeans(publishesTomorrow ? d : d - 1, 2);
            return seen.length < 2 || (seen[0] ?? 0) >= (seen[1] ?? 0);
          }) ?? last;
        }
        case 'near-low': {
          return window.find((d) => {
            const through = publishesTomorrow ? d : d - 1;
            const seen = knownMeans(through, NEAR_LOW_DAYS);
            return seen.length === 0 || (seen[0] ?? 0) <= Math.min(...seen) + NEAR_LOW_MARGIN;
          }) ?? last;
        }
        case 'tomorrow-higher': {
          return window.find((d) => { const next = mean.get(d + 1); return next !== undefined && next > price(d); }) ?? last;
        }
      }
    };
    for (const rule of RULES) paid.get(rule)?.push(price(choose(rule)));
  }
  const fixed = paid.get('fixed') ?? [];
  const avg = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  const savingOf = (rule: Rule): number => avg((paid.get(rule) ?? []).map((p, i) => (fixed[i] ?? p) - p));
  const oracle = savingOf('oracle');
  return {
    purchases: fixed.length,
    skipped,
    rules: RULES.map((rule) => {
      const saving = savingOf(rule);
      return { rule, meanPaidTenths: avg(paid.get(rule) ?? []), savingTenths: saving, shareOfOracle: oracle > 0 ? saving / oracle : null };
    }),
  };
}
