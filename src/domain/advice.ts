/**
 * When to fill up: the advice on one fuel in one city, from its cycle (cycle.ts), the prices in
 * force now and, where the state publishes them, tomorrow's. docs/CYCLE.md gives the method with
 * its measured savings; `fuelprice backtest` measures it.
 *
 * In order, the first that applies:
 * 1. Tomorrow's prices are published (WA, from about 14:30): `fill-up` when they average above
 *    today's at the same stations at all, `wait` otherwise (cheaper, or the same: then a day's wait costs
 *    nothing, and tomorrow brings the day after's prices). Confidence high: these are the prices
 *    stations must charge. One exception (weeklyHold): a weekly pattern of the last 8 weeks that falls,
 *    from tomorrow's weekday to a day 2 or 3 days ahead, by more than twice the published rise says
 *    `wait` (confidence medium): Perth's Thursday after a Wednesday restoration, a weekend uptick before
 *    the Tuesday low (docs/BACKTEST.md).
 * 2. The city does not cycle: with fewer than HISTORY_NEEDED days of news in the year, state
 *    `insufficient-history` and advice `unknown` (the method cannot yet tell a city without a
 *    cycle from a slow one); else state `no-cycle`, and the trend decides: the city mean fell
 *    on the latest day with news by at least TREND_FALL, `wait` (at most TREND_WAIT days);
 *    otherwise `no-cycle` (buy when you need to). Confidence medium with at least 300 days of
 *    news, low otherwise.
 * 3. Neither yesterday nor the day before had news (no report, or the means repeated to the last
 *    digit): `unknown`, confidence low. The cycle cannot be read on days nobody reported, so
 *    no decision is taken from carried-forward means.
 * 4. Restorations that run over days (Brisbane, the Gold Coast; longRunAdvice): `fill-up` while one
 *    still climbs fast, `wait` once it slows; then `wait` for half a period after it began unless
 *    it has already been given back (half its rise, the cycle's own sawtooth test); then `wait`
 *    while prices fall and `fill-up` once they stop.
 *    Elsewhere, a restoration under way (the phase is rising): `wait`, prices fall after it.
 * 5. A weekly cycle with a cheapest weekday: `fill-up` on that weekday, `wait` on the others.
 * 6. Otherwise by phase: `fill-up` in the trough (a rise is due), `wait` while falling.
 * Confidence for 4 to 6: medium with at least 5 restorations in the year, low with fewer.
 */
import {
  HISTORY_NEEDED, type PriceCycle, RISING_DAY, type Restoration, WEEKDAY_WEEKS, YEAR_DAYS, givenBack, median, newsDays, priceCycle, weekday, weekdayPattern,
} from './cycle.ts';
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
export const TREND_FALL = 1;
/** Days a falling trend is waited on at most. */
export const TREND_WAIT = 3;

/** Days a restoration's run lasts (median) from which it is taken to go on rising for days after it starts. */
export const LONG_RUN = 3;
/** Tenths: in a cycle whose restorations run over days, a latest change above minus this is prices no longer falling. */
export const CYCLE_FALL = 1;
/** A restoration still climbs while its latest day rises at least this share of its steepest day's rise (tuned: 0.4). */
export const RESTORATION_ENDING = 0.4;
/**
 * Share of the period after a restoration began during which prices are taken to be falling, whatever a day says,
 * unless the restoration has been given back already (a small one is given back sooner: Brisbane, May 2022).
 */
export const EARLY_FRACTION = 0.5;

/** Tenths: a weekday pattern this deep (dearest weekday's deviation less the cheapest's) decides before a cycle stands. */
export const WEEKLY_DEPTH = 30;

/**
 * The furthest day (from 2 days ahead: tomorrow's own price is published and decides) whose weekday may be waited for
 * when tomorrow's published prices are dearer (weeklyHold).
 */
export const TOMORROW_HOLD_DAYS = 3;
/** How many times the published rise the pattern's fall must be for the rise to be waited out (1 and 2 compared: docs/BACKTEST.md). */
export const HOLD_MARGIN = 2;

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

