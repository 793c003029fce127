import { type FuelId, outputsOf } from './fuels.ts';
import type { StateId } from './states.ts';
import { type LocalDay, splitByLocalDay } from './time.ts';

/** Stored, closed part of one station's day for one reported fuel. */
export interface StationDayRow {
  stationId: string;
  fuel: FuelId;
  day: LocalDay;
  /** Sum of priceTenths x seconds over the closed intervals of that day while available. */
  weightedTenths: number;
  seconds: number;
}

/** A station's latest report for a fuel; the interval from openFrom on is not yet in StationDayRow. */
export interface CurrentPrice {
  stationId: string;
  fuel: FuelId;
  priceTenths: number;
  available: boolean;
  reportedAt: number;
  openFrom: number;
}

/** A final city mean for an output fuel (combined ids included) on a sealed day. */
export interface CityDayRow {
  fuel: FuelId;
  day: LocalDay;
  meanTenths: number;
}

/** Inclusive local days; from null means no lower bound. */
export interface DayRange {
  from: LocalDay | null;
  to: LocalDay;
}

export interface CityHistoryParts {
  /** city_daily is final before this day; from it on, the means come from stationDays and current (or liveDay). */
  sealedBefore: LocalDay;
  sealed: CityDayRow[];
  stationDays: StationDayRow[];
  current: CurrentPrice[];
  /**
   * When the only live day is today, storage may total it in one statement instead of handing
   * over every station's rows: then stationDays and current are empty and this holds the day.
   */
  liveDay?: { day: LocalDay; sums: LiveDaySums[] };
  /**
   * Asked with the blocks the caller holds (block -> mark): the mark of every complete sealed
   * block of the range (all its days in the range and sealed), and those of them whose rows were
   * left out of `sealed` because the caller holds them at that mark (http/history-blocks.ts).
   */
  blocks?: { marks: Map<number, number>; skipped: Set<number> };
}

/**
 * One live day of a city, per reported fuel: the sum and the count of the stations' own means
 * for that day (what stationFuelDayMeans gives, one per station with any available seconds).
 */
export interface LiveDaySums {
  fuel: FuelId;
  sumMeans: number;
  count: number;
}

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
    if (!days) sums.set(key, (days = new Map()));
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
      if (!pool) pools.set(output, (pool = new Map()));
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
  // What poolByOutput(stationFuelDayMeans(...)) gives for one station (test/unit/station-history.test.ts compares
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
 * (ingest/plan.ts, DayTotals) and ten years of a station's history are some 20,000. Sums almost
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
    const newer = newestFirst(live.get(fuel) ?? new Map());
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

export interface Spread {
  meanTenths: number;
  minTenths: number;
  maxTenths: number;
}

/**
 * Count and sum of a city's available current prices for one reported fuel: what storage keeps
 * per city and fuel (city_current), so today's average is read, not computed from every
 * station's price.
 */
export interface FuelSums {
  fuel: FuelId;
  count: number;
  sumTenths: number;
}

/** FuelSums with the extremes, which storage finds by an index (today's spread). */
export interface FuelTotals extends FuelSums {
  minTenths: number;
  maxTenths: number;
}

/** The totals of a list of current prices, per reported fuel: what storage maintains, worked out from scratch. */
export function fuelTotals(current: readonly CurrentPrice[]): FuelTotals[] {
  const acc = new Map<FuelId, FuelTotals>();
  for (const price of current) {
    if (!price.available) continue;
    const a = acc.get(price.fuel);
    if (a) {
      a.sumTenths += price.priceTenths; a.count += 1;
      a.minTenths = Math.min(a.minTenths, price.priceTenths); a.maxTenths = Math.max(a.maxTenths, price.priceTenths);
    } else acc.set(price.fuel, { fuel: price.fuel, count: 1, sumTenths: price.priceTenths, minTenths: price.priceTenths, maxTenths: price.priceTenths });
  }
  return [...acc.values()];
}

/**
 * Today's mean per output fuel, in tenths, over the current prices that are available: the
 * members of a combined fuel pool their counts and sums (a mean over all their prices). The
 * average endpoint answers this; the spread's average is the same figure (citySpread).
 */
export function cityAverages(sums: readonly FuelSums[]): Map<FuelId, number> {
  const out = new Map<FuelId, number>();
  for (const [fuel, pool] of pooled(sums)) out.set(fuel, pool.sum / pool.count);
  return out;
}

/** Today's spread per output fuel: the average as cityAverages works it out, and the extremes over the members of a combined fuel. */
export function citySpread(totals: readonly FuelTotals[]): Map<FuelId, Spread> {
  const out = new Map<FuelId, Spread>();
  for (const [fuel, pool] of pooled(totals)) out.set(fuel, { meanTenths: pool.sum / pool.count, minTenths: pool.min, maxTenths: pool.max });
  return out;
}

/** Per output fuel, the reported fuels' counts and sums added up in their order, and their extremes when given (NaN otherwise). */
function pooled(rows: ReadonlyArray<FuelSums & Partial<FuelTotals>>): Map<FuelId, { sum: number; count: number; min: number; max: number }> {
  const acc = new Map<FuelId, { sum: number; count: number; min: number; max: number }>();
  for (const t of rows) {
    if (t.count <= 0) continue;
    const min = t.minTenths ?? Number.NaN;
    const max = t.maxTenths ?? Number.NaN;
    for (const output of outputsOf(t.fuel)) {
      const a = acc.get(output);
      if (a) {
        a.sum += t.sumTenths; a.count += t.count;
        a.min = Math.min(a.min, min); a.max = Math.max(a.max, max);
      } else acc.set(output, { sum: t.sumTenths, count: t.count, min, max });
    }
  }
  return acc;
}

/**
 * A station out of stock for an output fuel: every current report of it that counts towards
 * that output says unavailable (for a plain fuel, its one report; for a combined one, all its
 * members the station sells). Storage finds these (cityOutOfStock), starting from the few
 * reports that say out of stock.
 */
export interface OutOfStock {
  fuel: FuelId;
  stationId: string;
}

/** Stations out of stock per output fuel, ids ascending. */
export function cityUnavailable(outOfStock: readonly OutOfStock[]): Map<FuelId, string[]> {
  const out = new Map<FuelId, string[]>();
  for (const { fuel, stationId } of outOfStock) {
    const ids = out.get(fuel);
    if (ids) ids.push(stationId);
    else out.set(fuel, [stationId]);
  }
  for (const ids of out.values()) ids.sort(compareIds);
  return out;
}

/** Byte order, the same as SQL's binary collation on ASCII ids, so both backends agree. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
