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
  test('a weekly cycle (Tuesday trough), every start day: the advice buys each window\'s cheapest day; the best simple rule against a reference', () => {
    // Perth's week: Wednesday 190.0, then 2.0 c/L down a day to Tuesday's 178.0.
    const week = [1800, 1780, 1900, 1880, 1860, 1840, 1820]; // Monday .. Sunday
    const price = (day: LocalDay): number => week[weekday(day)] ?? 0;
    const today = localDayFromYmd(2026, 11, 24);
    const series = range(today - 500, today - 1, price);
    // The reference: a fill due on each day from today − 90 to today − 4 (every start day of a weekly fill), each window
    // due .. due + 3, every day with a mean. The advice (a weekly cycle: fill up on its cheapest weekday, wait on the others)
    // buys the window's Tuesday, or its last day: each window's cheapest. The simple rules, from the days before only:
    // cheapest-weekday the window's Tuesday or the due day; stopped-falling the first day whose day before is not below the
    // one before that, else the last; near-low the first day whose day before is within 1.0 c/L of the 14 days' low, else the last.
    const saved: Record<'advice' | 'cheapest-weekday' | 'stopped-falling' | 'near-low' | 'oracle', number> = {
      advice: 0, 'cheapest-weekday': 0, 'stopped-falling': 0, 'near-low': 0, oracle: 0,
    };
    let windows = 0;
    for (let due = today - 90; due <= today - 4; due++) {
      windows++;
      const window = [0, 1, 2, 3].map((i) => due + i);
      const last = due + 3;
      const tuesday = window.find((d) => weekday(d) === 1);
      const bought = {
        advice: tuesday ?? last,
        'cheapest-weekday': tuesday ?? due,
        'stopped-falling': window.find((d) => price(d - 1) >= price(d - 2)) ?? last,
        'near-low': window.find((d) => price(d - 1) <= Math.min(...Array.from({ length: 14 }, (_, i) => price(d - 1 - i))) + 10) ?? last,
        oracle: window.reduce((a, d) => (price(d) < price(a) ? d : a)),
      };
      for (const [rule, day] of Object.entries(bought)) saved[rule as keyof typeof saved] += price(due) - price(day);
    }
    assert.equal(windows, 87);
    assert.equal(saved.advice, saved.oracle);
    const simple = (['cheapest-weekday', 'stopped-falling', 'near-low'] as const).map((rule) => ({ rule, savedTenths: saved[rule] / windows }));
    const best = simple.reduce((a, r) => (r.savedTenths > a.savedTenths ? r : a));
    assert.deepEqual(trackRecord(series, today, false), {
      days: 90, windows, adviceTenths: saved.advice / windows, bestRule: best, oracleTenths: saved.oracle / windows,
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
