import pg from 'pg';
import type { BulkRows, Connection, TransactionKind } from '../sql/connection.ts';
import type { BulkInsert, ForKeys, Params, Row } from '../sql/dialect.ts';
import { binaryArray } from './binary-arrays.ts';
import { StatementNames, namedQuery } from './statement-names.ts';

/**
 * The connection pool and transactions of the PostgreSQL store: every connection names the
 * application and carries a statement timeout; a transaction commits or rolls back and always
 * gives its connection back.
 */

export type Queryable = pg.Pool | pg.PoolClient;
export type { Params };

export interface PoolOptions {
  connectionString: string;
  /** Connections per process. */
  max?: number;
  statementTimeoutMs?: number;
  /** How long to wait for a connection (a new one, or a free one of the pool's): 5 s unless told. */
  connectTimeoutMs?: number;
  applicationName?: string;
}

/** Advisory lock keys (one namespace per database): migrations, and the one writer at a time. */
export const MIGRATION_LOCK = 0x66705f6d; // "fp_m"
export const WRITER_LOCK = 0x66705f77; // "fp_w"

/** Writers and migrations may take longer than a request's query, and may wait for each other's lock. */
const LONG_STATEMENT_TIMEOUT = '120s';
/** Sealing groups a state's daily rows: enough memory to do it without spilling to disk. */
const WRITER_WORK_MEM = '64MB';

/** bigint columns (sums, Unix seconds, counts) as numbers: they stay far below 2^53, and a value that does not is an error, not a rounding. */
function parseSafeInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`bigint ${text} does not fit a JavaScript number`);
  return value;
}

const types = new pg.TypeOverrides();
types.setTypeParser(pg.types.builtins.INT8, parseSafeInteger);

export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'fuelprice',
    statement_timeout: options.statementTimeoutMs ?? 5_000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    types,
  });
  // An idle connection that dies (server restart) must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  return pool;
}

/** The error a closed store throws: the code and message the API maps to 503 unavailable. */
export class StoreClosedError extends Error {
  readonly code = '08003';
  constructor() {
    super('database connection is not open (the store was closed)');
    this.name = 'StoreClosedError';
  }
}

/**
 * Many rows in one statement: one array per column (in the spec's column order), expanded by
 * unnest(): any number of rows, far below the parameter limit; numeric columns as binary arrays
 * (binary-arrays.ts), a column of one string repeated as that string once (array_fill). `returning`
 * is added after the spec's tail. Returns the rows the statement
 * returned, or none.
 */
export async function bulkInsert(db: Queryable, spec: BulkInsert, columns: ReadonlyArray<readonly unknown[]>, returning = ''): Promise<{ rows: Row[]; count: number }> {
  const length = columns[0]?.length ?? 0;
  if (length === 0) return { rows: [], count: 0 };
  const params: unknown[] = [];
  const arrays = spec.types.map((type, i) => {
    const column = columns[i] ?? [];
    const only = sameText(column);
    params.push(only ?? binaryArray(type, column) ?? [...column]);
    return only === undefined ? `$${i + 1}::${type}[]` : `array_fill($${i + 1}::${type}, ARRAY[${length}])`;
  }).join(', ');
  const result = await db.query<Row>(`INSERT INTO ${spec.into} SELECT * FROM unnest(${arrays}) ${spec.tail} ${returning}`, params);
  return { rows: result.rows, count: result.rowCount ?? 0 };
}

/** The one string every value of a column is (a city's means name their city on every row), sent once; undefined when they differ. */
function sameText(column: readonly unknown[]): string | undefined {
  const first = column[0];
  if (typeof first !== 'string' || column.length < 2) return undefined;
  for (const value of column) if (value !== first) return undefined;
  return first;
}

/**
 * The Connection of the PostgreSQL store: the pool, or within a transaction the one client that
 * holds it. A closed store's calls throw StoreClosedError (answered as 503, like an unreachable server).
 */
export class PostgresConnection implements Connection {
  private closed = false;

  /** `names`: how this pool names its statements outside transactions (statement-names.ts), shared by the connections of its transactions. */
  constructor(readonly pool: pg.Pool, readonly client?: pg.PoolClient, readonly names = new StatementNames()) {}

  private db(): Queryable {
    if (this.closed) throw new StoreClosedError();
    return this.client ?? this.pool;
  }

  /** One statement: named when outside a transaction (statement-names.ts), as given inside one. */
  private query<R extends pg.QueryResultRow>(text: string, params: Params, rowMode?: 'array'): Promise<pg.QueryResult<R>> {
    const db = this.db();
    if (this.client) return db.query<R>({ text, values: [...params], ...(rowMode ? { rowMode } : {}) });
    return namedQuery<R>(this.pool, this.names, text, [...params], rowMode);
  }

  async rows<R = Row>(text: string, params: Params = []): Promise<R[]> {
    return (await this.query<Row>(text, params)).rows as R[];
  }

  async arrays<R extends unknown[]>(text: string, params: Params = []): Promise<R[]> {
    return (await this.query<Row>(text, params, 'array')).rows as unknown as R[];
  }

  async row<R = Row>(text: string, params: Params = []): Promise<R | undefined> {
    return (await this.query<Row>(text, params)).rows[0] as R | undefined;
  }

  async run(text: string, params: Params = []): Promise<number> {
    return (await this.query(text, params)).rowCount ?? 0;
  }

  /** The flat rows as one array per column, through unnest() (bulkInsert below). */
  async bulkInsert(spec: BulkInsert, values: Params): Promise<number> {
    return (await bulkInsert(this.db(), spec, byColumn(values, spec.types.length))).count;
  }

  bulkRows(spec: BulkInsert): BulkRows {
    const values: unknown[] = [];
    return { values, added: () => undefined, done: () => this.bulkInsert(spec, values) };
  }

  async forKeys(statement: ForKeys, keys: Params): Promise<Row[]> {
    if (keys.length === 0) return [];
    return this.rows(statement.all, byColumn(keys, statement.width));
  }

  /**
   * 'reads' takes no transaction: a snapshot would cost a connection of the pool and two more
   * round trips, for reads that SQLite groups only to take its lock once.
   */
  transaction<T>(kind: TransactionKind, work: (tx: Connection) => Promise<T>): Promise<T> {
    if (this.client || kind === 'reads') return work(this);
    return transaction(this.db() as pg.Pool, kind, (client) => work(new PostgresConnection(this.pool, client, this.names)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

/** Rows given one after another (`width` values each) as one array per column. */
function byColumn(values: Params, width: number): unknown[][] {
  return Array.from({ length: width }, (_, c) => {
    const column: unknown[] = [];
    for (let i = c; i < values.length; i += width) column.push(values[i]);
    return column;
  });
}

/** Runs `work` in one transaction: COMMIT on success, ROLLBACK on any error, the connection always released. */
export async function transaction<T>(pool: pg.Pool, kind: Exclude<TransactionKind, 'reads'>, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    if (kind === 'snapshot') {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    } else {
      await client.query('BEGIN');
      await client.query("SELECT set_config('statement_timeout', $1, true), set_config('work_mem', $2, true)", [LONG_STATEMENT_TIMEOUT, WRITER_WORK_MEM]);
      await client.query('SELECT pg_advisory_xact_lock($1)', [kind === 'writer' ? WRITER_LOCK : MIGRATION_LOCK]);
    }
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      // The connection is unusable: destroy it rather than hand it to the next caller.
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
