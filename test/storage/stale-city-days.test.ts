import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CITIES, STATIONS } from '../fixture.ts';
import { fuelIndex } from '../../src/domain/fuels.ts';
import { dayStart, localDayOf, splitByLocalDay } from '../../src/domain/time.ts';
import type { CopyKey, CopyRow, PriceEvent, PriceStore } from '../../src/storage/store.ts';
import { assertDaysMatchReports, itemAt, testBackends } from '../helpers.ts';

/**
 * City days left to the next seal (storage/sql/stale-city-days.ts, issue 46): a batch applied
 * with deferCityDays (as `fuelprice import` applies its batches) writes its station days at once
 * and leaves the city means of the sealed days it changes as they were, noted; the next seal
 * recomputes them, writing only the rows that changed and moving only those rows' blocks' marks.
 * History stays a function of the reports: the means after the seal are those worked out here
 * from all the reports at once, whichever batches were deferred.
 */

const DAY = 86_400;
const SYDNEY = STATIONS.filter((s) => s.feedCode === '1' || s.feedCode === '2');
const FUELS = ['ulp91', 'diesel'] as const;
/** Sydney midnight of 1 January 2025; the history runs 400 days (four blocks of 128 days and more). */
const BASE = dayStart('nsw', Date.UTC(2025, 0, 1) / 86_400_000);
const FINAL_NOW = BASE + 420 * DAY + 12 * 3600;
/** Every day before FINAL_NOW's is sealed by the last seal. */
const CUTOFF = dayStart('nsw', localDayOf('nsw', FINAL_NOW));

interface Report { station: number; fuel: number; at: number; priceTenths: number }

const event = (r: Report): PriceEvent => {
  const station = itemAt(SYDNEY, r.station);
  return { feed: station.feed, feedCode: station.feedCode, fuel: itemAt(FUELS, r.fuel), at: r.at, priceTenths: r.priceTenths, available: true };
};

/** Per fuel and local day, the mean of the stations' daily means, from all the reports at once (of two for one instant, the later wins). */
function referenceMeans(arrived: readonly Report[]): Map<string, number> {
  const latest = new Map<string, Map<number, Report>>();
  for (const r of arrived) {
    const key = `${r.station}:${r.fuel}`;
    let byAt = latest.get(key);
    if (!byAt) latest.set(key, (byAt = new Map<number, Report>()));
    byAt.set(r.at, r);
  }
  const stationDays = new Map<string, Map<number, { weighted: number; seconds: number }>>();
  for (const [key, byAt] of latest) {
    const fuel = itemAt(FUELS, Number(key.split(':')[1]));
    const reports = [...byAt.values()].sort((a, b) => a.at - b.at);
    for (const [i, r] of reports.entries()) {
      const to = Math.min(reports[i + 1]?.at ?? CUTOFF, CUTOFF);
      for (const slice of splitByLocalDay('nsw', r.at, to)) {
        const dayKey = `${fuel}:${slice.day}`;
        let byStation = stationDays.get(dayKey);
        if (!byStation) stationDays.set(dayKey, (byStation = new Map<number, { weighted: number; seconds: number }>()));
        const sum = byStation.get(r.station) ?? { weighted: 0, seconds: 0 };
        sum.weighted += r.priceTenths * slice.seconds;
        sum.seconds += slice.seconds;
        byStation.set(r.station, sum);
      }
    }
  }
  const means = new Map<string, number>();
  for (const [dayKey, byStation] of stationDays) {
    const daily = [...byStation.values()].filter((s) => s.seconds > 0).map((s) => s.weighted / s.seconds);
    if (daily.length > 0) means.set(dayKey, daily.reduce((a, b) => a + b, 0) / daily.length);
  }
  return means;
}

