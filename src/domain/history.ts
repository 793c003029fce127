/** Daily series of a station or a city, per output fuel: time-weighted station means, pooled as the sealing does. */
import { type FuelId, outputsOf } from './fuels.ts';
import type { CityDayRow, CityHistoryParts, CurrentPrice, DayRange, LiveDaySums, StationDayRow } from './price-rows.ts';
import type { StateId } from './states.ts';
import { type LocalDay, splitByLocalDay } from './time.ts';

export interface DailyMean {
  day: LocalDay;
  meanTenths: number;
}

/** Output fuel -> daily means, newest first. A fuel with no value is absent. */
export type FuelSeries = Map<FuelId, DailyMean[]>;

interface Weighted { weighted: number; seconds: number }

/**
 * Time-weighted mean per (station, reported fuel, day): the stored closed intervals plus
 * the open one from each current report up to now, counted only while available.
 */
export function stationFuelDayMeans(
  state: StateId, rows: readonly StationDayRow[], current: readonly CurrentPrice[], range: DayRange, nowSec: number,
): Map<string, Map<LocalDay, number>> {
  const sums = new Map<string, Map<LocalDay, Weighted>>();
  const add = (stationId: string, fuel: FuelId, day: LocalDay, weighted: number, seconds: number): void => {
    if (seconds <= 0 || day > range.to || (range.from !== null && day < range.from)) return;
    const key = seriesKey(stationId, fuel);
    let days = sums.get(key);
    if (!days) sums.set(key, (days = new Map<LocalDay, Weighted>()));
    const sum = days.get(day);
    if (sum) { sum.weighted += weighted; sum.seconds += seconds; } else days.set(day, { weighted, seconds });
  };
  for (const row of rows) add(row.stationId, row.fuel, row.day, row.weightedTenths, row.seconds);
  for (const price of current) {
    if (!price.available || price.openFrom >= nowSec) continue;
    for (const slice of splitByLocalDay(state, price.openFrom, nowSec)) {
      add(price.stationId, price.fuel, slice.day, price.priceTenths * slice.seconds, slice.seconds);
    }
  }
  const means = new Map<string, Map<LocalDay, number>>();
  for (const [key, days] of sums) {
    means.set(key, new Map([...days].map(([day, sum]) => [day, sum.weighted / sum.seconds])));
  }
  return means;
}

export function seriesKey(stationId: string, fuel: FuelId): string {
  return `${stationId}\u0000${fuel}`;
}

function fuelOfKey(key: string): FuelId {
  return key.slice(key.indexOf('\u0000') + 1) as FuelId;
}

/** Pools (station, reported fuel) daily means into each output fuel: the plain mean of the pool. */
function poolByOutput(means: Map<string, Map<LocalDay, number>>): Map<FuelId, Map<LocalDay, number>> {
  const pools = new Map<FuelId, Map<LocalDay, { sum: number; count: number }>>();
  for (const [key, days] of means) {
    for (const output of outputsOf(fuelOfKey(key))) {
      let pool = pools.get(output);
      if (!pool) pools.set(output, (pool = new Map<LocalDay, { sum: number; count: number }>()));
      for (const [day, mean] of days) {
        const acc = pool.get(day);
        if (acc) { acc.sum += mean; acc.count += 1; } else pool.set(day, { sum: mean, count: 1 });
      }
    }
  }
  const pooled = new Map<FuelId, Map<LocalDay, number>>();
  for (const [fuel, pool] of pools) pooled.set(fuel, new Map([...pool].map(([day, acc]) => [day, acc.sum / acc.count])));
  return pooled;
}

/** poolByOutput for a day already totalled per reported fuel: each output's mean is its members' sums over their counts. */
function poolSums(day: LocalDay, sums: readonly LiveDaySums[]): Map<FuelId, Map<LocalDay, number>> {
  const pools = new Map<FuelId, { sum: number; count: number }>();
  for (const row of sums) {
    if (row.count <= 0) continue;
    for (const output of outputsOf(row.fuel)) {
      const acc = pools.get(output);
      if (acc) { acc.sum += row.sumMeans; acc.count += row.count; } else pools.set(output, { sum: row.sumMeans, count: row.count });
    }
  }
  return new Map([...pools].map(([fuel, acc]) => [fuel, new Map([[day, acc.sum / acc.count]])]));
}

function newestFirst(days: Map<LocalDay, number>): DailyMean[] {
  return [...days].sort((a, b) => b[0] - a[0]).map(([day, meanTenths]) => ({ day, meanTenths }));
}

/** One station's daily values per output fuel; a combined id is the mean of its members' values. */
export function stationHistory(
  state: StateId, rows: readonly StationDayRow[], current: readonly CurrentPrice[], range: DayRange, nowSec: number,
): FuelSeries {
  // What poolByOutput(stationFuelDayMeans(...)) gives for one station (test/domain/station-history.test.ts compares
  // them), each fuel's days summed in a DaySums rather than a map and an object per day.
  const fuels = new Map<FuelId, DaySums>();
  const sumsOf = (fuel: FuelId): DaySums => {
    let sums = fuels.get(fuel);
    if (!sums) fuels.set(fuel, (sums = new DaySums()));
    return sums;
  };
  const inRange = (day: LocalDay, seconds: number): boolean => seconds > 0 && day <= range.to && (range.from === null || day >= range.from);
  for (const row of rows) if (inRange(row.day, row.seconds)) sumsOf(row.fuel).add(row.day, row.weightedTenths, row.seconds);
  for (const price of current) {
    if (!price.available || price.openFrom >= nowSec) continue;
    for (const slice of splitByLocalDay(state, price.openFrom, nowSec)) {
      if (inRange(slice.day, slice.seconds)) sumsOf(price.fuel).add(slice.day, price.priceTenths * slice.seconds, slice.seconds);
    }
  }
  // Each output's members in the order their fuels first came, as poolByOutput meets them.
  const members = new Map<FuelId, DaySums[]>();
  for (const [fuel, sums] of fuels) {
    for (const output of outputsOf(fuel)) {
      const list = members.get(output);
      if (list) list.push(sums); else members.set(output, [sums]);
    }
  }
  const series: FuelSeries = new Map();
  for (const [output, list] of members) series.set(output, pooledNewestFirst(list));
  return series;
}

