import type { BulkInsert, ForKeys, Params, Row } from './dialect.ts';

export type TransactionKind =
  /** Reads that must see one snapshot (a seal committed between them would count an interval twice or not at all). */
  | 'snapshot'
  /**
   * Reads made together for speed: on SQLite one deferred transaction (one lock instead of one
   * per read, and one snapshot); on PostgreSQL each read goes to the pool as it is (a snapshot
   * there costs a connection and two more round trips).
   */
  | 'reads'
  /** A write, one writer of the database at a time. */
  | 'writer'
  /** Schema migration, one process at a time. */
  | 'migration';

/**
 * What the one SQL store needs of a database (sql/sql-store.ts): statements written once with
 * `$1`, `$2`, ... placeholders (sql/dialect.ts), and transactions. SQLite supplies one file's
 * synchronous calls behind resolved promises, guarded so that nothing runs on its one connection
 * while a transaction is open but that transaction's own work (sqlite/sqlite-connection.ts);
 * PostgreSQL supplies a pool, a transaction holding one of its clients (postgres/postgres-connection.ts).
 */
export interface Connection {
  /** Every row, as objects keyed by column. */
  rows<R = Row>(text: string, params?: Params): Promise<R[]>;
  /** Every row as an array of its values: no object to build per row (long reads). */
  arrays<R extends unknown[]>(text: string, params?: Params): Promise<R[]>;
  /** The first row, if any. */
  row<R = Row>(text: string, params?: Params): Promise<R | undefined>;
  /** Runs a statement; returns the rows it changed. */
  run(text: string, params?: Params): Promise<number>;
  /** Rows of one BulkInsert, given one after another in `values` (a row's values in the spec's column order); returns the rows stored. */
  bulkInsert(spec: BulkInsert, values: Params): Promise<number>;
  /** Rows of one BulkInsert given as they come (see BulkRows); done() stores the last of them. */
  bulkRows(spec: BulkInsert): BulkRows;
  /** Runs a ForKeys statement for every key of `keys` (one key after another, `width` values each); returns the rows of all. */
  forKeys(statement: ForKeys, keys: Params): Promise<Row[]>;
  /** Runs `work` in one transaction of the kind: committed when it resolves, rolled back when it throws. */
  transaction<T>(kind: TransactionKind, work: (tx: Connection) => Promise<T>): Promise<T>;
}

/**
 * Rows for one BulkInsert, added one at a time: push a row's values onto `values`, then call
 * added(). SQLite stores them 128 rows to a statement as they come (no array of a whole batch's
 * rows to build); PostgreSQL keeps them for one statement at done() (one round trip).
 */
export interface BulkRows {
  readonly values: unknown[];
  added(): void;
  /** Stores the rows not stored yet; returns how many rows were stored in all. */
  done(): Promise<number>;
}
