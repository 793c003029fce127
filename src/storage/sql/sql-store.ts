import { fuelIndex } from '../../domain/fuels.ts';
import type {
  Batch, BatchResult, ChangesPage, ChangesQuery, CityInput, CopyKey, CopyProgress, CopyRow, CopyTable, FeedBatchOptions, FeedBatchResult, FeedCounts, FeedHealth, FeedRun,
  FeedStation, PriceEvent, PriceStore, TableChunk, TokenRecord,
} from '../store.ts';
import { UNKNOWN_EXAMPLES, partitionKnown, sortHeld, sortReleased, splitHeld } from '../writer/batch-plan.ts';
import { lastChange, readChanges } from './changes.ts';
import type { Connection } from './connection.ts';
import { copySpec, countSql, exportSql, importBulk, toChunk, toCopyProgress } from './copy-tables.ts';
import type { Dialect } from './dialect.ts';
import { feedRunValues, toFeedCounts, toFeedHealth, toFeedRun, toFeedStation, toPending, toToken } from './row-mappers.ts';
import { SqlReads, storable } from './sql-reads.ts';
import { BULK, INGEST_STATEMENTS as INGEST, RUN_LOG_DAYS, bumpDataVersion } from './ingest-statements.ts';
import { copyStatements, tokenStatements } from './statements.ts';

/** What applies batches and seals days, inside a writer transaction the store opens. */
export interface BatchWriter {
  applyBatch(tx: Connection, batch: Batch, options?: { deferCityDays?: boolean }): Promise<BatchResult>;
  seal(tx: Connection, nowSec: number): Promise<void>;
  /** Which of the stations the prices name are stored (asked before the batch's own stations are written). */
  storedStations(tx: Connection, prices: readonly PriceEvent[]): Promise<(feed: string, feedCode: string) => boolean>;
}

/**
 * The one SQL store: the reads (sql-reads.ts), and here ingest, tokens and bulk copies, written
 * once over a Connection. Every write is one writer transaction; afterwards the versions are
 * read afresh (see versions.ts).
 */
export abstract class SqlStore extends SqlReads implements PriceStore {
  private readonly tokens: ReturnType<typeof tokenStatements>;
  private readonly copies: ReturnType<typeof copyStatements>;

  constructor(db: Connection, dialect: Dialect, private readonly writer: BatchWriter) {
    super(db, dialect);
    this.tokens = tokenStatements(dialect);
    this.copies = copyStatements(dialect);
  }

