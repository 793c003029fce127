import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { STATES } from '../../src/domain/states.ts';
import { eachDayLength, localTimeToUnix, splitByLocalDay } from '../../src/domain/time.ts';
import { DayTotals, addInterval } from '../../src/storage/write-plan/day-totals.ts';

const utc = (iso: string): number => Date.parse(iso) / 1000;
const report = (priceTenths: number, available = true) => ({ at: 0, priceTenths, available });

/** A DayTotals as one [day, weighted, seconds] per day: its sums, and each run's days at their seconds. */
function perDay(state: (typeof STATES)[number], totals: DayTotals): Array<[number, number, number]> {
  const days: Array<[number, number, number]> = [...totals.values()].map((t) => [t.day, t.weighted, t.seconds]);
  for (const run of totals.runs) eachDayLength(state, run.from, run.to, (day, seconds) => days.push([day, run.priceTenths * seconds, seconds]));
  return days.sort((a, b) => a[0] - b[0]);
}

describe('an interval as part days and runs of whole days', () => {
  test('part days are sums, the whole days between are one run', () => {
    const at = (d: number, h: number): number => localTimeToUnix('nsw', 2026, 11, d, h, 0, 0);
    const totals = new DayTotals();
    addInterval(totals, 'nsw', at(2, 18), at(6, 6), report(1800));
    const day2 = Math.floor((at(2, 0) + 11 * 3600) / 86_400); // NSW is at +11:00 in November
    assert.deepEqual([...totals.values()], [
      { day: day2, weighted: 1800 * 6 * 3600, seconds: 6 * 3600 },
      { day: day2 + 4, weighted: 1800 * 6 * 3600, seconds: 6 * 3600 },
    ]);
    assert.deepEqual(totals.runs, [{ from: day2 + 1, to: day2 + 3, priceTenths: 1800 }]);
  });

  test('an interval from midnight to midnight is only a run; the next one at the same price lengthens it', () => {
    const midnight = (d: number): number => localTimeToUnix('wa', 2026, 11, d, 0, 0, 0);
    const totals = new DayTotals();
    addInterval(totals, 'wa', midnight(1), midnight(3), report(1900));
    addInterval(totals, 'wa', midnight(3), midnight(4), report(1900));
    addInterval(totals, 'wa', midnight(4), midnight(5), report(1950));
    const first = Math.floor((midnight(1) + 8 * 3600) / 86_400);
    assert.equal(totals.days.length, 0);
    assert.deepEqual(totals.runs, [{ from: first, to: first + 2, priceTenths: 1900 }, { from: first + 3, to: first + 3, priceTenths: 1950 }]);
  });

  test('a run across the start of daylight saving has a 23-hour day', () => {
    // NSW clocks went forward at 02:00 on Sunday 4 October 2026.
    const totals = new DayTotals();
    addInterval(totals, 'nsw', localTimeToUnix('nsw', 2026, 10, 3, 0, 0, 0), localTimeToUnix('nsw', 2026, 10, 6, 0, 0, 0), report(2000));
    assert.deepEqual(perDay('nsw', totals).map(([, , seconds]) => seconds), [86_400, 82_800, 86_400]);
  });

  test('an unavailable interval adds nothing', () => {
    const totals = new DayTotals();
    addInterval(totals, 'qld', utc('2026-01-01T00:00:00Z'), utc('2026-01-09T00:00:00Z'), report(1800, false));
    assert.equal(totals.size, 0);
  });

  test('any interval in any state: the same seconds per day as splitting it by local day', () => {
    fc.assert(fc.property(
      fc.constantFrom(...STATES), fc.integer({ min: utc('2015-01-01T00:00:00Z'), max: utc('2030-01-01T00:00:00Z') }),
      fc.oneof(fc.integer({ min: 1, max: 3 * 86_400 }), fc.integer({ min: 1, max: 400 * 86_400 })), fc.integer({ min: 1, max: 30_000 }),
      (state, from, length, price) => {
        const totals = new DayTotals();
        addInterval(totals, state, from, from + length, report(price));
        const expected = splitByLocalDay(state, from, from + length).map((s): [number, number, number] => [s.day, price * s.seconds, s.seconds]);
        assert.deepEqual(perDay(state, totals), expected);
        // No day is both a sum and in a run.
        assert.equal(new Set(perDay(state, totals).map(([day]) => day)).size, expected.length);
      },
    ), { numRuns: 2000 });
  });

  test('intervals in a row, some starting at a midnight: the same as splitting each', () => {
    fc.assert(fc.property(
      fc.constantFrom(...STATES), fc.array(fc.tuple(fc.integer({ min: 0, max: 9 * 86_400 }), fc.boolean(), fc.integer({ min: 1700, max: 1702 })), { minLength: 1, maxLength: 12 }),
      (state, steps) => {
        const totals = new DayTotals();
        const expected = new Map<number, [number, number]>();
        let t = localTimeToUnix(state, 2026, 3, 28, 0, 0, 0); // across the end of daylight saving in the south-east
        for (const [length, toMidnight, price] of steps) {
          let end = t + length + 1;
          if (toMidnight) end = localTimeToUnix(state, 2026, 1, 1, 0, 0, 0) + Math.ceil((end - localTimeToUnix(state, 2026, 1, 1, 0, 0, 0)) / 86_400) * 86_400;
          const to = end > t ? end : t + 1;
          addInterval(totals, state, t, to, report(price));
          for (const s of splitByLocalDay(state, t, to)) {
            const sum = expected.get(s.day) ?? [0, 0];
            expected.set(s.day, [sum[0] + price * s.seconds, sum[1] + s.seconds]);
          }
          t = to;
        }
        assert.deepEqual(perDay(state, totals), [...expected].sort((a, b) => a[0] - b[0]).map(([day, [w, s]]) => [day, w, s]));
      },
    ), { numRuns: 500 });
  });
});
