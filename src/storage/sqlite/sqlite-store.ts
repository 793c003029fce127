import type { PriceOrder } from '../../domain/cheapest.ts';
import { FUELS, type FuelId, fuelIndex, outputsOf } from '../../domain/fuels.ts';
import type { StateId } from '../../domain/states.ts';
import { onlyLiveDayIsToday, planSealedRead } from '../history-reads.ts';
import { type RunRow, toRunRow, withRunDays, withRunDaysByStation } from '../run-days.ts';
import { copySpec, countSql, exportSql, importBulk, toChunk, toCopyProgress } from '../sql/copy-tables.ts';
import { SQLITE_DIALECT } from '../sql/dialect.ts';
import {
  feedRunValues, fuelAt, toCity, toCurrent, toFeedCounts, toFeedHealth, toFeedRun, toFeedStation, toFuelSums, toFuelTotals, toLiveDaySums,
  toBrandCount, toHeldPrice, toOutOfStock, toPending, toFuelPriceRow, toPoint, toPositionRow, toPricedStation, toStation, toStationDay, toStationPrices, toToken,
} from '../sql/row-mappers.ts';
import { NearbyCache, type Positions, indexedNearestPage, nearestPage, nearestResult, onlyNear, rankedPage } from '../nearest.ts';
import { BULK, INGEST_STATEMENTS as INGEST, RUN_LOG_DAYS, copyStatements, readStatements, stationFilter, tokenStatements } from '../sql/statements.ts';
import { brandNames, brandPage } from '../brands.ts';
import type {
  Batch, BatchResult, Brand, City, CityHistoryParts, CityInput, CopyKey, CopyProgress, CopyRow, CopyTable, CurrentPrice, DayRange,
  FeedBatchOptions, FeedBatchResult, FeedCounts, FeedHealth, FeedRun, FeedStation, FuelSums, FuelTotals, ListQuery, ListResult, ListedStation, Migration, OutOfStock,
  CheapestPage, HeldPrice, PriceArea, PriceDay, PriceStore, RankedPrice, Station, StationDayRow, StationListQuery, StationPrices, TableChunk, TokenRecord,
} from '../store.ts';
import { type Versions, VersionReuse } from '../versions.ts';
import { NO_DAY_LOWER_BOUND, UNKNOWN_EXAMPLES, partitionKnown, sortReleased, splitHeld } from '../writer/batch-plan.ts';
import { rankedTomorrow } from '../../domain/tomorrow.ts';
import { SqliteConnection, type SqliteFile } from './sqlite-connection.ts';
import { SQLITE_MIGRATIONS } from './sqlite-migrations.ts';
import { SqliteWriter } from './sqlite-writer.ts';

const READ = readStatements(SQLITE_DIALECT);
const TOKENS = tokenStatements(SQLITE_DIALECT);
const COPY = copyStatements(SQLITE_DIALECT);

/** The embedded backend: one SQLite file, synchronous underneath, the same contract as PostgreSQL. */
export class SqliteStore implements PriceStore {
  readonly backend = 'sqlite' as const;
  private readonly connection: SqliteConnection;
  private readonly db: SqliteFile;
  private readonly writer: SqliteWriter;
  private readonly reuse = new VersionReuse();
  /** Positions and fuel prices for near searches, per data version (storage/nearest.ts). */
  private readonly nearby = new NearbyCache();

  constructor(path: string) {
    this.connection = new SqliteConnection(path);
    this.db = this.connection.file;
    this.writer = new SqliteWriter(this.db);
  }

