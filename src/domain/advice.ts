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
 * 2. The city does not cycle: with fewer than HISTORY_NEEDED days of news in the year, state
 *    `insufficient-history` and advice `unknown` (the method cannot yet tell a city without a
 *    cycle from a slow one); else state `no-cycle`, and the trend decides: the city mean fell
 *    on the latest day with news by at least TREND_FALL, `wait` (at most TREND_WAIT days);
 *    otherwise `no-cycle` (buy when you need to). Confidence medium with at least 300 days of
 *    news, low otherwise.
 * 3. Neither yesterday nor the day before had news (no report, or the means repeated to the last
 *    digit): `unknown`, confidence low. The cycle cannot be read on days nobody reported, so
 *    no decision is taken from carried-forward means.
 * 4. A restoration is under way (the phase is rising): `wait`, prices fall after it.
 * 5. A weekly cycle with a cheapest weekday: `fill-up` on that weekday, `wait` on the others.
 * 6. Otherwise by phase: `fill-up` in the trough (a rise is due), `wait` while falling.
 * Confidence for 4 to 6: medium with at least 5 restorations in the year, low with fewer.
 */
import { HISTORY_NEEDED, type PriceCycle, YEAR_DAYS, median, newsDays, priceCycle, weekday } from './cycle.ts';
import type { DailyMean } from './history.ts';
import { type LocalDay, formatLocalDay } from './time.ts';

export type AdviceValue = 'fill-up' | 'wait' | 'no-cycle' | 'unknown';
export type Confidence = 'high' | 'medium' | 'low';
export type CycleState = 'insufficient-history' | 'no-cycle' | 'cycle';
/** The signal that decided (the answer's `signal`; the reason names it in words). */
export type Signal = 'tomorrow' | 'restoration' | 'weekday' | 'phase' | 'trend' | 'none';

/** Restorations in the year from which a cycle's advice is given with medium confidence. */
export const SURE_RESTORATIONS = 5;
/** Days of news in the year from which `no-cycle` is said with medium confidence. */
export const SURE_NEWS_DAYS = 300;
/** Tenths: a fall of the city mean on its latest day with news that says the wholesale trend is down. */
export const TREND_FALL = 3;
/** Days a falling trend is waited on at most. */
export const TREND_WAIT = 2;

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

export interface Horizon {
  /** Wait at most this many days (0: buy today). */
  waitDays: number;
  /** With a cycle: the day the next restoration is expected (today when overdue). */
  nextRise: LocalDay | null;
}

export interface FillUpAdvice {
  cycle: PriceCycle;
  state: CycleState;
  /** Days with news in the year before today, and the days the method needs. */
  history: { days: number; needed: number };
  advice: AdviceValue;
  signal: Signal;
  /** Why, in plain words (one sentence or two). */
  reason: string;
  confidence: Confidence;
  horizon: Horizon;
  /** Tenths: what following the advice is expected to save on this fill against not following it; null: no estimate. */
  expectedSavingTenths: number | null;
}

/** A difference in words: "1.5 c/L", or "under 0.1 c/L" when it rounds to nothing. */
const cents = (tenths: number): string => (Math.abs(tenths) < 0.5 ? 'under 0.1 c/L' : `${(Math.abs(tenths) / 10).toFixed(1)} c/L`);

/** The latest two days with news before today (newest first), within the three days before it. */
function latestChange(news: ReadonlyMap<LocalDay, number>, today: LocalDay): number | null {
  for (let day = today - 1; day >= today - 3; day--) {
    const mean = news.get(day);
    if (mean === undefined) continue;
    for (let before = day - 1; before >= day - 3; before--) {
      const prior = news.get(before);
      if (prior !== undefined) return mean - prior;
    }
    return null;
  }
  return null;
}

