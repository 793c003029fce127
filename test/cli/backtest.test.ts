/**
 * `fuelprice backtest` end to end: a Perth station whose price makes a perfect weekly sawtooth,
 * stored through the writer, replayed by the command in its own process, from every start day (the
 * default) and from the first alone. Expected rows worked out by hand (docs/BACKTEST.md's rules).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CITIES, STATIONS } from '../fixture.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import { itemAt, runCli } from '../helpers.ts';

// Monday 5 January 2026; Perth is UTC+8 all year.
const MONDAY = Date.UTC(2026, 0, 5) / 1000 - 8 * 3600;
/** Monday 180.0, Tuesday 178.0 (the trough), Wednesday's restoration to 192.0, then 2.0 c a day down. */
const WEEK = [1800, 1780, 1920, 1900, 1880, 1860, 1840];
const WEEKS = 12;
// Noon on the Monday after the twelve weeks.
const NOW = new Date((MONDAY + WEEKS * 7 * 86_400 + 12 * 3600) * 1000).toISOString();

describe('fuelprice backtest', () => {
  let dir: string;
  let url: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fuelprice-backtest-'));
    url = `sqlite:${join(dir, 'b.db')}`;
    const store = new SqliteStore(join(dir, 'b.db'));
    await store.migrate();
    await store.upsertCities(CITIES);
    const perth = itemAt(STATIONS.filter((s) => s.state === 'wa'), 0);
    // One report at each local midnight: each day's mean is that day's price.
    const prices = Array.from({ length: WEEKS * 7 }, (_, i) => ({ feed: perth.feed, feedCode: perth.feedCode, fuel: 'ulp91' as const,
      at: MONDAY + i * 86_400, priceTenths: itemAt(WEEK, i % 7), available: true }));
    await store.applyBatch({ stations: [perth], prices });
    await store.seal(MONDAY + WEEKS * 7 * 86_400 + 3600);
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('--start-day first, a weekly sawtooth: the advice, the cheapest weekday and tomorrow-is-higher all buy on the Tuesday trough', async () => {
    const run = await runCli(['backtest', '--city', 'perth', '--fuel', 'ulp91', '--start-day', 'first'], { DATABASE_URL: url, FUELPRICE_NOW: NOW });
    assert.equal(run.stderr, '');
    assert.equal(run.code, 0);
    // From eight weeks in (Monday 2 March) to the last window that closes before today (Thursday 26 March,
    // today less 1 less 3 days): purchases due on 2, 9, 16 and 23 March. Each window Monday to Thursday:
    // fixed pays Monday's 180.0; the trough is Tuesday's 178.0, 2.0 c less. The advice says fill-up on
    // Tuesday (six days after Wednesday's restoration, at least 0.75 of the 7-day period, Monday's mean
    // at the lowest since); Tuesday is the cheapest weekday learnt; on Tuesday tomorrow (192.0) is higher.
    // Perth is in WA, which publishes tomorrow's prices: the advice knows them (Monday: Tuesday's 178.0 is lower,
    // wait; Tuesday: Wednesday's 192.0 is higher, fill up).
    assert.equal(run.stdout, [
      'perth ulp91, purchases due every 7 days from 2026-03-02 to 2026-03-26, up to 3 days late: 4 purchases (0 windows without data left out); '
        + 'the advice knows tomorrow\'s published prices; savings against buying on the due day',
      'rule                paid c/L  saved c/L  of oracle',
      'fixed                 180.00       0.00         0%',
      'advice                178.00       2.00       100%',
      'cheapest-weekday      178.00       2.00       100%',
      'tomorrow-higher       178.00       2.00       100%',
      // Knowing today's mean (WA): Monday's 180.0 and Tuesday's 178.0 still fell, Wednesday's 192.0 did not: 12.0 c dearer.
      'stopped-falling       192.00     -12.00      -600%',
      // Within 1.0 c/L of the 14 days' low (178.0): Monday's 180.0 is not, Tuesday's 178.0 is.
      'near-low              178.00       2.00       100%',
      'oracle                178.00       2.00       100%',
      '',
    ].join('\n'));
  });

  test('by default every start day: a purchase due on each day from 2 to 26 March, pooled, and the advice\'s range over the start days', async () => {
    const run = await runCli(['backtest', '--city', 'perth'], { DATABASE_URL: url, FUELPRICE_NOW: NOW });
    assert.equal(run.stderr, '');
    assert.equal(run.code, 0);
    // Due days: Monday 2 to Thursday 26 March, 25 of them: Mondays to Thursdays 4 times each, Fridays to Sundays 3 times.
    const count = [4, 4, 4, 4, 3, 3, 3];
    const week = [1800, 1780, 1920, 1900, 1880, 1860, 1840];
    // Per due weekday, in tenths against the due day, worked out by hand over the window due .. due + 3:
    // the oracle (its cheapest day); the advice knowing tomorrow (fill up the first day whose tomorrow is dearer, else
    // the last day) and tomorrow-higher both find it on every window; the cheapest weekday learnt (Tuesday) if the window
    // holds one, else the due day; stopped-falling (knowing today's mean: only Wednesday is not below the day before) the
    // window's Wednesday, else its last day; near-low (within 1.0 c/L of the 14 days' low, 178.0: only Tuesday) the
    // window's Tuesday, else its last day.
    //                    Mon  Tue  Wed  Thu  Fri  Sat  Sun
    const oracle = [20, 0, 60, 60, 80, 80, 60];
    const weekdayRule = [20, 0, 0, 0, 0, 80, 60];
    const stopped = [-120, -140, 0, 60, 80, 80, -80];
    const pooled = (saved: number[]): number => saved.reduce((a, s, i) => a + s * (count[i] ?? 0), 0) / 25;
    const fixedPaid = week.reduce((a, p, i) => a + p * (count[i] ?? 0), 0) / 25;
    const row = (rule: string, saved: number): string => {
      const share = `${Math.round((saved / pooled(oracle)) * 100)}%`;
      return `${rule.padEnd(18)}${((fixedPaid - saved) / 10).toFixed(2).padStart(10)}${(saved / 10).toFixed(2).padStart(11)}${share.padStart(11)}`;
    };
    assert.deepEqual([fixedPaid, pooled(oracle), pooled(weekdayRule), pooled(stopped)], [1853.6, 48.8, 20, -22.4]);
    assert.equal(run.stdout, [
      'perth ulp91, purchases due every 7 days, a driver starting on each of the 7 days from 2026-03-02 (one due on every day from 2026-03-02 '
        + 'to 2026-03-26), up to 3 days late: 25 purchases (0 windows without data left out); the advice knows tomorrow\'s published prices; '
        + 'savings against buying on the due day',
      'rule                paid c/L  saved c/L  of oracle',
      row('fixed', 0),
      row('advice', pooled(oracle)),
      row('cheapest-weekday', pooled(weekdayRule)),
      row('tomorrow-higher', pooled(oracle)),
      row('stopped-falling', pooled(stopped)),
      row('near-low', pooled(oracle)),
      row('oracle', pooled(oracle)),
      // Each start is one weekday: the advice saves its oracle's 0.0 (Tuesday, no share) to 8.0 (Friday, Saturday).
      'by start day (first due 2026-03-02 to 2026-03-08): the advice saved 0.00 to 8.00 c/L, 100% to 100% of that start\'s oracle',
      '',
    ].join('\n'));
    assert.equal(row('cheapest-weekday', 20), 'cheapest-weekday      183.36       2.00        41%');
  });

  test('--without-tomorrow: the cycle alone, from the days before (Tuesday, the cheapest weekday of a weekly cycle)', async () => {
    const run = await runCli(['backtest', '--city', 'perth', '--without-tomorrow', '--start-day', 'first'], { DATABASE_URL: url, FUELPRICE_NOW: NOW });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.split('\n');
    assert.match(lines[0] ?? '', /4 purchases \(0 windows without data left out\); the advice knows the days before only; /);
    assert.equal(lines[3], 'advice                178.00       2.00       100%');
    // Every start day: the weekly cycle's advice is fill-up on Tuesdays, wait on other days, so it buys the window's Tuesday
    // or its last day: the oracle's day on every window (above), 4.88 c/L a fill, paying 185.36 - 4.88.
    const all = await runCli(['backtest', '--city', 'perth', '--without-tomorrow'], { DATABASE_URL: url, FUELPRICE_NOW: NOW });
    assert.equal(all.code, 0, all.stderr);
    assert.equal(all.stdout.split('\n')[3], 'advice                180.48       4.88       100%');
  });

  test('a chosen window and no delay', async () => {
    // Purchases due on Wednesdays 4 and 11 March, no delay: every rule pays Wednesday's 192.0.
    const args = ['backtest', '--city', 'perth', '--from', '2026-03-04', '--to', '2026-03-11', '--delay', '0'];
    const columns = (stdout: string): string[] => stdout.split('\n').slice(2, 9).map((l) => l.split(/\s+/).slice(0, 3).join(' '));
    const first = await runCli([...args, '--start-day', 'first'], { DATABASE_URL: url, FUELPRICE_NOW: NOW });
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(columns(first.stdout), ['fixed 192.00 0.00', 'advice 192.00 0.00', 'cheapest-weekday 192.00 0.00', 'tomorrow-higher 192.00 0.00',
      'stopped-falling 192.00 0.00', 'near-low 192.00 0.00', 'oracle 192.00 0.00']);
    // Every start day: due on each day from Wednesday 4 to Wednesday 11 March, each bought on its day by every rule.
    const mean = ([1920, 1900, 1880, 1860, 1840, 1800, 1780, 1920].reduce((a, b) => a + b, 0) / 8 / 10).toFixed(2);
    const all = await runCli(args, { DATABASE_URL: url, FUELPRICE_NOW: NOW });
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(columns(all.stdout), ['fixed', 'advice', 'cheapest-weekday', 'tomorrow-higher', 'stopped-falling', 'near-low', 'oracle'].map((r) => `${r} ${mean} 0.00`));
  });

  test('bad input: a clear line and exit 2, nothing printed on stdout', async () => {
    for (const [args, message] of [
      [['--city', 'atlantis'], "fuelprice: no city 'atlantis' (ids as /v1/cities lists them)"],
      [['--city', 'perth', '--fuel', 'unobtainium'], "fuelprice: --fuel must be a fuel id such as ulp91, got 'unobtainium'"],
      [['--city', 'perth', '--from', '2026-02-30'], "fuelprice: --from must be a date YYYY-MM-DD, got '2026-02-30'"],
      [['--city', 'perth', '--every', '0'], 'fuelprice: --every must be a whole number from 1 to 60, got \'0\''],
      [['--city', 'perth', '--start-day', 'monday'], 'fuelprice: --start-day must be all or first, got \'monday\''],
      [['--city', 'perth', '--from', '2026-05-01', '--to', '2026-04-01'], 'fuelprice: nothing to replay: from 2026-05-01 is after to 2026-04-01 (the history runs from 2026-01-05 to 2026-03-29)'],
    ] as const) {
      const run = await runCli(['backtest', ...args], { DATABASE_URL: url, FUELPRICE_NOW: NOW });
      assert.equal(run.code, 2, args.join(' '));
      assert.equal(run.stdout, '');
      assert.equal(run.stderr.split('\n')[0], message);
    }
  });
});
