import type { FreshParts } from '../domain/fresh.ts';
import type { FuelId } from '../domain/fuels.ts';
import type { StateId } from '../domain/states.ts';
import type { LocalDay } from '../domain/time.ts';
import type { PricedStation, RankedPrice } from '../domain/cheapest.ts';
import type { Near, Point } from '../domain/nearby.ts';
import type { HeldPrice } from '../domain/tomorrow.ts';
import type { CopyKey, CopyProgress, CopyRow, CopyTable, TableChunk } from './sql/copy-tables.ts';
import type { AreaPriceRow, FuelPriceRow, HeldRow, PositionRow } from './model-rows.ts';
import type { CityDayRow, CityHistoryParts, CurrentPrice, DayRange, FuelSums, FuelTotals, LiveDaySums, OutOfStock, StationDayRow, StationPrices } from '../domain/price-rows.ts';
import type {
  Batch, BatchResult, Brand, ChangesPage, ChangesQuery, City, CityInput, FeedBatchOptions, FeedBatchResult, FeedCounts, FeedCursor, FeedHealth, FeedRun,
  FeedStation, ListQuery, ListResult, Migration, PoolStats, ReleaseResult, Station, StationListQuery, TokenRecord,
} from './store-records.ts';

export type { HeldPrice, PricedStation, RankedPrice };

export type { CityDayRow, CityHistoryParts, CurrentPrice, DayRange, FuelSums, FuelTotals, LiveDaySums, OutOfStock, StationDayRow, StationPrices };
export type * from './store-records.ts';
export type * from './model-rows.ts';

/**
 * The doors to data, named for what their callers need, not for tables: ReadStore for the API,
 * IngestStore for ingest, TokenStore for tokens, BulkStore for copies; PriceStore is all of them.
 */

/** Where a store's data is, for a reader on another thread (plain data: it is sent to the thread). */
export type ReaderSource = { backend: 'sqlite'; path: string } | { backend: 'postgres'; url: string };

/** What every store is: opened, migrated, closed, and the versions that caches key on. */
export interface StoreBase {
  readonly backend: 'sqlite' | 'postgres';
  migrate(): Promise<Migration>;
  close(): Promise<void>;
  /** Throws when storage cannot answer. */
  ping(): Promise<void>;
  /** Grows with every write that changes what the API answers; caches key on it. */
  dataVersion(): Promise<number>;
  /** The data version and the tokens version (grows when a token is created or revoked), in one read. */
  versions(): Promise<{ data: number; tokens: number }>;
  /**
   * The versions without waiting, for the fast path: on SQLite read at once (a synchronous
   * read) when the last reading may no longer be reused; on PostgreSQL the last reading while it
   * may still be reused (see storage/versions.ts), else undefined.
   */
  versionsNow(): { data: number; tokens: number } | undefined;
  /** How long a versions reading may be reused (default VERSION_REUSE_MS, 10 ms). Tests lengthen it to exercise the fast path. */
  setVersionReuseMs(ms: number): void;
  /**
   * How another thread opens its own read-only connection to the same data (the derived-answers
   * worker, src/derived/); undefined when none can (sqlite::memory:).
   */
  readerSource?(): ReaderSource | undefined;
  /** PostgreSQL only: the connection pool's open and idle connections, its maximum, and the queries waiting for one (/metrics). */
  poolStats?(): PoolStats;
}


