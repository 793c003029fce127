import type pg from 'pg';
import { FUELS, fuelIndex, outputsOf } from '../../domain/fuels.ts';
import type { StateId } from '../../domain/states.ts';
import { NO_DAY_LOWER_BOUND, UNKNOWN_EXAMPLES, feedKey, partitionKnown, splitHeld } from '../batch.ts';
import {
  type Row, BUMP_TOKENS_VERSION, FEED_RUN_COLUMNS, STATION_COLUMNS, copySpec, FEED_HEALTH, RUN_LOG_DAYS, feedRunValues, fuelAt, toChunk, toFeedHealth, toFeedRun, toFeedStation, toPending, toCity, toCopyProgress, toCurrent, toStation, toStationDay, toRunRow, toToken, withRunDays, withRunDaysByStation, VERSIONS,
  cityLiveDaySql, citySumsSql, cityTotalsSql, cityOutOfStockSql, onlyLiveDayIsToday, planSealedRead, toFuelSums, toFuelTotals, toLiveDaySums, toOutOfStock,
} from '../rows.ts';
import {
  type Batch, type BatchResult, type City, type CityHistoryParts, type CityInput, type CopyKey, type CopyProgress, type CopyRow,
  type CopyTable, type CurrentPrice, type DayRange, type FuelSums, type FuelTotals, type ListQuery, type ListResult, type OutOfStock, type PriceStore, type Station,
  type StationDayRow, type TableChunk, type TokenRecord, FLAG_COLUMNS, type FeedBatchOptions, type FeedBatchResult, type FeedHealth, type FeedRun,
  type FeedStation,
} from '../store.ts';
import { POSTGRES_MIGRATIONS } from './migrations.ts';
import { type Params, type PoolOptions, type Queryable, StoreClosedError, createPool, execute, firstRow, rows, transaction } from './pool.ts';
import { applyBatchIn, bumpDataVersion, sealIn } from './postgres-writer.ts';
import { type Versions, VersionReuse } from '../versions.ts';

/**
 * The scale-out backend: any number of API and ingest processes share one PostgreSQL
 * database. The same contract, and the same answers byte for byte, as the SQLite store.
 */
export class PostgresStore implements PriceStore {
  readonly backend = 'postgres' as const;
  private readonly pool: pg.Pool;
  private closed = false;
  private readonly reuse = new VersionReuse();

  constructor(options: PoolOptions) {
    this.pool = createPool(options);
  }

  /** The pool, or the error a closed store answers with (mapped to 503 like an unreachable server). */
  private db(): pg.Pool {
    if (this.closed) throw new StoreClosedError();
    return this.pool;
  }