  /** A transaction of this store's; afterwards the versions are read afresh (see versions.ts). */
  private write<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    const run = this.db.db.transaction(fn);
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
    return this.db.db.transaction(fn);
  }

  async migrate(): Promise<Migration> {
    const db = this.db.db;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SQLITE_MIGRATIONS.length) {
      throw new Error(`database schema version ${version} is newer than this program knows (${SQLITE_MIGRATIONS.length})`);
    }
    this.write(() => {
      for (let v = version; v < SQLITE_MIGRATIONS.length; v++) {
        db.exec(SQLITE_MIGRATIONS[v] ?? '');
        db.pragma(`user_version = ${v + 1}`);
      }
      for (const fuel of FUELS) for (const output of outputsOf(fuel)) this.db.insertRow(BULK.fuelGroups, [fuelIndex(fuel), fuelIndex(output)]);
    })();
    return { from: version, to: SQLITE_MIGRATIONS.length };
  }

  async close(): Promise<void> {
    this.db.close();
  }

  async ping(): Promise<void> {
    this.db.get(READ.ping);
  }

  setVersionReuseMs(ms: number): void {
    this.reuse.setReuseMs(ms);
  }

  versionsNow(): Versions {
    return this.reuse.getNow(() => this.db.get(READ.versions) as Versions);
  }

  async versions(): Promise<Versions> {
    return this.versionsNow();
  }

  async dataVersion(): Promise<number> {
    return Number(this.db.get(READ.dataVersion)?.value);
  }

  async listCities(query: ListQuery): Promise<ListResult<City>> {
    const [count, page, filter] = query.state
      ? [READ.countCitiesInState, READ.citiesPageInState, [query.state]] : [READ.countCities, READ.citiesPage, []];
    const total = Number(this.db.get(count, filter)?.n);
    return { items: this.db.all(page, [...filter, query.limit, query.offset]).map(toCity), total };
  }

  async city(id: string): Promise<City | undefined> {
    const row = this.db.get(READ.city, [id]);
    return row ? toCity(row) : undefined;
  }

  async listStations(query: StationListQuery): Promise<ListResult<ListedStation>> {
    if (query.near && onlyNear(query)) {
      // No snapshot needed: what is kept is keyed by the data version read first, and a read that
      // sees a later write only fills the keep early (the next request reads the new version).
      const version = this.currentVersion();
      const nearest = indexedNearestPage(this.positions(version), query.near, query.limit, query.offset);
      return nearestResult(nearest, this.byIds(nearest.ids, version));
    }
    return this.snapshot((): ListResult<ListedStation> => {
      const names = query.brand === undefined ? undefined : brandNames(this.db.all(READ.brandCounts).map(toBrandCount), query.brand);
      if (names?.length === 0) return { items: [], total: 0 };
      const { count, page, points, params } = READ.stationList(stationFilter(query, names));
      if (query.near) {
        const nearest = nearestPage(this.db.all(points, params).map(toPoint), query.near, query.limit, query.offset);
        return nearestResult(nearest, this.byIds(nearest.ids, this.currentVersion()));
      }
      const total = Number(this.db.get(count, params)?.n);
      return { items: this.db.all(page, [...params, query.limit, query.offset]).map(toStation), total };
    })();
  }

  /** Kept for the data version (NearbyCache): a near page's stations are read once, not on every request. */
  private byIds(ids: readonly string[], version: number): Station[] {
    if (ids.length === 0) return [];
    const { kept, missing } = this.nearby.keptStations(version, ids);
    if (missing.length === 0) return kept;
    const read = this.db.all(READ.stationsByIds(missing.length), missing).map(toStation);
    this.nearby.keepStations(version, read);
    return kept.concat(read);
  }

  async cheapest(fuel: FuelId, area: PriceArea, order: PriceOrder, limit: number, offset: number, day: PriceDay = 'today'): Promise<CheapestPage> {
    const output = fuelIndex(fuel);
    if (day === 'tomorrow') {
      return this.snapshot((): CheapestPage => {
        const held = 'city' in area ? this.db.all(READ.cityHeldPrices, [output, area.city])
          : 'state' in area ? this.db.all(READ.stateHeldPrices, [output, area.state]) : this.db.all(READ.positionedHeldPrices, [output]);
        const page = rankedTomorrow(held.map(toHeldPrice), order, 'near' in area ? area.near : undefined, limit, offset);
        return { ...page, stations: this.byIds(page.items.map((p) => p.stationId), this.currentVersion()) };
      })();
    }
    // Near a point: from what is kept per data version, without a snapshot (as listStations).
    const read = (): CheapestPage => {
      const version = this.currentVersion();
      let page: ListResult<RankedPrice>;
      if ('city' in area) page = rankedPage(this.db.all(READ.cityFuelPrices, [output, area.city]).map(toPricedStation), order, limit, offset);
      else if ('state' in area) page = rankedPage(this.db.all(READ.stateFuelPrices, [output, area.state]).map(toPricedStation), order, limit, offset);
      else {
        const positions = this.positions(version);
        const prices = this.nearby.keptPrices(version, output, positions)
          ?? this.nearby.keepPrices(version, output, positions, this.db.all(READ.fuelPricesByKey, [output]).map(toFuelPriceRow));
        page = prices.rankNear(positions, area.near, order, limit, offset);
      }
      return { items: page.items, total: page.total, stations: this.byIds(page.items.map((p) => p.stationId), version) };
    };
    return 'near' in area ? read() : this.snapshot(read)();
  }

  /** The position index of this data version (storage/nearest.ts). */
  private positions(version: number): Positions {
    return this.nearby.keptPositions(version) ?? this.nearby.keepPositions(version, this.db.all(READ.positions).map(toPositionRow));
  }

  /** The data version as the request's own reading left it (versionsNow: read again only after VERSION_REUSE_MS). */
  private currentVersion(): number {
    return this.versionsNow().data;
  }

  async stateTotals(state: StateId | undefined): Promise<FuelTotals[]> {
    return (state === undefined ? this.db.all(READ.nationTotals) : this.db.all(READ.stateTotals, [state])).map(toFuelTotals);
  }

  async listBrands(query: ListQuery): Promise<ListResult<Brand>> {
    const found = query.state ? this.db.all(READ.brandCountsInState, [query.state]) : this.db.all(READ.brandCounts);
    return brandPage(found.map(toBrandCount), query);
  }

  async station(id: string): Promise<Station | undefined> {
    const row = this.db.get(READ.station, [id]);
    return row ? toStation(row) : undefined;
  }

  async stationDays(stationId: string, range: DayRange): Promise<StationDayRow[]> {
    return this.snapshot(() => this.readStationDays(stationId, range))();
  }

  private readStationDays(stationId: string, range: DayRange): StationDayRow[] {
    const station = this.db.get<{ key: number; state: StateId }>(READ.stationKey, [stationId]);
    if (!station) return [];
    const from = range.from ?? NO_DAY_LOWER_BOUND;
    // Rows as arrays: no object per row to build and map.
    const days = this.db.arrays<[number, number, number, number]>(READ.stationDaily, [station.key, from, range.to])
      .map(([fuel, day, weightedTenths, seconds]) => ({ stationId, fuel: fuelAt(fuel), day, weightedTenths, seconds }));
    const runs = this.db.arrays<RunRow>(READ.stationRuns, [station.key, from, range.to]);
    return withRunDays(stationId, station.state, days, runs, range);
  }

  async currentForStation(stationId: string): Promise<CurrentPrice[]> {
    return this.db.all(READ.currentForStation, [stationId]).map(toCurrent);
  }

  async stationPrices(stationId: string): Promise<StationPrices | undefined> {
    return toStationPrices(this.db.all(READ.stationPrices, [stationId]));
  }

  async heldForStation(stationId: string): Promise<HeldPrice[]> {
    return this.db.all(READ.heldForStation, [stationId]).map(toHeldPrice);
  }

  async heldForCity(cityId: string): Promise<HeldPrice[]> {
    return this.db.all(READ.heldForCity, [cityId]).map(toHeldPrice);
  }

  async currentForCity(cityId: string): Promise<CurrentPrice[]> {
    return this.db.all(READ.currentForCity, [cityId]).map(toCurrent);
  }

  async cityTotals(cityId: string): Promise<FuelTotals[]> {
    return this.db.all(READ.cityTotals, [cityId]).map(toFuelTotals);
  }

  async citySums(cityId: string): Promise<FuelSums[]> {
    return this.db.all(READ.citySums, [cityId]).map(toFuelSums);
  }

  async cityOutOfStock(cityId: string): Promise<OutOfStock[]> {
    return this.db.all(READ.cityOutOfStock, [cityId]).map(toOutOfStock);
  }

  async cityHistoryParts(cityId: string, range: DayRange, nowSec?: number, known?: ReadonlyMap<number, number>): Promise<CityHistoryParts> {
    return this.snapshot(() => this.readCityHistoryParts(cityId, range, nowSec, known))();
  }

  private readCityHistoryParts(cityId: string, range: DayRange, nowSec: number | undefined, known: ReadonlyMap<number, number> | undefined): CityHistoryParts {
    const city = this.db.get(READ.citySeal, [NO_DAY_LOWER_BOUND, cityId]);
    const sealedBefore = city ? Number(city.sealed_before) : NO_DAY_LOWER_BOUND;
    const from = range.from ?? NO_DAY_LOWER_BOUND;
    const marks = known && new Map(this.db.arrays<[number, number]>(READ.cityDailyMarks, [cityId]));
    const plan = planSealedRead(from, Math.min(range.to, sealedBefore - 1), marks, known);
    // Rows as arrays: ten years of a city are some 60,000 of them.
    const sealed = plan.ranges.flatMap(([low, high]) => this.db.arrays<[number, number, number]>(READ.cityDaily, [cityId, low, high])
      .map(([fuel, day, mean]) => ({ fuel: fuelAt(fuel), day, meanTenths: mean })));
    const blocks = plan.blocks && { blocks: plan.blocks };
    const liveFrom = Math.max(from, sealedBefore);
    const today = city && nowSec !== undefined ? onlyLiveDayIsToday(city.state as StateId, liveFrom, range, nowSec) : undefined;
    if (today) {
      const sums = this.db.all(READ.cityLiveDay, [cityId, today.day, today.start, today.now]).map(toLiveDaySums);
      return { sealedBefore, sealed, stationDays: [], current: [], liveDay: { day: today.day, sums }, ...blocks };
    }
    const stationDays = liveFrom > range.to ? [] : withRunDaysByStation(
      this.db.all(READ.cityStationDaily, [cityId, liveFrom, range.to]).map((r) => toStationDay(String(r.station_id), r)),
      this.db.all(READ.cityStationRuns, [cityId, liveFrom, range.to])
        .map((r) => ({ stationId: String(r.station_id), state: r.state as StateId, run: toRunRow(r) })),
      { from: liveFrom, to: range.to });
    return { sealedBefore, sealed, stationDays, current: this.db.all(READ.currentForCity, [cityId]).map(toCurrent), ...blocks };
  }

  async counts(): Promise<{ cities: number; stations: number; prices: number }> {
    const row = this.db.get(READ.counts);
    return { cities: Number(row?.cities), stations: Number(row?.stations), prices: Number(row?.prices) };
  }

  async upsertCities(cities: CityInput[]): Promise<void> {
    this.write(() => {
      for (const c of cities) this.db.insertRow(BULK.cities, [c.id, c.name, c.state, c.latitude, c.longitude]);
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
      const hold = this.db.bulk(BULK.pendingPrices);
      for (const p of held) {
        hold.values.push(p.feed, p.feedCode, fuelIndex(p.fuel), p.at, p.priceTenths, p.available ? 1 : 0);
        hold.added();
      }
      hold.flush();
      const released = sortReleased(this.db.all(INGEST.releasePending, [options.now]).map(toPending));
      // Held prices are answered (tomorrow): holding or releasing one changes answers, as a stored price does.
      if (hold.changes > 0 || released.length > 0) this.writer.bumpDataVersion();
      const stored = (feed: string, code: string): boolean => this.writer.storedStation(feed, code) !== undefined;
      const { kept, unknown } = partitionKnown([...released, ...due], batch.stations, stored);
      const result = this.writer.applyBatch({ stations: batch.stations, prices: kept });
      if (options.cursor) this.db.run(INGEST.saveCursor, [options.cursor.key, options.cursor.value, options.now]);
      return {
        ...result, pricesHeld: hold.changes, pricesReleased: released.length,
        unknownStation: unknown.slice(0, UNKNOWN_EXAMPLES), unknownStationCount: unknown.length,
      };
    })();
  }

  async feedCursor(key: string): Promise<string | undefined> {
    const row = this.db.get<{ value: string }>(INGEST.feedCursor, [key]);
    return row?.value;
  }

  async feedStations(feed: string): Promise<FeedStation[]> {
    return this.db.all(INGEST.feedStations, [feed]).map(toFeedStation);
  }

  async recordRun(run: FeedRun): Promise<void> {
    this.write(() => {
      this.db.run(INGEST.recordRun, feedRunValues(run));
      this.db.run(INGEST.countRun, [run.feed, run.error === undefined ? 0 : 1]);
      this.db.run(INGEST.forgetRuns, [run.finishedAt - RUN_LOG_DAYS * 86_400]);
    })();
  }

  async feedRuns(query: { feed?: string; limit: number }): Promise<FeedRun[]> {
    const found = query.feed === undefined ? this.db.all(INGEST.feedRuns, [query.limit]) : this.db.all(INGEST.feedRunsOf, [query.feed, query.limit]);
    return found.map(toFeedRun);
  }

  async feedHealth(): Promise<FeedHealth[]> {
    return this.db.all(INGEST.feedHealth).map(toFeedHealth);
  }

  async feedCounts(): Promise<FeedCounts[]> {
    return this.db.all(INGEST.feedCounts).map(toFeedCounts);
  }

  async createToken(token: TokenRecord): Promise<void> {
    this.write(() => {
      this.db.run(TOKENS.create, [token.id, token.name, token.hash, token.createdAt, token.expiresAt, token.revokedAt, token.rateLimit]);
      this.db.run(TOKENS.bumpVersion);
    })();
  }

  async tokenById(id: string): Promise<TokenRecord | undefined> {
    const row = this.db.get(TOKENS.byId, [id]);
    return row ? toToken(row) : undefined;
  }

  async listTokens(): Promise<TokenRecord[]> {
    return this.db.all(TOKENS.list).map(toToken);
  }

  async revokeToken(id: string, atSec: number): Promise<boolean> {
    return this.write(() => {
      const revoked = this.db.run(TOKENS.revoke, [atSec, id]).changes > 0;
      if (revoked) this.db.run(TOKENS.bumpVersion);
      return revoked;
    })();
  }

  async exportTable(table: CopyTable, after: CopyKey | undefined, limit: number): Promise<TableChunk> {
    return toChunk(table, this.db.all(exportSql(SQLITE_DIALECT, table, after !== undefined), [...(after ?? []), limit]));
  }

  async importRows(table: CopyTable, rows: readonly CopyRow[], progress: CopyProgress): Promise<number> {
    const { columns } = copySpec(table);
    const spec = importBulk(table);
    return this.write(() => {
      const insert = this.db.bulk(spec);
      for (const row of rows) {
        for (const c of columns) insert.values.push(row[c] ?? null);
        insert.added();
      }
      insert.flush();
      this.db.run(COPY.saveProgress, [progress.table, progress.source, progress.after === undefined ? null : JSON.stringify(progress.after), progress.rows, progress.done ? 1 : 0]);
      return insert.changes;
    })();
  }

  async tableCount(table: CopyTable): Promise<number> {
    return Number(this.db.get(countSql(table))?.n);
  }

  async copyProgress(): Promise<CopyProgress[]> {
    return this.db.all(COPY.progress).map(toCopyProgress);
  }
}