async function tableRows(store: PriceStore, table: 'city_runs' | 'city_days_stale'): Promise<CopyRow[]> {
  const all: CopyRow[] = [];
  for (let after: CopyKey | undefined; ;) {
    const chunk = await store.exportTable(table, after, 10_000);
    all.push(...chunk.rows);
    if (!chunk.last) return all;
    after = chunk.last;
  }
}

/** Sydney's stored means of the two fuels, as fuel:day -> mean (each run of city_runs gives its mean to each of its days). */
async function storedMeans(store: PriceStore): Promise<Map<string, number>> {
  const byIndex = new Map(FUELS.map((f) => [fuelIndex(f), f]));
  const means = new Map<string, number>();
  for (const row of await tableRows(store, 'city_runs')) {
    const fuel = byIndex.get(Number(row.fuel));
    if (row.city_id !== 'sydney' || !fuel) continue;
    for (let day = Number(row.from_day); day <= Number(row.to_day); day++) means.set(`${fuel}:${day}`, Number(row.mean_tenths));
  }
  return means;
}

/**
 * city_runs holds each mean once, in runs maximal within their block of 128 days: per city and fuel
 * no two runs overlap, none crosses a block, and none touches the next in its block with the same mean.
 */
async function assertRunsMaximal(store: PriceStore, step: string): Promise<void> {
  const runs = (await tableRows(store, 'city_runs'))
    .map((r) => ({ key: `${String(r.city_id)}:${String(r.fuel)}`, from: Number(r.from_day), to: Number(r.to_day), mean: Number(r.mean_tenths) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.from - b.from));
  assert.ok(runs.length > 0, step);
  const block = (day: number): number => Math.floor(day / 128);
  for (const [i, run] of runs.entries()) {
    assert.ok(run.from <= run.to && block(run.from) === block(run.to), `${step}: ${JSON.stringify(run)}`);
    const next = runs[i + 1];
    if (next?.key !== run.key) continue;
    assert.ok(run.to < next.from, `${step}: overlap ${JSON.stringify([run, next])}`);
    assert.ok(!(run.to + 1 === next.from && run.mean === next.mean && block(run.to) === block(next.from)), `${step}: not maximal ${JSON.stringify([run, next])}`);
  }
}

function assertMeansEqual(got: Map<string, number>, want: Map<string, number>, step: string): void {
  assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), step);
  for (const [key, mean] of want) assert.ok(Math.abs((got.get(key) ?? NaN) - mean) < 1e-9, `${step}: ${key} ${got.get(key)} against ${mean}`);
}

/** Reports every 10 days for both stations and fuels over 400 days, prices moving. */
const HISTORY: Report[] = Array.from({ length: 40 }, (_, i) => [0, 1].flatMap((station) => [0, 1].map((fuel) => ({
  station, fuel, at: BASE + i * 10 * DAY + (station * 5 + fuel) * 3600, priceTenths: 1700 + ((i * 37 + station * 11 + fuel * 5) % 90),
})))).flat();

