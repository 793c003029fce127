/**
 * The track record a cycle answer carries (issue 47): what following the advice saved in the city
 * over the last TRACK_DAYS days, replayed by the backtest (backtest.ts) on the city's daily series
 * (the one the cycle reads: fresh.ts cycleSeries), against buying on a fixed weekday, the best
 * simple rule a driver could follow instead, and perfect hindsight. A pure function of the series
 * and the day, so it is worked out with the cycle answer itself, when data changes.
 *
 * - A fill falls due every 7 days, each may be put off up to 3 days, replayed from every start day
 *   (backtest.ts `startDays: 'all'`): a fill due on each day from today − TRACK_DAYS to today − 4 (the
 *   last whose window closed before today), 87 of them when every day has a mean, pooled. With one
 *   start day (today − 90) the record moved with the weekday that day fell on, by 0.4 to 1.1 c/L a
 *   day on average on the real QLD and WA data; pooled, by 0.02 to 0.07 (docs/CYCLE.md, step 8).
 * - The advice on each day is fillUpAdvice's on what was known then: the days before it, and
 *   where tomorrow's prices are published (`publishesTomorrow`) that day's and the next's means.
 * - The best rule: the simple rule that saved most (tomorrow-higher only where it can be followed,
 *   that is where tomorrow's prices are published); ties go to the first in SIMPLE_RULES order.
 */
import { fillUpAdvice } from './advice.ts';
import { type BacktestResult, SIMPLE_RULES, type SimpleRule, backtest } from './backtest.ts';
import type { DailyMean } from './history.ts';
import type { LocalDay } from './time.ts';

export const TRACK_DAYS = 90;
export const TRACK_EVERY = 7;
export const TRACK_DELAY = 3;

export interface TrackRecord {
  days: number;
  windows: number;
  /** Tenths a fill: the advice's saving against the fixed weekday (negative: dearer). */
  adviceTenths: number;
  bestRule: { rule: SimpleRule; savedTenths: number };
  oracleTenths: number;
}

/** The track record on `today` (a local day), or null without a window with prices in the period. */
export function trackRecord(series: readonly DailyMean[], today: LocalDay, publishesTomorrow: boolean): TrackRecord | null {
  const known = series.filter((d) => d.day < today);
  const result: BacktestResult = backtest(known, (input) => fillUpAdvice(input).advice, {
    from: today - TRACK_DAYS, to: today - 1 - TRACK_DELAY, startDays: 'all', every: TRACK_EVERY, delay: TRACK_DELAY, learnWeeks: 8, publishesTomorrow,
  });
  if (result.purchases === 0) return null;
  const saving = (rule: string): number => result.rules.find((r) => r.rule === rule)?.savingTenths ?? 0;
  const rules = SIMPLE_RULES.filter((r) => publishesTomorrow || r !== 'tomorrow-higher');
  let best: { rule: SimpleRule; savedTenths: number } = { rule: rules[0] ?? 'cheapest-weekday', savedTenths: -Infinity };
  for (const rule of rules) if (saving(rule) > best.savedTenths) best = { rule, savedTenths: saving(rule) };
  return { days: TRACK_DAYS, windows: result.purchases, adviceTenths: saving('advice'), bestRule: best, oracleTenths: saving('oracle') };
}
