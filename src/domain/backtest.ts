/**
 * When to fill up, measured: a replay of a city's daily means, day by day and without
 * look-ahead, of a driver who must buy every `every` days and may put a purchase off by up to
 * `delay` days, following one rule or another (docs/BACKTEST.md says the same):
 *
 * - Purchases fall due on `from`, `from + every`, ... up to `to`; each may be made on any day of
 *   its window [due, due + delay] that has a mean (the price paid is that day's city mean). A
 *   window with no day with a mean is left out for every rule alike.
 * - `fixed`: on the day it falls due (a fixed weekday when `every` is 7): the baseline.
 * - `advice`: on the first day of the window whose advice, worked out from the days before it
 *   only, is `fill-up`; on the window's last day with a mean when it never is. Advice `no-cycle`
 *   buys on the due day, as `fixed` does.
 * - `cheapest-weekday`: on the first day of the window that falls on the weekday that was
 *   cheapest against its own week over the `learnWeeks` weeks before the window; the due day
 *   when there is no such history or the window misses that weekday.
 * - `tomorrow-higher`: on the first day whose next day's mean is higher (WA publishes tomorrow's
 *   prices the afternoon before, so there this looks ahead at nothing unknown; elsewhere it is a
 *   bound, not a rule a driver can follow); the window's last day otherwise.
 * - `oracle`: on the window's cheapest day (perfect hindsight).
 * - Each rule's saving is the mean over purchases of (fixed's price − its price), in tenths of a
 *   cent a litre; its share is that saving over the oracle's.
 */
import type { DailyMean } from './history.ts';
import type { LocalDay } from './time.ts';

export type Advice = 'fill-up' | 'wait' | 'no-cycle';

/** The advice on `today`, from the days before it only (the replay gives it no other). */
export type Advisor = (before: readonly DailyMean[], today: LocalDay) => Advice;

export const RULES = ['fixed', 'advice', 'cheapest-weekday', 'tomorrow-higher', 'oracle'] as const;
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

/** 1970-01-01 was a Thursday: weekday 0 is Monday. */
export function weekday(day: LocalDay): number {
  return (((day + 3) % 7) + 7) % 7;
}

/**
 * The weekday cheapest against its own week over the days given (each day's mean less the mean
 * of its Monday-to-Sunday week, averaged per weekday); undefined with fewer than two whole weeks.
 */
export function cheapestWeekday(days: readonly DailyMean[]): number | undefined {
  const weeks = new Map<number, DailyMean[]>();
  for (const d of days) {
    const week = Math.floor((d.day - weekday(d.day)) / 7);
    const list = weeks.get(week) ?? [];
    list.push(d);
    weeks.set(week, list);
  }
  const sums = Array.from({ length: 7 }, () => ({ sum: 0, n: 0 }));
  let whole = 0;
  for (const list of weeks.values()) {
    if (list.length < 7) continue;
    whole++;
    const mean = list.reduce((a, d) => a + d.meanTenths, 0) / list.length;
    for (const d of list) { const s = sums[weekday(d.day)]; if (s) { s.sum += d.meanTenths - mean; s.n++; } }
  }
  if (whole < 2) return undefined;
  let best: number | undefined;
  let bestValue = Infinity;
  for (const [i, s] of sums.entries()) if (s.n > 0 && s.sum / s.n < bestValue) { bestValue = s.sum / s.n; best = i; }
  return best;
}

export function backtest(series: readonly DailyMean[], advisor: Advisor, options: BacktestOptions): BacktestResult {
  const { from, to, every, delay, learnWeeks } = options;
  if (!(every >= 1 && delay >= 0 && from <= to)) throw new RangeError('backtest: every >= 1, delay >= 0 and from <= to');
  const sorted = [...series].sort((a, b) => a.day - b.day);
  const mean = new Map(sorted.map((d) => [d.day, d.meanTenths]));
  const before = (day: LocalDay): DailyMean[] => sorted.filter((d) => d.day < day);
  const paid = new Map<Rule, number[]>(RULES.map((r) => [r, []]));
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
            const advice = advisor(before(day), day);
            if (advice === 'no-cycle') return first;
            if (advice === 'fill-up') return day;
          }
          return last;
        }
        case 'cheapest-weekday': {
          const learnt = cheapestWeekday(sorted.filter((d) => d.day < due && d.day >= due - 7 * learnWeeks));
          return window.find((d) => weekday(d) === learnt) ?? first;
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
