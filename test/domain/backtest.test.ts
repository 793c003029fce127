import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Advisor, backtest, cheapestWeekday, weekday } from '../../src/domain/backtest.ts';
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
    const tuesdays: Advisor = (_before, today) => (weekday(today) === 1 ? 'fill-up' : 'wait');
    const result = backtest(series, tuesdays, { from: MONDAY + 28, to: MONDAY + 63, every: 7, delay: 3, learnWeeks: 4 });
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
  });

  test('advice that never says fill-up buys on the last day of each window; no-cycle buys on the due day', () => {
    const series = sawtooth(6);
    const options = { from: MONDAY + 14, to: MONDAY + 28, every: 7, delay: 3, learnWeeks: 2 };
    // Thursdays at 190.0: 10.0 c dearer than Mondays.
    const waiting = backtest(series, never, options).rules.find((r) => r.rule === 'advice');
    assert.deepEqual(waiting, { rule: 'advice', meanPaidTenths: 1900, savingTenths: -100, shareOfOracle: -5 });
    const flat = backtest(series, () => 'no-cycle', options).rules.find((r) => r.rule === 'advice');
    assert.deepEqual(flat, { rule: 'advice', meanPaidTenths: 1800, savingTenths: 0, shareOfOracle: 0 });
  });

  test('the advisor sees only the days before the one it advises on', () => {
    const series = sawtooth(3);
    const seen: Array<[number, number]> = [];
    backtest(series, (before, today) => { seen.push([today, Math.max(...before.map((d) => d.day))]); return 'wait'; },
      { from: MONDAY + 7, to: MONDAY + 7, every: 7, delay: 3, learnWeeks: 1 });
    assert.deepEqual(seen, [0, 1, 2, 3].map((i) => [MONDAY + 7 + i, MONDAY + 6 + i]));
  });

  test('a window without any mean is left out for every rule; a flat market saves nothing and has no share', () => {
    const flat = Array.from({ length: 28 }, (_, i) => ({ day: MONDAY + i, meanTenths: 1850 })).filter((d) => d.day < MONDAY + 14 || d.day > MONDAY + 17);
    const result = backtest(flat, never, { from: MONDAY, to: MONDAY + 21, every: 7, delay: 3, learnWeeks: 2 });
    assert.deepEqual([result.purchases, result.skipped], [3, 1]);
    for (const r of result.rules) assert.deepEqual([r.meanPaidTenths, r.savingTenths, r.shareOfOracle], [1850, 0, null], r.rule);
  });

  test('the cheapest weekday needs two whole weeks', () => {
    assert.equal(cheapestWeekday(sawtooth(1)), undefined);
    assert.equal(cheapestWeekday(sawtooth(2)), 1);
  });

  test('bad options are refused', () => {
    assert.throws(() => backtest([], never, { from: 2, to: 1, every: 7, delay: 3, learnWeeks: 2 }), RangeError);
    assert.throws(() => backtest([], never, { from: 1, to: 2, every: 0, delay: 3, learnWeeks: 2 }), RangeError);
  });
});
