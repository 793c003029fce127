import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FRESH_DAYS, cycleSeries, freshCurrent, freshDailyMeans } from '../../src/domain/fresh.ts';
import type { CurrentPrice } from '../../src/domain/price-rows.ts';
import { dayStart } from '../../src/domain/time.ts';

describe('freshDailyMeans', () => {
  test('rows always count; a run counts on the days at most freshDays after its latest report', () => {
    // Days 100..106. Rows: day 100 two stations (means 1800 and 1900: sum 3700), day 103 one (1850).
    // Run X at 2000 over 101..106, reported on day 100: with freshDays 2, fresh on 101 and 102 only.
    // Run Y at 1700 over 100..106, reported on 99 and again (midnight, same price) on 104: fresh on 100, 101
    // (99 + 2), then 104, 105, 106 (104 + 2); not on 102, 103.
    // Run Z at 1600 over 100..102 with no report near it (imported without its report): never fresh.
    const means = freshDailyMeans({
      rowDays: [{ day: 100, sum: 3700, count: 2 }, { day: 103, sum: 1850, count: 1 }],
      runs: [
        { from: 101, to: 106, priceTenths: 2000, reportDays: [100] },
        { from: 100, to: 106, priceTenths: 1700, reportDays: [104, 99] },
        { from: 100, to: 102, priceTenths: 1600, reportDays: [] },
      ],
    }, 2, 100, 106);
    assert.deepEqual(means, [
      { day: 100, meanTenths: (3700 + 1700) / 3 },
      { day: 101, meanTenths: (2000 + 1700) / 2 },
      { day: 102, meanTenths: 2000 },
      { day: 103, meanTenths: 1850 },
      { day: 104, meanTenths: 1700 },
      { day: 105, meanTenths: 1700 },
      { day: 106, meanTenths: 1700 },
    ]);
  });

  test('only days within [from, to]; a day with nothing fresh has no mean; an empty range is empty', () => {
    const parts = { rowDays: [{ day: 99, sum: 1000, count: 1 }, { day: 102, sum: 1000, count: 1 }], runs: [{ from: 95, to: 110, priceTenths: 1500, reportDays: [94] }] };
    // The run is fresh on 95 and 96 only (94 + 2): outside [100, 102]. Day 100 and 101 have nothing.
    assert.deepEqual(freshDailyMeans(parts, 2, 100, 102), [{ day: 102, meanTenths: 1000 }]);
    assert.deepEqual(freshDailyMeans(parts, 2, 103, 102), []);
  });
});

describe('freshCurrent', () => {
  test('a current price counts when reported today or on the FRESH_DAYS local days before', () => {
    // Perth (UTC+8): today is day 20000; WA's FRESH_DAYS is 1, so reports from the start of day 19999 count.
    const now = dayStart('wa', 20000) + 9 * 3600;
    const price = (stationId: string, reportedAt: number): CurrentPrice => ({ stationId, fuel: 'ulp91', priceTenths: 1800, available: true, reportedAt, openFrom: reportedAt });
    const prices = [price('today', dayStart('wa', 20000)), price('yesterday-first-second', dayStart('wa', 19999)), price('last-second-before', dayStart('wa', 19999) - 1)];
    assert.equal(FRESH_DAYS.wa, 1);
    assert.deepEqual(freshCurrent('wa', prices, now).map((p) => p.stationId), ['today', 'yesterday-first-second']);
    // NSW keeps 14 days: a report 14 local days before today counts, 15 does not.
    const sydneyNow = dayStart('nsw', 20000) + 3600;
    const nsw = [price('14', dayStart('nsw', 19986)), price('15', dayStart('nsw', 19986) - 1)];
    assert.equal(FRESH_DAYS.nsw, 14);
    assert.deepEqual(freshCurrent('nsw', nsw, sydneyNow).map((p) => p.stationId), ['14']);
  });
});

describe('cycleSeries', () => {
  test('fresh means before the seal, the history\'s after it, in day order', () => {
    const fresh = [{ day: 9, meanTenths: 1 }, { day: 10, meanTenths: 2 }, { day: 11, meanTenths: 3 }];
    const history = [{ day: 12, meanTenths: 40 }, { day: 10, meanTenths: 20 }, { day: 11, meanTenths: 30 }];
    assert.deepEqual(cycleSeries(fresh, history, 11), [{ day: 9, meanTenths: 1 }, { day: 10, meanTenths: 2 }, { day: 11, meanTenths: 30 }, { day: 12, meanTenths: 40 }]);
  });
});
