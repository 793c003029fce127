import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { STATES, STATE_TIME_ZONES, isStateId, type StateId } from '../../src/domain/states.ts';
import {
  DEFAULT_TIMEFRAME,
  TIMEFRAMES,
  dayStart,
  formatLocalDay,
  localDayFromYmd,
  localDayOf,
  localTimeToUnix,
  splitByLocalDay,
  timeframeWindow,
  utcOffsetSeconds,
  ymdOfLocalDay,
  type Timeframe,
} from '../../src/domain/time.ts';

// Expected values come from the platform's own date parsing, never from the
// code under test.
const utc = (iso: string): number => Date.parse(iso) / 1000;
const day = (ymd: string): number => Date.parse(`${ymd}T00:00:00Z`) / 86_400_000;

const T1990 = utc('1990-01-01T00:00:00Z');
const T2060 = utc('2060-01-01T00:00:00Z');
const anyState = fc.constantFrom(...STATES);
const anyInstant = fc.integer({ min: T1990, max: T2060 });
const anyDay = fc.integer({ min: day('1990-01-01'), max: day('2100-12-31') });

const formatters = new Map<string, Intl.DateTimeFormat>();

function intlOffset(zone: string, unixSec: number): number {
  let fmt = formatters.get(zone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formatters.set(zone, fmt);
  }
  const p = fmt.formatToParts(new Date(unixSec * 1000));
  const get = (type: string): number => Number(p.find((x) => x.type === type)?.value);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return local / 1000 - unixSec;
}

function civil(d: number): { y: number; m: number; d: number } {
  const date = new Date(d * 86_400_000);
  return { y: date.getUTCFullYear(), m: date.getUTCMonth() + 1, d: date.getUTCDate() };
}

function sameDateMonthsAgo(today: number, months: number): number {
  const { y, m, d } = civil(today);
  const target = new Date(Date.UTC(y, m - 1 - months, 1));
  const ty = target.getUTCFullYear();
  const tm = target.getUTCMonth();
  const lastDay = new Date(Date.UTC(ty, tm + 1, 0)).getUTCDate();
  return Date.UTC(ty, tm, Math.min(d, lastDay)) / 86_400_000;
}

describe('states', () => {
  test('ids and zones', () => {
    assert.deepEqual([...STATES], ['nsw', 'vic', 'qld', 'wa', 'sa', 'tas', 'nt', 'act']);
    assert.equal(STATE_TIME_ZONES.act, 'Australia/Sydney');
    assert.equal(STATE_TIME_ZONES.tas, 'Australia/Hobart');
    assert.equal(isStateId('wa'), true);
    assert.equal(isStateId('WA'), false);
    assert.equal(isStateId('toString'), false);
  });
});

describe('civil day numbers', () => {
  test('literal day numbers', () => {
    assert.equal(localDayFromYmd(1970, 1, 1), 0);
    assert.equal(localDayFromYmd(2026, 10, 4), 20730);
    assert.equal(localDayFromYmd(2026, 11, 22), 20779);
    assert.equal(localDayFromYmd(2028, 2, 29), 21243);
    assert.equal(localDayFromYmd(1969, 12, 31), -1);
    assert.deepEqual(ymdOfLocalDay(21243), { y: 2028, m: 2, d: 29 });
    assert.deepEqual(ymdOfLocalDay(-1), { y: 1969, m: 12, d: 31 });
  });

  test('formatLocalDay is DD-MM-YYYY', () => {
    assert.equal(formatLocalDay(20779), '22-11-2026');
    assert.equal(formatLocalDay(0), '01-01-1970');
    assert.equal(formatLocalDay(21243), '29-02-2028');
  });

  test('ymd round trip', () => {
    fc.assert(fc.property(anyDay, (d) => {
      const { y, m, d: dd } = ymdOfLocalDay(d);
      assert.equal(localDayFromYmd(y, m, dd), d);
      assert.deepEqual(ymdOfLocalDay(d), civil(d));
    }));
  });
});