export function fillUpAdvice(input: AdviceInput): FillUpAdvice {
  const { today, now, tomorrowChange: change } = input;
  const cycle = priceCycle(input.days, today, now);
  const news = newsDays(input.days.filter((d) => d.day < today));
  const held = [...news.keys()].filter((d) => d > today - YEAR_DAYS).length;
  const state: CycleState = cycle.cycles ? 'cycle' : held >= HISTORY_NEEDED ? 'no-cycle' : 'insufficient-history';
  const history = { days: held, needed: HISTORY_NEEDED };
  const sure: Confidence = cycle.restorations.length >= SURE_RESTORATIONS ? 'medium' : 'low';
  const period = cycle.periodDays;
  const last = cycle.lastRestoration;
  const nextRise = cycle.cycles && period !== null && last ? Math.max(today, last.day + period) : null;
  const typicalRise = cycle.restorations.length > 0 ? median(cycle.restorations.map((r) => r.riseTenths)) : null;
  const answer = (advice: AdviceValue, signal: Signal, reason: string, confidence: Confidence, waitDays: number, saving: number | null): FillUpAdvice => ({
    cycle, state, history, advice, signal, reason, confidence, horizon: { waitDays, nextRise }, expectedSavingTenths: saving,
  });
  const cycleWords = cycle.cycles ? `The city's cycle runs every ${period} days.` : 'The city has no regular price cycle.';

  if (change !== undefined) {
    if (change > 0) return answer('fill-up', 'tomorrow', `Tomorrow's published prices average ${cents(change)} more than today's at the same stations. ${cycleWords}`, 'high', 0, change);
    return change < 0
      ? answer('wait', 'tomorrow', `Tomorrow's published prices average ${cents(change)} less than today's at the same stations. ${cycleWords}`, 'high', 1, -change)
      : answer('wait', 'tomorrow', `Tomorrow's published prices average the same as today's: waiting a day costs nothing. ${cycleWords}`, 'high', 1, 0);
  }
  if (state === 'insufficient-history') {
    return answer('unknown', 'none', `Only ${held} days of price changes here, and no cycle yet: the advice needs ${HISTORY_NEEDED} to tell a city without a cycle from one with a slow one. Fill up when you need to.`, 'low', 0, null);
  }
  if (!cycle.cycles) {
    const count = cycle.restorations.length;
    const why = count < 4 ? `${count === 0 ? 'no' : `only ${count}`} restoration${count === 1 ? '' : 's'} in the last year` : 'restorations at irregular intervals, or rises that stayed';
    const confidence: Confidence = held >= SURE_NEWS_DAYS ? 'medium' : 'low';
    const move = latestChange(news, today);
    if (move !== null && move <= -TREND_FALL) {
      return answer('wait', 'trend', `No regular price cycle here (${why}), but the city's prices fell ${cents(move)} on the latest day reported: wholesale prices are falling, wait up to ${TREND_WAIT} days.`, confidence, TREND_WAIT, -move);
    }
    return answer('no-cycle', 'none', `No regular price cycle here (${why}) and prices are not falling: fill up when you need to.`, confidence, 0, null);
  }
  if (cycle.latestNews === null || cycle.latestNews < today - 2) {
    const since = cycle.latestNews === null ? 'in the last year' : `since ${formatLocalDay(cycle.latestNews)}`;
    return answer('unknown', 'none', `No price changes reported ${since}: the cycle cannot be read without them.`, 'low', 0, null);
  }
  // Wait at most until the day before the next rise is expected (at least one day: an overdue rise may come any day).
  const toRise = nextRise === null ? 1 : Math.max(1, nextRise - today - 1);
  if (cycle.phase === 'rising') {
    return answer('wait', 'restoration', `Prices are being restored (a rise began ${formatLocalDay(last?.day ?? today)}); they fall from here. ${cycleWords}`, sure, toRise, null);
  }
  if (cycle.cheapestWeekday !== null) {
    const name = WEEKDAYS[cycle.cheapestWeekday] ?? '';
    const ahead = (cycle.cheapestWeekday - weekday(today) + 7) % 7;
    return ahead === 0
      ? answer('fill-up', 'weekday', `${name} is the cheapest day of this weekly cycle over the last 8 weeks, and today is ${name}.`, sure, 0, typicalRise)
      : answer('wait', 'weekday', `${name} is the cheapest day of this weekly cycle over the last 8 weeks: ${ahead === 1 ? 'tomorrow' : `in ${ahead} days`}.`, sure, ahead, null);
  }
  if (cycle.phase === 'trough') {
    return answer('fill-up', 'phase', `Prices are near the bottom of the cycle, ${cycle.daysSinceRestoration} days after the last restoration: a rise is due. ${cycleWords}`, sure, 0, typicalRise);
  }
  return answer('wait', 'phase', `Prices are still falling, ${cycle.daysSinceRestoration} days after the last restoration: wait up to ${toRise} days, the next rise is expected ${nextRise === null ? 'later' : formatLocalDay(nextRise)}. ${cycleWords}`, sure, toRise, null);
}
