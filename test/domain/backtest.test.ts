import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Advisor, backtest } from '../../src/domain/backtest.ts';
import { cheapestWeekday, weekday } from '../../src/domain/cycle.ts';
import type { DailyMean } from '../../src/domain/history.ts';

// 2026-01-05 was a Monday: days since 1970-01-01.
const MONDAY = Date.UTC(2026, 0, 5) / 86_400_000;

/**
 * A weekly sawtooth: Monday 180.0, Tuesday 178.0 (the trough), a restoration on Wednesday to
 * 192.0, then 2.0 c a day down: Thursday 190.0, Friday 188.0, Saturday 186.0, Sunday 184.0.
 */
const WEEK = [1800, 1780, 1920, 1900, 1880, 1860, 1840];
function sawtooth(weeks: number): DailyMean[] {
  return Array.from({ length: weeks * 7 }, (_, i) => ({ day: MONDAY + i, meanTenths: WEEK[i % 7] ?? 0 }));
}
const never: Advisor = () => 'wait';

describe('the backtest of when to fill up', () => {
  test('weekdays: Monday is 0', () => {
    assert.deepEqual([MONDAY, MONDAY + 1, MONDAY + 6, MONDAY + 7].map(weekday), [0, 1, 6, 0]);
  });

  test('a weekly sawtooth bought on Mondays with three days to spare: each rule against the hand-worked purchases', () => {
    // Ten weeks of history, purchases due on the Mondays of weeks 4 to 9 (six of them).
    const series = sawtooth(10);
    // An advisor that says fill-up on Tuesdays, seen from the days before (it looks at nothing else).
    const tuesdays: Advisor = ({ today }) => (weekday(today) === 1 ? 'fill-up' : 'wait');
    const result = backtest(series, tuesdays, { from: MONDAY + 28, to: MONDAY + 63, every: 7, delay: 3, learnWeeks: 4, publishesTomorrow: false });
    assert.equal(result.purchases, 6);
    assert.equal(result.skipped, 0);
    const byRule = Object.fromEntries(result.rules.map((r) => [r.rule, r]));
    // fixed: Mondays at 180.0. oracle: Tuesdays at 178.0, 2.0 c (20 tenths) less.
    assert.deepEqual(byRule.fixed, { rule: 'fixed', meanPaidTenths: 1800, savingTenths: 0, shareOfOracle: 0 });
    assert.deepEqual(byRule.oracle, { rule: 'oracle', meanPaidTenths: 1780, savingTenths: 20, shareOfOracle: 1 });
    // Tuesday's advice is fill-up: bought on Tuesdays.
    assert.deepEqual(byRule.advice, { rule: 'advice', meanPaidTenths: 1780, savingTenths: 20, shareOfOracle: 1 });
    // Four whole weeks before the first purchase: Tuesday is learnt as the cheapest against its week.
    assert.deepEqual(byRule['cheapest-weekday'], { rule: 'cheapest-weekday', meanPaidTenths: 1780, savingTenths: 20, shareOfOracle: 1 });
    // Monday: Tuesday's 178.0 is not higher; Tuesday: Wednesday's 192.0 is: bought on Tuesday.
    assert.deepEqual(byRule['tomorrow-higher'], { rule: 'tomorrow-higher', meanPaidTenths: 1780, savingTenths: 20, shareOfOracle: 1 });
    // stopped-falling, from the days before: on Monday Sunday's 184.0 fell from Saturday's 186.0; on Tuesday Monday's 180.0
    // fell; on Wednesday Tuesday's 178.0 fell; on Thursday Wednesday's 192.0 rose: bought on Thursday at 190.0, 10.0 c dearer.
    assert.deepEqual(byRule['stopped-falling'], { rule: 'stopped-falling', meanPaidTenths: 1900, savingTenths: -100, shareOfOracle: -5 });
    // near-low (within 1.0 c/L of the 14 days' low, 178.0): on Monday Sunday's 184.0 is 6.0 above it; on Tuesday Monday's
    // 180.0 is 2.0 above; on Wednesday Tuesday's 178.0 is the low: bought on Wednesday at 192.0.
    assert.deepEqual(byRule['near-low'], { rule: 'near-low', meanPaidTenths: 1920, savingTenths: -120, shareOfOracle: -6 });
  });

  test('adviceSeries: the advisor reads it (the fresh series) while purchases are paid at the series\' means', () => {
    const series = sawtooth(6);
    // The fresh series: the same days, each 100.0 c dearer, so the prices an advisor sees are not the prices paid.
    const fresh = series.map((d) => ({ day: d.day, meanTenths: d.meanTenths + 1000 }));
    const seen: number[] = [];
    // Fill up once the latest day it was given is above 280.0: only true of the fresh series (Wednesday's 292.0 on Thursday).
    const advisor: Advisor = ({ days }) => {
      const latest = days.reduce((a, d) => (d.day > a.day ? d : a));
      seen.push(latest.meanTenths);
      return latest.meanTenths >= 2900 ? 'fill-up' : 'wait';
    };
    const options = { from: MONDAY + 14, to: MONDAY + 14, every: 7, delay: 3, learnWeeks: 2, publishesTomorrow: false };
    const advice = backtest(series, advisor, { ...options, adviceSeries: fresh }).rules.find((r) => r.rule === 'advice');
    // Monday sees Sunday's 284.0, Tuesday Monday's 280.0, Wednesday Tuesday's 278.0, Thursday Wednesday's 292.0:
    // bought on Thursday at the series' 190.0 (not the fresh 290.0).
    assert.deepEqual(seen, [2840, 2800, 2780, 2920]);
    assert.deepEqual(advice, { rule: 'advice', meanPaidTenths: 1900, savingTenths: -100, shareOfOracle: -5 });
  });

  test('advice that never says fill-up buys on the last day of each window; no-cycle and unknown buy on the day they are said', () => {
    const series = sawtooth(6);
    const options = { from: MONDAY + 14, to: MONDAY + 28, every: 7, delay: 3, learnWeeks: 2, publishesTomorrow: false };
    // Thursdays at 190.0: 10.0 c dearer than Mondays.
    const waiting = backtest(series, never, options).rules.find((r) => r.rule === 'advice');
    assert.deepEqual(waiting, { rule: 'advice', meanPaidTenths: 1900, savingTenths: -100, shareOfOracle: -5 });
    const flat = backtest(series, () => 'no-cycle', options).rules.find((r) => r.rule === 'advice');
    assert.deepEqual(flat, { rule: 'advice', meanPaidTenths: 1800, savingTenths: 0, shareOfOracle: 0 });
    // wait on Mondays, then unknown: bought on Tuesdays at 178.0 (the day unknown is said, not the due day).
    const late = backtest(series, ({ today }) => (weekday(today) === 0 ? 'wait' : 'unknown'), options).rules.find((r) => r.rule === 'advice');
    assert.deepEqual(late, { rule: 'advice', meanPaidTenths: 1780, savingTenths: 20, shareOfOracle: 1 });
  });

  test('the advisor sees only the days before the one it advises on', () => {
    const series = sawtooth(3);
    const seen: unknown[] = [];
    backtest(series, ({ days, today, now, tomorrowChange }) => { seen.push([today, Math.max(...days.map((d) => d.day)), now, tomorrowChange]); return 'wait'; },
      { from: MONDAY + 7, to: MONDAY + 7, every: 7, delay: 3, learnWeeks: 1, publishesTomorrow: false });
    assert.deepEqual(seen, [0, 1, 2, 3].map((i) => [MONDAY + 7 + i, MONDAY + 6 + i, undefined, undefined]));
  });

  test('where tomorrow is published the day before, the advisor also knows today\'s mean and tomorrow\'s', () => {
    const series = sawtooth(3);
    const seen: unknown[] = [];
    backtest(series, ({ days, today, now, tomorrowChange }) => { seen.push([today, Math.max(...days.map((d) => d.day)), now, tomorrowChange]); return 'wait'; },
      { from: MONDAY + 14, to: MONDAY + 14, every: 7, delay: 3, learnWeeks: 1, publishesTomorrow: true });
    // Monday 180.0 (tomorrow Tuesday 178.0: -2.0), Tuesday (Wednesday 192.0: +14.0), Wednesday (Thursday 190.0: -2.0), Thursday (Friday 188.0: -2.0).
    assert.deepEqual(seen, [[MONDAY + 14, MONDAY + 13, 1800, -20], [MONDAY + 15, MONDAY + 14, 1780, 140],
      [MONDAY + 16, MONDAY + 15, 1920, -20], [MONDAY + 17, MONDAY + 16, 1900, -20]]);
  });

  test('a window without any mean is left out for every rule; a flat market saves nothing and has no share', () => {
    const flat = Array.from({ length: 28 }, (_, i) => ({ day: MONDAY + i, meanTenths: 1850 })).filter((d) => d.day < MONDAY + 14 || d.day > MONDAY + 17);
    const result = backtest(flat, never, { from: MONDAY, to: MONDAY + 21, every: 7, delay: 3, learnWeeks: 2, publishesTomorrow: false });
    assert.deepEqual([result.purchases, result.skipped], [3, 1]);
    for (const r of result.rules) assert.deepEqual([r.meanPaidTenths, r.savingTenths, r.shareOfOracle], [1850, 0, null], r.rule);
  });

  test('the cheapest weekday needs two days of each weekday with the week centred on them', () => {
    // Two weeks: days 3 to 10 have their ±3 days; only Thursday (days 3 and 10) is there twice.
    assert.equal(cheapestWeekday(sawtooth(2)), undefined);
    // Three weeks: days 3 to 17, every weekday twice or more; each centred week averages the same, so Tuesday's 178.0 is cheapest.
    assert.equal(cheapestWeekday(sawtooth(3)), 1);
  });

  test('the cheapest weekday is not fooled by a trend: a weekly cycle on a steady fall still has its Tuesday', () => {
    // The sawtooth falling 2.0 c/L a day besides. Against its own Monday-to-Sunday week (mean 185.43 + the fall to
    // Thursday), Tuesday is 178.0 - 185.43 + 4.0 = -3.43 and Sunday 184.0 - 185.43 - 6.0 = -7.43: Sunday would look
    // cheapest. Against the seven days centred on each day, a linear fall cancels and Tuesday is -7.43 again.
    const falling = sawtooth(6).map((d) => ({ day: d.day, meanTenths: d.meanTenths - 20 * (d.day - MONDAY) }));
    assert.equal(cheapestWeekday(falling), 1);
  });

  test('bad options are refused', () => {
    assert.throws(() => backtest([], never, { from: 2, to: 1, every: 7, delay: 3, learnWeeks: 2, publishesTomorrow: false }), RangeError);
    assert.throws(() => backtest([], never, { from: 1, to: 2, every: 0, delay: 3, learnWeeks: 2, publishesTomorrow: false }), RangeError);
  });
});