/** What the API reads (http/routes). */
export interface ReadStore extends StoreBase {
  listCities(query: ListQuery): Promise<ListResult<City>>;
  city(id: string): Promise<City | undefined>;
  /** A page of the stations that pass the filters, by id; a list near a point is a search (read-models/searches.ts nearStations). */
  listStations(query: StationListQuery): Promise<ListResult<Station>>;
  /** The positions of the stations that pass the filters within the near box, unordered (read-models/ranking.ts ranks them). */
  nearPoints(query: StationListQuery & { near: Near }): Promise<Array<Point & { id: string }>>;
  /** The stations of these ids (in no order; ids no station has are absent). */
  stationsByIds(ids: readonly string[]): Promise<Station[]>;
  /*
   * The rows the read models are built from (src/read-models/, registry.ts): each read in one
   * statement; the models key what they build by the data version read before.
   */
  /** Every positioned station's key, id and position. */
  positionRows(): Promise<PositionRow[]>;
  /** Every available current price of the output fuel's members, by station key. */
  fuelPriceRows(fuel: FuelId): Promise<FuelPriceRow[]>;
  /** Every available current price of the output fuel's members, with its station's city and state. */
  areaPriceRows(fuel: FuelId): Promise<AreaPriceRow[]>;
  /** Every held price (dated ahead, not yet in force) with its station's city, state and position, each station's together, by fuel then instant. */
  heldRows(): Promise<HeldRow[]>;
  /**
   * Count, sum, min and max of available current prices per reported fuel, from the totals kept
   * on write: of one state, or (undefined) of the nation.
   */
  stateTotals(state: StateId | undefined): Promise<FuelTotals[]>;
  /** Brands of the stations (of one state when given), ordered by id, paginated. */
  listBrands(query: ListQuery): Promise<ListResult<Brand>>;
  station(id: string): Promise<Station | undefined>;
  /** The id now of the station that answered to `id` before it took another (docs/DATA.md "Ids"); undefined when `id` is no alias. */
  stationAlias(id: string): Promise<string | undefined>;
  stationDays(stationId: string, range: DayRange): Promise<StationDayRow[]>;
  currentForStation(stationId: string): Promise<CurrentPrice[]>;
  /**
   * Stations' names, feeds and current prices by id, in one snapshot (two statements); ids no
   * station has are absent. With their held prices: read-models/read-models.ts stationsPrices.
   */
  stationsPrices(ids: readonly string[]): Promise<Map<string, StationPrices>>;
  /**
   * What cityHistory needs, read in one snapshot. Given `nowSec`, when today is the only live day
   * of the range, storage totals it itself (parts.liveDay) instead of handing over every station's
   * rows. Given `known` (block -> mark of the sealed blocks the caller holds formatted), the rows
   * of those still at that mark are not read (parts.blocks says which).
   */
  cityHistoryParts(cityId: string, range: DayRange, nowSec?: number, known?: ReadonlyMap<number, number>): Promise<CityHistoryParts>;
  /**
   * The parts of the city's fresh series of an output fuel (domain/fresh.ts) over its sealed days
   * within [from, to], and the day its sealed days end, read in one snapshot.
   */
  cityFreshParts(cityId: string, fuel: FuelId, from: LocalDay, to: LocalDay): Promise<FreshParts & { sealedBefore: LocalDay }>;
  /** Current prices of every station of the city, ordered by station id. */
  currentForCity(cityId: string): Promise<CurrentPrice[]>;
  /** Per reported fuel with an available price in the city: count, sum, min and max (kept up to date on write). */
  cityTotals(cityId: string): Promise<FuelTotals[]>;
  /** cityTotals without min and max: one row per fuel, no index steps (today's average). */
  citySums(cityId: string): Promise<FuelSums[]>;
  /** The city's stations out of stock per output fuel (OutOfStock: combined fuels pooled), in no order. */
  cityOutOfStock(cityId: string): Promise<OutOfStock[]>;
  counts(): Promise<{ cities: number; stations: number; prices: number }>;
  /** The last change number handed out (storage/sql/changes.ts): the cursor of "now". */
  lastChange(): Promise<number>;
  /** The changes after a cursor, oldest first (storage/sql/changes.ts). */
  priceChanges(query: ChangesQuery): Promise<ChangesPage>;
}

/** What feeds, importers, the demo generator and the scheduler write and read back (ingest/). */
export interface IngestStore extends StoreBase {
  upsertCities(cities: CityInput[]): Promise<void>;
  applyBatch(batch: Batch): Promise<BatchResult>;
  /**
   * A feed's batch, in one transaction: holds prices dated after `now`, releases held prices
   * now due (applied with the batch), leaves out prices of unknown stations (counted), applies
   * the rest as applyBatch does, and stores the batch's cursor when given.
   */
  applyFeedBatch(batch: Batch, options: FeedBatchOptions): Promise<FeedBatchResult>;
  /** Stores a cursor or a feed's kept value (FeedCursor's key) alone, in one transaction, marked as written at `now`. */
  saveCursor(cursor: FeedCursor, now: number): Promise<void>;
  /** Applies the held prices due at `now` (dated at or before it), in one transaction, as applyFeedBatch applies the released ones. */
  releaseDue(now: number): Promise<ReleaseResult>;
  feedCursor(key: string): Promise<string | undefined>;
  feedStations(feed: string): Promise<FeedStation[]>;
  recordRun(run: FeedRun): Promise<void>;
  /** Newest first. */
  feedRuns(query: { feed?: string; limit: number }): Promise<FeedRun[]>;
  /** Per feed that has run: when its last run ended and when its last successful one did (Unix seconds). */
  feedHealth(): Promise<FeedHealth[]>;
  /** Per feed that has ever run: its runs and failed runs since the database was made (schema 11), never pruned. */
  feedCounts(): Promise<FeedCounts[]>;
  /** Closes every open interval up to the start of each state's today and seals the days before it. */
  seal(nowSec: number): Promise<void>;
}

/** API tokens (the auth hook and `fuelprice tokens`). */
export interface TokenStore extends StoreBase {
  createToken(token: TokenRecord): Promise<void>;
  tokenById(id: string): Promise<TokenRecord | undefined>;
  listTokens(): Promise<TokenRecord[]>;
  revokeToken(id: string, atSec: number): Promise<boolean>;
}

/** Every door at once: what storage/open.ts hands out, each caller taking the interface it needs. */
export interface PriceStore extends ReadStore, IngestStore, TokenStore, BulkStore {}

export { COPY_ORDER } from './sql/copy-tables.ts';
export type { CopyKey, CopyProgress, CopyRow, CopyTable, CopyValue, TableChunk } from './sql/copy-tables.ts';

/** Bulk moves between installations (`fuelprice copy`, see sql/copy-tables.ts). */
export interface BulkStore extends StoreBase {
  /** Up to `limit` rows of the table after the key `after` (from the start when undefined), in key order. */
  exportTable(table: CopyTable, after: CopyKey | undefined, limit: number): Promise<TableChunk>;
  /**
   * Inserts rows in one transaction, skipping those present already (meta is overwritten), and
   * records `progress` in the same transaction. Returns how many rows were new.
   */
  importRows(table: CopyTable, rows: readonly CopyRow[], progress: CopyProgress): Promise<number>;
  tableCount(table: CopyTable): Promise<number>;
  copyProgress(): Promise<CopyProgress[]>;
}
