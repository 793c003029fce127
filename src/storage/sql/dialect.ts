/**
 * What differs between the two SQL backends, kept in one place so that every statement both
 * run is written once (sql/statements.ts):
 *
 * - placeholders: statements are written with `$1`, `$2`, ...; PostgreSQL takes them as they are,
 *   the SQLite connection turns them into `?` when each appears once and in order, or into
 *   `?NNN` bound by number otherwise (sqlite/sqlite-file.ts);
 * - text order: ids are ordered byte by byte on both (SQLite's BINARY collation, PostgreSQL's "C");
 * - types: PostgreSQL needs a parameter's type where it cannot infer it (`$1::bigint`), SQLite none;
 * - booleans: written as 0/1 parameters (PostgreSQL reads '1' and '0' as booleans) and compared
 *   with `= TRUE` / `= FALSE`, which both understand;
 * - upserts: `ON CONFLICT (...) DO UPDATE SET c = excluded.c`, the same on both;
 * - many rows at once: one statement head and conflict clause (BulkInsert), sent as multi-row
 *   VALUES on SQLite and as one array per column through unnest() on PostgreSQL.
 */
export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** A text column in byte order, as an ORDER BY or comparison term. */
  byteOrder(column: string): string;
  /** Parameter n, typed where the backend needs it (`pgType` is PostgreSQL's name for the type). */
  typed(n: number, pgType: string): string;
  /** An ORDER BY inside an aggregate that sums floats: PostgreSQL's plans may otherwise change the order, and so the last bits. */
  sumOrder(orderBy: string): string;
  /**
   * An INSERT target taking the values given for a generated key (a copy keeps station keys):
   * PostgreSQL's identity columns refuse given values unless told; SQLite's rowid takes them.
   */
  givenKeys(into: string): string;
  /** Run after keys were given: PostgreSQL's identity sequence must move past them (SQLite's next rowid is max + 1 anyway). */
  readonly afterGivenKeys: string | undefined;
  /**
   * Run before a state's first seal, which follows a bulk load: PostgreSQL's autovacuum has not
   * analysed the new rows yet, and without statistics its planner joins millions of daily rows
   * by nested loops. SQLite's seal reads each station's rows by key and needs no statistics.
   */
  readonly beforeFirstSeal: string | undefined;
}

export const SQLITE_DIALECT: Dialect = {
  name: 'sqlite',
  byteOrder: (column) => column,
  typed: (n) => `$${n}`,
  sumOrder: () => '',
  givenKeys: (into) => into,
  afterGivenKeys: undefined,
  beforeFirstSeal: undefined,
};

export const POSTGRES_DIALECT: Dialect = {
  name: 'postgres',
  byteOrder: (column) => `${column} COLLATE "C"`,
  typed: (n, pgType) => `$${n}::${pgType}`,
  sumOrder: (orderBy) => ` ORDER BY ${orderBy}`,
  givenKeys: (into) => `${into} OVERRIDING SYSTEM VALUE`,
  afterGivenKeys: "SELECT setval(pg_get_serial_sequence('stations', 'key'), coalesce(max(key), 0) + 1, false) FROM stations",
  beforeFirstSeal: 'ANALYZE stations, station_daily, station_runs',
};

/**
 * Rows inserted many at a time: `INSERT INTO <into> <rows> <tail>`, with each column's type
 * (PostgreSQL's name: unnest() needs typed arrays). A flag column takes 0/1.
 */
export interface BulkInsert {
  /** Table and column list, e.g. `station_runs (station_key, to_day, fuel, from_day, price_tenths)`. */
  into: string;
  types: readonly string[];
  /** ON CONFLICT clause, or ''. */
  tail: string;
}

/**
 * One statement run for many keys, each key `width` values. SQLite runs `each` once per key,
 * the key's values as $1, $2, ... (its calls cost no round trip: a prepared statement and an
 * index lookup each); PostgreSQL runs `all` once, with one array per key column as $1, $2, ...
 * expanded by unnest() (one round trip whatever the number of keys). Either returns the rows of
 * every key, in no order.
 */
export interface ForKeys {
  each: string;
  all: string;
  width: number;
}

/**
 * A row as either backend returns it. Column names are the same in each schema; flags may come
 * back as 0/1 (SQLite) or true/false (PostgreSQL): row-mappers.ts turns rows into the store's objects.
 */
export type Row = Record<string, unknown>;

/** A statement's parameters, positional ($1 is the first). */
export type Params = ReadonlyArray<unknown>;
