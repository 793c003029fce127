import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fillUpAdvice } from '../../src/domain/advice.ts';
import { median, priceCycle, restorations } from '../../src/domain/cycle.ts';
import type { DailyMean } from '../../src/domain/history.ts';
import { type LocalDay, formatLocalDay, localDayFromYmd } from '../../src/domain/time.ts';

// "Today" for every case: Wednesday 25-11-2026.
const TODAY = localDayFromYmd(2026, 11, 25);

/** Daily means for today − 365 .. today (the days the route reads), newest first. */
function series(price: (day: LocalDay) => number, today = TODAY): DailyMean[] {
  const out: DailyMean[] = [];
  for (let day = today; day >= today - 365; day--) out.push({ day, meanTenths: price(day) });
  return out;
}

const mod = (a: number, n: number): number => ((a % n) + n) % n;

/**
 * A sawtooth of period p: on the cycle's day k (0 on the restoration day) the mean is
 * base + fall × (p − 1 − k), so each restoration rises fall × (p − 1) in one day and the
 * fall is `fall` a day. `kToday` is today's k, hence the days since the last restoration.
 */
const sawtooth = (p: number, fall: number, kToday: number) => (day: LocalDay): number => 1700 + fall * (p - 1 - mod(day - (TODAY - kToday), p));

/** What the route answers, minus id, name, fuel and the advice's words: the cycle of `days` on TODAY and its advice. */
function shown(days: readonly DailyMean[]): Record<string, unknown> {
  const { cycle: c, advice, state } = fillUpAdvice({ days, today: TODAY });
  return {
    state, cycles: c.cycles, period: c.periodDays,
    last: c.lastRestoration && { date: formatLocalDay(c.lastRestoration.day), rise: c.lastRestoration.riseTenths },
    since: c.daysSinceRestoration, phase: c.phase, advice,
  };
}

describe('priceCycle on known cycles', () => {
  test('one week (Perth-like): 18.0 c/L up in a day, 3.0 down a day; three days after the rise it is falling', () => {
    // k on today is 3: the last restoration was today − 3 = 22-11-2026, from 1700 (k = 6) to 1880 (k = 0),
    // a rise of 30 × 6 = 180 tenths. Restorations on today − 3 − 7n for 7n ≤ 361 (n = 0..51): 52 of them,
    // every interval 7, median 7, deviation 0. 3 days since is under 0.75 × 7 = 5.25: falling, wait.
    const days = series(sawtooth(7, 30, 3));
    assert.equal(restorations(days, TODAY).length, 52);
    assert.deepEqual(shown(days), {
      state: 'cycle', cycles: true, period: 7, last: { date: '22-11-2026', rise: 180 }, since: 3, phase: 'falling', advice: 'wait',
    });
  });

  test('two weeks, the rise over two days: rising the day after it began', () => {
    // k = 0 is 1800 (up 3.0 c/L from 1770 at k = 13), k = 1 is 1950 (up 15.0), then 1.5 c/L down a day
    // (k = 2..13: 1950 − 15 × (k − 1), down to 1770). The two rising days are one restoration of 30 + 150 = 180
    // dated its first day. Today is k = 1: the restoration began yesterday, 24-11-2026, and still runs today:
    // rising, wait. Intervals 14 (the first one, at the year's edge, 13: today − 364 is k = 1, seen rising
    // 15.0 c/L without its first day), median 14, deviation 0.
    const price = (day: LocalDay): number => {
      const k = mod(day - (TODAY - 1), 14);
      return k === 0 ? 1800 : 1950 - 15 * (k - 1);
    };
    const days = series(price);
    const found = restorations(days, TODAY);
    // Starts today − 1 − 14n for n = 0..25 (26), plus today − 364 at the edge.
    assert.equal(found.length, 27);
    assert.deepEqual(found.slice(-2).map((r) => [TODAY - r.day, TODAY - r.lastDay, r.riseTenths]), [[15, 14, 180], [1, 0, 180]]);
    assert.deepEqual(shown(days), {
      state: 'cycle', cycles: true, period: 14, last: { date: '24-11-2026', rise: 180 }, since: 1, phase: 'rising', advice: 'wait',
    });
  });

  test('six weeks: 32.8 c/L up, 0.8 down a day; 40 days on, at the lowest: trough, fill up', () => {
    // Today is k = 40: the last restoration was today − 40 = 16-10-2026, 8 × 41 = 328 tenths. Starts on
    // today − 40 − 42n for 42n ≤ 324 (n = 0..7): 8, intervals 42. 40 ≥ 0.75 × 42 = 31.5 and today's 1708 is the
    // lowest since the rise: trough.
    const days = series(sawtooth(42, 8, 40));
    assert.equal(restorations(days, TODAY).length, 8);
    assert.deepEqual(shown(days), {
      state: 'cycle', cycles: true, period: 42, last: { date: '16-10-2026', rise: 328 }, since: 40, phase: 'trough', advice: 'fill-up',
    });
  });

  test('six weeks, late in the cycle but 1.1 c/L above the low: still falling', () => {
    // As above, but today (k = 40) is 11 tenths above yesterday's 1716 → 1727 is not within 1.0 c/L of the low (1716):
    // a rise of 1.1 c/L is a rising day but, alone, no restoration (under 5.0).
    const base = sawtooth(42, 8, 40);
    const days = series((day) => (day === TODAY ? 1727 : base(day)));
    assert.deepEqual(shown(days), {
      state: 'cycle', cycles: true, period: 42, last: { date: '16-10-2026', rise: 328 }, since: 40, phase: 'falling', advice: 'wait',
    });
  });
});

