import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fillUpAdvice } from '../../src/domain/advice.ts';
import { restorations } from '../../src/domain/cycle.ts';
import type { DailyMean } from '../../src/domain/history.ts';
import { type LocalDay, formatLocalDay, localDayFromYmd } from '../../src/domain/time.ts';

// Today for every case: Tuesday 24-11-2026 (weekday 1).
const TODAY = localDayFromYmd(2026, 11, 24);

/** Daily means for today − 365 .. today − 1 (the whole days before today), oldest first. */
function days(price: (day: LocalDay) => number): DailyMean[] {
  const out: DailyMean[] = [];
  for (let day = TODAY - 365; day < TODAY; day++) out.push({ day, meanTenths: price(day) });
  return out;
}

const mod = (a: number, n: number): number => ((a % n) + n) % n;
/**
 * Perth's week: restored on Wednesdays by 10.0 c/L, then 2.0 c/L down a day to Tuesday.
 * Wednesday (k = 0) 1900, Thursday 1880, ... Tuesday (k = 6) 1780. TODAY − 6 (Wednesday 18-11) is k = 0.
 */
const weekly = (day: LocalDay): number => 1900 - 20 * mod(day - (TODAY - 6), 7);

describe('the fill-up advice', () => {
  test("tomorrow's published prices decide first, either way, with high confidence", () => {
    // Today (Tuesday, k = 6) 178.0 in force; tomorrow 190.0 published: 12.0 c/L more.
    const up = fillUpAdvice({ days: days(weekly), today: TODAY, now: 1780, tomorrowChange: 120 });
    assert.deepEqual([up.advice, up.confidence, up.reason],
      ['fill-up', 'high', "Tomorrow's published prices average 12.0 c/L more than today's at the same stations. The city's cycle runs every 7 days."]);
    const down = fillUpAdvice({ days: days(weekly), today: TODAY, now: 1780, tomorrowChange: -15 });
    assert.deepEqual([down.advice, down.confidence, down.reason],
      ['wait', 'high', "Tomorrow's published prices average 1.5 c/L less than today's at the same stations. The city's cycle runs every 7 days."]);
    // Without a cycle too: a flat year, tomorrow 0.1 c/L dearer is enough, and so is 0.02 (one station of five up 0.1).
    const flat = fillUpAdvice({ days: days(() => 1800), today: TODAY, now: 1800, tomorrowChange: 1 });
    assert.deepEqual([flat.advice, flat.reason], ['fill-up', "Tomorrow's published prices average 0.1 c/L more than today's at the same stations. The city has no regular price cycle."]);
    const tiny = fillUpAdvice({ days: days(() => 1800), today: TODAY, now: 1800, tomorrowChange: 0.2 });
    assert.deepEqual([tiny.advice, tiny.reason], ['fill-up', "Tomorrow's published prices average under 0.1 c/L more than today's at the same stations. The city has no regular price cycle."]);
  });

  test('tomorrow the same as today: wait, whatever the cycle says (a day costs nothing)', () => {
    // Today is the weekly cycle's cheapest day, yet tomorrow's published prices are today's: waiting loses nothing.
    const same = fillUpAdvice({ days: days(weekly), today: TODAY, now: 1780, tomorrowChange: 0 });
    assert.deepEqual([same.advice, same.confidence, same.cycle.cheapestWeekday, same.reason],
      ['wait', 'high', 1, "Tomorrow's published prices average the same as today's: waiting a day costs nothing. The city's cycle runs every 7 days."]);
    // Without tomorrow's prices the cycle decides: Tuesday, the cheapest weekday, is today.
    const cycle = fillUpAdvice({ days: days(weekly), today: TODAY, now: 1780 });
    assert.deepEqual([cycle.advice, cycle.confidence, cycle.reason],
      ['fill-up', 'medium', 'Tuesday is the cheapest day of this weekly cycle over the last 8 weeks, and today is Tuesday.']);
  });

  test("tomorrow dearer, but the week's pattern falls by more than twice as much within 3 days: wait for it", () => {
    // The reference: each weekday's mean less its week's mean (every 7 days hold one of each k), as the pattern of the last
    // 8 weeks gives it; from tomorrow's weekday to the day 2 or 3 days ahead with the largest fall.
    const names = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
    const weekMean = [0, 1, 2, 3, 4, 5, 6].reduce((a, k) => a + (1900 - 20 * k), 0) / 7;
    const offset = (day: LocalDay): number => weekly(day) - weekMean;
    const name = (day: LocalDay): string => names[mod(day - localDayFromYmd(2026, 11, 23), 7)] ?? '';
    const reference = (today: LocalDay, change: number): { advice: string; waitDays: number; saving: number | null } => {
      const falls = [2, 3].map((ahead) => ({ ahead, drop: offset(today + 1) - offset(today + ahead) }));
      const best = falls.reduce((a, b) => (b.drop > a.drop ? b : a));
      return best.drop > 2 * change ? { advice: 'wait', waitDays: best.ahead, saving: best.drop - change } : { advice: 'fill-up', waitDays: 0, saving: change };
    };
    const wednesday = TODAY - 6;
    // Wednesday (the restoration's day), Thursday published 1.5 c/L dearer (a late restorer), Saturday in 3 days 4.0 c/L below Thursday.
    for (const [today, change] of [[wednesday, 15], [wednesday, 19], [wednesday, 21], [wednesday, 25], [TODAY - 4, 5], [TODAY - 1, 5], [TODAY, 120]] as const) {
      const a = fillUpAdvice({ days: days(weekly).filter((d) => d.day < today), today, now: weekly(today), tomorrowChange: change });
      const want = reference(today, change);
      assert.deepEqual([a.advice, a.signal, a.horizon.waitDays, a.expectedSavingTenths], [want.advice, 'tomorrow', want.waitDays, want.saving], `${formatLocalDay(today)} +${change}`);
      if (want.advice === 'wait') {
        const drop = ((offset(today + 1) - offset(today + want.waitDays)) / 10).toFixed(1);
        assert.equal(a.confidence, 'medium');
        assert.equal(a.reason, `Tomorrow's published prices average ${(change / 10).toFixed(1)} c/L more than today's at the same stations, but over the last 8 weeks `
          + `${name(today + want.waitDays)} has been ${drop} c/L below ${name(today + 1)}: wait until ${name(today + want.waitDays)}, in ${want.waitDays} days. The city's cycle runs every 7 days.`);
      }
    }
    // Without a weekly pattern (a flat year) a published rise decides, however small.
    assert.equal(fillUpAdvice({ days: days(() => 1800), today: TODAY, now: 1800, tomorrowChange: 1 }).advice, 'fill-up');
  });

  test('a weekly cycle on another day: wait, naming the day', () => {
    // Sunday 22-11 (k = 4): Tuesday is 2 days ahead. The days before it only.
    const sunday = TODAY - 2;
    const a = fillUpAdvice({ days: days(weekly).filter((d) => d.day < sunday), today: sunday });
    assert.deepEqual([a.advice, a.cycle.phase, a.reason], ['wait', 'falling', 'Tuesday is the cheapest day of this weekly cycle over the last 8 weeks: in 2 days.']);
  });

  test('a restoration under way today (seen in the prices in force now) is rising: wait', () => {
    // A four-week cycle: Wednesday restorations of 12.0 c/L (k = 0 is 1900), 0.5 c/L down a day to k = 27 (1765).
    // Today k = 27 the trough, but the prices in force now are 190.0: up 12.5 c/L on yesterday's 177.5 (k = 26).
    const fourWeeks = (day: LocalDay): number => 1900 - 5 * mod(day - (TODAY - 27), 28);
    const trough = fillUpAdvice({ days: days(fourWeeks), today: TODAY });
    assert.deepEqual([trough.advice, trough.cycle.phase, trough.cycle.periodDays], ['fill-up', 'trough', 28]);
    const now = fillUpAdvice({ days: days(fourWeeks), today: TODAY, now: 1900 });
    assert.deepEqual([now.advice, now.cycle.phase, now.cycle.daysSinceRestoration, now.reason],
      ['wait', 'rising', 0, `Prices are being restored (a rise began ${formatLocalDay(TODAY)}); they fall from here. The city's cycle runs every 28 days.`]);
  });

  test('two days without news in a cycling city: unknown, never a decision on carried-forward means', () => {
    // The weekly cycle until Sunday 22-11, then Monday 23-11 repeats Sunday's mean to the last digit (nobody reported):
    // the latest day with news is Sunday, two days before today... still within two days: the cycle decides.
    const oneQuiet = days((day) => weekly(Math.min(day, TODAY - 2)));
    assert.equal(fillUpAdvice({ days: oneQuiet, today: TODAY }).advice, 'fill-up');
    // From Saturday 21-11 on, the means repeat Saturday's: the latest news is Saturday, three days ago.
    const quiet = days((day) => weekly(Math.min(day, TODAY - 3)));
    const a = fillUpAdvice({ days: quiet, today: TODAY });
    assert.deepEqual([a.advice, a.confidence, a.reason], ['unknown', 'low', 'No price changes reported since 21-11-2026: the cycle cannot be read without them.']);
    // Days missing altogether read the same.
    const missing = fillUpAdvice({ days: days(weekly).filter((d) => d.day <= TODAY - 3), today: TODAY });
    assert.equal(missing.advice, 'unknown');
  });

  test('a smooth rise is no restoration (Bunbury): up 1.5 c/L a day for six days, down for eight, all year', () => {
    // Every rising day is 1.5 c/L, under the 3.0 a restoration starts with: none at all, so no cycle.
    const smooth = (day: LocalDay): number => { const k = mod(day, 14); return k < 6 ? 1800 + 15 * k : 1890 - 10 * (k - 6); };
    const a = fillUpAdvice({ days: days(smooth), today: TODAY });
    assert.deepEqual([a.cycle.restorations.length, a.cycle.cycles, a.advice, a.confidence],
      [0, false, 'no-cycle', 'medium']);
  });

  test('a creeping rise does not date the jump: +1.2 Monday, +1.1 Tuesday, +8.0 Wednesday is Wednesday\'s restoration', () => {
    const wednesday = TODAY - 6;
    const series: DailyMean[] = [
      { day: wednesday - 3, meanTenths: 1780 }, { day: wednesday - 2, meanTenths: 1792 },
      { day: wednesday - 1, meanTenths: 1803 }, { day: wednesday, meanTenths: 1883 }, { day: wednesday + 1, meanTenths: 1880 },
    ];
    assert.deepEqual(restorations(series, TODAY).map((r) => [formatLocalDay(r.day), formatLocalDay(r.lastDay), r.riseTenths]),
      [[formatLocalDay(wednesday), formatLocalDay(wednesday), 80]]);
    // A jump late in the day shows in two means: +3.0 then +2.5 is one restoration of 5.5 c/L dated its first day.
    const split: DailyMean[] = [{ day: wednesday - 1, meanTenths: 1800 }, { day: wednesday, meanTenths: 1830 }, { day: wednesday + 1, meanTenths: 1855 }];
    assert.deepEqual(restorations(split, TODAY).map((r) => [r.day - wednesday, r.lastDay - wednesday, r.riseTenths]), [[0, 1, 55]]);
    // Stations following over days: +3.5, +4.0, +2.0, then +0.9 (under 1.0, the run ends): one restoration of 9.5.
    const follow: DailyMean[] = [1800, 1835, 1875, 1895, 1904].map((meanTenths, i) => ({ day: wednesday - 1 + i, meanTenths }));
    assert.deepEqual(restorations(follow, TODAY).map((r) => [r.day - wednesday, r.lastDay - wednesday, r.riseTenths]), [[0, 2, 95]]);
  });

  test('restorations over days: half a period of waiting after one, unless it has been given back already (then stopped falling decides)', () => {
    // A 28-day cycle whose restorations run 4 days (+4.0 c/L a day, 16.0 in all: Brisbane's kind), then fall back to 180.0
    // over 24 days. The last restoration, R = today − 10, is a small one: +4.0 twice (8.0 c/L, to 188.0).
    const R = TODAY - 10;
    const saw = (day: LocalDay): number => {
      const k = mod(day - R, 28);
      return k <= 3 ? 1800 + 40 * (k + 1) : 1960 - Math.round((160 * (k - 3)) / 24);
    };
    const withTail = (tail: readonly number[]): DailyMean[] => days((day) => (day < R ? saw(day) : tail[day - R] ?? NaN));
    // Given back: down 0.8 c/L a day for five days to 184.0 (4.0 c/L, half of 8.0), then up 0.1 a day (stopped falling).
    const back = fillUpAdvice({ days: withTail([1840, 1880, 1872, 1864, 1856, 1848, 1840, 1841, 1842, 1843]), today: TODAY });
    // 10 days after it began, under half the 28-day period: without the give-back it would wait.
    assert.deepEqual([back.advice, back.signal, back.confidence, back.horizon.waitDays, back.expectedSavingTenths, back.reason], [
      'fill-up', 'phase', 'medium', 0, 160,
      "Prices have given back half the last restoration's rise and stopped falling, 10 days after the last restoration began: the fall after it is over sooner than usual. The city's cycle runs every 28 days.",
    ]);
    // Given back only 2.4 c/L (under half of 8.0), then up 0.1 a day: still early, wait; the next rise is due R + 28 = today + 18.
    const early = fillUpAdvice({ days: withTail([1840, 1880, 1872, 1864, 1856, 1857, 1858, 1859, 1860, 1861]), today: TODAY });
    assert.deepEqual([early.advice, early.signal, early.horizon.waitDays, early.reason], [
      'wait', 'phase', 17,
      `Prices fall for weeks after a restoration, and it is 10 days after the last restoration began: wait up to 17 days, the next rise is expected ${formatLocalDay(TODAY + 18)}. The city's cycle runs every 28 days.`,
    ]);
    // Given back, but still falling on the latest day (−0.8 c/L): wait.
    const falling = fillUpAdvice({ days: withTail([1840, 1880, 1872, 1864, 1856, 1848, 1840, 1832, 1824, 1816]), today: TODAY });
    assert.deepEqual([falling.advice, falling.signal, falling.horizon.waitDays], ['wait', 'phase', 17]);
  });

  test('a short history without a cycle: insufficient-history, advice unknown, low confidence', () => {
    const a = fillUpAdvice({ days: days((day) => 1800 + mod(day, 2)).slice(-30), today: TODAY });
    assert.deepEqual([a.state, a.history, a.confidence], ['insufficient-history', { days: 30, needed: 180 }, 'low']);
    // The latest day (today − 1) against the one before decides between waiting on a fall and buying when needed.
    const fell = mod(TODAY - 1, 2) < mod(TODAY - 2, 2);
    assert.deepEqual([a.advice, a.signal], fell ? ['wait', 'trend'] : ['unknown', 'none']);
  });
});