for (const backend of testBackends()) {
  describe(`city days left to the next seal on ${backend.name}`, () => {
    test('a deferred late batch stores its station days, notes its city days; the seal recomputes them and moves only the changed blocks\' marks', async () => {
      const { store, drop } = await backend.create();
      try {
        await store.upsertCities(CITIES);
        await store.applyBatch({ stations: SYDNEY, prices: HISTORY.map(event) });
        await store.seal(FINAL_NOW);
        const range = { from: null, to: localDayOf('nsw', FINAL_NOW) };
        const before = await storedMeans(store);
        assertMeansEqual(before, referenceMeans(HISTORY), 'sealed');
        const marks = (await store.cityHistoryParts('sydney', range, FINAL_NOW, new Map())).blocks?.marks ?? new Map<number, number>();
        assert.ok(marks.size >= 4);

        // Late: beta-sydney's ulp91 at 150.0 at 02:00 on day 103 (its reports are at 05:00 on days 100 and 110),
        // and its diesel from midnight on day 301 (reports at 06:00 on days 300 and 310). Only the days from
        // each to its next report change: [103, 110] and [301, 310], in two blocks of 128 days with a third
        // between them that the seal recomputes but does not change.
        const late: Report[] = [{ station: 1, fuel: 0, at: BASE + 103 * DAY + 7200, priceTenths: 1500 }, { station: 1, fuel: 1, at: BASE + 301 * DAY, priceTenths: 1600 }];
        const result = await store.applyFeedBatch({ stations: [], prices: late.map(event) }, { now: FINAL_NOW, deferCityDays: true });
        assert.equal(result.pricesAccepted, 2);
        await assertDaysMatchReports(store, 'deferred batch');
        assert.deepEqual(await storedMeans(store), before, 'the city means wait for the seal');
        const stale = await tableRows(store, 'city_days_stale');
        assert.deepEqual(stale.map((r) => [r.city_id, r.from_day, r.to_day]), [['sydney', localDayOf('nsw', BASE) + 103, localDayOf('nsw', BASE) + 310]]);

        await store.seal(FINAL_NOW);
        assert.deepEqual(await tableRows(store, 'city_days_stale'), []);
        const after = await storedMeans(store);
        assertMeansEqual(after, referenceMeans([...HISTORY, ...late]), 'after the seal');
        await assertRunsMaximal(store, 'after the seal');
        // Exactly those days changed: their blocks' marks moved, no other's.
        const changedDays = [...after].filter(([key, mean]) => before.get(key) !== mean).map(([key]) => Number(key.split(':')[1]));
        const first = localDayOf('nsw', BASE);
        assert.deepEqual([...new Set(changedDays)].sort((a, b) => a - b), [...days(first + 103, 8), ...days(first + 301, 10)]);
        const changedBlocks = new Set(changedDays.map((d) => Math.floor(d / 128)));
        assert.equal(changedBlocks.size, 2);
        assert.ok(Math.max(...changedBlocks) - Math.min(...changedBlocks) === 2, 'a block between them');
        const now = (await store.cityHistoryParts('sydney', range, FINAL_NOW, new Map())).blocks?.marks ?? new Map<number, number>();
        for (const [block, mark] of marks) assert.equal(now.get(block) !== mark, changedBlocks.has(block), `block ${block}`);
      } finally { await drop(); }
    });

    test('whatever batches are deferred and whenever seals come, the means after the last seal are those of all the reports at once', async () => {
      const lateArb = fc.record({
        station: fc.integer({ min: 0, max: 1 }), fuel: fc.integer({ min: 0, max: 1 }),
        at: fc.integer({ min: 0, max: 400 * 24 }).map((h) => BASE + h * 3600), priceTenths: fc.integer({ min: 1500, max: 2200 }),
      });
      const stepArb = fc.record({ reports: fc.array(lateArb, { minLength: 1, maxLength: 4 }), defer: fc.boolean(), sealAfter: fc.boolean() });
      await fc.assert(fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 5 }), async (steps) => {
        const { store, drop } = await backend.create();
        try {
          await store.upsertCities(CITIES);
          await store.applyBatch({ stations: SYDNEY, prices: HISTORY.map(event) });
          await store.seal(FINAL_NOW);
          for (const step of steps) {
            await store.applyFeedBatch({ stations: [], prices: step.reports.map(event) }, { now: FINAL_NOW, deferCityDays: step.defer });
            if (step.sealAfter) await store.seal(FINAL_NOW);
          }
          await store.seal(FINAL_NOW);
          assert.deepEqual(await tableRows(store, 'city_days_stale'), []);
          await assertDaysMatchReports(store);
          assertMeansEqual(await storedMeans(store), referenceMeans([...HISTORY, ...steps.flatMap((s) => s.reports)]), 'after the last seal');
          await assertRunsMaximal(store, 'after the last seal');
        } finally { await drop(); }
      }), { numRuns: backend.name === 'sqlite' ? 25 : 8 });
    });
  });
}

function days(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}