describe('local days', () => {
  // [state, UTC instant of local midnight starting 2026-01-15, same for 2026-07-15]
  const midnights: [StateId, string, string][] = [
    ['nsw', '2026-01-14T13:00:00Z', '2026-07-14T14:00:00Z'],
    ['act', '2026-01-14T13:00:00Z', '2026-07-14T14:00:00Z'],
    ['vic', '2026-01-14T13:00:00Z', '2026-07-14T14:00:00Z'],
    ['tas', '2026-01-14T13:00:00Z', '2026-07-14T14:00:00Z'],
    ['qld', '2026-01-14T14:00:00Z', '2026-07-14T14:00:00Z'],
    ['sa', '2026-01-14T13:30:00Z', '2026-07-14T14:30:00Z'],
    ['nt', '2026-01-14T14:30:00Z', '2026-07-14T14:30:00Z'],
    ['wa', '2026-01-14T16:00:00Z', '2026-07-14T16:00:00Z'],
  ];
  for (const [state, summer, winter] of midnights) {
    test(`${state}: either side of local midnight`, () => {
      for (const [iso, before, after] of [
        [summer, '2026-01-14', '2026-01-15'],
        [winter, '2026-07-14', '2026-07-15'],
      ] as const) {
        const t = utc(iso);
        assert.equal(localDayOf(state, t - 1), day(before));
        assert.equal(localDayOf(state, t), day(after));
        assert.equal(dayStart(state, day(after)), t);
      }
    });
  }

  test('offsets', () => {
    assert.equal(utcOffsetSeconds('nsw', utc('2026-01-15T00:00:00Z')), 39600);
    assert.equal(utcOffsetSeconds('nsw', utc('2026-07-15T00:00:00Z')), 36000);
    assert.equal(utcOffsetSeconds('sa', utc('2026-01-15T00:00:00Z')), 37800);
    assert.equal(utcOffsetSeconds('sa', utc('2026-07-15T00:00:00Z')), 34200);
    assert.equal(utcOffsetSeconds('nt', utc('2026-01-15T00:00:00Z')), 34200);
    assert.equal(utcOffsetSeconds('qld', utc('2026-01-15T00:00:00Z')), 36000);
    assert.equal(utcOffsetSeconds('wa', utc('2026-01-15T00:00:00Z')), 28800);
    // Historical DST: Perth 2006-09 trial, Queensland 1989-92.
    assert.equal(utcOffsetSeconds('wa', utc('2007-01-15T00:00:00Z')), 32400);
    assert.equal(utcOffsetSeconds('qld', utc('1990-01-15T00:00:00Z')), 39600);
  });

  test('offset changes at the exact second of a transition', () => {
    // Sydney 02:00 AEST -> 03:00 AEDT on 2026-10-04; 03:00 AEDT -> 02:00 AEST on 2026-04-05.
    assert.equal(utcOffsetSeconds('nsw', utc('2026-10-03T15:59:59Z')), 36000);
    assert.equal(utcOffsetSeconds('nsw', utc('2026-10-03T16:00:00Z')), 39600);
    assert.equal(utcOffsetSeconds('nsw', utc('2026-04-04T15:59:59Z')), 39600);
    assert.equal(utcOffsetSeconds('nsw', utc('2026-04-04T16:00:00Z')), 36000);
    assert.equal(utcOffsetSeconds('sa', utc('2026-10-03T16:29:59Z')), 34200);
    assert.equal(utcOffsetSeconds('sa', utc('2026-10-03T16:30:00Z')), 37800);
  });

  test('DST days are 23 and 25 hours long', () => {
    assert.equal(dayStart('nsw', day('2026-10-04')), utc('2026-10-03T14:00:00Z'));
    assert.equal(dayStart('nsw', day('2026-10-05')), utc('2026-10-04T13:00:00Z'));
    assert.equal(dayStart('nsw', day('2026-10-05')) - dayStart('nsw', day('2026-10-04')), 82800);
    assert.equal(dayStart('nsw', day('2026-04-05')), utc('2026-04-04T13:00:00Z'));
    assert.equal(dayStart('nsw', day('2026-04-06')), utc('2026-04-05T14:00:00Z'));
    assert.equal(dayStart('nsw', day('2026-04-06')) - dayStart('nsw', day('2026-04-05')), 90000);
    assert.equal(dayStart('sa', day('2026-10-04')), utc('2026-10-03T14:30:00Z'));
    assert.equal(dayStart('sa', day('2026-10-05')), utc('2026-10-04T13:30:00Z'));
    assert.equal(dayStart('sa', day('2026-04-06')) - dayStart('sa', day('2026-04-05')), 90000);
    assert.equal(dayStart('qld', day('2026-10-04')), utc('2026-10-03T14:00:00Z'));
    assert.equal(dayStart('qld', day('2026-10-05')) - dayStart('qld', day('2026-10-04')), 86400);
    assert.equal(dayStart('qld', day('2026-04-06')) - dayStart('qld', day('2026-04-05')), 86400);
  });

  test('dayStart(localDayOf(t)) <= t < dayStart(localDayOf(t) + 1)', () => {
    fc.assert(fc.property(anyState, anyInstant, (state, t) => {
      const d = localDayOf(state, t);
      assert.ok(dayStart(state, d) <= t);
      assert.ok(t < dayStart(state, d + 1));
    }), { numRuns: 1000 });
  });

  test('days are 23, 24 or 25 hours', () => {
    fc.assert(fc.property(anyState, anyDay, (state, d) => {
      assert.ok([82800, 86400, 90000].includes(dayStart(state, d + 1) - dayStart(state, d)));
    }), { numRuns: 1000 });
  });

  test('utcOffsetSeconds agrees with Intl', () => {
    const wide = fc.integer({ min: utc('1970-01-01T00:00:00Z'), max: utc('2100-12-31T00:00:00Z') });
    fc.assert(fc.property(anyState, wide, (state, t) => {
      assert.equal(utcOffsetSeconds(state, t), intlOffset(STATE_TIME_ZONES[state], t));
    }), { numRuns: 2000 });
  });

  test('every transition 1970-2100 lands on the second Intl gives', () => {
    for (const state of ['nsw', 'vic', 'qld', 'wa', 'sa', 'tas', 'nt'] as const) {
      const zone = STATE_TIME_ZONES[state];
      let transitions = 0;
      for (let t = utc('1970-01-01T00:00:00Z'); t < utc('2100-12-31T00:00:00Z'); t += 3600) {
        if (utcOffsetSeconds(state, t) === utcOffsetSeconds(state, t + 3600)) continue;
        let lo = t;
        let hi = t + 3600;
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          if (utcOffsetSeconds(state, mid) === utcOffsetSeconds(state, lo)) lo = mid;
          else hi = mid;
        }
        assert.equal(utcOffsetSeconds(state, lo), intlOffset(zone, lo));
        assert.equal(utcOffsetSeconds(state, hi), intlOffset(zone, hi));
        transitions++;
      }
      // Qld had DST in 1971-72 and 1989-92; WA in 1974-75, 1983-84, 1991-92 and 2006-09.
      const historical: Partial<Record<StateId, number>> = { qld: 8, wa: 12, nt: 0 };
      const expected = historical[state];
      if (expected === undefined) assert.ok(transitions > 250);
      else assert.equal(transitions, expected);
    }
  });

  test('hourly agreement with Intl through the Perth DST trial', () => {
    for (const state of ['nsw', 'sa', 'wa', 'qld'] as const) {
      for (let t = utc('2006-10-01T00:00:00Z'); t < utc('2009-06-01T00:00:00Z'); t += 3600) {
        assert.equal(utcOffsetSeconds(state, t), intlOffset(STATE_TIME_ZONES[state], t));
      }
    }
  });
});