  /** A writer transaction; afterwards the versions are read afresh (see versions.ts). */
  private async write<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    try {
      return await transaction(this.db(), 'writer', work);
    } finally {
      this.reuse.forget();
    }
  }

  private rows(text: string, params: Params = []): Promise<Row[]> {
    return rows(this.db(), text, params);
  }

  private firstRow(text: string, params: Params = []): Promise<Row | undefined> {
    return firstRow(this.db(), text, params);
  }

  async migrate(): Promise<void> {
    await transaction(this.db(), 'migration', async (client) => {
      // No DDL unless there is something to do: a role with only SELECT, INSERT, UPDATE and
      // DELETE (least privilege for serve and ingest) can open an up-to-date database.
      const exists = (await firstRow(client, "SELECT to_regclass('schema_migrations') IS NOT NULL AS e"))?.e === true;
      if (!exists) {
        await execute(client, `CREATE TABLE schema_migrations (
          version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      }
      const version = Number((await firstRow(client, 'SELECT coalesce(max(version), 0) AS v FROM schema_migrations'))?.v ?? 0);
      if (version > POSTGRES_MIGRATIONS.length) {
        throw new Error(`database schema version ${version} is newer than this program knows (${POSTGRES_MIGRATIONS.length})`);
      }
      for (let v = version; v < POSTGRES_MIGRATIONS.length; v++) {
        await client.query(POSTGRES_MIGRATIONS[v] ?? '');
        await execute(client, 'INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
      }
      const groups = FUELS.flatMap((fuel) => outputsOf(fuel).map((output) => [fuelIndex(fuel), fuelIndex(output)] as const));
      const stored = Number((await firstRow(client, 'SELECT count(*) AS n FROM fuel_groups'))?.n ?? 0);
      if (stored !== groups.length) {
        await execute(client, `INSERT INTO fuel_groups (fuel, output) SELECT * FROM unnest($1::smallint[], $2::smallint[])
          ON CONFLICT DO NOTHING`, [groups.map((g) => g[0]), groups.map((g) => g[1])]);
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  async ping(): Promise<void> {
    await this.rows('SELECT 1');
  }

  async dataVersion(): Promise<number> {
    return Number((await this.firstRow("SELECT value FROM meta WHERE key = 'data_version'"))?.value);
  }

  async listCities(query: ListQuery): Promise<ListResult<City>> {
    const total = await this.firstRow('SELECT count(*) AS n FROM cities WHERE $1::text IS NULL OR state = $1', [query.state ?? null]);
    const page = await this.rows(`SELECT id, name, state, latitude, longitude FROM cities WHERE $1::text IS NULL OR state = $1
      ORDER BY id COLLATE "C" LIMIT $2 OFFSET $3`, [query.state ?? null, query.limit, query.offset]);
    return { items: page.map(toCity), total: Number(total?.n) };
  }

  async city(id: string): Promise<City | undefined> {
    if (!storable(id)) return undefined;
    const row = await this.firstRow('SELECT id, name, state, latitude, longitude FROM cities WHERE id = $1', [id]);
    return row ? toCity(row) : undefined;
  }

  async listStations(query: ListQuery): Promise<ListResult<Station>> {
    const total = await this.firstRow('SELECT count(*) AS n FROM stations WHERE $1::text IS NULL OR state = $1', [query.state ?? null]);
    const page = await this.rows(`SELECT ${STATION_COLUMNS} FROM stations WHERE $1::text IS NULL OR state = $1
      ORDER BY id COLLATE "C" LIMIT $2 OFFSET $3`, [query.state ?? null, query.limit, query.offset]);
    return { items: page.map(toStation), total: Number(total?.n) };
  }

  async station(id: string): Promise<Station | undefined> {
    if (!storable(id)) return undefined;
    const row = await this.firstRow(`SELECT ${STATION_COLUMNS} FROM stations WHERE id = $1`, [id]);
    return row ? toStation(row) : undefined;
  }

  async stationDays(stationId: string, range: DayRange): Promise<StationDayRow[]> {
    if (!storable(stationId)) return [];
    const from = range.from ?? NO_DAY_LOWER_BOUND;
    return transaction(this.db(), 'snapshot', async (client) => {
      const station = await firstRow(client, 'SELECT key, state FROM stations WHERE id = $1', [stationId]);
      if (!station) return [];
      const found = await rows(client, `SELECT fuel, day, weighted_tenths, seconds FROM station_daily
        WHERE station_key = $1 AND day BETWEEN $2 AND $3 ORDER BY day, fuel`, [station.key, from, range.to]);
      const runs = await rows(client, `SELECT fuel, from_day, to_day, price_tenths FROM station_runs
        WHERE station_key = $1 AND to_day >= $2 AND from_day <= $3 ORDER BY fuel, to_day`, [station.key, from, range.to]);
      return withRunDays(stationId, station.state as StateId, found.map((r) => toStationDay(stationId, r)), runs.map(toRunRow), range);
    });
  }

  async currentForStation(stationId: string): Promise<CurrentPrice[]> {
    if (!storable(stationId)) return [];
    const found = await this.rows(`
      SELECT s.id AS station_id, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
      FROM stations s JOIN current_prices c ON c.station_key = s.key WHERE s.id = $1 ORDER BY c.fuel`, [stationId]);
    return found.map(toCurrent);
  }

  async currentForCity(cityId: string): Promise<CurrentPrice[]> {
    if (!storable(cityId)) return [];
    return currentForCity(this.db(), cityId);
  }

  async cityTotals(cityId: string): Promise<FuelTotals[]> {
    if (!storable(cityId)) return [];
    return (await this.rows(cityTotalsSql('$1'), [cityId])).map(toFuelTotals);
  }

  async citySums(cityId: string): Promise<FuelSums[]> {
    if (!storable(cityId)) return [];
    return (await this.rows(citySumsSql('$1'), [cityId])).map(toFuelSums);
  }

  async cityOutOfStock(cityId: string): Promise<OutOfStock[]> {
    if (!storable(cityId)) return [];
    return (await this.rows(cityOutOfStockSql('$1'), [cityId])).map(toOutOfStock);
  }

  async cityHistoryParts(cityId: string, range: DayRange, nowSec?: number, known?: ReadonlyMap<number, number>): Promise<CityHistoryParts> {
    if (!storable(cityId)) return { sealedBefore: 0, sealed: [], stationDays: [], current: [] };
    // One snapshot: a seal between the reads would otherwise count an interval twice or not at all.
    return transaction(this.db(), 'snapshot', async (client) => {
      const city = await firstRow(client, `SELECT c.state, coalesce(l.sealed_before, $2) AS sealed_before
        FROM cities c LEFT JOIN seals l ON l.state = c.state WHERE c.id = $1`, [cityId, NO_DAY_LOWER_BOUND]);
      const sealedBefore = city ? Number(city.sealed_before) : 0;
      const from = range.from ?? NO_DAY_LOWER_BOUND;
      const marks = known && new Map((await rows(client, 'SELECT block, mark FROM city_daily_marks WHERE city_id = $1', [cityId]))
        .map((r) => [Number(r.block), Number(r.mark)]));
      const plan = planSealedRead(from, Math.min(range.to, sealedBefore - 1), marks, known);
      const sealed: CityHistoryParts['sealed'] = [];
      for (const [low, high] of plan.ranges) {
        for (const r of await rows(client, `SELECT fuel, day, mean_tenths FROM city_daily
          WHERE city_id = $1 AND day BETWEEN $2 AND $3 ORDER BY day, fuel`, [cityId, low, high])) {
          sealed.push({ fuel: fuelAt(r.fuel), day: Number(r.day), meanTenths: Number(r.mean_tenths) });
        }
      }
      const blocks = plan.blocks && { blocks: plan.blocks };
      const liveFrom = Math.max(from, sealedBefore);
      const today = city && nowSec !== undefined ? onlyLiveDayIsToday(city.state as StateId, liveFrom, range, nowSec) : undefined;
      if (today) {
        const sums = (await rows(client, cityLiveDaySql({ city: '$1', day: '$2', start: '$3', now: '$4' }, 'postgres'),
          [cityId, today.day, today.start, today.now])).map(toLiveDaySums);
        return { sealedBefore, sealed, stationDays: [], current: [], liveDay: { day: today.day, sums }, ...blocks };
      }
      const stationDays = liveFrom > range.to ? [] : withRunDaysByStation((await rows(client, `
        SELECT s.id AS station_id, d.fuel, d.day, d.weighted_tenths, d.seconds
        FROM stations s JOIN station_daily d ON d.station_key = s.key
        WHERE s.city_id = $1 AND d.day BETWEEN $2 AND $3 ORDER BY s.id COLLATE "C", d.day, d.fuel`, [cityId, liveFrom, range.to]))
        .map((r) => toStationDay(String(r.station_id), r)), (await rows(client, `
        SELECT s.id AS station_id, s.state, r.fuel, r.from_day, r.to_day, r.price_tenths
        FROM stations s JOIN station_runs r ON r.station_key = s.key
        WHERE s.city_id = $1 AND r.to_day >= $2 AND r.from_day <= $3 ORDER BY s.id COLLATE "C", r.fuel, r.to_day`, [cityId, liveFrom, range.to]))
        .map((r) => ({ stationId: String(r.station_id), state: r.state as StateId, run: toRunRow(r) })),
      { from: liveFrom, to: range.to });
      return { sealedBefore, sealed, stationDays, current: await currentForCity(client, cityId), ...blocks };
    });
  }

  async upsertCities(cities: CityInput[]): Promise<void> {
    await this.write(async (client) => {
      await execute(client, `
        INSERT INTO cities (id, name, state, latitude, longitude)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::double precision[], $5::double precision[])
        ON CONFLICT (id) DO UPDATE SET name = excluded.name, state = excluded.state,
          latitude = excluded.latitude, longitude = excluded.longitude`,
      [cities.map((c) => c.id), cities.map((c) => c.name), cities.map((c) => c.state), cities.map((c) => c.latitude), cities.map((c) => c.longitude)]);
      await bumpDataVersion(client);
    });
  }

  async applyBatch(batch: Batch): Promise<BatchResult> {
    return this.write((client) => applyBatchIn(client, batch));
  }

  async seal(nowSec: number): Promise<void> {
    await this.write((client) => sealIn(client, nowSec));
  }

  async applyFeedBatch(batch: Batch, options: FeedBatchOptions): Promise<FeedBatchResult> {
    return this.write(async (client) => {
      const { due, held } = splitHeld(batch.prices, options.now);
      const pricesHeld = held.length === 0 ? 0 : await execute(client, `
        INSERT INTO pending_prices (feed, feed_code, fuel, at, price_tenths, available)
        SELECT * FROM unnest($1::text[], $2::text[], $3::smallint[], $4::bigint[], $5::integer[], $6::boolean[]) ON CONFLICT DO NOTHING`,
      [held.map((p) => p.feed), held.map((p) => p.feedCode), held.map((p) => fuelIndex(p.fuel)), held.map((p) => p.at),
        held.map((p) => p.priceTenths), held.map((p) => p.available)]);
      const released = (await rows(client, `DELETE FROM pending_prices WHERE at <= $1 RETURNING *`, [options.now]))
        .map(toPending).sort((a, b) => a.at - b.at || compare(a.feed, b.feed) || compare(a.feedCode, b.feedCode) || fuelIndex(a.fuel) - fuelIndex(b.fuel));
      const prices = [...released, ...due];
      const codes = [...new Set(prices.map((p) => feedKey(p.feed, p.feedCode)))].map((k) => k.split('\u0000'));
      const stored = new Set((await rows(client, `SELECT s.feed, s.feed_code FROM stations s
        JOIN unnest($1::text[], $2::text[]) AS q (feed, feed_code) ON s.feed = q.feed AND s.feed_code = q.feed_code`,
      [codes.map((c) => c[0]), codes.map((c) => c[1])])).map((r) => feedKey(String(r.feed), String(r.feed_code))));
      const { kept, unknown } = partitionKnown(prices, batch.stations, (feed, code) => stored.has(feedKey(feed, code)));
      const result = await applyBatchIn(client, { stations: batch.stations, prices: kept });
      if (options.cursor) {
        await execute(client, `INSERT INTO feed_cursors (key, value, updated_at) VALUES ($1, $2, $3)
          ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, [options.cursor.key, options.cursor.value, options.now]);
      }
      return { ...result, pricesHeld, pricesReleased: released.length, unknownStation: unknown.slice(0, UNKNOWN_EXAMPLES), unknownStationCount: unknown.length };
    });
  }

  async feedCursor(key: string): Promise<string | undefined> {
    if (!storable(key)) return undefined;
    const row = await this.firstRow('SELECT value FROM feed_cursors WHERE key = $1', [key]);
    return row === undefined ? undefined : String(row.value);
  }

  async feedStations(feed: string): Promise<FeedStation[]> {
    return (await this.rows('SELECT id, feed_code, name, brand, address, suburb, postcode, state FROM stations WHERE feed = $1 ORDER BY key', [feed]))
      .map(toFeedStation);
  }

  async recordRun(run: FeedRun): Promise<void> {
    await this.write(async (client) => {
      await execute(client, `INSERT INTO feed_runs (${FEED_RUN_COLUMNS.join(', ')}) VALUES (${FEED_RUN_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
        feedRunValues(run));
      await execute(client, 'DELETE FROM feed_runs WHERE finished_at < $1', [run.finishedAt - RUN_LOG_DAYS * 86_400]);
    });
  }

  async feedRuns(query: { feed?: string; limit: number }): Promise<FeedRun[]> {
    const found = query.feed === undefined
      ? await this.rows('SELECT * FROM feed_runs ORDER BY id DESC LIMIT $1', [query.limit])
      : await this.rows('SELECT * FROM feed_runs WHERE feed = $1 ORDER BY id DESC LIMIT $2', [query.feed, query.limit]);
    return found.map(toFeedRun);
  }

  async feedHealth(): Promise<FeedHealth[]> {
    return (await this.rows(FEED_HEALTH)).map(toFeedHealth);
  }


  async counts(): Promise<{ cities: number; stations: number; prices: number }> {
    const row = await this.firstRow(`SELECT (SELECT count(*) FROM cities) AS cities, (SELECT count(*) FROM stations) AS stations,
      (SELECT count(*) FROM price_events) AS prices`);
    return { cities: Number(row?.cities), stations: Number(row?.stations), prices: Number(row?.prices) };
  }

  async createToken(token: TokenRecord): Promise<void> {
    await this.write(async (client) => {
      await execute(client, 'INSERT INTO tokens (id, name, hash, created_at, expires_at, revoked_at, rate_limit) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [token.id, token.name, token.hash, token.createdAt, token.expiresAt, token.revokedAt, token.rateLimit]);
      await execute(client, BUMP_TOKENS_VERSION);
    });
  }

  setVersionReuseMs(ms: number): void {
    this.reuse.setReuseMs(ms);
  }

  versionsNow(): Versions | undefined {
    return this.reuse.peek();
  }

  async versions(): Promise<Versions> {
    return this.reuse.get(async () => {
      const row = await this.firstRow(VERSIONS);
      return { data: Number(row?.data), tokens: Number(row?.tokens) };
    });
  }

  async tokenById(id: string): Promise<TokenRecord | undefined> {
    if (!storable(id)) return undefined;
    const row = await this.firstRow('SELECT * FROM tokens WHERE id = $1', [id]);
    return row ? toToken(row) : undefined;
  }

  async listTokens(): Promise<TokenRecord[]> {
    return (await this.rows('SELECT * FROM tokens ORDER BY created_at, id COLLATE "C"')).map(toToken);
  }

  async revokeToken(id: string, atSec: number): Promise<boolean> {
    if (!storable(id)) return false;
    return this.write(async (client) => {
      const revoked = (await execute(client, 'UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [atSec, id])) > 0;
      if (revoked) await execute(client, BUMP_TOKENS_VERSION);
      return revoked;
    });
  }

  async exportTable(table: CopyTable, after: CopyKey | undefined, limit: number): Promise<TableChunk> {
    const { columns, key } = copySpec(table);
    const type = (column: string): string => pgType(table, column);
    // Text keys in byte order ("C"), the order SQLite's BINARY collation gives, so both backends page alike.
    const keyed = key.map((c) => (type(c) === 'text' ? `${c} COLLATE "C"` : c));
    const where = after === undefined ? '' : `WHERE (${keyed.join(', ')}) > (${key.map((c, i) => `$${i + 1}::${type(c)}`).join(', ')})`;
    const params = [...(after ?? []), limit];
    const found = await this.rows(`SELECT ${columns.join(', ')} FROM ${table} ${where} ORDER BY ${keyed.join(', ')} LIMIT $${params.length}`, params);
    return toChunk(table, found);
  }

  async importRows(table: CopyTable, rows: readonly CopyRow[], progress: CopyProgress): Promise<number> {
    const { columns, key } = copySpec(table);
    const onConflict = table === 'meta' ? 'ON CONFLICT (key) DO UPDATE SET value = excluded.value' : `ON CONFLICT (${key.join(', ')}) DO NOTHING`;
    // One array per column: any number of rows in one statement, far below the parameter limit.
    const arrays = columns.map((c) => rows.map((row) => {
      const value = row[c] ?? null;
      return FLAG_COLUMNS.has(c) && value !== null ? value === 1 : value;
    }));
    return this.write(async (client) => {
      const added = rows.length === 0 ? 0 : await execute(client, `INSERT INTO ${table} (${columns.join(', ')})
        ${table === 'stations' ? 'OVERRIDING SYSTEM VALUE' : ''}
        SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${pgType(table, c)}[]`).join(', ')}) ${onConflict}`, arrays);
      if (table === 'stations') {
        // Keys were copied, not generated: new stations must be numbered after them.
        await execute(client, "SELECT setval(pg_get_serial_sequence('stations', 'key'), coalesce(max(key), 0) + 1, false) FROM stations");
      }
      await execute(client, `INSERT INTO copy_progress (table_name, source, after_key, rows, done) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (table_name) DO UPDATE SET source = excluded.source, after_key = excluded.after_key, rows = excluded.rows, done = excluded.done`,
      [progress.table, progress.source, progress.after === undefined ? null : JSON.stringify(progress.after), progress.rows, progress.done]);
      return added;
    });
  }

  async tableCount(table: CopyTable): Promise<number> {
    copySpec(table);
    return Number((await this.firstRow(`SELECT count(*) AS n FROM ${table}`))?.n);
  }

  async copyProgress(): Promise<CopyProgress[]> {
    return (await this.rows('SELECT table_name, source, after_key, rows, done FROM copy_progress ORDER BY table_name COLLATE "C"')).map(toCopyProgress);
  }
}

