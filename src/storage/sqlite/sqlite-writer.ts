import { FUELS } from '../../domain/fuels.ts';
import { STATES, type StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import { DayTotals, type OpenState, type Report, advance, replay } from '../../ingest/plan.ts';
import {
  BatchTally, type GroupDays, NO_DAY_LOWER_BOUND, type ReportPlan, type StoredStation,
  closeAt, closeSealedPart, distinctInstants, feedKey, groupPrices, planReports, sameStation, sealDue, storedCoordinates,
} from '../batch.ts';
import { assignCity, uniqueSlug } from '../places.ts';
import { type Row, toOpenState, toReport } from '../rows.ts';
import type { Batch, BatchResult, StationInput } from '../store.ts';
import { recomputeCityDays } from './city-means.ts';
import { RowBuffer, type Sql } from './row-buffer.ts';

type CityPoint = { id: string; latitude: number; longitude: number };

const STATION_DAILY_INSERT = 'INSERT INTO station_daily (station_key, fuel, day, weighted_tenths, seconds)';
/** Daily sums add up: a day may get seconds from several batches and from the seal. */
const STATION_DAILY_ADD = `
  ON CONFLICT (station_key, day, fuel) DO UPDATE SET
    weighted_tenths = weighted_tenths + excluded.weighted_tenths, seconds = seconds + excluded.seconds`;

const STATION_RUNS_INSERT = 'INSERT INTO station_runs (station_key, to_day, fuel, from_day, price_tenths)';

const FUEL_INDEX: ReadonlyMap<string, number> = new Map(FUELS.map((fuel, index) => [fuel, index]));

/**
 * applyBatch and seal on SQLite, each inside one transaction that the store opens. The
 * decisions are the shared ones of batch.ts and plan.ts; this file only reads and writes.
 */
export class SqliteWriter {
  constructor(private readonly sql: Sql) {}

  sealedBefore(state: StateId): LocalDay {
    const row = this.sql('SELECT sealed_before FROM seals WHERE state = ?').get(state) as { sealed_before: number } | undefined;
    return row?.sealed_before ?? NO_DAY_LOWER_BOUND;
  }

  bumpDataVersion(): void {
    this.sql("UPDATE meta SET value = value + 1 WHERE key = 'data_version'").run();
  }

  applyBatch(batch: Batch): BatchResult {
    const sealed = new Map(STATES.map((state) => [state, this.sealedBefore(state)]));
    const sealedBefore = (state: StateId): LocalDay => sealed.get(state) ?? NO_DAY_LOWER_BOUND;
    const tally = new BatchTally(sealedBefore);
    const known = new Map<string, StoredStation>();
    const cities = new Map<StateId, CityPoint[]>();
    for (const input of batch.stations) {
      const { station, change } = this.upsertStation(input, cities);
      known.set(feedKey(input.feed, input.feedCode), station);
      tally.station(change);
    }
    const groups = groupPrices(batch.prices, (event) => FUEL_INDEX.get(event.fuel) ?? -1, (feed, code) => {
      const key = feedKey(feed, code);
      let station = known.get(key);
      if (!station) {
        station = this.storedStation(feed, code);
        if (station) known.set(key, station);
      }
      return station;
    });
    // In key order, so that new rows of price_events and station_daily go to the end of their b-trees.
    groups.sort((a, b) => a.station.key - b.station.key || a.fuel - b.fuel);
    const events = new RowBuffer(this.sql, 'INSERT INTO price_events (station_key, fuel, at, price_tenths, available)', 5, '');
    for (const { station, fuel, reports } of groups) {
      const { accepted, totals } = this.applyReports(station, fuel, reports, sealedBefore(station.state), events);
      tally.group(station, fuel, reports.length, accepted, totals);
    }
    events.flush();
    this.addStationDays(tally.groups);
    for (const [cityId, days] of tally.resealCities) recomputeCityDays(this.sql, { cityId }, days.from, days.to);
    if (tally.changed) this.bumpDataVersion();
    return tally.result;
  }

  /**
   * Adds the daily sums and the runs, station by station and within a station in key order
   * (sums by day, then fuel; runs by last day, then fuel): a new station's rows are appended to
   * their tables rather than inserted in their middle.
   */
  private addStationDays(groups: readonly GroupDays[]): void {
    const days = new RowBuffer(this.sql, STATION_DAILY_INSERT, 5, STATION_DAILY_ADD);
    const runs = new RowBuffer(this.sql, STATION_RUNS_INSERT, 5, '');
    for (let first = 0; first < groups.length;) {
      const stationKey = groups[first]?.station.key ?? 0;
      let end = first;
      while (end < groups.length && groups[end]?.station.key === stationKey) end++;
      // One cursor per fuel, in fuel order: of two sums for one day the lower fuel goes first.
      const fuels = groups.slice(first, end).sort((a, b) => a.fuel - b.fuel).map((g) => ({ fuel: g.fuel, totals: g.totals, next: 0 }));
      for (;;) {
        let pick: (typeof fuels)[number] | undefined;
        let pickDay = Infinity;
        for (const cursor of fuels) {
          const day = cursor.totals.days[cursor.next];
          if (day !== undefined && day < pickDay) { pick = cursor; pickDay = day; }
        }
        if (!pick) break;
        const { totals, next } = pick;
        days.values.push(stationKey, pick.fuel, pickDay, totals.weighted[next] ?? 0, totals.seconds[next] ?? 0);
        days.added();
        pick.next++;
      }
      const stationRuns = fuels.flatMap(({ fuel, totals }) => totals.runs.map((run) => ({ fuel, run })))
        .sort((a, b) => a.run.to - b.run.to || a.fuel - b.fuel);
      for (const { fuel, run } of stationRuns) {
        runs.values.push(stationKey, run.to, fuel, run.from, run.priceTenths);
        runs.added();
      }
      first = end;
    }
    days.flush();
    runs.flush();
  }

  private storedStation(feed: string, code: string): StoredStation | undefined {
    const row = this.sql('SELECT key, id, state, city_id FROM stations WHERE feed = ? AND feed_code = ?').get(feed, code) as Row | undefined;
    return row ? toStored(row) : undefined;
  }

  /** Stores the group's new reports (through `events`) and works out the daily sums they add. */
  private applyReports(
    station: StoredStation, fuel: number, reports: readonly Report[], sealedBefore: LocalDay, events: RowBuffer,
  ): { accepted: number; totals: DayTotals } {
    const row = this.sql('SELECT price_tenths, available, reported_at, open_from FROM current_prices WHERE station_key = ? AND fuel = ?')
      .get(station.key, fuel) as Row | undefined;
    const current: OpenState | undefined = row ? toOpenState(row) : undefined;
    // A value that binds as NULL breaks a NOT NULL column: such a report is not stored (as INSERT OR IGNORE did).
    const unstorable = (r: Report): boolean => bindsAsNull(r.at) || bindsAsNull(r.priceTenths);
    const all = distinctInstants(reports);
    const distinct = all.some(unstorable) ? all.filter((r) => !unstorable(r)) : all;
    // Reports already stored are ignored, the stored one winning: one range read finds them all.
    let first = Infinity;
    let last = -Infinity;
    for (const r of distinct) { if (r.at < first) first = r.at; if (r.at > last) last = r.at; }
    const stored = distinct.length === 0 ? [] : this.sql('SELECT at FROM price_events WHERE station_key = ? AND fuel = ? AND at BETWEEN ? AND ?')
      .pluck().all(station.key, fuel, first, last) as number[];
    const storedAt = new Set(stored);
    const fresh = stored.length === 0 ? distinct : distinct.filter((r) => !storedAt.has(r.at));
    if (fresh.length === 0) return { accepted: 0, totals: new DayTotals() };
    const values = events.values;
    for (const r of fresh) {
      values.push(station.key, fuel, r.at, r.priceTenths, r.available ? 1 : 0);
      events.added();
    }
    const plan = planReports(station.state, current, fresh);
    let outcome: { totals: DayTotals; open: OpenState | undefined };
    if (plan.kind === 'advance') outcome = advance(station.state, current, fresh);
    else {
      events.flush(); // the replay reads this group's events back, new ones included
      outcome = this.replayFrom(station, fuel, plan);
    }
    closeSealedPart(station.state, outcome.totals, outcome.open, sealedBefore);
    const open = outcome.open;
    if (open) {
      this.sql(`
        INSERT INTO current_prices (station_key, fuel, price_tenths, available, reported_at, open_from, city_id) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (station_key, fuel) DO UPDATE SET price_tenths = excluded.price_tenths, available = excluded.available,
          reported_at = excluded.reported_at, open_from = excluded.open_from, city_id = excluded.city_id`)
        .run(station.key, fuel, open.priceTenths, open.available ? 1 : 0, open.at, open.openFrom, station.cityId);
    }
    return { accepted: fresh.length, totals: outcome.totals };
  }

  /** Out-of-order reports: drop the station's days from that report's day on and rebuild them from the events. */
  private replayFrom(station: StoredStation, fuel: number, plan: Extract<ReportPlan, { kind: 'replay' }>): { totals: DayTotals; open: OpenState | undefined } {
    const inForce = this.sql(`SELECT at, price_tenths, available FROM price_events
      WHERE station_key = ? AND fuel = ? AND at <= ? ORDER BY at DESC LIMIT 1`).get(station.key, fuel, plan.dayStartSec) as Row | undefined;
    const reports = (this.sql(`SELECT at, price_tenths, available FROM price_events
      WHERE station_key = ? AND fuel = ? AND at > ? ORDER BY at`).all(station.key, fuel, plan.dayStartSec) as Row[]).map(toReport);
    this.sql('DELETE FROM station_daily WHERE station_key = ? AND fuel = ? AND day >= ?').run(station.key, fuel, plan.fromDay);
    this.sql('DELETE FROM station_runs WHERE station_key = ? AND to_day >= ? AND fuel = ? AND from_day >= ?').run(station.key, plan.fromDay, fuel, plan.fromDay);
    this.sql('UPDATE station_runs SET to_day = ? WHERE station_key = ? AND to_day >= ? AND fuel = ?').run(plan.fromDay - 1, station.key, plan.fromDay, fuel);
    return replay(station.state, plan.dayStartSec, inForce ? toReport(inForce) : undefined, reports, plan.closeUntil);
  }

  private upsertStation(input: StationInput, cities: Map<StateId, CityPoint[]>): { station: StoredStation; change: 'added' | 'updated' | 'same' } {
    const wanted = { ...input, ...storedCoordinates(input) };
    const existing = this.sql(`SELECT key, id, state, city_id, name, brand, address, street, suburb, postcode, phone, website, latitude, longitude
      FROM stations WHERE feed = ? AND feed_code = ?`).get(input.feed, input.feedCode) as Row | undefined;
    if (existing && sameStation(storedFields(existing), wanted)) return { station: toStored(existing), change: 'same' };
    const cityId = this.cityFor(input.state, wanted.latitude, wanted.longitude, cities);
    const fields = [input.name, input.brand, input.address, input.street, input.suburb, input.postcode, input.state,
      input.phone, input.website, wanted.latitude, wanted.longitude, cityId];
    if (existing) {
      const key = Number(existing.key);
      this.sql(`UPDATE stations SET name = ?, brand = ?, address = ?, street = ?, suburb = ?, postcode = ?, state = ?,
        phone = ?, website = ?, latitude = ?, longitude = ?, city_id = ? WHERE key = ?`).run(...fields, key);
      // A station that moved to another city takes its current prices along (triggers move the city totals).
      if (existing.city_id !== cityId) this.sql('UPDATE current_prices SET city_id = ? WHERE station_key = ?').run(cityId, key);
      return { station: { key, id: String(existing.id), state: input.state, cityId }, change: 'updated' };
    }
    const taken = this.sql('SELECT 1 FROM stations WHERE id = ?');
    const id = uniqueSlug(input.slug, (candidate) => taken.get(candidate) !== undefined);
    const info = this.sql(`INSERT INTO stations (name, brand, address, street, suburb, postcode, state, phone, website,
      latitude, longitude, city_id, id, feed, feed_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(...fields, id, input.feed, input.feedCode);
    return { station: { key: Number(info.lastInsertRowid), id, state: input.state, cityId }, change: 'added' };
  }

  /** The station's city; the cities of a state are read once per batch (a batch does not change them). */
  private cityFor(state: StateId, latitude: number, longitude: number, cache: Map<StateId, CityPoint[]>): string | null {
    let cities = cache.get(state);
    if (!cities) cache.set(state, (cities = this.sql('SELECT id, latitude, longitude FROM cities WHERE state = ?').all(state) as CityPoint[]));
    return assignCity(cities, latitude, longitude);
  }

  seal(nowSec: number): void {
    let changed = false;
    for (const state of STATES) changed = this.sealState(state, nowSec) || changed;
    if (changed) this.bumpDataVersion();
  }

  /** Closes open intervals up to the start of the state's today and makes the days before it final. */
  private sealState(state: StateId, nowSec: number): boolean {
    const before = this.sealedBefore(state);
    const due = sealDue(state, nowSec, before);
    if (!due) return false;
    const open = this.sql(`SELECT c.station_key, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
      FROM current_prices c JOIN stations s ON s.key = c.station_key WHERE s.state = ? AND c.open_from < ?`).all(state, due.cutoff) as Row[];
    const days = new RowBuffer(this.sql, STATION_DAILY_INSERT, 5, STATION_DAILY_ADD);
    const runs = new RowBuffer(this.sql, STATION_RUNS_INSERT, 5, '');
    // A price that went on past the last seal lengthens the run that seal ended, if it made one.
    const lengthen = this.sql('UPDATE station_runs SET to_day = ? WHERE station_key = ? AND to_day = ? AND fuel = ? AND price_tenths = ?');
    for (const row of open) {
      const state_ = toOpenState(row);
      const stationKey = Number(row.station_key);
      const fuel = Number(row.fuel);
      const totals = closeAt(state, state_, due.cutoff);
      for (const t of totals.values()) {
        days.values.push(stationKey, fuel, t.day, t.weighted, t.seconds);
        days.added();
      }
      for (const run of totals.runs) {
        if (lengthen.run(run.to, stationKey, run.from - 1, fuel, run.priceTenths).changes > 0) continue;
        runs.values.push(stationKey, run.to, fuel, run.from, run.priceTenths);
        runs.added();
      }
    }
    runs.flush();
    days.flush();
    // The rows just read, all moved at once.
    this.sql(`UPDATE current_prices SET open_from = ?
      WHERE open_from < ? AND station_key IN (SELECT key FROM stations WHERE state = ?)`).run(due.cutoff, due.cutoff, state);
    const firstDay = before === NO_DAY_LOWER_BOUND
      // Each station's first daily row is the first entry of its key range; its runs are read whole
      // (a run's first day is not in its key), once per state, on its first seal only.
      ? (this.sql(`SELECT min(d) AS d FROM (
          SELECT (SELECT min(day) FROM station_daily WHERE station_key = s.key) AS d FROM stations s WHERE s.state = @state
          UNION ALL SELECT (SELECT min(from_day) FROM station_runs WHERE station_key = s.key) FROM stations s WHERE s.state = @state)`)
        .get({ state }) as { d: number | null }).d
      : before;
    if (firstDay !== null) recomputeCityDays(this.sql, { state }, firstDay, due.today - 1);
    this.sql('INSERT INTO seals (state, sealed_before) VALUES (?, ?) ON CONFLICT (state) DO UPDATE SET sealed_before = excluded.sealed_before')
      .run(state, due.today);
    return true;
  }
}

/** What better-sqlite3 binds as NULL. */
function bindsAsNull(value: unknown): boolean {
  return value === null || value === undefined || Number.isNaN(value);
}

function storedFields(r: Row): Parameters<typeof sameStation>[0] {
  return {
    name: String(r.name), brand: String(r.brand), address: String(r.address), street: String(r.street), suburb: String(r.suburb),
    postcode: String(r.postcode), phone: String(r.phone), website: String(r.website), state: r.state as StateId,
    latitude: Number(r.latitude), longitude: Number(r.longitude),
  };
}

function toStored(row: Row): StoredStation {
  return { key: Number(row.key), id: String(row.id), state: row.state as StateId, cityId: row.city_id === null ? null : String(row.city_id) };
}
