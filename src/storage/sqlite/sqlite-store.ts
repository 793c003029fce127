import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { FUELS, fuelIndex, outputsOf } from '../../domain/fuels.ts';
import type { StateId } from '../../domain/states.ts';
import { NO_DAY_LOWER_BOUND, UNKNOWN_EXAMPLES, partitionKnown, splitHeld } from '../batch.ts';
import {
  type Row, BUMP_TOKENS_VERSION, FEED_RUN_COLUMNS, STATION_COLUMNS, copySpec, FEED_HEALTH, RUN_LOG_DAYS, feedRunValues, fuelAt, toChunk, toFeedHealth, toFeedRun, toFeedStation, toPending, toCity, toCopyProgress, toCurrent, toStation, toStationDay, toRunRow, toToken, withRunDays, withRunDaysByStation, type RunRow, VERSIONS,
  cityLiveDaySql, citySumsSql, cityTotalsSql, cityOutOfStockSql, onlyLiveDayIsToday, planSealedRead, toFuelSums, toFuelTotals, toLiveDaySums, toOutOfStock,
} from '../rows.ts';
import {
  type Batch, type BatchResult, type City, type CityHistoryParts, type CityInput, type CopyKey, type CopyProgress, type CopyRow,
  type CopyTable, type CurrentPrice, type DayRange, type FuelSums, type FuelTotals, type ListQuery, type ListResult, type OutOfStock, type PriceStore, type Station,
  type StationDayRow, type TableChunk, type TokenRecord, type FeedBatchOptions, type FeedBatchResult, type FeedHealth, type FeedRun, type FeedStation,
} from '../store.ts';
import { SQLITE_MIGRATIONS } from './migrations.ts';
import { SqliteWriter } from './sqlite-writer.ts';
import { type Versions, VersionReuse } from '../versions.ts';

