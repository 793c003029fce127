/**
 * When to fill up: the advice on one fuel in one city, from its cycle (cycle.ts), the prices in
 * force now and, where the state publishes them, tomorrow's. docs/CYCLE.md gives the method with
 * its measured savings; `fuelprice backtest` measures it.
 *
 * In order, the first that applies:
 * 1. Tomorrow's prices are published (WA, from about 14:30): `fill-up` when they average above
 *    today's at the same stations at all, `wait` otherwise (cheaper, or the same: then a day's wait costs
 *    nothing, and tomorrow brings the day after's prices). Confidence high: these are the prices
 *    stations must charge. On the real WA days this is all that matters (docs/CYCLE.md).
 * 2. The city does not cycle: `no-cycle`. Confidence medium with a year's worth of news (at least
 *    300 days of it), low otherwise.
 * 3. Neither yesterday nor the day before had news (no report, or the means repeated to the last
 *    digit): `unknown`, confidence low. The cycle cannot be read on days nobody reported, so
 *    no decision is taken from carried-forward means.
 * 4. A restoration is under way (the phase is rising): `wait`, prices fall after it.
 * 5. A weekly cycle with a cheapest weekday: `fill-up` on that weekday, `wait` on the others.
 * 6. Otherwise by phase: `fill-up` in the trough (a rise is due), `wait` while falling.
 * Confidence for 4 to 6: medium with at least 5 restorations in the year, low with fewer.
 */
import { type PriceCycle, YEAR_DAYS, newsDays, priceCycle, weekday } from './cycle.ts';
import type { DailyMean } from './history.ts';
import { type LocalDay, formatLocalDay } from './time.ts';

export type AdviceValue = 'fill-up' | 'wait' | 'no-cycle' | 'unknown';
export type Confidence = 'high' | 'medium' | 'low';

/** Restorations in the year from which a cycle's advice is given with medium confidence. */
export const SURE_RESTORATIONS = 5;
/** Days of news in the year from which `no-cycle` is said with medium confidence. */
export const SURE_NEWS_DAYS = 300;

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

export interface AdviceInput {
  /** The city's daily means for the fuel (any order; days after today are ignored). */
  days: readonly DailyMean[];
  today: LocalDay;
  /** The mean of the prices in force now, tenths; undefined when unknown. */
  now?: number | undefined;
  /**
   * Where tomorrow's prices are published: how far they are above the prices in force now,
   * tenths, averaged over the same stations (domain/tomorrow.ts pairedTomorrow); undefined where
   * none are.
   */
  tomorrowChange?: number | undefined;
}

export interface FillUpAdvice {
  cycle: PriceCycle;
  advice: AdviceValue;
  /** Why, in plain words (one sentence or two). */
  reason: string;
  confidence: Confidence;
}

/** A difference in words: "1.5 c/L", or "under 0.1 c/L" when it rounds to nothing. */
const cents = (tenths: number): string => (Math.abs(tenths) < 0.5 ? 'under 0.1 c/L' : `${(Math.abs(tenths) / 10).toFixed(1)} c/L`);

export function fillUpAdvice(input: AdviceInput): FillUpAdvice {
  const { today, now, tomorrowChange: change } = input;
  const cycle = priceCycle(input.days, today, now);
  const sure: Confidence = cycle.restorations.length >= SURE_RESTORATIONS ? 'medium' : 'low';
  const answer = (advice: AdviceValue, reason: string, confidence: Confidence): FillUpAdvice => ({ cycle, advice, reason, confidence });
  const cycleWords = cycle.cycles ? `The city's cycle runs every ${cycle.periodDays} days.` : 'The city has no regular price cycle.';

  if (change !== undefined) {
    if (change > 0) return answer('fill-up', `Tomorrow's published prices average ${cents(change)} more than today's at the same stations. ${cycleWords}`, 'high');
    return change < 0
      ? answer('wait', `Tomorrow's published prices average ${cents(change)} less than today's at the same stations. ${cycleWords}`, 'high')
      : answer('wait', `Tomorrow's published prices average the same as today's: waiting a day costs nothing. ${cycleWords}`, 'high');
  }
  if (!cycle.cycles) {
    const news = [...newsDays(input.days).keys()].filter((d) => d <= today && d > today - YEAR_DAYS).length;
    const count = cycle.restorations.length;
    const why = count < 3 ? `${count === 0 ? 'no' : `only ${count}`} restoration${count === 1 ? '' : 's'} in the last year` : 'restorations at irregular intervals';
    return answer('no-cycle', `No regular price cycle here (${why}): fill up when you need to.`, news >= SURE_NEWS_DAYS ? 'medium' : 'low');
  }
  if (cycle.latestNews === null || cycle.latestNews < today - 2) {
    const since = cycle.latestNews === null ? 'in the last year' : `since ${formatLocalDay(cycle.latestNews)}`;
    return answer('unknown', `No price changes reported ${since}: the cycle cannot be read without them.`, 'low');
  }
  if (cycle.phase === 'rising') {
    return answer('wait', `Prices are being restored (a rise began ${formatLocalDay(cycle.lastRestoration?.day ?? today)}); they fall from here. ${cycleWords}`, sure);
  }
  if (cycle.cheapestWeekday !== null) {
    const name = WEEKDAYS[cycle.cheapestWeekday] ?? '';
    const ahead = (cycle.cheapestWeekday - weekday(today) + 7) % 7;
    return ahead === 0
      ? answer('fill-up', `${name} is the cheapest day of this weekly cycle over the last 8 weeks, and today is ${name}.`, sure)
      : answer('wait', `${name} is the cheapest day of this weekly cycle over the last 8 weeks: ${ahead === 1 ? 'tomorrow' : `in ${ahead} days`}.`, sure);
  }
  if (cycle.phase === 'trough') {
    return answer('fill-up', `Prices are near the bottom of the cycle, ${cycle.daysSinceRestoration} days after the last restoration: a rise is due. ${cycleWords}`, sure);
  }
  return answer('wait', `Prices are still falling, ${cycle.daysSinceRestoration} days after the last restoration. ${cycleWords}`, sure);
}