describe('splitByLocalDay', () => {
  test('across the DST start', () => {
    assert.deepEqual(splitByLocalDay('nsw', utc('2026-10-03T13:00:00Z'), utc('2026-10-05T14:00:00Z')), [
      { day: day('2026-10-03'), seconds: 3600 },
      { day: day('2026-10-04'), seconds: 82800 },
      { day: day('2026-10-05'), seconds: 86400 },
      { day: day('2026-10-06'), seconds: 3600 },
    ]);
  });

  test('across the DST end', () => {
    assert.deepEqual(splitByLocalDay('nsw', utc('2026-04-04T12:00:00Z'), utc('2026-04-05T15:00:00Z')), [
      { day: day('2026-04-04'), seconds: 3600 },
      { day: day('2026-04-05'), seconds: 90000 },
      { day: day('2026-04-06'), seconds: 3600 },
    ]);
  });

  test('empty and single-day intervals', () => {
    const t = utc('2026-01-15T00:00:00Z');
    assert.deepEqual(splitByLocalDay('wa', t, t), []);
    assert.deepEqual(splitByLocalDay('wa', t, t - 10), []);
    assert.deepEqual(splitByLocalDay('wa', t, t + 60), [{ day: day('2026-01-15'), seconds: 60 }]);
  });

  test('slices are contiguous, positive and cut at local midnights', () => {
    const span = fc.integer({ min: 0, max: 40 * 86400 });
    fc.assert(fc.property(anyState, anyInstant, span, (state, from, len) => {
      const slices = splitByLocalDay(state, from, from + len);
      if (len === 0) return assert.deepEqual(slices, []);
      let at = from;
      slices.forEach((s, i) => {
        assert.ok(s.seconds > 0);
        assert.equal(s.day, localDayOf(state, from) + i);
        assert.equal(localDayOf(state, at), s.day);
        at += s.seconds;
        if (i < slices.length - 1) assert.equal(at, dayStart(state, s.day + 1));
      });
      assert.equal(at, from + len);
    }), { numRuns: 500 });
  });
});