/**
 * Where restorations run over days (LONG_RUN), where the city is, from the days with news before today:
 * - rising: the restoration still runs (its latest day rose at least RISING_DAY, and RESTORATION_ENDING of its steepest day's rise);
 * - ending: it runs, but slower than that;
 * - early: under EARLY_FRACTION of the period since it began (prices fall for weeks after a restoration), and not yet
 *   given back (cycle.ts givenBack: half its rise);
 * - falling: later, or given back, and the latest change fell at least CYCLE_FALL;
 * - given-back: under EARLY_FRACTION of the period, but given back, and the latest change did not fall that much;
 * - stopped: later, and it did not.
 */
export function longRunAdvice(
  news: ReadonlyMap<LocalDay, number>, today: LocalDay, last: Restoration, period: number, move: number | null,
): 'rising' | 'ending' | 'early' | 'falling' | 'given-back' | 'stopped' {
  const rises: number[] = [];
  for (let day = last.day; day < today; day++) {
    const m = news.get(day);
    const b = news.get(day - 1);
    if (m === undefined || b === undefined || m - b < RISING_DAY) break;
    rises.push(m - b);
  }
  if (rises.length > 0 && last.day + rises.length === today) {
    return (rises[rises.length - 1] ?? 0) >= RESTORATION_ENDING * Math.max(...rises) ? 'rising' : 'ending';
  }
  const soon = today - last.day < EARLY_FRACTION * period;
  if (soon && !givenBack(news, last, today)) return 'early';
  if (move !== null && move <= -CYCLE_FALL) return 'falling';
  return soon ? 'given-back' : 'stopped';
}

/** The weekday pattern (cycle.ts weekdayPattern) of the days with news in the last WEEKDAY_WEEKS weeks. */
function recentPattern(news: ReadonlyMap<LocalDay, number>, today: LocalDay): ReturnType<typeof weekdayPattern> {
  return weekdayPattern([...news].filter(([day]) => day >= today - 7 * WEEKDAY_WEEKS).map(([day, meanTenths]) => ({ day, meanTenths })));
}

/**
 * Tomorrow's prices are published and `change` (tenths) above today's: whether the weekly pattern of the last
 * WEEKDAY_WEEKS weeks (at least WEEKLY_DEPTH deep) says to wait all the same. It does when, from tomorrow's weekday to
 * one of the days 2 to TOMORROW_HOLD_DAYS ahead, prices have on average fallen by more than HOLD_MARGIN times the
 * published rise (the largest such fall is the one waited for): a rise at the top of a restoration that falls back, or
 * a small one on the way to the week's low.
 */
