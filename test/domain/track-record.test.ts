import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fillUpAdvice } from '../../src/domain/advice.ts';
import { weekday } from '../../src/domain/cycle.ts';
import type { DailyMean } from '../../src/domain/history.ts';
import { trackRecord } from '../../src/domain/track-record.ts';
import { type LocalDay, localDayFromYmd } from '../../src/domain/time.ts';

const mod = (a: number, n: number): number => ((a % n) + n) % n;
const range = (from: LocalDay, to: LocalDay, price: (day: LocalDay) => number): DailyMean[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ day: from + i, meanTenths: price(from + i) }));

describe('the track record in the cycle answer', () => {
  test('a weekly cycle (Tuesday trough): the advice buys every Tuesday, as the oracle and the cheapest weekday do', () => {
    // Perth's week: Wednesday 190.0, then 2.0 c/L down a day to Tuesday's 178.0. Today is chosen so that today − 90 is
    // a Sunday: every window (Sunday to Wednesday) holds its Tuesday.
    const week = [1800, 1780, 1900, 1880, 1860, 1840, 1820]; // Monday .. Sunday
    const price = (day: LocalDay): number => week[weekday(day)] ?? 0;
    let today = localDayFromYmd(2026, 11, 24);
    while (weekday(today - 90) !== 6) today++;
    const series = range(today - 500, today - 1, price);
    // The reference: fills due every 7 days from today − 90 to today − 4, each window due .. due + 3.
    let windows = 0;
    let oracle = 0;
    for (let due = today - 90; due <= today - 4; due += 7) {
      windows++;
      oracle += price(due) - Math.min(...[0, 1, 2, 3].map((i) => price(due + i)));
    }
    oracle /= windows;
    assert.equal(oracle, 40); // Sunday's 182.0 less Tuesday's 178.0
    assert.deepEqual(trackRecord(series, today, false), {
      days: 90, windows, adviceTenths: oracle, bestRule: { rule: 'cheapest-weekday', savedTenths: oracle }, oracleTenths: oracle,
    });
  });

  test('no whole window with prices in the last 90 days: none', () => {
    assert.equal(trackRecord([], localDayFromYmd(2026, 11, 24), false), null);
    assert.equal(trackRecord(range(localDayFromYmd(2026, 1, 1), localDayFromYmd(2026, 6, 1), () => 1800), localDayFromYmd(2026, 11, 24), false), null);
  });
});

describe('advice where a restoration runs over days (Brisbane)', () => {
  // A 35-day cycle: k = 0..5 rise 4.0 c/L a day (from 0.8 above the base: 3.2 on k = 0), then 0.8 c/L down a day to
  // k = 34, 0.8 above the base. Each restoration runs 6 days (>= 3: a long run) and 23.2 c/L of it is given back.
  const TODAY = localDayFromYmd(2026, 11, 24);
  const at = (kToday: number) => (day: LocalDay): number => {
    const k = mod(day - (TODAY - kToday), 35);
    return k < 6 ? 1800 + 40 * (k + 1) : 2040 - 8 * (k - 5);
  };
  const advise = (kToday: number, edit?: (d: DailyMean) => DailyMean) => fillUpAdvice({
    days: range(TODAY - 400, TODAY - 1, at(kToday)).map(edit ?? ((d) => d)), today: TODAY,
  });

  test('two days into a rise that still climbs 4.0 c/L a day: fill up now', () => {
    const a = advise(2);
    assert.deepEqual([a.state, a.cycle.periodDays, a.advice, a.signal, a.horizon.waitDays], ['cycle', 35, 'fill-up', 'restoration', 0]);
  });

  test('ten days after the rise began: prices fall for weeks, wait until the day before the next rise', () => {
    const a = advise(10);
    // The rise began today − 10; the next is due today − 10 + 35; wait at most until the day before it.
    assert.deepEqual([a.advice, a.signal, a.horizon], ['wait', 'phase', { waitDays: 35 - 10 - 1, nextRise: TODAY - 10 + 35 }]);
  });

  test('late in the cycle: wait while the mean still falls, fill up once it has stopped', () => {
    const falling = advise(30);
    assert.deepEqual([falling.advice, falling.signal], ['wait', 'phase']);
    // Yesterday 0.1 c/L up on the day before instead of 0.8 down: stopped falling.
    const stopped = advise(30, (d) => (d.day === TODAY - 1 ? { ...d, meanTenths: at(30)(TODAY - 2) + 1 } : d));
    assert.deepEqual([stopped.advice, stopped.signal, stopped.horizon.waitDays], ['fill-up', 'phase', 0]);
  });
});
