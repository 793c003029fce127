/**
 * When to fill up, measured: a replay of a city's daily means, day by day and without
 * look-ahead, of a driver who must buy every `every` days and may put a purchase off by up to
 * `delay` days, following one rule or another (docs/BACKTEST.md says the same):
 *
 * - Purchases fall due every `every` days up to `to`; each may be made on any day of its window
 *   [due, due + delay] that has a mean (the price paid is that day's city mean). A window with no
 *   day with a mean is left out for every rule alike.
 * - Start days (`startDays`): a driver who buys once in every `every` days may start on any of them.
 *   `all` replays each start: due on `from + k`, `from + k + every`, ... for k = 0 .. every − 1, so
 *   every day from `from` to `to` is a due day exactly once, and pools the purchases of all of
 *   them; `first` replays the one start on `from` (`from`, `from + every`, ...), whose figure hangs
 *   on which weekday `from` happens to be. Each start's own figures are kept beside the pool.
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
 * - Each rule's saving is the mean over purchases (of every start replayed) of (fixed's price − its
 *   price), in tenths of a cent a litre; its share is that saving over the oracle's, so the pooled
 *   share is the ratio of the pooled sums, not a mean of each start's share.
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

/** Which start days are replayed: each of the `every` days from `from` (pooled), or `from` alone. */
export type StartDays = 'all' | 'first';

export interface BacktestOptions {
  /** The first due day (of the first start day). */
  from: LocalDay;
  /** The last day a purchase may fall due. */
  to: LocalDay;
  startDays: StartDays;
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
  /** Purchases replayed, over every start day replayed. */
  purchases: number;
  /** Windows left out: no day in them had a mean. */
  skipped: number;
  /** Each rule over every purchase of every start day replayed (pooled). */
  rules: RuleResult[];
  /** Each start day's own replay, first due day ascending (one with `first`): the same figures for its purchases alone. */
  starts: StartResult[];
}

export interface StartResult {
  /** Its first due day; purchases then fall due every `every` days. */
  first: LocalDay;
  purchases: number;
  skipped: number;
  rules: RuleResult[];
}

/** Mean paid, saving against fixed and share of the oracle's saving, per rule, over purchases (each rule's price, by rule). */
function summarise(purchases: ReadonlyArray<ReadonlyMap<Rule, number>>): RuleResult[] {
  const avg = (values: readonly number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  const paidBy = (rule: Rule): number[] => purchases.map((p) => p.get(rule) ?? NaN);
  const savingOf = (rule: Rule): number => avg(purchases.map((p) => (p.get('fixed') ?? NaN) - (p.get(rule) ?? NaN)));
  const oracle = savingOf('oracle');
  return RULES.map((rule) => {
    const saving = savingOf(rule);
    return { rule, meanPaidTenths: avg(paidBy(rule)), savingTenths: saving, shareOfOracle: oracle > 0 ? saving / oracle : null };
  });
}

export function backtest(series: readonly DailyMean[], advisor: Advisor, options: BacktestOptions): BacktestResult {
  const { from, to, every, delay, learnWeeks, publishesTomorrow, startDays } = options;
  if (!(every >= 1 && delay >= 0 && from <= to)) throw new RangeError('backtest: every >= 1, delay >= 0 and from <= to');
  const sorted = [...series].sort((a, b) => a.day - b.day);
  const mean = new Map(sorted.map((d) => [d.day, d.meanTenths]));
  const known = options.adviceSeries ?? sorted;
  const before = (day: LocalDay): DailyMean[] => known.filter((d) => d.day < day);
  // The advice on a day depends on the day alone (what was known on it), whatever window it is asked in: asked once.
  const advised = new Map<LocalDay, AdviceValue>();
  const adviceOn = (day: LocalDay): AdviceValue => {
    let advice = advised.get(day);
    if (advice === undefined) {
      const next = mean.get(day + 1);
      const now = mean.get(day) ?? NaN;
      advice = advisor(publishesTomorrow
        ? { days: before(day), today: day, now, tomorrowChange: next === undefined ? undefined : next - now }
        : { days: before(day), today: day });
      advised.set(day, advice);
    }
    return advice;
  };
  /** The means of the days up to `through`, newest first: the latest `count` days that have one, within 2 × count days. */
  const knownMeans = (through: LocalDay, count: number): number[] => {
    const out: number[] = [];
    for (let day = through; day > through - 2 * count && out.length < count; day--) { const m = mean.get(day); if (m !== undefined) out.push(m); }
    return out;
  };
  /** The price each rule pays for the purchase due on `due`; null when no day of its window has a mean. */
  const purchase = (due: LocalDay): Map<Rule, number> | null => {
    const window: LocalDay[] = [];
    for (let day = due; day <= due + delay; day++) if (mean.has(day)) window.push(day);
    const first = window[0];
    const last = window[window.length - 1];
    if (first === undefined || last === undefined) return null;
    const price = (day: LocalDay): number => mean.get(day) ?? NaN;
    const choose = (rule: Rule): LocalDay => {
      switch (rule) {
        case 'fixed': return first;
        case 'oracle': return window.reduce((a, d) => (price(d) < price(a) ? d : a), first);
        case 'advice': {
          // no-cycle and unknown: buy when due; fill-up: buy; wait: the next day, or the window's last.
          return window.find((day) => adviceOn(day) !== 'wait') ?? last;
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
    return new Map(RULES.map((rule) => [rule, price(choose(rule))]));
  };
  const starts: Array<{ first: LocalDay; skipped: number; purchases: Array<Map<Rule, number>> }> = [];
  for (let first = from; first <= to && first < from + (startDays === 'all' ? every : 1); first++) {
    const replay = { first, skipped: 0, purchases: [] as Array<Map<Rule, number>> };
    for (let due = first; due <= to; due += every) {
      const bought = purchase(due);
      if (bought) replay.purchases.push(bought); else replay.skipped++;
    }
    starts.push(replay);
  }
  const all = starts.flatMap((s) => s.purchases);
  return {
    purchases: all.length,
    skipped: starts.reduce((n, s) => n + s.skipped, 0),
    rules: summarise(all),
    starts: starts.map((s) => ({ first: s.first, purchases: s.purchases.length, skipped: s.skipped, rules: summarise(s.purchases) })),
  };
}