/** Byte order, as SQLite sorts text: held prices are released in the same order on both backends. */
function compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** PostgreSQL text cannot hold NUL: an id with one names nothing stored (SQLite would just find no row). */
function storable(id: string): boolean {
  return !id.includes('\u0000');
}

function currentForCity(db: Queryable, cityId: string): Promise<CurrentPrice[]> {
  return rows(db, `
    SELECT s.id AS station_id, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
    FROM stations s JOIN current_prices c ON c.station_key = s.key
    WHERE s.city_id = $1 ORDER BY s.id COLLATE "C", c.fuel`, [cityId]).then((found) => found.map(toCurrent));
}

/** The PostgreSQL type of a column a copy moves (see migrations.ts). */
function pgType(table: CopyTable, column: string): string {
  const type = table === 'stations' && column === 'key' ? 'integer'
    : table === 'feed_cursors' && column === 'value' ? 'text' : PG_TYPES[column];
  if (!type) throw new Error(`no PostgreSQL type known for ${table}.${column}`);
  return type;
}

const PG_TYPES: Readonly<Record<string, string>> = {
  key: 'text', value: 'bigint', id: 'text', name: 'text', state: 'text', latitude: 'double precision', longitude: 'double precision',
  feed: 'text', feed_code: 'text', brand: 'text', address: 'text', street: 'text', suburb: 'text', postcode: 'text', phone: 'text',
  website: 'text', city_id: 'text', station_key: 'integer', fuel: 'smallint', at: 'bigint', price_tenths: 'integer', available: 'boolean',
  reported_at: 'bigint', open_from: 'bigint', day: 'integer', from_day: 'integer', to_day: 'integer', weighted_tenths: 'bigint', seconds: 'integer', mean_tenths: 'double precision',
  sealed_before: 'integer', hash: 'bytea', created_at: 'bigint', updated_at: 'bigint', expires_at: 'bigint', revoked_at: 'bigint', rate_limit: 'integer',
};
