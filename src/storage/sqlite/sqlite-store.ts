import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { FUELS, type FuelId, fuelIndex, outputsOf } from '../../domain/fuels.ts';
import { formatCoordinate } from '../../domain/rounding.ts';
import { STATES, type StateId } from '../../domain/states.ts';
import { type LocalDay, dayStart, localDayOf } from '../../domain/time.ts';
import { type DayTotal, type OpenState, type Report, addInterval, advance, replay } from '../../ingest/plan.ts';
import { assignCity, uniqueSlug } from '../places.ts';
import type {
  Batch, BatchResult, City, CityHistoryParts, CityInput, CurrentPrice, DayRange, ListQuery, ListResult,
  PriceStore, Station, StationDayRow, StationInput, TokenRecord,
} from '../store.ts';
import { SQLITE_MIGRATIONS } from './migrations.ts';

type Row = Record<string, unknown>;

interface StationKeyRow { key: number; id: string; state: StateId; city_id: string | null; latitude: number; longitude: number }

const NO_DAY_LOWER_BOUND = -1_000_000;
const STATION_COLUMNS = 'id, name, brand, address, street, suburb, postcode, state, phone, website, latitude, longitude';


/** The embedded backend: one SQLite file, synchronous underneath, the same contract as PostgreSQL. */
export class SqliteStore implements PriceStore {
  readonly backend = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
  }

  /** Cached prepared statement: every query is parameterised and compiled once. */
  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }

  async migrate(): Promise<void> {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SQLITE_MIGRATIONS.length) {
      throw new Error(`database schema version ${version} is newer than this program knows (${SQLITE_MIGRATIONS.length})`);
    }
    this.db.transaction(() => {
      for (let v = version; v < SQLITE_MIGRATIONS.length; v++) {
        this.db.exec(SQLITE_MIGRATIONS[v] ?? '');
        this.db.pragma(`user_version = ${v + 1}`);
      }
      const insert = this.db.prepare('INSERT OR IGNORE INTO fuel_groups (fuel, output) VALUES (?, ?)');
      for (const fuel of FUELS) for (const output of outputsOf(fuel)) insert.run(fuelIndex(fuel), fuelIndex(output));
    })();
  }

  async close(): Promise<void> {
    this.db.close();
  }

  async ping(): Promise<void> {
    this.sql('SELECT 1').get();
  }

  async dataVersion(): Promise<number> {
    return (this.sql("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: number }).value;
  }

  private bumpDataVersion(): void {
    this.sql("UPDATE meta SET value = value + 1 WHERE key = 'data_version'").run();
  }

  async listCities(query: ListQuery): Promise<ListResult<City>> {
    const where = query.state ? 'WHERE state = ?' : '';
    const args = query.state ? [query.state] : [];
    const total = (this.sql(`SELECT count(*) AS n FROM cities ${where}`).get(...args) as { n: number }).n;
    const rows = this.sql(`SELECT id, name, state, latitude, longitude FROM cities ${where} ORDER BY id LIMIT ? OFFSET ?`)
      .all(...args, query.limit, query.offset) as Row[];
    return { items: rows.map(toCity), total };
  }

  async city(id: string): Promise<City | undefined> {
    const row = this.sql('SELECT id, name, state, latitude, longitude FROM cities WHERE id = ?').get(id) as Row | undefined;
    return row ? toCity(row) : undefined;
  }

  async listStations(query: ListQuery): Promise<ListResult<Station>> {
    const where = query.state ? 'WHERE state = ?' : '';
    const args = query.state ? [query.state] : [];
    const total = (this.sql(`SELECT count(*) AS n FROM stations ${where}`).get(...args) as { n: number }).n;
    const rows = this.sql(`SELECT ${STATION_COLUMNS} FROM stations ${where} ORDER BY id LIMIT ? OFFSET ?`)
      .all(...args, query.limit, query.offset) as Row[];
    return { items: rows.map(toStation), total };
  }

  async station(id: string): Promise<Station | undefined> {
    const row = this.sql(`SELECT ${STATION_COLUMNS} FROM stations WHERE id = ?`).get(id) as Row | undefined;
    return row ? toStation(row) : undefined;
  }

  async stationDays(stationId: string, range: DayRange): Promise<StationDayRow[]> {
    const rows = this.sql(`
      SELECT d.fuel, d.day, d.weighted_tenths, d.seconds FROM stations s
      JOIN station_daily d ON d.station_key = s.key
      WHERE s.id = ? AND d.day BETWEEN ? AND ?`).all(stationId, range.from ?? NO_DAY_LOWER_BOUND, range.to) as Row[];
    return rows.map((r) => toStationDay(stationId, r));
  }

  async currentForStation(stationId: string): Promise<CurrentPrice[]> {
    const rows = this.sql(`
      SELECT s.id AS station_id, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
      FROM stations s JOIN current_prices c ON c.station_key = s.key WHERE s.id = ?`).all(stationId) as Row[];
    return rows.map(toCurrent);
  }

  async currentForCity(cityId: string): Promise<CurrentPrice[]> {
    const rows = this.sql(`
      SELECT s.id AS station_id, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
      FROM stations s JOIN current_prices c ON c.station_key = s.key
      WHERE s.city_id = ? ORDER BY s.id, c.fuel`).all(cityId) as Row[];
    return rows.map(toCurrent);
  }

  async cityHistoryParts(cityId: string, range: DayRange): Promise<CityHistoryParts> {
    const city = this.sql('SELECT state FROM cities WHERE id = ?').get(cityId) as { state: StateId } | undefined;
    const sealedBefore = city ? this.sealedBefore(city.state) : 0;
    const from = range.from ?? NO_DAY_LOWER_BOUND;
    const sealed = (this.sql('SELECT fuel, day, mean_tenths FROM city_daily WHERE city_id = ? AND day BETWEEN ? AND ?')
      .all(cityId, from, Math.min(range.to, sealedBefore - 1)) as Row[])
      .map((r) => ({ fuel: fuelAt(r.fuel), day: Number(r.day), meanTenths: Number(r.mean_tenths) }));
    const liveFrom = Math.max(from, sealedBefore);
    const stationDays = liveFrom > range.to ? [] : (this.sql(`
      SELECT s.id AS station_id, d.fuel, d.day, d.weighted_tenths, d.seconds
      FROM stations s JOIN station_daily d ON d.station_key = s.key
      WHERE s.city_id = ? AND d.day BETWEEN ? AND ?`).all(cityId, liveFrom, range.to) as Row[])
      .map((r) => toStationDay(String(r.station_id), r));
    return { sealedBefore, sealed, stationDays, current: await this.currentForCity(cityId) };
  }

  private sealedBefore(state: StateId): LocalDay {
    const row = this.sql('SELECT sealed_before FROM seals WHERE state = ?').get(state) as { sealed_before: number } | undefined;
    return row?.sealed_before ?? NO_DAY_LOWER_BOUND;
  }

  async upsertCities(cities: CityInput[]): Promise<void> {
    const upsert = this.sql(`
      INSERT INTO cities (id, name, state, latitude, longitude) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET name = excluded.name, state = excluded.state,
        latitude = excluded.latitude, longitude = excluded.longitude`);
    this.db.transaction(() => {
      for (const c of cities) upsert.run(c.id, c.name, c.state, c.latitude, c.longitude);
      this.bumpDataVersion();
    })();
  }

  async applyBatch(batch: Batch): Promise<BatchResult> {
    return this.db.transaction(() => this.applyBatchNow(batch))();
  }

  private applyBatchNow(batch: Batch): BatchResult {
    const result: BatchResult = { stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 0, pricesIgnored: 0 };
    const stations = new Map<string, StationKeyRow>();
    for (const input of batch.stations) {
      const outcome = this.upsertStation(input);
      if (outcome.change === 'added') result.stationsAdded++;
      if (outcome.change === 'updated') result.stationsUpdated++;
      stations.set(feedKey(input.feed, input.feedCode), outcome.row);
    }

    const groups = new Map<string, { station: StationKeyRow; fuel: number; reports: Report[] }>();
    for (const event of batch.prices) {
      const fk = feedKey(event.feed, event.feedCode);
      let station = stations.get(fk);
      if (!station) {
        station = this.sql('SELECT key, id, state, city_id, latitude, longitude FROM stations WHERE feed = ? AND feed_code = ?')
          .get(event.feed, event.feedCode) as StationKeyRow | undefined;
        if (!station) throw new Error(`price for unknown station ${event.feed}/${event.feedCode}: send the station in the batch`);
        stations.set(fk, station);
      }
      const fuel = fuelIndex(event.fuel);
      const gk = `${station.key}:${fuel}`;
      let group = groups.get(gk);
      if (!group) groups.set(gk, (group = { station, fuel, reports: [] }));
      group.reports.push({ at: event.at, priceTenths: event.priceTenths, available: event.available });
    }

    const totals: Array<{ stationKey: number; fuel: number; total: DayTotal; state: StateId; cityId: string | null }> = [];
    let changed = result.stationsAdded + result.stationsUpdated > 0;
    for (const { station, fuel, reports } of groups.values()) {
      reports.sort((a, b) => a.at - b.at);
      const outcome = this.applyReports(station, fuel, reports);
      result.pricesAccepted += outcome.accepted;
      result.pricesIgnored += reports.length - outcome.accepted;
      if (outcome.accepted > 0) changed = true;
      for (const total of outcome.totals.values()) totals.push({ stationKey: station.key, fuel, total, state: station.state, cityId: station.city_id });
    }

    const addDay = this.sql(`
      INSERT INTO station_daily (station_key, fuel, day, weighted_tenths, seconds) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (station_key, day, fuel) DO UPDATE SET
        weighted_tenths = weighted_tenths + excluded.weighted_tenths, seconds = seconds + excluded.seconds`);
    const resealCities = new Map<string, { from: LocalDay; to: LocalDay }>();
    const sealedBefore = new Map(STATES.map((state) => [state, this.sealedBefore(state)]));
    for (const t of totals) {
      addDay.run(t.stationKey, t.fuel, t.total.day, t.total.weighted, t.total.seconds);
      if (t.cityId && t.total.day < (sealedBefore.get(t.state) ?? NO_DAY_LOWER_BOUND)) widen(resealCities, t.cityId, t.total.day);
    }
    for (const [cityId, days] of resealCities) this.recomputeCityDays('city_id = ?', [cityId], days.from, days.to);
    if (changed) this.bumpDataVersion();
    return result;
  }

  private applyReports(station: StationKeyRow, fuel: number, reports: Report[]): { accepted: number; totals: Map<LocalDay, DayTotal> } {
    const row = this.sql('SELECT price_tenths, available, reported_at, open_from FROM current_prices WHERE station_key = ? AND fuel = ?')
      .get(station.key, fuel) as Row | undefined;
    const current: OpenState | undefined = row
      ? { at: Number(row.reported_at), priceTenths: Number(row.price_tenths), available: row.available === 1, openFrom: Number(row.open_from) }
      : undefined;
    const insertEvent = this.sql('INSERT OR IGNORE INTO price_events (station_key, fuel, at, price_tenths, available) VALUES (?, ?, ?, ?, ?)');
    const fresh: Report[] = [];
    let outOfOrder: number | undefined;
    let lastAt = Number.NEGATIVE_INFINITY;
    for (const report of reports) {
      if (report.at === lastAt) continue; // two reports for one instant in a batch: the first wins
      lastAt = report.at;
      if (insertEvent.run(station.key, fuel, report.at, report.priceTenths, report.available ? 1 : 0).changes === 0) continue;
      fresh.push(report);
      if (current && report.at < current.at && outOfOrder === undefined) outOfOrder = report.at;
    }
    if (fresh.length === 0) return { accepted: 0, totals: new Map() };

    let outcome: { totals: Map<LocalDay, DayTotal>; open: OpenState | undefined };
    if (outOfOrder === undefined || !current) {
      outcome = advance(station.state, current, fresh);
    } else {
      outcome = this.replayFrom(station, fuel, outOfOrder, Math.max(current.openFrom, fresh[fresh.length - 1]?.at ?? 0));
    }
    const open = outcome.open;
    // Keep the seal's invariant: no open interval starts before the state's sealed days end.
    const sealedBefore = this.sealedBefore(station.state);
    const cutoff = sealedBefore === NO_DAY_LOWER_BOUND ? Number.NEGATIVE_INFINITY : dayStart(station.state, sealedBefore);
    if (open && open.openFrom < cutoff) {
      addInterval(outcome.totals, station.state, open.openFrom, cutoff, open);
      open.openFrom = cutoff;
    }
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
  private replayFrom(station: StationKeyRow, fuel: number, earliest: number, closeUntil: number): { totals: Map<LocalDay, DayTotal>; open: OpenState | undefined } {
    const fromDay = localDayOf(station.state, earliest);
    const start = dayStart(station.state, fromDay);
    const inForceRow = this.sql(`SELECT at, price_tenths, available FROM price_events
      WHERE station_key = ? AND fuel = ? AND at <= ? ORDER BY at DESC LIMIT 1`).get(station.key, fuel, start) as Row | undefined;
    const reports = (this.sql(`SELECT at, price_tenths, available FROM price_events
      WHERE station_key = ? AND fuel = ? AND at > ? ORDER BY at`).all(station.key, fuel, start) as Row[]).map(toReport);
    this.sql('DELETE FROM station_daily WHERE station_key = ? AND fuel = ? AND day >= ?').run(station.key, fuel, fromDay);
    return replay(station.state, start, inForceRow ? toReport(inForceRow) : undefined, reports, closeUntil);
  }

  private upsertStation(input: StationInput): { row: StationKeyRow; change: 'added' | 'updated' | 'same' } {
    const existing = this.sql(`SELECT key, id, state, city_id, name, brand, address, street, suburb, postcode, phone, website, latitude, longitude
      FROM stations WHERE feed = ? AND feed_code = ?`).get(input.feed, input.feedCode) as (StationKeyRow & Row) | undefined;
    const latitude = Number(formatCoordinate(input.latitude));
    const longitude = Number(formatCoordinate(input.longitude));
    if (existing) {
      const same = existing.name === input.name && existing.brand === input.brand && existing.address === input.address
        && existing.street === input.street && existing.suburb === input.suburb && existing.postcode === input.postcode
        && existing.phone === input.phone && existing.website === input.website && existing.state === input.state
        && existing.latitude === latitude && existing.longitude === longitude;
      if (same) return { row: existing, change: 'same' };
      const cityId = this.cityFor(input.state, latitude, longitude);
      this.sql(`UPDATE stations SET name = ?, brand = ?, address = ?, street = ?, suburb = ?, postcode = ?, state = ?,
        phone = ?, website = ?, latitude = ?, longitude = ?, city_id = ? WHERE key = ?`)
        .run(input.name, input.brand, input.address, input.street, input.suburb, input.postcode, input.state,
          input.phone, input.website, latitude, longitude, cityId, existing.key);
      return { row: { key: existing.key, id: existing.id, state: input.state, city_id: cityId, latitude, longitude }, change: 'updated' };
    }
    const taken = this.sql('SELECT 1 FROM stations WHERE id = ?');
    const id = uniqueSlug(input.slug, (candidate) => taken.get(candidate) !== undefined);
    const cityId = this.cityFor(input.state, latitude, longitude);
    const info = this.sql(`INSERT INTO stations (id, feed, feed_code, name, brand, address, street, suburb, postcode, state, phone, website,
      latitude, longitude, city_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(id, input.feed, input.feedCode, input.name, input.brand, input.address, input.street, input.suburb, input.postcode,
        input.state, input.phone, input.website, latitude, longitude, cityId);
    return { row: { key: Number(info.lastInsertRowid), id, state: input.state, city_id: cityId, latitude, longitude }, change: 'added' };
  }

  private cityFor(state: StateId, latitude: number, longitude: number): string | null {
    const cities = this.sql('SELECT id, latitude, longitude FROM cities WHERE state = ?').all(state) as Array<{ id: string; latitude: number; longitude: number }>;
    return assignCity(cities, latitude, longitude);
  }

  async seal(nowSec: number): Promise<void> {
    this.db.transaction(() => {
      let changed = false;
      for (const state of STATES) changed = this.sealState(state, nowSec) || changed;
      if (changed) this.bumpDataVersion();
    })();
  }

  /** Closes open intervals up to the start of the state's today and makes the days before it final. */
  private sealState(state: StateId, nowSec: number): boolean {
    const today = localDayOf(state, nowSec);
    const before = this.sealedBefore(state);
    if (today <= before) return false;
    const cutoff = dayStart(state, today);
    const open = this.sql(`SELECT c.station_key, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
      FROM current_prices c JOIN stations s ON s.key = c.station_key WHERE s.state = ? AND c.open_from < ?`).all(state, cutoff) as Row[];
    const addDay = this.sql(`
      INSERT INTO station_daily (station_key, fuel, day, weighted_tenths, seconds) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (station_key, day, fuel) DO UPDATE SET
        weighted_tenths = weighted_tenths + excluded.weighted_tenths, seconds = seconds + excluded.seconds`);
    const move = this.sql('UPDATE current_prices SET open_from = ? WHERE station_key = ? AND fuel = ?');
    for (const row of open) {
      const { totals } = advance(state, { ...toReport({ at: row.reported_at, price_tenths: row.price_tenths, available: row.available }), openFrom: Number(row.open_from) },
        [{ at: cutoff, priceTenths: 0, available: false }]);
      for (const t of totals.values()) addDay.run(row.station_key, row.fuel, t.day, t.weighted, t.seconds);
      move.run(cutoff, row.station_key, row.fuel);
    }
    const firstDay = before === NO_DAY_LOWER_BOUND
      ? (this.sql('SELECT min(d.day) AS d FROM station_daily d JOIN stations s ON s.key = d.station_key WHERE s.state = ?').get(state) as { d: number | null }).d
      : before;
    if (firstDay !== null) this.recomputeCityDays('state = ?', [state], firstDay, today - 1);
    this.sql('INSERT INTO seals (state, sealed_before) VALUES (?, ?) ON CONFLICT (state) DO UPDATE SET sealed_before = excluded.sealed_before')
      .run(state, today);
    return true;
  }

  /** City means of the selected cities for days [from, to], pooled per output fuel, from the stations' days. */
  private recomputeCityDays(citySelector: 'city_id = ?' | 'state = ?', args: string[], from: LocalDay, to: LocalDay): void {
    if (to < from) return;
    const cities = citySelector === 'city_id = ?' ? 's.city_id = ?' : 's.state = ?';
    this.sql(`DELETE FROM city_daily WHERE day BETWEEN ? AND ? AND city_id IN (SELECT id FROM cities WHERE ${citySelector.replace('city_id', 'id')})`)
      .run(from, to, ...args);
    this.sql(`INSERT INTO city_daily (city_id, fuel, day, mean_tenths)
      SELECT s.city_id, g.output, d.day, avg(CAST(d.weighted_tenths AS REAL) / d.seconds)
      FROM stations s JOIN station_daily d ON d.station_key = s.key JOIN fuel_groups g ON g.fuel = d.fuel
      WHERE ${cities} AND s.city_id IS NOT NULL AND d.seconds > 0 AND d.day BETWEEN ? AND ?
      GROUP BY s.city_id, g.output, d.day`).run(...args, from, to);
  }

  async counts(): Promise<{ cities: number; stations: number; prices: number }> {
    const n = (table: string): number => (this.sql(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { cities: n('cities'), stations: n('stations'), prices: n('price_events') };
  }

  async createToken(token: TokenRecord): Promise<void> {
    this.sql('INSERT INTO tokens (id, name, hash, created_at, expires_at, revoked_at, rate_limit) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(token.id, token.name, token.hash, token.createdAt, token.expiresAt, token.revokedAt, token.rateLimit);
  }

  async tokenById(id: string): Promise<TokenRecord | undefined> {
    const row = this.sql('SELECT * FROM tokens WHERE id = ?').get(id) as Row | undefined;
    return row ? toToken(row) : undefined;
  }

  async listTokens(): Promise<TokenRecord[]> {
    return (this.sql('SELECT * FROM tokens ORDER BY created_at, id').all() as Row[]).map(toToken);
  }

  async revokeToken(id: string, atSec: number): Promise<boolean> {
    return this.sql('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(atSec, id).changes > 0;
  }
}

function feedKey(feed: string, code: string): string {
  return `${feed}\u0000${code}`;
}

function widen(ranges: Map<string, { from: LocalDay; to: LocalDay }>, key: string, day: LocalDay): void {
  const range = ranges.get(key);
  if (range) { range.from = Math.min(range.from, day); range.to = Math.max(range.to, day); } else ranges.set(key, { from: day, to: day });
}

function fuelAt(index: unknown): FuelId {
  const fuel = FUELS[Number(index)];
  if (!fuel) throw new Error(`unknown fuel index ${String(index)}`);
  return fuel;
}

function toCity(r: Row): City {
  return {
    id: String(r.id), name: String(r.name), state: r.state as StateId,
    latitude: formatCoordinate(Number(r.latitude)), longitude: formatCoordinate(Number(r.longitude)),
  };
}

function toStation(r: Row): Station {
  return {
    id: String(r.id), name: String(r.name), brand: String(r.brand), address: String(r.address), street: String(r.street),
    suburb: String(r.suburb), postcode: String(r.postcode), state: r.state as StateId, phone: String(r.phone),
    website: String(r.website), latitude: formatCoordinate(Number(r.latitude)), longitude: formatCoordinate(Number(r.longitude)),
  };
}

function toStationDay(stationId: string, r: Row): StationDayRow {
  return { stationId, fuel: fuelAt(r.fuel), day: Number(r.day), weightedTenths: Number(r.weighted_tenths), seconds: Number(r.seconds) };
}

function toCurrent(r: Row): CurrentPrice {
  return {
    stationId: String(r.station_id), fuel: fuelAt(r.fuel), priceTenths: Number(r.price_tenths), available: r.available === 1,
    reportedAt: Number(r.reported_at), openFrom: Number(r.open_from),
  };
}

function toReport(r: Row): Report {
  return { at: Number(r.at), priceTenths: Number(r.price_tenths), available: Number(r.available) === 1 };
}

function toToken(r: Row): TokenRecord {
  const nullable = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  return {
    id: String(r.id), name: String(r.name), hash: r.hash as Buffer, createdAt: Number(r.created_at),
    expiresAt: nullable(r.expires_at), revokedAt: nullable(r.revoked_at), rateLimit: nullable(r.rate_limit),
  };
}