/**
 * Time-weighted sums per local day (price x seconds, and the seconds), in day order, as three
 * flat arrays rather than an object and a map entry per day: the writer adds millions of them
 * (storage/write-plan/day-totals.ts, DayTotals) and ten years of a station's history are some 20,000. Sums almost
 * always go to the last day or start the next one, which costs a push.
 */
export class DaySums {
  readonly days: LocalDay[] = [];
  readonly weighted: number[] = [];
  readonly seconds: number[] = [];

  add(day: LocalDay, weighted: number, seconds: number): void {
    const { days } = this;
    let i = days.length - 1;
    const last = days[i];
    if (last === undefined || day > last) {
      days.push(day);
      this.weighted.push(weighted);
      this.seconds.push(seconds);
      return;
    }
    // The same day again (a day split by a transition, or a row's day again), or an earlier one: keep day order.
    while (i >= 0 && (days[i] ?? 0) > day) i--;
    if (days[i] === day) {
      this.weighted[i] = (this.weighted[i] ?? 0) + weighted;
      this.seconds[i] = (this.seconds[i] ?? 0) + seconds;
    } else {
      days.splice(i + 1, 0, day);
      this.weighted.splice(i + 1, 0, weighted);
      this.seconds.splice(i + 1, 0, seconds);
    }
  }

  /** The i-th day's time-weighted mean. */
  mean(i: number): number {
    return (this.weighted[i] ?? 0) / (this.seconds[i] ?? 1);
  }
}

/** The plain mean per day of the members' means (summed in member order), newest day first. */
function pooledNewestFirst(members: readonly DaySums[]): DailyMean[] {
  const out: DailyMean[] = [];
  const only = members.length === 1 ? members[0] : undefined;
  if (only) {
    for (let i = only.days.length - 1; i >= 0; i--) out.push({ day: only.days[i] ?? 0, meanTenths: only.mean(i) });
    return out;
  }
  const at = members.map((m) => m.days.length - 1);
  for (;;) {
    let day = -Infinity;
    for (let k = 0; k < members.length; k++) {
      const i = at[k] ?? -1;
      if (i >= 0) day = Math.max(day, members[k]?.days[i] ?? -Infinity);
    }
    if (day === -Infinity) return out;
    let sum = 0;
    let count = 0;
    for (let k = 0; k < members.length; k++) {
      const member = members[k];
      const i = at[k] ?? -1;
      if (!member || i < 0 || member.days[i] !== day) continue;
      sum = count === 0 ? member.mean(i) : sum + member.mean(i);
      count++;
      at[k] = i - 1;
    }
    out.push({ day, meanTenths: sum / count });
  }
}

/** stationHistory the general way (the city's way, for any number of stations): what the tests compare it with. */
export function pooledStationHistory(
  state: StateId, rows: readonly StationDayRow[], current: readonly CurrentPrice[], range: DayRange, nowSec: number,
): FuelSeries {
  const pooled = poolByOutput(stationFuelDayMeans(state, rows, current, range, nowSec));
  return new Map([...pooled].map(([fuel, days]) => [fuel, newestFirst(days)]));
}

/**
 * A city's daily values per output fuel: sealed days as stored, later days (normally just
 * today) computed from the stations' own daily values, pooled the same way the sealing does.
 */
export function cityHistory(state: StateId, parts: CityHistoryParts, range: DayRange, nowSec: number): FuelSeries {
  const liveRange: DayRange = { from: Math.max(range.from ?? parts.sealedBefore, parts.sealedBefore), to: range.to };
  const live = parts.liveDay
    ? poolSums(parts.liveDay.day, parts.liveDay.sums)
    : poolByOutput(stationFuelDayMeans(state, parts.stationDays, parts.current, liveRange, nowSec));
  // Sealed days all come before the live ones: each fuel's list is the live days, then the sealed.
  const sealed = sealedByFuel(parts.sealed, parts.sealedBefore);
  const series: FuelSeries = new Map();
  for (const fuel of new Set([...live.keys(), ...sealed.keys()])) {
    const newer = newestFirst(live.get(fuel) ?? new Map<LocalDay, number>());
    const older = sealed.get(fuel) ?? [];
    series.set(fuel, newer.length === 0 ? older : newer.concat(older));
  }
  return series;
}

/** Sealed city rows (any order) before day `before`, as each fuel's daily means, newest first. */
export function sealedByFuel(rows: readonly CityDayRow[], before: LocalDay = Number.POSITIVE_INFINITY): FuelSeries {
  const byFuel: FuelSeries = new Map();
  for (const row of rows) {
    if (row.day >= before) continue;
    let days = byFuel.get(row.fuel);
    if (!days) byFuel.set(row.fuel, (days = []));
    days.push({ day: row.day, meanTenths: row.meanTenths });
  }
  for (const days of byFuel.values()) days.sort((a, b) => b.day - a.day);
  return byFuel;
}
