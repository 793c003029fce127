import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fillUpAdvice } from '../../src/domain/advice.ts';
import type { DailyMean } from '../../src/domain/history.ts';
import { trackRecord } from '../../src/domain/track-record.ts';

// Real data: the ulp91 series the cycle reads for Brisbane and Toowoomba, from QLD's 67 weekly API files
// (test/fixtures/qld-2021-22-cycle-series.json names its source), 13 July 2021 to 6 November 2022.
const FIXTURE = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'qld-2021-22-cycle-series.json'), 'utf8')) as {
  today: number; cities: Record<string, Array<[number, number]>>;
};
const TODAY = FIXTURE.today;
const series = (city: string): DailyMean[] => (FIXTURE.cities[city] ?? []).map(([day, meanTenths]) => ({ day, meanTenths }));

/** The reference count of days with news in the year before `today`: a mean that is not the day before's repeated. */
function newsDaysBefore(days: readonly DailyMean[], today: number): number {
  const byDay = new Map(days.map((d) => [d.day, d.meanTenths]));
  return days.filter((d) => d.day < today && d.day > today - 365 && byDay.get(d.day - 1) !== d.meanTenths).length;
}

describe('the advice on real QLD data (2021-22)', () => {
  test('Brisbane cycles on 7 November 2022, at about five weeks; Toowoomba has a year of news and no cycle', () => {
    const brisbane = fillUpAdvice({ days: series('brisbane'), today: TODAY });
    assert.equal(brisbane.state, 'cycle');
    // Its restorations in the printed series: 2-3 Aug, 7 Sep, 12 Oct, 17 Nov 2021 ... about 35 days apart.
    assert.ok(brisbane.cycle.periodDays !== null && brisbane.cycle.periodDays >= 28 && brisbane.cycle.periodDays <= 42, String(brisbane.cycle.periodDays));
    const toowoomba = fillUpAdvice({ days: series('toowoomba'), today: TODAY });
    assert.deepEqual([toowoomba.state, toowoomba.history], ['no-cycle', { days: newsDaysBefore(series('toowoomba'), TODAY), needed: 180 }]);
    assert.ok(toowoomba.history.days >= 180);
  });

  test('four months in (13 November 2021), before a fourth restoration, Brisbane is insufficient history, not no-cycle', () => {
    const day = Date.UTC(2021, 10, 13) / 86_400_000;
    const a = fillUpAdvice({ days: series('brisbane').filter((d) => d.day < day), today: day });
    const held = newsDaysBefore(series('brisbane'), day);
    assert.ok(held < 180);
    assert.deepEqual([a.state, a.history], ['insufficient-history', { days: held, needed: 180 }]);
  });

  test('the track record over the last 90 days: 87 fills, and following the advice cost nothing against the fixed weekday', () => {
    // Every day has a mean: a weekly fill from every start day, so one due on each day from today − 90 to the last whose
    // window closed before today (today − 4).
    let windows = 0;
    for (let due = TODAY - 90; due <= TODAY - 4; due++) windows++;
    const t = trackRecord(series('brisbane'), TODAY, false);
    assert.ok(t !== null);
    assert.equal(t.windows, windows);
    assert.ok(t.adviceTenths >= 0 && t.adviceTenths <= t.oracleTenths, JSON.stringify(t));
  });
});