/** The embedded backend: one SQLite file, synchronous underneath, the same contract as PostgreSQL. */
export class SqliteStore implements PriceStore {
  readonly backend = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly writer = new SqliteWriter((text) => this.sql(text));
  private readonly reuse = new VersionReuse();

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
  }

  /** A transaction of this store's; afterwards the versions are read afresh (see versions.ts). */
  private write<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    const run = this.db.transaction(fn);
    return (...args: A): R => {
      try {
        return run(...args);
      } finally {
        this.reuse.forget();
      }
    };
  }

  /**
   * Reads in one deferred transaction: one snapshot (a seal committed by another process between
   * them cannot count an interval twice or not at all), and one lock taken instead of one per read.
   */
  private snapshot<R>(fn: () => R): () => R {
    return this.db.transaction(fn);
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
    this.write(() => {
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

  setVersionReuseMs(ms: number): void {
    this.reuse.setReuseMs(ms);
  }

  versionsNow(): Versions {
    return this.reuse.getNow(() => this.sql(VERSIONS).get() as Versions);
  }

  async versions(): Promise<Versions> {
    return this.versionsNow();
  }

  async dataVersion(): Promise<number> {
    return (this.sql("SELECT value FROM meta WHERE key = 'data_version'").get() as { value: number }).value;
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
    return this.snapshot(() => this.readStationDays(stationId, range))();
  }

  private readStationDays(stationId: string, range: DayRange): StationDayRow[] {
    const station = this.sql('SELECT key, state FROM stations WHERE id = ?').get(stationId) as { key: number; state: StateId } | undefined;
    if (!station) return [];
    const from = range.from ?? NO_DAY_LOWER_BOUND;
    // Rows as arrays (these statements' texts are used here only: raw() stays set on them): no object per row to build and map.
    const rows = this.sql(`SELECT fuel, day, weighted_tenths, seconds FROM station_daily
      WHERE station_key = ? AND day BETWEEN ? AND ? ORDER BY day, fuel`).raw().all(station.key, from, range.to) as Array<[number, number, number, number]>;
    const days = rows.map(([fuel, day, weightedTenths, seconds]) => ({ stationId, fuel: fuelAt(fuel), day, weightedTenths, seconds }));
    const runs = this.sql(`SELECT fuel, from_day, to_day, price_tenths FROM station_runs
      WHERE station_key = ? AND to_day >= ? AND from_day <= ? ORDER BY fuel, to_day`).raw().all(station.key, from, range.to) as RunRow[];
    return withRunDays(stationId, station.state, days, runs, range);
  }

  async currentForStation(stationId: string): Promise<CurrentPrice[]> {
    const rows = this.sql(`
      SELECT s.id AS station_id, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
      FROM stations s JOIN current_prices c ON c.station_key = s.key WHERE s.id = ?`).all(stationId) as Row[];
    return rows.map(toCurrent);
  }

  async currentForCity(cityId: string): Promise<CurrentPrice[]> {
    return this.readCurrentForCity(cityId);
  }

  private readCurrentForCity(cityId: string): CurrentPrice[] {
    const rows = this.sql(`
      SELECT s.id AS station_id, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
      FROM stations s JOIN current_prices c ON c.station_key = s.key
      WHERE s.city_id = ? ORDER BY s.id, c.fuel`).all(cityId) as Row[];
    return rows.map(toCurrent);
  }

  async cityTotals(cityId: string): Promise<FuelTotals[]> {
    return (this.sql(cityTotalsSql('?')).all(cityId) as Row[]).map(toFuelTotals);
  }

  async citySums(cityId: string): Promise<FuelSums[]> {
    return (this.sql(citySumsSql('?')).all(cityId) as Row[]).map(toFuelSums);
  }

  async cityOutOfStock(cityId: string): Promise<OutOfStock[]> {
    return (this.sql(cityOutOfStockSql('?')).all(cityId) as Row[]).map(toOutOfStock);
  }

  async cityHistoryParts(cityId: string, range: DayRange, nowSec?: number, known?: ReadonlyMap<number, number>): Promise<CityHistoryParts> {
    return this.snapshot(() => this.readCityHistoryParts(cityId, range, nowSec, known))();
  }

  private readCityHistoryParts(cityId: string, range: DayRange, nowSec: number | undefined, known: ReadonlyMap<number, number> | undefined): CityHistoryParts {
    const city = this.sql('SELECT state FROM cities WHERE id = ?').get(cityId) as { state: StateId } | undefined;
    const sealedBefore = city ? this.writer.sealedBefore(city.state) : NO_DAY_LOWER_BOUND;
    const from = range.from ?? NO_DAY_LOWER_BOUND;
    const plan = planSealedRead(from, Math.min(range.to, sealedBefore - 1), known && new Map(
      this.sql('SELECT block, mark FROM city_daily_marks WHERE city_id = ?').raw(true).all(cityId) as Array<[number, number]>), known);
    // Rows as arrays (raw): ten years of a city are some 60,000 of them, and named-key objects cost twice as much.
    const read = this.sql('SELECT fuel, day, mean_tenths FROM city_daily WHERE city_id = ? AND day BETWEEN ? AND ?').raw(true);
    const sealed = plan.ranges.flatMap(([low, high]) => (read.all(cityId, low, high) as Array<[number, number, number]>)
      .map(([fuel, day, mean]) => ({ fuel: fuelAt(fuel), day, meanTenths: mean })));
    const blocks = plan.blocks && { blocks: plan.blocks };
    const liveFrom = Math.max(from, sealedBefore);
    const today = city && nowSec !== undefined ? onlyLiveDayIsToday(city.state, liveFrom, range, nowSec) : undefined;
    if (today) {
      const sums = (this.sql(cityLiveDaySql({ city: '@city', day: '@day', start: '@start', now: '@now' }, 'sqlite'))
        .all({ city: cityId, ...today }) as Row[]).map(toLiveDaySums);
      return { sealedBefore, sealed, stationDays: [], current: [], liveDay: { day: today.day, sums }, ...blocks };
    }
    const stationDays = liveFrom > range.to ? [] : withRunDaysByStation((this.sql(`
      SELECT s.id AS station_id, d.fuel, d.day, d.weighted_tenths, d.seconds
      FROM stations s JOIN station_daily d ON d.station_key = s.key
      WHERE s.city_id = ? AND d.day BETWEEN ? AND ? ORDER BY s.id, d.day, d.fuel`).all(cityId, liveFrom, range.to) as Row[])
      .map((r) => toStationDay(String(r.station_id), r)), (this.sql(`
      SELECT s.id AS station_id, s.state, r.fuel, r.from_day, r.to_day, r.price_tenths
      FROM stations s JOIN station_runs r ON r.station_key = s.key
      WHERE s.city_id = ? AND r.to_day >= ? AND r.from_day <= ? ORDER BY s.id, r.fuel, r.to_day`).all(cityId, liveFrom, range.to) as Row[])
      .map((r) => ({ stationId: String(r.station_id), state: r.state as StateId, run: toRunRow(r) })),
    { from: liveFrom, to: range.to });
    return { sealedBefore, sealed, stationDays, current: this.readCurrentForCity(cityId), ...blocks };
  }

  async upsertCities(cities: CityInput[]): Promise<void> {
    const upsert = this.sql(`
      INSERT INTO cities (id, name, state, latitude, longitude) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET name = excluded.name, state = excluded.state,
        latitude = excluded.latitude, longitude = excluded.longitude`);
    this.write(() => {
      for (const c of cities) upsert.run(c.id, c.name, c.state, c.latitude, c.longitude);
      this.writer.bumpDataVersion();
    })();
  }

  async applyBatch(batch: Batch): Promise<BatchResult> {
    return this.write(() => this.writer.applyBatch(batch))();
  }

  async seal(nowSec: number): Promise<void> {
    this.write(() => this.writer.seal(nowSec))();
  }

  async applyFeedBatch(batch: Batch, options: FeedBatchOptions): Promise<FeedBatchResult> {
    return this.write(() => {
      const { due, held } = splitHeld(batch.prices, options.now);
      const hold = this.sql(`INSERT INTO pending_prices (feed, feed_code, fuel, at, price_tenths, available) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT DO NOTHING`);
      let pricesHeld = 0;
      for (const p of held) pricesHeld += hold.run(p.feed, p.feedCode, fuelIndex(p.fuel), p.at, p.priceTenths, p.available ? 1 : 0).changes;
      const released = (this.sql('SELECT * FROM pending_prices WHERE at <= ? ORDER BY at, feed, feed_code, fuel').all(options.now) as Row[]).map(toPending);
      if (released.length > 0) this.sql('DELETE FROM pending_prices WHERE at <= ?').run(options.now);
      const stored = this.sql('SELECT 1 FROM stations WHERE feed = ? AND feed_code = ?');
      const { kept, unknown } = partitionKnown([...released, ...due], batch.stations, (feed, code) => stored.get(feed, code) !== undefined);
      const result = this.writer.applyBatch({ stations: batch.stations, prices: kept });
      if (options.cursor) {
        this.sql(`INSERT INTO feed_cursors (key, value, updated_at) VALUES (?, ?, ?)
          ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`).run(options.cursor.key, options.cursor.value, options.now);
      }
      return { ...result, pricesHeld, pricesReleased: released.length, unknownStation: unknown.slice(0, UNKNOWN_EXAMPLES), unknownStationCount: unknown.length };
    })();
  }

  async feedCursor(key: string): Promise<string | undefined> {
    const row = this.sql('SELECT value FROM feed_cursors WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  async feedStations(feed: string): Promise<FeedStation[]> {
    return (this.sql('SELECT id, feed_code, name, brand, address, suburb, postcode, state FROM stations WHERE feed = ? ORDER BY key').all(feed) as Row[])
      .map(toFeedStation);
  }

  async recordRun(run: FeedRun): Promise<void> {
    this.write(() => {
      this.sql(`INSERT INTO feed_runs (${FEED_RUN_COLUMNS.join(', ')}) VALUES (${FEED_RUN_COLUMNS.map(() => '?').join(', ')})`).run(...feedRunValues(run));
      this.sql('DELETE FROM feed_runs WHERE finished_at < ?').run(run.finishedAt - RUN_LOG_DAYS * 86_400);
    })();
  }

  async feedRuns(query: { feed?: string; limit: number }): Promise<FeedRun[]> {
    const found = query.feed === undefined
      ? this.sql('SELECT * FROM feed_runs ORDER BY id DESC LIMIT ?').all(query.limit)
      : this.sql('SELECT * FROM feed_runs WHERE feed = ? ORDER BY id DESC LIMIT ?').all(query.feed, query.limit);
    return (found as Row[]).map(toFeedRun);
  }

  async feedHealth(): Promise<FeedHealth[]> {
    return (this.sql(FEED_HEALTH).all() as Row[]).map(toFeedHealth);
  }


  async counts(): Promise<{ cities: number; stations: number; prices: number }> {
    const n = (table: string): number => (this.sql(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { cities: n('cities'), stations: n('stations'), prices: n('price_events') };
  }

  async createToken(token: TokenRecord): Promise<void> {
    this.write(() => {
      this.sql('INSERT INTO tokens (id, name, hash, created_at, expires_at, revoked_at, rate_limit) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(token.id, token.name, token.hash, token.createdAt, token.expiresAt, token.revokedAt, token.rateLimit);
      this.sql(BUMP_TOKENS_VERSION).run();
    })();
  }

  async tokenById(id: string): Promise<TokenRecord | undefined> {
    const row = this.sql('SELECT * FROM tokens WHERE id = ?').get(id) as Row | undefined;
    return row ? toToken(row) : undefined;
  }

  async listTokens(): Promise<TokenRecord[]> {
    return (this.sql('SELECT * FROM tokens ORDER BY created_at, id').all() as Row[]).map(toToken);
  }

  async revokeToken(id: string, atSec: number): Promise<boolean> {
    return this.write(() => {
      const revoked = this.sql('UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(atSec, id).changes > 0;
      if (revoked) this.sql(BUMP_TOKENS_VERSION).run();
      return revoked;
    })();
  }

  async exportTable(table: CopyTable, after: CopyKey | undefined, limit: number): Promise<TableChunk> {
    const { columns, key } = copySpec(table);
    const where = after === undefined ? '' : `WHERE (${key.join(', ')}) > (${key.map(() => '?').join(', ')})`;
    const found = this.sql(`SELECT ${columns.join(', ')} FROM ${table} ${where} ORDER BY ${key.join(', ')} LIMIT ?`)
      .all(...(after ?? []), limit) as Row[];
    return toChunk(table, found);
  }

  async importRows(table: CopyTable, rows: readonly CopyRow[], progress: CopyProgress): Promise<number> {
    const { columns, key } = copySpec(table);
    const onConflict = table === 'meta' ? 'ON CONFLICT (key) DO UPDATE SET value = excluded.value' : `ON CONFLICT (${key.join(', ')}) DO NOTHING`;
    const insert = this.sql(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ${onConflict}`);
    return this.write(() => {
      let added = 0;
      for (const row of rows) added += insert.run(...columns.map((c) => row[c] ?? null)).changes;
      this.sql(`INSERT INTO copy_progress (table_name, source, after_key, rows, done) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (table_name) DO UPDATE SET source = excluded.source, after_key = excluded.after_key, rows = excluded.rows, done = excluded.done`)
        .run(progress.table, progress.source, progress.after === undefined ? null : JSON.stringify(progress.after), progress.rows, progress.done ? 1 : 0);
      return added;
    })();
  }

  async tableCount(table: CopyTable): Promise<number> {
    copySpec(table);
    return (this.sql(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  }

  async copyProgress(): Promise<CopyProgress[]> {
    return (this.sql('SELECT table_name, source, after_key, rows, done FROM copy_progress ORDER BY table_name').all() as Row[]).map(toCopyProgress);
  }
}