describe('timeframeWindow', () => {
  const win = (tf: Timeframe, today: string): [string | null, string] => {
    const w = timeframeWindow(tf, day(today));
    return [w.from === null ? null : formatLocalDay(w.from), formatLocalDay(w.to)];
  };

  test('defaults', () => {
    assert.equal(DEFAULT_TIMEFRAME, 'last-month');
    assert.deepEqual([...TIMEFRAMES], ['last-week', 'last-month', 'last-year', 'last-financial-year', 'all-time']);
  });

  test('last-week', () => {
    assert.deepEqual(win('last-week', '2026-11-22'), ['16-11-2026', '22-11-2026']);
    assert.deepEqual(win('last-week', '2026-03-03'), ['25-02-2026', '03-03-2026']);
  });

  test('last-month', () => {
    assert.deepEqual(win('last-month', '2026-11-22'), ['23-10-2026', '22-11-2026']);
    assert.deepEqual(win('last-month', '2026-03-31'), ['01-03-2026', '31-03-2026']);
    assert.deepEqual(win('last-month', '2026-03-29'), ['01-03-2026', '29-03-2026']);
    assert.deepEqual(win('last-month', '2028-03-31'), ['01-03-2028', '31-03-2028']);
    assert.deepEqual(win('last-month', '2028-03-28'), ['29-02-2028', '28-03-2028']);
    assert.deepEqual(win('last-month', '2026-05-31'), ['01-05-2026', '31-05-2026']);
    assert.deepEqual(win('last-month', '2026-01-15'), ['16-12-2025', '15-01-2026']);
    assert.deepEqual(win('last-month', '2026-03-01'), ['02-02-2026', '01-03-2026']);
  });

  test('last-year', () => {
    assert.deepEqual(win('last-year', '2026-11-22'), ['23-11-2025', '22-11-2026']);
    assert.deepEqual(win('last-year', '2028-02-29'), ['01-03-2027', '29-02-2028']);
    assert.deepEqual(win('last-year', '2029-02-28'), ['29-02-2028', '28-02-2029']);
    assert.deepEqual(win('last-year', '2027-01-01'), ['02-01-2026', '01-01-2027']);
  });

  test('last-financial-year', () => {
    assert.deepEqual(win('last-financial-year', '2026-11-23'), ['01-07-2025', '30-06-2026']);
    assert.deepEqual(win('last-financial-year', '2026-06-30'), ['01-07-2024', '30-06-2025']);
    assert.deepEqual(win('last-financial-year', '2026-07-01'), ['01-07-2025', '30-06-2026']);
    assert.deepEqual(win('last-financial-year', '2026-01-01'), ['01-07-2024', '30-06-2025']);
    assert.deepEqual(win('last-financial-year', '2025-12-31'), ['01-07-2024', '30-06-2025']);
  });

  test('all-time', () => {
    assert.deepEqual(timeframeWindow('all-time', day('2026-11-22')), { from: null, to: day('2026-11-22') });
  });

  test('windows are ordered; rolling ones end today', () => {
    fc.assert(fc.property(fc.constantFrom(...TIMEFRAMES), anyDay, (tf, today) => {
      const w = timeframeWindow(tf, today);
      if (w.from !== null) assert.ok(w.from <= w.to);
      if (tf !== 'last-financial-year') assert.equal(w.to, today);
    }));
  });

  test('last-week spans 7 days', () => {
    fc.assert(fc.property(anyDay, (today) => {
      const w = timeframeWindow('last-week', today);
      assert.equal(w.to - (w.from ?? Number.NaN) + 1, 7);
    }));
  });

  test('last-month and last-year start the day after the same (clamped) date', () => {
    fc.assert(fc.property(anyDay, (today) => {
      assert.equal(timeframeWindow('last-month', today).from, sameDateMonthsAgo(today, 1) + 1);
      assert.equal(timeframeWindow('last-year', today).from, sameDateMonthsAgo(today, 12) + 1);
    }), { numRuns: 1000 });
  });

  test('last-financial-year is the latest complete 1 July - 30 June', () => {
    fc.assert(fc.property(anyDay, (today) => {
      const { from, to } = timeframeWindow('last-financial-year', today);
      assert.ok(from !== null);
      const f = civil(from);
      const t = civil(to);
      assert.deepEqual([f.m, f.d, t.m, t.d, t.y], [7, 1, 6, 30, f.y + 1]);
      assert.ok([365, 366].includes(to - from + 1));
      assert.ok(to < today);
      assert.ok(Date.UTC(t.y + 1, 5, 30) / 86_400_000 >= today);
    }), { numRuns: 1000 });
  });
});