describe('priceCycle without a cycle', () => {
  const nothing = { state: 'no-cycle', cycles: false, period: null, last: null, since: null, phase: 'none', advice: 'no-cycle' };
  // A flat year has news on its first day only (every other day repeats the mean: the feed sent nothing), so the
  // method cannot tell it from a city with a slow cycle: insufficient history, and no advice.
  const unread = { ...nothing, state: 'insufficient-history', advice: 'unknown' };

  test('no history', () => {
    assert.deepEqual(shown([]), unread);
  });

  test('flat', () => {
    assert.deepEqual(shown(series(() => 1800)), unread);
  });

  test('noisy small moves: up 2.0 c/L every other day is a rising day each time, never 5.0 in a run', () => {
    assert.deepEqual(shown(series((day) => 1800 + 20 * mod(day, 2))), nothing);
    // Up 0.9 c/L a day for the whole year: no rising day at all (under 1.0).
    assert.deepEqual(shown(series((day) => 1800 + 9 * (day - TODAY))), nothing);
  });

  test('three restorations at irregular intervals: reported, but no cycle', () => {
    // One-day spikes of 6.0 c/L on today − 60, today − 50 and today − 10 (15-11-2026): intervals 10 and 40,
    // median 25, deviations 15 and 15, median 15 > 0.35 × 25 = 8.75.
    // Under the spikes, 0.1 c/L up and down on alternate days, so every day has news; today − 1 (odd or even) decides
    // whether the latest day fell (wait on the trend) or rose (no-cycle): worked out here from the series itself.
    const spikes = new Set([TODAY - 60, TODAY - 50, TODAY - 10]);
    const price = (day: LocalDay): number => (spikes.has(day) ? 1860 : 1800) + mod(day, 2);
    const fell = price(TODAY - 1) < price(TODAY - 2);
    assert.deepEqual(shown(series(price)), { ...nothing, last: { date: '15-11-2026', rise: price(TODAY - 10) - price(TODAY - 11) }, since: 10, advice: fell ? 'wait' : 'no-cycle' });
  });

  test('three regular restorations are not enough (four are needed)', () => {
    const spikes = new Set([TODAY - 34, TODAY - 20, TODAY - 6]);
    const price = (day: LocalDay): number => (spikes.has(day) ? 1860 : 1800) + mod(day, 2);
    const fell = price(TODAY - 1) < price(TODAY - 2);
    assert.deepEqual(shown(series(price)), { ...nothing, last: { date: '19-11-2026', rise: price(TODAY - 6) - price(TODAY - 7) }, since: 6, advice: fell ? 'wait' : 'no-cycle' });
  });

  test('issue 47: three wholesale rises 22 and 12 days apart in a town without a cycle are no cycle', () => {
    // 6.0 c/L steps up that stay (a wholesale price moving), on today − 40, today − 18 and today − 6, over a town
    // whose mean moves 0.1 c/L every day. Intervals 22 and 12: median 17, deviation 5 <= 0.35 x 17, so the old test
    // called it "a cycle every 17 days, fill up". Too few restorations, and none given back: no-cycle.
    const steps = [TODAY - 40, TODAY - 18, TODAY - 6];
    const price = (day: LocalDay): number => 1800 + 60 * steps.filter((s) => day >= s).length + mod(day, 2);
    const a = fillUpAdvice({ days: series(price).filter((d) => d.day < TODAY), today: TODAY });
    assert.deepEqual(a.cycle.restorations.map((r) => [r.day, r.riseTenths]), steps.map((day) => [day, 60 + (mod(day, 2) - mod(day - 1, 2))]));
    assert.deepEqual([a.state, a.cycle.cycles, a.cycle.periodDays, a.horizon.nextRise], ['no-cycle', false, null, null]);
    assert.notEqual(a.advice, 'fill-up');
  });

  test('four wholesale rises at regular intervals, never given back, are no cycle either', () => {
    // Steps every 22 days (regular: deviation 0), each kept: the sawtooth test (each rise given back by half before the
    // next) refuses them.
    const steps = [TODAY - 72, TODAY - 50, TODAY - 28, TODAY - 6];
    const price = (day: LocalDay): number => 1800 + 60 * steps.filter((s) => day >= s).length + mod(day, 2);
    const a = fillUpAdvice({ days: series(price).filter((d) => d.day < TODAY), today: TODAY });
    assert.deepEqual([a.cycle.restorations.length, a.state, a.cycle.cycles], [4, 'no-cycle', false]);
    // The same four rises given back (down 6.0 c/L ten days after each): a 22-day cycle.
    const given = (day: LocalDay): number => 1800 + 60 * steps.filter((s) => day >= s && day < s + 10).length + mod(day, 2);
    const b = fillUpAdvice({ days: series(given).filter((d) => d.day < TODAY), today: TODAY });
    assert.deepEqual([b.state, b.cycle.periodDays, b.horizon.nextRise], ['cycle', 22, TODAY - 6 + 22]);
  });

  test('insufficient history: 31 and 118 days of changes, no cycle, say so with what the method needs', () => {
    for (const held of [31, 118]) {
      const days = series((day) => 1800 + mod(day, 2)).filter((d) => d.day < TODAY && d.day >= TODAY - held);
      const a = fillUpAdvice({ days, today: TODAY });
      assert.deepEqual([a.state, a.history, a.cycle.cycles], ['insufficient-history', { days: held, needed: 180 }, false]);
      assert.match(a.reason, new RegExp(`^Only ${held} days of price changes here and no cycle yet: the cycle needs 180 `));
    }
  });

  test('days after today and before the year are left out; a missing day breaks a change', () => {
    // The sawtooth of the one-week case with today's day missing and a spike tomorrow: the same answer.
    const days = series(sawtooth(7, 30, 3)).filter((d) => d.day !== TODAY - 1);
    days.unshift({ day: TODAY + 1, meanTenths: 9999 });
    days.push({ day: TODAY - 400, meanTenths: 1 });
    assert.deepEqual(shown(days), {
      state: 'cycle', cycles: true, period: 7, last: { date: '22-11-2026', rise: 180 }, since: 3, phase: 'falling', advice: 'wait',
    });
  });
});

describe('median', () => {
  test('odd and even counts', () => {
    assert.equal(median([7, 1, 3]), 3);
    assert.equal(median([14, 13, 12, 16]), 13.5);
  });
});

test('property: any sawtooth of period 5 to 60 and depth ≥ 5.0 c/L is found with its period and last restoration', () => {
  fc.assert(fc.property(fc.integer({ min: 5, max: 60 }), fc.integer({ min: 1, max: 30 }), fc.nat(), (p, fall, k) => {
    const kToday = k % p;
    // fall × (p − 1) ≥ 5.0 c/L for the rise to count.
    fc.pre(fall * (p - 1) >= 50);
    const days = series(sawtooth(p, fall, kToday));
    const c = priceCycle(days, TODAY);
    assert.equal(c.cycles, true);
    assert.equal(c.periodDays, p);
    assert.equal(c.daysSinceRestoration, kToday);
    assert.equal(c.lastRestoration?.riseTenths, fall * (p - 1));
    const phase = kToday <= 1 ? 'rising' : kToday >= 0.75 * p ? 'trough' : 'falling';
    assert.equal(c.phase, phase);
    assert.equal(fillUpAdvice({ days, today: TODAY }).advice, phase === 'trough' ? 'fill-up' : 'wait');
  }));
});
