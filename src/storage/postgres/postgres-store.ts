import type pg from 'pg';
import { type PriceOrder, rankedPage } from '../../domain/cheapest.ts';
import { FUELS, type FuelId, fuelIndex, outputsOf } from '../../domain/fuels.ts';
import type { StateId } from '../../domain/states.ts';
import { onlyLiveDayIsToday, planSealedRead } from '../history-reads.ts';
import { toRunRow, withRunDays, withRunDaysByStation } from '../run-days.ts';
import { copySpec, countSql, exportSql, importBulk, toChunk, toCopyProgress } from '../sql/copy-tables.ts';
import { POSTGRES_DIALECT, type Row } from '../sql/dialect.ts';
import {
  feedRunValues, fuelAt, toCity, toCurrent, toFeedCounts, toFeedHealth, toFeedRun, toFeedStation, toFuelSums, toFuelTotals, toLiveDaySums,
  toBrandCount, toHeldPrice, toOutOfStock, toPending, toFuelPriceRow, toPoint, toPositionRow, toPricedStation, toStation, toStationDay, toStationPrices, toToken,
} from '../sql/row-mappers.ts';
import { NearbyCache, type Positions, indexedNearestPage, nearestPage, nearestResult, onlyNear } from '../nearest.ts';
import { BULK, INGEST_STATEMENTS as INGEST, RUN_LOG_DAYS, copyStatements, readStatements, stationFilter, tokenStatements } from '../sql/statements.ts';
import { brandNames, brandPage } from '../brands.ts';
import type {
  Batch, BatchResult, Brand, City, CityHistoryParts, CityInput, CopyKey, CopyProgress, CopyRow, CopyTable, CurrentPrice, DayRange,
  FeedBatchOptions, FeedBatchResult, FeedCounts, FeedHealth, FeedRun, FeedStation, FuelSums, FuelTotals, ListQuery, ListResult, ListedStation, Migration, OutOfStock,
  CheapestPage, HeldPrice, PoolStats, PriceArea, PriceDay, PriceStore, RankedPrice, Station, StationDayRow, StationListQuery, StationPrices, TableChunk, TokenRecord,
} from '../store.ts';
import { type Versions, VersionReuse } from '../versions.ts';
import { NO_DAY_LOWER_BOUND, UNKNOWN_EXAMPLES, feedKey, partitionKnown, sortReleased, splitHeld } from '../writer/batch-plan.ts';
import {
  type Params, type PoolOptions, type Queryable, StoreClosedError, bulkInsert, createPool, execute, firstRow, rows, transaction,
} from './postgres-connection.ts';
import { rankedTomorrow } from '../../domain/tomorrow.ts';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.ts';
import { applyBatchIn, bumpDataVersion, sealIn } from './postgres-writer.ts';

const READ = readStatements(POSTGRES_DIALECT);
const TOKENS = tokenStatements(POSTGRES_DIALECT);
const COPY = copyStatements(POSTGRES_DIALECT);

/**
 * The scale-out backend: any number of API and ingest processes share one PostgreSQL
 * database. The same contract, and the same answers byte for byte, as the SQLite store.
 */
export class PostgresStore implements PriceStore {
  readonly backend = 'postgres' as const;
  private readonly pool: pg.Pool;
  private closed = false;
  private readonly reuse = new VersionReuse();
  /** Positions and fuel prices for near searches, per data version (storage/nearest.ts). */
  private readonly nearby = new NearbyCache();

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