function weeklyHold(news: ReadonlyMap<LocalDay, number>, today: LocalDay, change: number): { name: string; from: string; ahead: number; dropTenths: number } | undefined {
  const pattern = recentPattern(news, today);
  if (!pattern || pattern.depthTenths < WEEKLY_DEPTH) return undefined;
  const next = weekday(today + 1);
  let best: { ahead: number; dropTenths: number } | undefined;
  for (let ahead = 2; ahead <= TOMORROW_HOLD_DAYS; ahead++) {
    const dropTenths = (pattern.offsets[next] ?? 0) - (pattern.offsets[weekday(today + ahead)] ?? 0);
    if (dropTenths > (best?.dropTenths ?? HOLD_MARGIN * change)) best = { ahead, dropTenths };
  }
  return best && { ...best, name: WEEKDAYS[weekday(today + best.ahead)] ?? '', from: WEEKDAYS[next] ?? '' };
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
    const hold = change > 0 ? weeklyHold(news, today, change) : undefined;
    if (hold) {
      return answer('wait', 'tomorrow', `Tomorrow's published prices average ${cents(change)} more than today's at the same stations, but over the last 8 weeks `
        + `${hold.name} has been ${cents(hold.dropTenths)} below ${hold.from}: wait until ${hold.name}, in ${hold.ahead} days. ${cycleWords}`, 'medium', hold.ahead, hold.dropTenths - change);
    }
    if (change > 0) return answer('fill-up', 'tomorrow', `Tomorrow's published prices average ${cents(change)} more than today's at the same stations. ${cycleWords}`, 'high', 0, change);
    return change < 0
      ? answer('wait', 'tomorrow', `Tomorrow's published prices average ${cents(change)} less than today's at the same stations. ${cycleWords}`, 'high', 1, -change)
      : answer('wait', 'tomorrow', `Tomorrow's published prices average the same as today's: waiting a day costs nothing. ${cycleWords}`, 'high', 1, 0);
  }
  if (!cycle.cycles) {
    const count = cycle.restorations.length;
    const why = count < 4 ? `${count === 0 ? 'no' : `only ${count}`} restoration${count === 1 ? '' : 's'} in the last year` : 'restorations at irregular intervals, or rises that stayed';
    const confidence: Confidence = held >= SURE_NEWS_DAYS ? 'medium' : 'low';
    const short = `${held === 0 ? 'No' : `Only ${held}`} days of price changes here and no cycle yet: the cycle needs ${HISTORY_NEEDED} to tell a city without one from one with a slow one`;
    const words = state === 'insufficient-history' ? short : `No regular price cycle here (${why})`;
    // A weekly pattern deep enough to be a cycle's, seen before four restorations stand (Perth's first weeks).
    const pattern = recentPattern(news, today);
    if (pattern && pattern.depthTenths >= WEEKLY_DEPTH) {
      const name = WEEKDAYS[pattern.weekday] ?? '';
      const ahead = (pattern.weekday - weekday(today) + 7) % 7;
      const deep = `${words}, but ${name} has been the cheapest day of the week, by ${cents(pattern.depthTenths)} against the dearest, over the last weeks`;
      return ahead === 0
        ? answer('fill-up', 'weekday', `${deep}, and today is ${name}.`, 'low', 0, null)
        : answer('wait', 'weekday', `${deep}: ${ahead === 1 ? 'tomorrow' : `in ${ahead} days`}.`, 'low', ahead, null);
    }
    const move = latestChange(news, today);
    if (move !== null && move <= -TREND_FALL) {
      return answer('wait', 'trend', `${words}, but the city's prices fell ${cents(move)} on the latest day reported: prices are falling, wait up to ${TREND_WAIT} days.`, confidence, TREND_WAIT, -move);
    }
    if (state === 'insufficient-history') return answer('unknown', 'none', `${short}.${move === null ? '' : ' Prices are not falling:'} Fill up when you need to.`, 'low', 0, null);
    return answer('no-cycle', 'none', `${words} and prices are not falling: fill up when you need to.`, confidence, 0, null);
  }
  if (cycle.latestNews === null || cycle.latestNews < today - 2) {
    const since = cycle.latestNews === null ? 'in the last year' : `since ${formatLocalDay(cycle.latestNews)}`;
    return answer('unknown', 'none', `No price changes reported ${since}: the cycle cannot be read without them.`, 'low', 0, null);
  }
  // Wait at most until the day before the next rise is expected (at least one day: an overdue rise may come any day).
  const toRise = nextRise === null ? 1 : Math.max(1, nextRise - today - 1);
  const runDays = median(cycle.restorations.map((r) => r.lastDay - r.day + 1));
  const move = latestChange(news, today);
  if (runDays >= LONG_RUN && last) {
    const decided = longRunAdvice(news, today, last, period ?? 0, move);
    const since = `${cycle.daysSinceRestoration} days after the last restoration began`;
    switch (decided) {
      case 'rising': return answer('fill-up', 'restoration', `Prices are being restored (a rise began ${formatLocalDay(last.day)}) and still rising fast; here a restoration usually goes on for ${runDays} days: fill up before it does. ${cycleWords}`, sure, 0, typicalRise === null ? null : typicalRise / 2);
      case 'ending': return answer('wait', 'restoration', `The restoration that began ${formatLocalDay(last.day)} is slowing: prices fall from here. ${cycleWords}`, sure, toRise, null);
      case 'early': return answer('wait', 'phase', `Prices fall for weeks after a restoration, and it is ${since}: wait up to ${toRise} days, the next rise is expected ${nextRise === null ? 'later' : formatLocalDay(nextRise)}. ${cycleWords}`, sure, toRise, null);
      case 'falling': return answer('wait', 'phase', `Prices are still falling (${cents(move ?? 0)} on the latest day reported), ${since}: wait up to ${toRise} days. ${cycleWords}`, sure, toRise, null);
      case 'given-back': return answer('fill-up', 'phase', `Prices have given back half the last restoration's rise and stopped falling, ${since}: the fall after it is over sooner than usual. ${cycleWords}`, sure, 0, typicalRise);
      case 'stopped': return answer('fill-up', 'phase', `Prices have stopped falling, ${since}: the next rise is expected ${nextRise === null ? 'soon' : formatLocalDay(nextRise)}. ${cycleWords}`, sure, 0, typicalRise);
    }
  }
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
