import { FUELS } from '../../domain/fuels.ts';
import { STATES, type StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import type { Batch, BatchResult, PriceEvent } from '../store.ts';
import {
  BatchTally, type GroupDays, NO_DAY_LOWER_BOUND, closeAt, closeSealedPart, feedKey, groupPrices, sealDue,
} from '../write-plan/batch-plan.ts';
import { DayTotals, type Report } from '../write-plan/day-totals.ts';
import { classifyReports, planReports } from '../write-plan/late-reports.ts';
import type { Connection } from './connection.ts';
import { type PlannedGroup, settleGroups } from './late-settle.ts';
import { noteStaleCityDays, recomputeStaleCityDays } from './stale-city-days.ts';
import type { Dialect } from './dialect.ts';
import { toOpenState, toReport } from './row-mappers.ts';
import type { BatchWriter } from './sql-store.ts';
import { type CityPoint, toKnown, upsertStation } from './station-upsert.ts';
import { BULK, INGEST_STATEMENTS as SQL, bumpDataVersion } from './ingest-statements.ts';
import { CORRECT_REPORTS, CURRENT_STATES, LENGTHEN_RUNS, STATIONS_BY_FEED, STORED_REPORTS } from './keyed-statements.ts';

/** Recomputes the city means of days [from, to] of one city or of every city of a state (sqlite/ and postgres/ city means). */
export type CityMeans = (tx: Connection, cities: { cityId: string } | { state: StateId }, from: LocalDay, to: LocalDay) => Promise<void>;

const FUEL_INDEX: ReadonlyMap<string, number> = new Map(FUELS.map((fuel, index) => [fuel, index]));

/**
 * applyBatch and seal, written once, inside the writer transaction the store opens. The
 * decisions are the pure ones of write-plan/; here the reads and writes, in phases whatever the
 * batch's size: the stations it names, their current prices and stored reports are read with
 * one ForKeys statement each, new reports, current prices and daily sums go in one bulk insert
 * each, and what late reports read and drop goes in one ForKeys statement a kind for all of the
 * batch's groups (late-settle.ts); only new and changed stations cost statements of their own
 * (station-upsert.ts).
 */
export class SqlWriter implements BatchWriter {
  constructor(private readonly dialect: Dialect, private readonly cityMeans: CityMeans) {}

  async storedStations(tx: Connection, prices: readonly PriceEvent[]): Promise<(feed: string, code: string) => boolean> {
    const stored = new Set((await tx.forKeys(STATIONS_BY_FEED, namedKeys(prices))).map((r) => feedKey(String(r.feed), String(r.feed_code))));
    return (feed, code) => stored.has(feedKey(feed, code));
  }

  async applyBatch(tx: Connection, batch: Batch, options: { deferCityDays?: boolean } = {}): Promise<BatchResult> {
    const sealedBefore = await sealedBeforeByState(tx);
    const tally = new BatchTally(sealedBefore);
    const adopted = batch.stations.flatMap((s) => (s.adopts === undefined ? [] : [{ feed: s.feed, feedCode: s.adopts }]));
    const known = new Map((await tx.forKeys(STATIONS_BY_FEED, namedKeys([...batch.stations, ...adopted, ...batch.prices])))
      .map((r) => [feedKey(String(r.feed), String(r.feed_code)), toKnown(r)]));
    const cities = new Map<StateId, CityPoint[]>();
    for (const input of batch.stations) tally.station(await upsertStation(tx, input, known, cities));
    const groups = groupPrices(batch.prices, (event) => FUEL_INDEX.get(event.fuel) ?? -1, (feed, code) => known.get(feedKey(feed, code)));
    // In key order, so that new rows of price_events and station_daily go to the end of their b-trees.
    groups.sort((a, b) => a.station.key - b.station.key || a.fuel - b.fuel);
    for (const group of groups) {
      // A value that binds as NULL breaks a NOT NULL column: such a report is not stored.
      if (group.reports.some(unstorable)) group.reports = group.reports.filter((r) => !unstorable(r));
    }
    const current = new Map((await tx.forKeys(CURRENT_STATES, groups.flatMap((g) => [g.station.key, g.fuel])))
      .map((r) => [groupKey(Number(r.station_key), Number(r.fuel)), toOpenState(r)]));
    const ranges = groups.filter((g) => g.reports.length > 0)
      .flatMap((g) => [g.station.key, g.fuel, g.reports[0]?.at ?? 0, g.reports[g.reports.length - 1]?.at ?? 0]);
    // Per group, its stored reports by instant.
    const stored = new Map<number, Map<number, Report>>();
    for (const r of await tx.forKeys(STORED_REPORTS, ranges)) {
      const key = groupKey(Number(r.station_key), Number(r.fuel));
      let byAt = stored.get(key);
      if (!byAt) stored.set(key, (byAt = new Map<number, Report>()));
      byAt.set(Number(r.at), toReport(r));
    }
    const classified = groups.map((g) => {
      const byAt = stored.get(groupKey(g.station.key, g.fuel));
      return classifyReports(g.reports, (at) => byAt?.get(at));
    });
    const fresh = tx.bulkRows(BULK.priceEvents);
    const corrected: unknown[] = [];
    for (const [i, { station, fuel }] of groups.entries()) {
      for (const r of classified[i]?.fresh ?? []) {
        fresh.values.push(station.key, fuel, r.at, r.priceTenths, r.available ? 1 : 0);
        fresh.added();
      }
      for (const r of classified[i]?.corrected ?? []) corrected.push(station.key, fuel, r.at, r.priceTenths, r.available ? 1 : 0);
    }
    await fresh.done();
    await tx.forKeys(CORRECT_REPORTS, corrected);
    // The groups with new or corrected reports, settled together (late-settle.ts: one statement a kind of read or drop, not one a group).
    const planned: Array<PlannedGroup | undefined> = groups.map(({ station, fuel }, i) => {
      const rows = classified[i];
      if (!rows || (rows.fresh.length === 0 && rows.corrected.length === 0)) return undefined;
      const before = current.get(groupKey(station.key, fuel));
      return { station, fuel, current: before, plan: planReports(before, rows.fresh, rows.corrected) };
    });
    const settledAll = await settleGroups(tx, planned.filter((g) => g !== undefined));
    let nextSettled = 0;
    const opens = tx.bulkRows(BULK.currentPrices);
    // Each current price whose price or availability changes takes the next change number (storage/sql/changes.ts).
    let lastChange: number | undefined;
    for (const [i, { station, fuel }] of groups.entries()) {
      const rows = classified[i];
      const before = planned[i]?.current;
      const settled = planned[i] ? settledAll[nextSettled++] : undefined;
      if (!rows || !settled) { if (rows) tally.group(station, fuel, rows, new DayTotals()); continue; }
      closeSealedPart(station.state, settled.totals, settled.open, sealedBefore(station.state));
      const open = settled.open;
      if (open) {
        let change = 0;
        if (!before || before.priceTenths !== open.priceTenths || before.available !== open.available) {
          lastChange = (lastChange ?? Number((await tx.row(SQL.lastChange))?.value ?? 0)) + 1;
          change = lastChange;
        }
        opens.values.push(station.key, fuel, open.priceTenths, open.available ? 1 : 0, open.at, open.openFrom, station.cityId, station.state, change);
        opens.added();
      }
      tally.group(station, fuel, rows, settled.totals, settled.spans);
    }
    await opens.done();
    if (lastChange !== undefined) await tx.run(SQL.saveLastChange, [lastChange]);
    await addStationDays(tx, tally.groups);
    if (options.deferCityDays) await noteStaleCityDays(tx, tally.resealCities);
    else for (const [cityId, days] of tally.resealCities) await this.cityMeans(tx, { cityId }, days.from, days.to);
    if (tally.changed) await bumpDataVersion(tx);
    return tally.result;
  }

  async seal(tx: Connection, nowSec: number): Promise<void> {
    const sealedBefore = await sealedBeforeByState(tx);
    if (this.dialect.beforeFirstSeal && STATES.some((state) => sealedBefore(state) === NO_DAY_LOWER_BOUND)) await tx.run(this.dialect.beforeFirstSeal);
    let changed = await recomputeStaleCityDays(tx, this.cityMeans);
    for (const state of STATES) changed = (await this.sealState(tx, state, nowSec, sealedBefore(state))) || changed;
    if (changed) await bumpDataVersion(tx);
  }

  /** Closes open intervals up to the start of the state's today and makes the days before it final. */
  private async sealState(tx: Connection, state: StateId, nowSec: number, before: LocalDay): Promise<boolean> {
    const due = sealDue(state, nowSec, before);
    if (!due) return false;
    const days = tx.bulkRows(BULK.stationDaily);
    const runs: number[] = [];
    for (const row of await tx.rows(SQL.openBefore, [state, due.cutoff])) {
      const stationKey = Number(row.station_key);
      const fuel = Number(row.fuel);
      const totals = closeAt(state, toOpenState(row), due.cutoff);
      for (const t of totals.values()) {
        days.values.push(stationKey, t.day, fuel, t.weighted, t.seconds);
        days.added();
      }
      for (const run of totals.runs) runs.push(stationKey, fuel, run.from, run.to, run.priceTenths);
    }
    await days.done();
    // A price that went on past the last seal lengthens the run that seal ended, if it made one; the rest are added.
    const lengthened = new Set((await tx.forKeys(LENGTHEN_RUNS, runs)).map((r) => `${Number(r.station_key)}:${Number(r.fuel)}:${Number(r.to_day)}`));
    const added: unknown[] = [];
    for (let i = 0; i < runs.length; i += 5) {
      const [stationKey, fuel, from, to, price] = runs.slice(i, i + 5) as [number, number, number, number, number];
      if (!lengthened.has(`${stationKey}:${fuel}:${to}`)) added.push(stationKey, to, fuel, from, price);
    }
    await tx.bulkInsert(BULK.stationRuns, added);
    await tx.run(SQL.moveOpenTo, [due.cutoff, due.cutoff, state]);
    const firstDay = before === NO_DAY_LOWER_BOUND ? (await tx.row(SQL.firstDayOfState, [state, state]))?.d : before;
    if (firstDay !== null && firstDay !== undefined) await this.cityMeans(tx, { state }, Number(firstDay), due.today - 1);
    await tx.run(SQL.saveSeal, [state, due.today]);
    return true;
  }
}

async function sealedBeforeByState(tx: Connection): Promise<(state: StateId) => LocalDay> {
  const sealed = new Map((await tx.rows(SQL.seals)).map((r) => [String(r.state), Number(r.sealed_before)]));
  return (state) => sealed.get(state) ?? NO_DAY_LOWER_BOUND;
}

/** A station's fuel as one number (fuel indexes are below 64). */
function groupKey(stationKey: number, fuel: number): number {
  return stationKey * 64 + fuel;
}

/** Each (feed, feed code) named once, as ForKeys keys. */
function namedKeys(named: ReadonlyArray<{ feed: string; feedCode: string }>): string[] {
  const seen = new Set<string>();
  const keys: string[] = [];
  let last: { feed: string; feedCode: string } | undefined;
  for (const n of named) {
    // Prices come in runs of one station: each run is looked at once.
    if (n.feedCode === last?.feedCode && n.feed === last.feed) continue;
    last = n;
    const key = feedKey(n.feed, n.feedCode);
    if (seen.has(key)) continue;
    seen.add(key);
    keys.push(n.feed, n.feedCode);
  }
  return keys;
}

/** What the database driver would bind as NULL. */
function unstorable(r: Report): boolean {
  return bindsAsNull(r.at) || bindsAsNull(r.priceTenths);
}

function bindsAsNull(value: unknown): boolean {
  return value === null || value === undefined || Number.isNaN(value);
}

/**
 * Adds the daily sums and the runs, station by station and within a station in key order
 * (sums by day, then fuel; runs by last day, then fuel): a new station's rows are appended to
 * their tables rather than inserted in their middle. Each (station, fuel) is one group, each
 * of its days one sum: no row comes twice (PostgreSQL's ON CONFLICT may touch a row once).
 */
async function addStationDays(tx: Connection, groups: readonly GroupDays[]): Promise<void> {
  const days = tx.bulkRows(BULK.stationDaily);
  const runs = tx.bulkRows(BULK.stationRuns);
  // The groups come in key order (applyBatch sorts them).
  const ordered = groups;
  for (let first = 0; first < ordered.length;) {
    const stationKey = ordered[first]?.station.key ?? 0;
    let end = first;
    while (end < ordered.length && ordered[end]?.station.key === stationKey) end++;
    // One cursor per fuel, in fuel order: of two sums for one day the lower fuel goes first.
    const fuels = ordered.slice(first, end).map((g) => ({ fuel: g.fuel, totals: g.totals, next: 0 }));
    for (;;) {
      let pick: (typeof fuels)[number] | undefined;
      let pickDay = Infinity;
      for (const cursor of fuels) {
        const day = cursor.totals.days[cursor.next];
        if (day !== undefined && day < pickDay) { pick = cursor; pickDay = day; }
      }
      if (!pick) break;
      days.values.push(stationKey, pickDay, pick.fuel, pick.totals.weighted[pick.next] ?? 0, pick.totals.seconds[pick.next] ?? 0);
      days.added();
      pick.next++;
    }
    const stationRuns = fuels.flatMap(({ fuel, totals }) => totals.runs.map((run) => ({ fuel, run }))).sort((a, b) => a.run.to - b.run.to || a.fuel - b.fuel);
    for (const { fuel, run } of stationRuns) {
      runs.values.push(stationKey, run.to, fuel, run.from, run.priceTenths);
      runs.added();
    }
    first = end;
  }
  await days.done();
  await runs.done();
}