  async migrate(): Promise<Migration> {
    return transaction(this.db(), 'migration', async (client) => {
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
        await bulkInsert(client, BULK.fuelGroups, [groups.map((g) => g[0]), groups.map((g) => g[1])]);
      }
      return { from: version, to: POSTGRES_MIGRATIONS.length };
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  async ping(): Promise<void> {
    await this.rows(READ.ping);
  }

  async dataVersion(): Promise<number> {
    return Number((await this.firstRow(READ.dataVersion))?.value);
  }

  async listCities(query: ListQuery): Promise<ListResult<City>> {
    const [count, page, filter] = query.state
      ? [READ.countCitiesInState, READ.citiesPageInState, [query.state]] : [READ.countCities, READ.citiesPage, []];
    const total = await this.firstRow(count, filter);
    return { items: (await this.rows(page, [...filter, query.limit, query.offset])).map(toCity), total: Number(total?.n) };
  }

  async city(id: string): Promise<City | undefined> {
    if (!storable(id)) return undefined;
    const row = await this.firstRow(READ.city, [id]);
    return row ? toCity(row) : undefined;
  }

  async listStations(query: StationListQuery): Promise<ListResult<ListedStation>> {
    const names = query.brand === undefined ? undefined : brandNames((await this.rows(READ.brandCounts, [])).map(toBrandCount), query.brand);
    if (names?.length === 0) return { items: [], total: 0 };
    if (query.near && onlyNear(query)) {
      const nearest = indexedNearestPage(await this.positions(), query.near, query.limit, query.offset);
      return nearestResult(nearest, await this.byIds(nearest.ids));
    }
    const { count, page, points, params } = READ.stationList(stationFilter(query, names));
    if (query.near) {
      const nearest = nearestPage((await this.rows(points, params)).map(toPoint), query.near, query.limit, query.offset);
      return nearestResult(nearest, await this.byIds(nearest.ids));
    }
    const total = await this.firstRow(count, params);
    return { items: (await this.rows(page, [...params, query.limit, query.offset])).map(toStation), total: Number(total?.n) };
  }

  /** Kept for the data version (NearbyCache): a near page's stations are read once, not on every request. */
  private async byIds(ids: readonly string[]): Promise<Station[]> {
    const known = ids.filter(storable);
    if (known.length === 0) return [];
    const version = (await this.versions()).data;
    const { kept, missing } = this.nearby.keptStations(version, known);
    if (missing.length === 0) return kept;
    const read = (await this.rows(READ.stationsByIds(missing.length), missing)).map(toStation);
    this.nearby.keepStations(version, read);
    return kept.concat(read);
  }

  async cheapest(fuel: FuelId, area: PriceArea, order: PriceOrder, limit: number, offset: number, day: PriceDay = 'today'): Promise<CheapestPage> {
    const output = fuelIndex(fuel);
    if (day === 'tomorrow') {
      const held = 'city' in area ? (storable(area.city) ? await this.rows(READ.cityHeldPrices, [output, area.city]) : [])
        : 'state' in area ? await this.rows(READ.stateHeldPrices, [output, area.state]) : await this.rows(READ.positionedHeldPrices, [output]);
      const page = rankedTomorrow(held.map(toHeldPrice), order, 'near' in area ? area.near : undefined, limit, offset);
      return { ...page, stations: await this.byIds(page.items.map((p) => p.stationId)) };
    }
    let page: ListResult<RankedPrice>;
    if ('city' in area) {
      const rows = storable(area.city) ? await this.rows(READ.cityFuelPrices, [output, area.city]) : [];
      page = rankedPage(rows.map(toPricedStation), order, limit, offset);
    } else if ('state' in area) {
      page = rankedPage((await this.rows(READ.stateFuelPrices, [output, area.state])).map(toPricedStation), order, limit, offset);
    } else {
      const version = (await this.versions()).data;
      const positions = await this.positions(version);
      const prices = this.nearby.keptPrices(version, output, positions)
        ?? this.nearby.keepPrices(version, output, positions, (await this.rows(READ.fuelPricesByKey, [output])).map(toFuelPriceRow));
      page = prices.rankNear(positions, area.near, order, limit, offset);
    }
    return { ...page, stations: await this.byIds(page.items.map((p) => p.stationId)) };
  }

  /** The position index of the data version now (storage/nearest.ts). */
  private async positions(version?: number): Promise<Positions> {
    const at = version ?? (await this.versions()).data;
    return this.nearby.keptPositions(at) ?? this.nearby.keepPositions(at, (await this.rows(READ.positions, [])).map(toPositionRow));
  }

  async stateTotals(state: StateId | undefined): Promise<FuelTotals[]> {
    return (state === undefined ? await this.rows(READ.nationTotals, []) : await this.rows(READ.stateTotals, [state])).map(toFuelTotals);
  }

  async listBrands(query: ListQuery): Promise<ListResult<Brand>> {
    const found = query.state ? await this.rows(READ.brandCountsInState, [query.state]) : await this.rows(READ.brandCounts, []);
    return brandPage(found.map(toBrandCount), query);
  }

  async station(id: string): Promise<Station | undefined> {
    if (!storable(id)) return undefined;
    const row = await this.firstRow(READ.station, [id]);
    return row ? toStation(row) : undefined;
  }

  async stationDays(stationId: string, range: DayRange): Promise<StationDayRow[]> {
    if (!storable(stationId)) return [];
    const from = range.from ?? NO_DAY_LOWER_BOUND;
    return transaction(this.db(), 'snapshot', async (client) => {
      const station = await firstRow(client, READ.stationKey, [stationId]);
      if (!station) return [];
      const found = await rows(client, READ.stationDaily, [station.key, from, range.to]);
      const runs = await rows(client, READ.stationRuns, [station.key, from, range.to]);
      return withRunDays(stationId, station.state as StateId, found.map((r) => toStationDay(stationId, r)), runs.map(toRunRow), range);
    });
  }

  async currentForStation(stationId: string): Promise<CurrentPrice[]> {
    if (!storable(stationId)) return [];
    return (await this.rows(READ.currentForStation, [stationId])).map(toCurrent);
  }

  async stationPrices(stationId: string): Promise<StationPrices | undefined> {
    if (!storable(stationId)) return undefined;
    return toStationPrices(await this.rows(READ.stationPrices, [stationId]));
  }

  async heldForStation(stationId: string): Promise<HeldPrice[]> {
    if (!storable(stationId)) return [];
    return (await this.rows(READ.heldForStation, [stationId])).map(toHeldPrice);
  }

  async heldForCity(cityId: string): Promise<HeldPrice[]> {
    if (!storable(cityId)) return [];
    return (await this.rows(READ.heldForCity, [cityId])).map(toHeldPrice);
  }

  async currentForCity(cityId: string): Promise<CurrentPrice[]> {
    if (!storable(cityId)) return [];
    return currentForCity(this.db(), cityId);
  }

  async cityTotals(cityId: string): Promise<FuelTotals[]> {
    if (!storable(cityId)) return [];
    return (await this.rows(READ.cityTotals, [cityId])).map(toFuelTotals);
  }

  async citySums(cityId: string): Promise<FuelSums[]> {
    if (!storable(cityId)) return [];
    return (await this.rows(READ.citySums, [cityId])).map(toFuelSums);
  }

  async cityOutOfStock(cityId: string): Promise<OutOfStock[]> {
    if (!storable(cityId)) return [];
    return (await this.rows(READ.cityOutOfStock, [cityId])).map(toOutOfStock);
  }

  async cityHistoryParts(cityId: string, range: DayRange, nowSec?: number, known?: ReadonlyMap<number, number>): Promise<CityHistoryParts> {
    if (!storable(cityId)) return { sealedBefore: 0, sealed: [], stationDays: [], current: [] };
    // One snapshot: a seal between the reads would otherwise count an interval twice or not at all.
    return transaction(this.db(), 'snapshot', async (client) => {
      const city = await firstRow(client, READ.citySeal, [NO_DAY_LOWER_BOUND, cityId]);
      const sealedBefore = city ? Number(city.sealed_before) : NO_DAY_LOWER_BOUND;
      const from = range.from ?? NO_DAY_LOWER_BOUND;
      const marks = known && new Map((await rows(client, READ.cityDailyMarks, [cityId]))
        .map((r) => [Number(r.block), Number(r.mark)]));
      const plan = planSealedRead(from, Math.min(range.to, sealedBefore - 1), marks, known);
      const sealed: CityHistoryParts['sealed'] = [];
      for (const [low, high] of plan.ranges) {
        for (const r of await rows(client, READ.cityDaily, [cityId, low, high])) {
          sealed.push({ fuel: fuelAt(r.fuel), day: Number(r.day), meanTenths: Number(r.mean_tenths) });
        }
      }
      const blocks = plan.blocks && { blocks: plan.blocks };
      const liveFrom = Math.max(from, sealedBefore);
      const today = city && nowSec !== undefined ? onlyLiveDayIsToday(city.state as StateId, liveFrom, range, nowSec) : undefined;
      if (today) {
        const sums = (await rows(client, READ.cityLiveDay, [cityId, today.day, today.start, today.now])).map(toLiveDaySums);
        return { sealedBefore, sealed, stationDays: [], current: [], liveDay: { day: today.day, sums }, ...blocks };
      }
      const stationDays = liveFrom > range.to ? [] : withRunDaysByStation(
        (await rows(client, READ.cityStationDaily, [cityId, liveFrom, range.to])).map((r) => toStationDay(String(r.station_id), r)),
        (await rows(client, READ.cityStationRuns, [cityId, liveFrom, range.to]))
          .map((r) => ({ stationId: String(r.station_id), state: r.state as StateId, run: toRunRow(r) })),
        { from: liveFrom, to: range.to });
      return { sealedBefore, sealed, stationDays, current: await currentForCity(client, cityId), ...blocks };
    });
  }

  async upsertCities(cities: CityInput[]): Promise<void> {
    await this.write(async (client) => {
      await bulkInsert(client, BULK.cities,
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
      const { count: pricesHeld } = await bulkInsert(client, BULK.pendingPrices, [held.map((p) => p.feed), held.map((p) => p.feedCode),
        held.map((p) => fuelIndex(p.fuel)), held.map((p) => p.at), held.map((p) => p.priceTenths), held.map((p) => p.available)]);
      const released = sortReleased((await rows(client, INGEST.releasePending, [options.now])).map(toPending));
      // Held prices are answered (tomorrow): holding or releasing one changes answers, as a stored price does.
      if (pricesHeld > 0 || released.length > 0) await bumpDataVersion(client);
      const prices = [...released, ...due];
      const codes = [...new Set(prices.map((p) => feedKey(p.feed, p.feedCode)))].map((k) => k.split('\u0000'));
      const stored = new Set((await rows(client, `SELECT s.feed, s.feed_code FROM stations s
        JOIN unnest($1::text[], $2::text[]) AS q (feed, feed_code) ON s.feed = q.feed AND s.feed_code = q.feed_code`,
      [codes.map((c) => c[0]), codes.map((c) => c[1])])).map((r) => feedKey(String(r.feed), String(r.feed_code))));
      const { kept, unknown } = partitionKnown(prices, batch.stations, (feed, code) => stored.has(feedKey(feed, code)));
      const result = await applyBatchIn(client, { stations: batch.stations, prices: kept });
      if (options.cursor) {
        await execute(client, INGEST.saveCursor, [options.cursor.key, options.cursor.value, options.now]);
      }
      return { ...result, pricesHeld, pricesReleased: released.length, unknownStation: unknown.slice(0, UNKNOWN_EXAMPLES), unknownStationCount: unknown.length };
    });
  }

  async feedCursor(key: string): Promise<string | undefined> {
    if (!storable(key)) return undefined;
    const row = await this.firstRow(INGEST.feedCursor, [key]);
    return row === undefined ? undefined : String(row.value);
  }

  async feedStations(feed: string): Promise<FeedStation[]> {
    return (await this.rows(INGEST.feedStations, [feed])).map(toFeedStation);
  }

  async recordRun(run: FeedRun): Promise<void> {
    await this.write(async (client) => {
      await execute(client, INGEST.recordRun, feedRunValues(run));
      await execute(client, INGEST.countRun, [run.feed, run.error === undefined ? 0 : 1]);
      await execute(client, INGEST.forgetRuns, [run.finishedAt - RUN_LOG_DAYS * 86_400]);
    });
  }

  async feedRuns(query: { feed?: string; limit: number }): Promise<FeedRun[]> {
    const found = query.feed === undefined
      ? await this.rows(INGEST.feedRuns, [query.limit])
      : await this.rows(INGEST.feedRunsOf, [query.feed, query.limit]);
    return found.map(toFeedRun);
  }

  async feedHealth(): Promise<FeedHealth[]> {
    return (await this.rows(INGEST.feedHealth)).map(toFeedHealth);
  }

  async feedCounts(): Promise<FeedCounts[]> {
    return (await this.rows(INGEST.feedCounts)).map(toFeedCounts);
  }


  async counts(): Promise<{ cities: number; stations: number; prices: number }> {
    const row = await this.firstRow(READ.counts);
    return { cities: Number(row?.cities), stations: Number(row?.stations), prices: Number(row?.prices) };
  }

  async createToken(token: TokenRecord): Promise<void> {
    await this.write(async (client) => {
      await execute(client, TOKENS.create, [token.id, token.name, token.hash, token.createdAt, token.expiresAt, token.revokedAt, token.rateLimit]);
      await execute(client, TOKENS.bumpVersion);
    });
  }

  setVersionReuseMs(ms: number): void {
    this.reuse.setReuseMs(ms);
  }

  poolStats(): PoolStats {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount, max: this.pool.options.max ?? 10 };
  }

  versionsNow(): Versions | undefined {
    return this.reuse.peek();
  }

  async versions(): Promise<Versions> {
    return this.reuse.get(async () => {
      const row = await this.firstRow(READ.versions);
      return { data: Number(row?.data), tokens: Number(row?.tokens) };
    });
  }

  async tokenById(id: string): Promise<TokenRecord | undefined> {
    if (!storable(id)) return undefined;
    const row = await this.firstRow(TOKENS.byId, [id]);
    return row ? toToken(row) : undefined;
  }

  async listTokens(): Promise<TokenRecord[]> {
    return (await this.rows(TOKENS.list)).map(toToken);
  }

  async revokeToken(id: string, atSec: number): Promise<boolean> {
    if (!storable(id)) return false;
    return this.write(async (client) => {
      const revoked = (await execute(client, TOKENS.revoke, [atSec, id])) > 0;
      if (revoked) await execute(client, TOKENS.bumpVersion);
      return revoked;
    });
  }

  async exportTable(table: CopyTable, after: CopyKey | undefined, limit: number): Promise<TableChunk> {
    return toChunk(table, await this.rows(exportSql(POSTGRES_DIALECT, table, after !== undefined), [...(after ?? []), limit]));
  }

  async importRows(table: CopyTable, rows: readonly CopyRow[], progress: CopyProgress): Promise<number> {
    const { columns } = copySpec(table);
    const spec = importBulk(table);
    // Station keys are copied, not generated.
    const into = table === 'stations' ? { ...spec, into: `${spec.into} OVERRIDING SYSTEM VALUE` } : spec;
    return this.write(async (client) => {
      const { count } = await bulkInsert(client, into, columns.map((c) => rows.map((row) => row[c] ?? null)));
      if (table === 'stations') {
        // New stations must be numbered after the copied keys.
        await execute(client, "SELECT setval(pg_get_serial_sequence('stations', 'key'), coalesce(max(key), 0) + 1, false) FROM stations");
      }
      await execute(client, COPY.saveProgress,
        [progress.table, progress.source, progress.after === undefined ? null : JSON.stringify(progress.after), progress.rows, progress.done]);
      return count;
    });
  }

  async tableCount(table: CopyTable): Promise<number> {
    return Number((await this.firstRow(countSql(table)))?.n);
  }

  async copyProgress(): Promise<CopyProgress[]> {
    return (await this.rows(COPY.progress)).map(toCopyProgress);
  }
}

/** PostgreSQL text cannot hold NUL: an id with one names nothing stored (SQLite would just find no row). */
function storable(id: string): boolean {
  return !id.includes('\u0000');
}

function currentForCity(db: Queryable, cityId: string): Promise<CurrentPrice[]> {
  return rows(db, READ.currentForCity, [cityId]).then((found) => found.map(toCurrent));
}