  protected async write<T>(work: (tx: Connection) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction('writer', work);
    } finally {
      this.reuse.forget();
    }
  }

  /** The changes feed's reads (sql/changes.ts), kept here beside the writes that number the changes. */
  lastChange(): Promise<number> {
    return lastChange(this.db);
  }

  priceChanges(query: ChangesQuery): Promise<ChangesPage> {
    return readChanges(this.db, query);
  }

  async upsertCities(cities: CityInput[]): Promise<void> {
    await this.write(async (tx) => {
      await tx.bulkInsert(BULK.cities, cities.flatMap((c) => [c.id, c.name, c.state, c.latitude, c.longitude]));
      await bumpDataVersion(tx);
    });
  }

  async applyBatch(batch: Batch): Promise<BatchResult> {
    return this.write((tx) => this.writer.applyBatch(tx, batch));
  }

  async seal(nowSec: number): Promise<void> {
    await this.write((tx) => this.writer.seal(tx, nowSec));
  }

  async applyFeedBatch(batch: Batch, options: FeedBatchOptions): Promise<FeedBatchResult> {
    return this.write(async (tx) => {
      const { due, held } = splitHeld(batch.prices, options.now);
      // A price held already is known when it is the same report, corrected when its price or availability changed.
      const { fresh, changed } = sortHeld(held, (await tx.rows(INGEST.pendingAfter, [options.now])).map(toPending));
      const pricesHeld = await tx.bulkInsert(BULK.pendingPrices,
        fresh.flatMap((p) => [p.feed, p.feedCode, fuelIndex(p.fuel), p.at, p.priceTenths, p.available ? 1 : 0]));
      for (const p of changed) await tx.run(INGEST.correctPending, [p.feed, p.feedCode, fuelIndex(p.fuel), p.at, p.priceTenths, p.available ? 1 : 0]);
      const released = sortReleased((await tx.rows(INGEST.releasePending, [options.now])).map(toPending));
      // Held prices are answered (tomorrow): holding, correcting or releasing one changes answers, as a stored price does.
      if (pricesHeld > 0 || changed.length > 0 || released.length > 0) await bumpDataVersion(tx);
      const prices = [...released, ...due];
      const stored = await this.writer.storedStations(tx, prices);
      const { kept, unknown } = partitionKnown(prices, batch.stations, stored);
      const result = await this.writer.applyBatch(tx, { stations: batch.stations, prices: kept }, { deferCityDays: options.deferCityDays === true });
      if (options.cursor) await tx.run(INGEST.saveCursor, [options.cursor.key, options.cursor.value, options.now]);
      return {
        ...result, pricesHeld, pricesHeldCorrected: changed.length, pricesReleased: released.length,
        unknownStation: unknown.slice(0, UNKNOWN_EXAMPLES), unknownStationCount: unknown.length,
      };
    });
  }

  async feedCursor(key: string): Promise<string | undefined> {
    if (!storable(key)) return undefined;
    const row = await this.db.row(INGEST.feedCursor, [key]);
    return row === undefined ? undefined : String(row.value);
  }

  async feedStations(feed: string): Promise<FeedStation[]> {
    return storable(feed) ? (await this.db.rows(INGEST.feedStations, [feed])).map(toFeedStation) : [];
  }

  async recordRun(run: FeedRun): Promise<void> {
    await this.write(async (tx) => {
      await tx.run(INGEST.recordRun, feedRunValues(run));
      await tx.run(INGEST.countRun, [run.feed, run.error === undefined ? 0 : 1]);
      await tx.run(INGEST.forgetRuns, [run.finishedAt - RUN_LOG_DAYS * 86_400]);
    });
  }

  async feedRuns(query: { feed?: string; limit: number }): Promise<FeedRun[]> {
    if (query.feed !== undefined && !storable(query.feed)) return [];
    const found = query.feed === undefined
      ? await this.db.rows(INGEST.feedRuns, [query.limit]) : await this.db.rows(INGEST.feedRunsOf, [query.feed, query.limit]);
    return found.map(toFeedRun);
  }

  async feedHealth(): Promise<FeedHealth[]> {
    return (await this.db.rows(INGEST.feedHealth)).map(toFeedHealth);
  }

  async feedCounts(): Promise<FeedCounts[]> {
    return (await this.db.rows(INGEST.feedCounts)).map(toFeedCounts);
  }

  async createToken(token: TokenRecord): Promise<void> {
    await this.write(async (tx) => {
      await tx.run(this.tokens.create, [token.id, token.name, token.hash, token.createdAt, token.expiresAt, token.revokedAt, token.rateLimit]);
      await tx.run(this.tokens.bumpVersion);
    });
  }

  async tokenById(id: string): Promise<TokenRecord | undefined> {
    if (!storable(id)) return undefined;
    const row = await this.db.row(this.tokens.byId, [id]);
    return row ? toToken(row) : undefined;
  }

  async listTokens(): Promise<TokenRecord[]> {
    return (await this.db.rows(this.tokens.list)).map(toToken);
  }

  async revokeToken(id: string, atSec: number): Promise<boolean> {
    if (!storable(id)) return false;
    return this.write(async (tx) => {
      const revoked = (await tx.run(this.tokens.revoke, [atSec, id])) > 0;
      if (revoked) await tx.run(this.tokens.bumpVersion);
      return revoked;
    });
  }

  async exportTable(table: CopyTable, after: CopyKey | undefined, limit: number): Promise<TableChunk> {
    return toChunk(table, await this.db.rows(exportSql(this.dialect, table, after !== undefined), [...(after ?? []), limit]));
  }

  async importRows(table: CopyTable, rows: readonly CopyRow[], progress: CopyProgress): Promise<number> {
    const { columns } = copySpec(table);
    const spec = importBulk(table);
    // Station keys are copied, not generated.
    const keyed = table === 'stations';
    const into = keyed ? { ...spec, into: this.dialect.givenKeys(spec.into) } : spec;
    return this.write(async (tx) => {
      const count = await tx.bulkInsert(into, rows.flatMap((row) => columns.map((c) => row[c] ?? null)));
      if (keyed && this.dialect.afterGivenKeys) await tx.run(this.dialect.afterGivenKeys);
      await tx.run(this.copies.saveProgress,
        [progress.table, progress.source, progress.after === undefined ? null : JSON.stringify(progress.after), progress.rows, progress.done ? 1 : 0]);
      return count;
    });
  }

  async tableCount(table: CopyTable): Promise<number> {
    return Number((await this.db.row(countSql(table)))?.n);
  }

  async copyProgress(): Promise<CopyProgress[]> {
    return (await this.db.rows(this.copies.progress)).map(toCopyProgress);
  }
}