describe('localTimeToUnix', () => {
  const iso = (state: Parameters<typeof localTimeToUnix>[0], ...t: [number, number, number, number, number, number]) =>
    new Date(localTimeToUnix(state, ...t) * 1000).toISOString();
  test('wall-clock times of each zone, summer and winter', () => {
    assert.equal(iso('nsw', 2026, 11, 23, 8, 0, 0), '2026-11-22T21:00:00.000Z'); // AEDT +11
    assert.equal(iso('nsw', 2026, 6, 1, 8, 0, 0), '2026-05-31T22:00:00.000Z'); // AEST +10
    assert.equal(iso('qld', 2026, 1, 1, 0, 0, 0), '2025-12-31T14:00:00.000Z'); // no DST
    assert.equal(iso('wa', 2026, 11, 24, 6, 0, 0), '2026-11-23T22:00:00.000Z'); // +8
    assert.equal(iso('sa', 2026, 11, 23, 12, 0, 0), '2026-11-23T01:30:00.000Z'); // ACDT +10:30
    assert.equal(iso('nt', 2026, 11, 23, 12, 0, 0), '2026-11-23T02:30:00.000Z'); // +9:30
  });
  test('the repeated hour when DST ends takes its first occurrence; the skipped hour when it starts, the old offset', () => {
    assert.equal(iso('nsw', 2026, 4, 5, 2, 30, 0), '2026-04-04T15:30:00.000Z');
    assert.equal(iso('nsw', 2026, 4, 5, 3, 0, 0), '2026-04-04T17:00:00.000Z');
    assert.equal(iso('nsw', 2026, 10, 4, 2, 30, 0), '2026-10-03T16:30:00.000Z');
    assert.equal(iso('nsw', 2026, 10, 4, 3, 0, 0), '2026-10-03T16:00:00.000Z');
  });
});
