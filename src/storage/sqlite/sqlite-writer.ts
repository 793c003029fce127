import type Database from 'better-sqlite3';
import { fuelIndex } from '../../domain/fuels.ts';
import { STATES, type StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import { type DayTotal, type OpenState, type Report, advance, replay } from '../../ingest/plan.ts';
import {
  BatchTally, NO_DAY_LOWER_BOUND, type ReportPlan, type StoredStation,
  closeAt, closeSealedPart, distinctInstants, feedKey, groupPrices, planReports, sameStation, sealDue, storedCoordinates,
} from '../batch.ts';
import { assignCity, uniqueSlug } from '../places.ts';
import { type Row, flag, toReport } from '../rows.ts';
import type { Batch, BatchResult, StationInput } from '../store.ts';

type Sql = (text: string) => Database.Statement;

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
    for (const input of batch.stations) {
      const { station, change } = this.upsertStation(input);
      known.set(feedKey(input.feed, input.feedCode), station);
      tally.station(change);
    }
    const groups = groupPrices(batch.prices, (event) => fuelIndex(event.fuel), (feed, code) => {
      const key = feedKey(feed, code);
      let station = known.get(key);
      if (!station) {
        station = this.storedStation(feed, code);
        if (station) known.set(key, station);
      }
      return station;
    });
    for (const { station, fuel, reports } of groups) {
      const { accepted, totals } = this.applyReports(station, fuel, reports, sealedBefore(station.state));
      tally.group(station, fuel, reports.length, accepted, totals);
    }
    const addDay = this.sql(`
      INSERT INTO station_daily (station_key, fuel, day, weighted_tenths, seconds) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (station_key, day, fuel) DO UPDATE SET
        weighted_tenths = weighted_tenths + excluded.weighted_tenths, seconds = seconds + excluded.seconds`);
    for (const d of tally.days) addDay.run(d.stationKey, d.fuel, d.total.day, d.total.weighted, d.total.seconds);
    for (const [cityId, days] of tally.resealCities) this.recomputeCityDays({ cityId }, days.from, days.to);
    if (tally.changed) this.bumpDataVersion();
    return tally.result;
  }

  private storedStation(feed: string, code: string): StoredStation | undefined {
    const row = this.sql('SELECT key, id, state, city_id FROM stations WHERE feed = ? AND feed_code = ?').get(feed, code) as Row | undefined;
    return row ? toStored(row) : undefined;
  }

  private applyReports(station: StoredStation, fuel: number, reports: Report[], sealedBefore: LocalDay): { accepted: number; totals: Map<LocalDay, DayTotal> } {
    const row = this.sql('SELECT price_tenths, available, reported_at, open_from FROM current_prices WHERE station_key = ? AND fuel = ?')
      .get(station.key, fuel) as Row | undefined;
    const current: OpenState | undefined = row
      ? { at: Number(row.reported_at), priceTenths: Number(row.price_tenths), available: flag(row.available), openFrom: Number(row.open_from) }
      : undefined;
    const insertEvent = this.sql('INSERT OR IGNORE INTO price_events (station_key, fuel, at, price_tenths, available) VALUES (?, ?, ?, ?, ?)');
    const fresh = distinctInstants(reports)
      .filter((r) => insertEvent.run(station.key, fuel, r.at, r.priceTenths, r.available ? 1 : 0).changes > 0);
    if (fresh.length === 0) return { accepted: 0, totals: new Map() };
    const plan = planReports(station.state, current, fresh);
    const outcome = plan.kind === 'advance' ? advance(station.state, current, fresh) : this.replayFrom(station, fuel, plan);
    closeSealedPart(station.state, outcome.totals, outcome.open, sealedBefore);
    const open = outcome.open;
    if (open) {
      this.sql(`
        INSERT INTO current_prices (station_key, fuel, price_tenths, available, reported_at, open_from) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (station_key, fuel) DO UPDATE SET price_tenths = excluded.price_tenths, available = excluded.available,
          reported_at = excluded.reported_at, open_from = excluded.open_from`)
        .run(station.key, fuel, open.priceTenths, open.available ? 1 : 0, open.at, open.openFrom);
    }
    return { accepted: fresh.length, totals: outcome.totals };
  }

  /** Out-of-order reports: drop the station's days from that report's day on and rebuild them from the events. */
  private replayFrom(station: StoredStation, fuel: number, plan: Extract<ReportPlan, { kind: 'replay' }>): { totals: Map<LocalDay, DayTotal>; open: OpenState | undefined } {
    const inForce = this.sql(`SELECT at, price_tenths, available FROM price_events
      WHERE station_key = ? AND fuel = ? AND at <= ? ORDER BY at DESC LIMIT 1`).get(station.key, fuel, plan.dayStartSec) as Row | undefined;
    const reports = (this.sql(`SELECT at, price_tenths, available FROM price_events
      WHERE station_key = ? AND fuel = ? AND at > ? ORDER BY at`).all(station.key, fuel, plan.dayStartSec) as Row[]).map(toReport);
    this.sql('DELETE FROM station_daily WHERE station_key = ? AND fuel = ? AND day >= ?').run(station.key, fuel, plan.fromDay);
    return replay(station.state, plan.dayStartSec, inForce ? toReport(inForce) : undefined, reports, plan.closeUntil);
  }

  private upsertStation(input: StationInput): { station: StoredStation; change: 'added' | 'updated' | 'same' } {
    const wanted = { ...input, ...storedCoordinates(input) };
    const existing = this.sql(`SELECT key, id, state, city_id, name, brand, address, street, suburb, postcode, phone, website, latitude, longitude
      FROM stations WHERE feed = ? AND feed_code = ?`).get(input.feed, input.feedCode) as Row | undefined;
    if (existing && sameStation(storedFields(existing), wanted)) return { station: toStored(existing), change: 'same' };
    const cityId = this.cityFor(input.state, wanted.latitude, wanted.longitude);
    const fields = [input.name, input.brand, input.address, input.street, input.suburb, input.postcode, input.state,
      input.phone, input.website, wanted.latitude, wanted.longitude, cityId];
    if (existing) {
      const key = Number(existing.key);
      this.sql(`UPDATE stations SET name = ?, brand = ?, address = ?, street = ?, suburb = ?, postcode = ?, state = ?,
        phone = ?, website = ?, latitude = ?, longitude = ?, city_id = ? WHERE key = ?`).run(...fields, key);
      return { station: { key, id: String(existing.id), state: input.state, cityId }, change: 'updated' };
    }
    const taken = this.sql('SELECT 1 FROM stations WHERE id = ?');
    const id = uniqueSlug(input.slug, (candidate) => taken.get(candidate) !== undefined);
    const info = this.sql(`INSERT INTO stations (name, brand, address, street, suburb, postcode, state, phone, website,
      latitude, longitude, city_id, id, feed, feed_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(...fields, id, input.feed, input.feedCode);
    return { station: { key: Number(info.lastInsertRowid), id, state: input.state, cityId }, change: 'added' };
  }

  private cityFor(state: StateId, latitude: number, longitude: number): string | null {
    const cities = this.sql('SELECT id, latitude, longitude FROM cities WHERE state = ?').all(state) as Array<{ id: string; latitude: number; longitude: number }>;
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
    const addDay = this.sql(`
      INSERT INTO station_daily (station_key, fuel, day, weighted_tenths, seconds) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (station_key, day, fuel) DO UPDATE SET
        weighted_tenths = weighted_tenths + excluded.weighted_tenths, seconds = seconds + excluded.seconds`);
    const move = this.sql('UPDATE current_prices SET open_from = ? WHERE station_key = ? AND fuel = ?');
    for (const row of open) {
      const state_: OpenState = { ...toReport({ at: row.reported_at, price_tenths: row.price_tenths, available: row.available }), openFrom: Number(row.open_from) };
      for (const t of closeAt(state, state_, due.cutoff)) addDay.run(row.station_key, row.fuel, t.day, t.weighted, t.seconds);
      move.run(due.cutoff, row.station_key, row.fuel);
    }
    const firstDay = before === NO_DAY_LOWER_BOUND
      ? (this.sql('SELECT min(d.day) AS d FROM station_daily d JOIN stations s ON s.key = d.station_key WHERE s.state = ?').get(state) as { d: number | null }).d
      : before;
    if (firstDay !== null) this.recomputeCityDays({ state }, firstDay, due.today - 1);
    this.sql('INSERT INTO seals (state, sealed_before) VALUES (?, ?) ON CONFLICT (state) DO UPDATE SET sealed_before = excluded.sealed_before')
      .run(state, due.today);
    return true;
  }

  /** City means of one city or a whole state for days [from, to], pooled per output fuel, from the stations' days. */
  private recomputeCityDays(which: { cityId: string } | { state: StateId }, from: LocalDay, to: LocalDay): void {
    if (to < from) return;
    const [cities, stations, arg] = 'cityId' in which
      ? ['id = ?', 's.city_id = ?', which.cityId] as const
      : ['state = ?', 's.state = ?', which.state] as const;
    this.sql(`DELETE FROM city_daily WHERE day BETWEEN ? AND ? AND city_id IN (SELECT id FROM cities WHERE ${cities})`).run(from, to, arg);
    this.sql(`INSERT INTO city_daily (city_id, fuel, day, mean_tenths)
      SELECT s.city_id, g.output, d.day, avg(CAST(d.weighted_tenths AS REAL) / d.seconds)
      FROM stations s JOIN station_daily d ON d.station_key = s.key JOIN fuel_groups g ON g.fuel = d.fuel
      WHERE ${stations} AND s.city_id IS NOT NULL AND d.seconds > 0 AND d.day BETWEEN ? AND ?
      GROUP BY s.city_id, g.output, d.day`).run(arg, from, to);
  }
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
