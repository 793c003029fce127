import { type FreshParts, MAX_FRESH_DAYS } from '../../domain/fresh.ts';
import { type FuelId, fuelIndex } from '../../domain/fuels.ts';
import type { StateId } from '../../domain/states.ts';
import { type LocalDay, localDayOf } from '../../domain/time.ts';
import { onlyLiveDayIsToday, planSealedRead } from '../history-reads.ts';
import { toRunRow, withRunDaysByStation } from '../run-days.ts';
import type { CityHistoryParts, DayRange } from '../store.ts';
import { NO_DAY_LOWER_BOUND } from '../write-plan/batch-plan.ts';
import { type CityRun, cityRunsArgs, eachRunDay } from './city-runs.ts';
import type { Connection } from './connection.ts';
import { fuelAt, toCurrent, toLiveDaySums, toStationDay } from './row-mappers.ts';
import { type readStatements, storable } from './statements.ts';

/** The city series' reads (ReadStore.cityHistoryParts and cityFreshParts), each in one snapshot; sql-reads.ts calls them. */

type Reads = ReturnType<typeof readStatements>;

export async function cityHistoryParts(db: Connection, read: Reads, cityId: string, range: DayRange, nowSec?: number, known?: ReadonlyMap<number, number>): Promise<CityHistoryParts> {
  if (!storable(cityId)) return { sealedBefore: 0, sealed: [], stationDays: [], current: [] };
  // One snapshot: a seal between the reads would otherwise count an interval twice or not at all.
  return db.transaction('snapshot', async (tx): Promise<CityHistoryParts> => {
          const city = await tx.row(read.citySeal, [NO_DAY_LOWER_BOUND, cityId]);
    const sealedBefore = city ? Number(city.sealed_before) : NO_DAY_LOWER_BOUND;
    const from = range.from ?? NO_DAY_LOWER_BOUND;
    const marks = known && new Map((await tx.arrays<[number, number]>(read.cityDailyMarks, [cityId])).map(([block, mark]) => [Number(block), Number(mark)]));
    const plan = planSealedRead(from, Math.min(range.to, sealedBefore - 1), marks, known);
    // The runs' days, in (day, fuel) order: ten years of a city are some 60,000 of them.
    const sealed: CityHistoryParts['sealed'] = [];
    for (const [low, high] of plan.ranges) {
      eachRunDay(await tx.arrays<CityRun>(read.cityRuns, cityRunsArgs(cityId, low, high)), low, high, (fuel, day, meanTenths) => {
        sealed.push({ fuel: fuelAt(fuel), day, meanTenths });
      });
    }
    const blocks = plan.blocks && { blocks: plan.blocks };
    const liveFrom = Math.max(from, sealedBefore);
    const today = city && nowSec !== undefined ? onlyLiveDayIsToday(city.state as StateId, liveFrom, range, nowSec) : undefined;
    if (today) {
      const sums = (await tx.rows(read.cityLiveDay, [cityId, today.day, today.start, today.now])).map(toLiveDaySums);
      return { sealedBefore, sealed, stationDays: [], current: [], liveDay: { day: today.day, sums }, ...blocks };
    }
    const stationDays = liveFrom > range.to ? [] : withRunDaysByStation(
      (await tx.rows(read.cityStationDaily, [cityId, liveFrom, range.to])).map((r) => toStationDay(String(r.station_id), r)),
      (await tx.rows(read.cityStationRuns, [cityId, liveFrom, range.to]))
        .map((r) => ({ stationId: String(r.station_id), state: r.state as StateId, run: toRunRow(r) })),
      { from: liveFrom, to: range.to });
    return { sealedBefore, sealed, stationDays, current: (await tx.rows(read.currentForCity, [cityId])).map(toCurrent), ...blocks };
  });
}

export async function cityFreshParts(db: Connection, read: Reads, cityId: string, fuel: FuelId, from: LocalDay, to: LocalDay): Promise<FreshParts & { sealedBefore: LocalDay }> {
  if (!storable(cityId)) return { sealedBefore: NO_DAY_LOWER_BOUND, rowDays: [], runs: [] };
  return db.transaction('snapshot', async (tx) => {
    const city = await tx.row(read.citySeal, [NO_DAY_LOWER_BOUND, cityId]);
    const sealedBefore = city ? Number(city.sealed_before) : NO_DAY_LOWER_BOUND;
    const args = [cityId, fuelIndex(fuel), from, Math.min(to, sealedBefore - 1)];
    const rowDays = (await tx.arrays<[number, number, number]>(read.cityFreshRowDays, args))
      .map(([day, sum, count]) => ({ day: Number(day), sum: Number(sum), count: Number(count) }));
    // One row per run and report near it (ordered by run): the reports' local days gathered per run.
    const runs: Array<{ from: LocalDay; to: LocalDay; priceTenths: number; reportDays: LocalDay[] }> = [];
    let key = '';
    for (const [state, station, fuelKey, first, last, price, at] of await tx.arrays<[StateId, number, number, number, number, number, number | null]>(
      read.cityFreshRuns, [...args, MAX_FRESH_DAYS + 2])) {
      const runKey = `${station}:${fuelKey}:${first}`;
      if (runKey !== key) runs.push({ from: Number(first), to: Number(last), priceTenths: Number(price), reportDays: [] });
      key = runKey;
      if (at !== null) runs[runs.length - 1]?.reportDays.push(localDayOf(state, Number(at)));
    }
    return { sealedBefore, rowDays, runs };
  });
}
