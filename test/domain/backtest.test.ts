import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Advisor, type RuleResult, backtest } from '../../src/domain/backtest.ts';
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
    const result = backtest(series, tuesdays, { from: MONDAY + 28, to: MONDAY + 63, every: 7, delay: 3, learnWeeks: 4, publishesTomorrow: false, startDays: 'first' as const });
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
    const options = { from: MONDAY + 14, to: MONDAY + 14, every: 7, delay: 3, learnWeeks: 2, publishesTomorrow: false, startDays: 'first' as const };
    const advice = backtest(series, advisor, { ...options, adviceSeries: fresh }).rules.find((r) => r.rule === 'advice');
    // Monday sees Sunday's 284.0, Tuesday Monday's 280.0, Wednesday Tuesday's 278.0, Thursday Wednesday's 292.0:
    // bought on Thursday at the series' 190.0 (not the fresh 290.0).
    assert.deepEqual(seen, [2840, 2800, 2780, 2920]);
    assert.deepEqual(advice, { rule: 'advice', meanPaidTenths: 1900, savingTenths: -100, shareOfOracle: -5 });
  });

  test('advice that never says fill-up buys on the last day of each window; no-cycle and unknown buy on the day they are said', () => {
    const series = sawtooth(6);
    const options = { from: MONDAY + 14, to: MONDAY + 28, every: 7, delay: 3, learnWeeks: 2, publishesTomorrow: false, startDays: 'first' as const };
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
      { from: MONDAY + 7, to: MONDAY + 7, every: 7, delay: 3, learnWeeks: 1, publishesTomorrow: false, startDays: 'first' as const });
    assert.deepEqual(seen, [0, 1, 2, 3].map((i) => [MONDAY + 7 + i, MONDAY + 6 + i, undefined, undefined]));
  });

  test('where tomorrow is published the day before, the advisor also knows today\'s mean and tomorrow\'s', () => {
    const series = sawtooth(3);
    const seen: unknown[] = [];
    backtest(series, ({ days, today, now, tomorrowChange }) => { seen.push([today, Math.max(...days.map((d) => d.day)), now, tomorrowChange]); return 'wait'; },
      { from: MONDAY + 14, to: MONDAY + 14, every: 7, delay: 3, learnWeeks: 1, publishesTomorrow: true, startDays: 'first' as const });
    // Monday 180.0 (tomorrow Tuesday 178.0: -2.0), Tuesday (Wednesday 192.0: +14.0), Wednesday (Thursday 190.0: -2.0), Thursday (Friday 188.0: -2.0).
    assert.deepEqual(seen, [[MONDAY + 14, MONDAY + 13, 1800, -20], [MONDAY + 15, MONDAY + 14, 1780, 140],
      [MONDAY + 16, MONDAY + 15, 1920, -20], [MONDAY + 17, MONDAY + 16, 1900, -20]]);
  });

  test('a window without any mean is left out for every rule; a flat market saves nothing and has no share', () => {
    const flat = Array.from({ length: 28 }, (_, i) => ({ day: MONDAY + i, meanTenths: 1850 })).filter((d) => d.day < MONDAY + 14 || d.day > MONDAY + 17);
    const result = backtest(flat, never, { from: MONDAY, to: MONDAY + 21, every: 7, delay: 3, learnWeeks: 2, publishesTomorrow: false, startDays: 'first' as const });
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

  test('every start day: a purchase due on each day, pooled; the weekly sawtooth bought on a day\'s notice', () => {
    // Two weeks of due days, Monday of week 4 to Sunday of week 5: each weekday is a start day with two purchases.
    // Each window is due .. due + 3. Worked by hand, in tenths (fixed pays the due day):
    //   due    window (Mon 180.0 Tue 178.0 Wed 192.0 Thu 190.0 Fri 188.0 Sat 186.0 Sun 184.0)  oracle  never (the last day)
    //   Mon    180 178 192 190                                                                   +20     -100 (Thu)
    //   Tue    178 192 190 188                                                                     0     -100 (Fri)
    //   Wed    192 190 188 186                                                                   +60      +60 (Sat)
    //   Thu    190 188 186 184                                                                   +60      +60 (Sun)
    //   Fri    188 186 184 180                                                                   +80      +80 (Mon)
    //   Sat    186 184 180 178                                                                   +80      +80 (Tue)
    //   Sun    184 180 178 192                                                                   +60      -80 (Wed)
    // Waiting to the last day loses 10.0 c on the Monday start (the single start's figure) and saves nothing pooled.
    const series = sawtooth(8);
    const from = MONDAY + 28;
    const options = { from, to: from + 13, every: 7, delay: 3, learnWeeks: 4, publishesTomorrow: false };
    const pooled = backtest(series, never, { ...options, startDays: 'all' });
    const oracleByDay = [20, 0, 60, 60, 80, 80, 60];
    const neverByDay = [-100, -100, 60, 60, 80, 80, -80];
    const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
    assert.deepEqual([pooled.purchases, pooled.skipped], [14, 0]);
    const fixedPaid = sum(WEEK) / 7;
    const byRule = Object.fromEntries(pooled.rules.map((r) => [r.rule, r]));
    assert.deepEqual(byRule.fixed, { rule: 'fixed', meanPaidTenths: fixedPaid, savingTenths: 0, shareOfOracle: 0 });
    assert.deepEqual(byRule.oracle, { rule: 'oracle', meanPaidTenths: fixedPaid - sum(oracleByDay) / 7, savingTenths: sum(oracleByDay) / 7, shareOfOracle: 1 });
    assert.equal(sum(neverByDay), 0);
    assert.deepEqual(byRule.advice, { rule: 'advice', meanPaidTenths: fixedPaid, savingTenths: 0, shareOfOracle: 0 });
    // Each start's own replay: its weekday twice. The share is of that start's oracle; none where its oracle saves nothing
    // (the Tuesday start). The pooled share is the ratio of the pooled sums (0 here), not a mean of these.
    assert.deepEqual(pooled.starts.map((s) => [s.first, s.purchases, s.skipped]), [0, 1, 2, 3, 4, 5, 6].map((k) => [from + k, 2, 0]));
    const advice = pooled.starts.map((s) => s.rules.find((r) => r.rule === 'advice'));
    assert.deepEqual(advice.map((r) => r?.savingTenths), neverByDay);
    assert.deepEqual(advice.map((r) => r?.shareOfOracle), neverByDay.map((n, i) => ((oracleByDay[i] ?? 0) > 0 ? n / (oracleByDay[i] ?? 1) : null)));
    // --start-day first is the Monday start alone.
    const first = backtest(series, never, { ...options, startDays: 'first' });
    assert.deepEqual(first.starts.map((s) => s.first), [from]);
    assert.deepEqual(first.rules, pooled.starts[0]?.rules);
    assert.deepEqual(first.rules.find((r) => r.rule === 'advice'), { rule: 'advice', meanPaidTenths: 1900, savingTenths: -100, shareOfOracle: -5 });
  });

  test('every start day, against a reference replay written here: an uneven series with gaps, purchases every 5 days', () => {
    // A pseudo-random walk (a fixed linear congruential generator) over 120 days, with 11 days missing, two of them adjacent
    // so that a window with delay 1 has no mean at all.
    let seed = 12345;
    const rand = (): number => { seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; return seed / 2 ** 31; };
    const missing = new Set([9, 30, 31, 47, 58, 66, 80, 81, 95, 101, 110].map((i) => MONDAY + i));
    const series: DailyMean[] = [];
    let price = 1850;
    for (let i = 0; i < 120; i++) {
      price += Math.round((rand() - 0.5) * 60);
      if (!missing.has(MONDAY + i)) series.push({ day: MONDAY + i, meanTenths: price });
    }
    const mean = new Map(series.map((d) => [d.day, d.meanTenths]));
    // The advisor: fill up when the latest day it knows is below the one before it with a mean, else wait. Asked about each
    // day at most once: the advice on a day depends on the day alone.
    const asked: number[] = [];
    const advisor: Advisor = ({ days, today }) => {
      asked.push(today);
      const [a, b] = days.slice(-2);
      return a !== undefined && b !== undefined && b.meanTenths < a.meanTenths ? 'fill-up' : 'wait';
    };
    const from = MONDAY + 40;
    const to = MONDAY + 110;
    const every = 5;
    const delay = 1;
    const result = backtest(series, advisor, { from, to, every, delay, learnWeeks: 2, publishesTomorrow: false, startDays: 'all' });
    assert.equal(new Set(asked).size, asked.length);

    // The reference: for each start k, purchases due on from + k, from + k + 5, ... up to `to`; each window's days with a mean.
    type Prices = Record<'fixed' | 'advice' | 'tomorrow-higher' | 'oracle', number>;
    const perStart: Prices[][] = [];
    let skipped = 0;
    for (let k = 0; k < every; k++) {
      const bought: Prices[] = [];
      for (let due = from + k; due <= to; due += every) {
        const window = [due, due + 1].filter((d) => mean.has(d));
        if (window.length === 0) { skipped++; continue; }
        const p = (d: number): number => mean.get(d) ?? NaN;
        const adviceDay = window.find((d) => {
          const known = series.filter((x) => x.day < d);
          const a = known[known.length - 2];
          const b = known[known.length - 1];
          return a !== undefined && b !== undefined && b.meanTenths < a.meanTenths;
        }) ?? window[window.length - 1] ?? NaN;
        const higher = window.find((d) => { const next = mean.get(d + 1); return next !== undefined && next > p(d); }) ?? window[window.length - 1] ?? NaN;
        bought.push({ fixed: p(window[0] ?? NaN), advice: p(adviceDay), 'tomorrow-higher': p(higher), oracle: Math.min(...window.map(p)) });
      }
      perStart.push(bought);
    }
    const summary = (bought: Prices[]) => (['fixed', 'advice', 'tomorrow-higher', 'oracle'] as const).map((rule) => {
      const saved = bought.reduce((a, b) => a + b.fixed - b[rule], 0);
      const oracle = bought.reduce((a, b) => a + b.fixed - b.oracle, 0);
      return { rule, meanPaidTenths: bought.reduce((a, b) => a + b[rule], 0) / bought.length, savingTenths: saved / bought.length,
        shareOfOracle: oracle > 0 ? saved / bought.length / (oracle / bought.length) : null };
    });
    const pick = (rules: RuleResult[]) => rules.filter((r) => ['fixed', 'advice', 'tomorrow-higher', 'oracle'].includes(r.rule));
    const all = perStart.flat();
    // Every day from `from` to `to` is due exactly once; the adjacent missing days 80 and 81 leave the window due on 80 empty.
    assert.deepEqual([result.purchases, result.skipped, skipped], [to - from + 1 - 1, 1, 1]);
    assert.deepEqual(pick(result.rules), summary(all));
    assert.deepEqual(result.starts.map((s) => [s.first, s.purchases, pick(s.rules)]), perStart.map((b, k) => [from + k, b.length, summary(b)]));
    // The pooled share is of the pooled sums, which here is not the mean of the starts' shares.
    const shares = perStart.map((b) => summary(b).find((r) => r.rule === 'advice')?.shareOfOracle ?? 0);
    assert.notEqual(result.rules.find((r) => r.rule === 'advice')?.shareOfOracle, shares.reduce((a, b) => a + b, 0) / shares.length);
  });

  test('every start day when the period is shorter than a cycle: one start a day of it', () => {
    const result = backtest(sawtooth(6), never, { from: MONDAY + 14, to: MONDAY + 16, every: 7, delay: 3, learnWeeks: 2, publishesTomorrow: false, startDays: 'all' });
    assert.deepEqual(result.starts.map((s) => [s.first, s.purchases]), [[MONDAY + 14, 1], [MONDAY + 15, 1], [MONDAY + 16, 1]]);
    assert.equal(result.purchases, 3);
  });

  test('bad options are refused', () => {
    assert.throws(() => backtest([], never, { from: 2, to: 1, every: 7, delay: 3, learnWeeks: 2, publishesTomorrow: false, startDays: 'first' as const }), RangeError);
    assert.throws(() => backtest([], never, { from: 1, to: 2, every: 0, delay: 3, learnWeeks: 2, publishesTomorrow: false, startDays: 'first' as const }), RangeError);
  });
});
