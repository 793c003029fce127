import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Connection, TransactionKind } from '../sql/connection.ts';
import type { BulkInsert, ForKeys, Params, Row } from '../sql/dialect.ts';

/**
 * The Connection of the SQLite store: better-sqlite3's synchronous calls behind resolved
 * promises. While a transaction is open (its work may await), every other call waits for it to
 * end: the file has one connection, and a read let in would see the transaction's uncommitted rows.
 */
export class SqliteConnection implements Connection {
  readonly file: SqliteFile;
  /** Settles when the open transaction ends; undefined while none is open. */
  private held: Promise<void> | undefined;
  /** What a transaction's work is given: the same calls, without waiting for the transaction they are in. */
  private readonly inside: Connection;

  constructor(path: string) {
    this.file = new SqliteFile(path);
    this.inside = new InTransaction(this.file);
  }

  /** True while a transaction is open: a synchronous read now would see its uncommitted rows. */
  get busy(): boolean {
    return this.held !== undefined;
  }

  private async free(): Promise<void> {
    while (this.held) await this.held;
  }

  async rows<R = Row>(text: string, params: Params = []): Promise<R[]> {
    if (this.held) await this.free();
    return this.file.all<R>(text, params);
  }

  async arrays<R extends unknown[]>(text: string, params: Params = []): Promise<R[]> {
    if (this.held) await this.free();
    return this.file.arrays<R>(text, params);
  }

  async row<R = Row>(text: string, params: Params = []): Promise<R | undefined> {
    if (this.held) await this.free();
    return this.file.get<R>(text, params);
  }

  async run(text: string, params: Params = []): Promise<number> {
    if (this.held) await this.free();
    return this.file.run(text, params).changes;
  }

  async bulkInsert(spec: BulkInsert, values: Params): Promise<number> {
    if (this.held) await this.free();
    return this.file.bulkInsert(spec, values);
  }

  async forKeys(statement: ForKeys, keys: Params): Promise<Row[]> {
    if (this.held) await this.free();
    return this.file.forKeys(statement, keys);
  }

  /** Every kind is one deferred transaction (BEGIN ... COMMIT), as better-sqlite3's db.transaction() opens. */
  async transaction<T>(_kind: TransactionKind, work: (tx: Connection) => Promise<T>): Promise<T> {
    while (this.held) await this.held;
    let release = (): void => undefined;
    this.held = new Promise<void>((resolve) => { release = resolve; });
    try {
      return await this.file.transaction(() => work(this.inside));
    } finally {
      this.held = undefined;
      release();
    }
  }

  close(): void {
    this.file.close();
  }
}

/** The calls of a transaction's own work: at once, nested transactions joining the open one. */
class InTransaction implements Connection {
  constructor(private readonly file: SqliteFile) {}

  async rows<R = Row>(text: string, params: Params = []): Promise<R[]> {
    return this.file.all<R>(text, params);
  }

  async arrays<R extends unknown[]>(text: string, params: Params = []): Promise<R[]> {
    return this.file.arrays<R>(text, params);
  }

  async row<R = Row>(text: string, params: Params = []): Promise<R | undefined> {
    return this.file.get<R>(text, params);
  }

  async run(text: string, params: Params = []): Promise<number> {
    return this.file.run(text, params).changes;
  }

  async bulkInsert(spec: BulkInsert, values: Params): Promise<number> {
    return this.file.bulkInsert(spec, values);
  }

  async forKeys(statement: ForKeys, keys: Params): Promise<Row[]> {
    return this.file.forKeys(statement, keys);
  }

  transaction<T>(_kind: TransactionKind, work: (tx: Connection) => Promise<T>): Promise<T> {
    return work(this);
  }
}

/**
 * One SQLite database file, called synchronously: its pragmas, its prepared statements (every query parameterised
 * and compiled once, cached by text) and many-row inserts. Statements are written with `$1`,
 * `$2`, ... as on PostgreSQL (sql/dialect.ts): each is turned into `?` when every placeholder
 * appears once and in order (bound by position, the common case), else into `?NNN` bound by
 * number.
 */
export class SqliteFile {
  readonly db: Database.Database;
  private readonly statements = new Map<string, Prepared>();

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
  }

  private prepared(text: string): Prepared {
    let prepared = this.statements.get(text);
    if (!prepared) this.statements.set(text, (prepared = prepare(this.db, text)));
    return prepared;
  }

  /** Every row, as objects keyed by column. */
  all<R = Row>(text: string, params: Params = []): R[] {
    const p = this.prepared(text);
    return p.mode('rows').all(p.bind(params)) as R[];
  }

  get<R = Row>(text: string, params: Params = []): R | undefined {
    const p = this.prepared(text);
    return p.mode('rows').get(p.bind(params)) as R | undefined;
  }

  /** Every row as an array of its values: no object to build per row. */
  arrays<R extends unknown[]>(text: string, params: Params = []): R[] {
    const p = this.prepared(text);
    return p.mode('arrays').all(p.bind(params)) as R[];
  }

  /** The first column of every row. */
  column<T>(text: string, params: Params = []): T[] {
    const p = this.prepared(text);
    return p.mode('column').all(p.bind(params)) as T[];
  }

  /**
   * The statement itself, set to return the first column, for a loop that runs it very often
   * with `?` placeholders (no lookup by text per call). Its text must be used nowhere else.
   */
  columnStatement(text: string): Database.Statement {
    return this.prepared(text).mode('column');
  }

  run(text: string, params: Params = []): Database.RunResult {
    const p = this.prepared(text);
    return p.statement.run(p.bind(params));
  }

  /** Rows for one BulkInsert, stored ROWS_PER_INSERT at a time (see RowBuffer). */
  bulk(spec: BulkInsert): RowBuffer {
    return new RowBuffer(this, spec);
  }

  /** Rows given one after another in `values`; returns the rows stored. */
  bulkInsert(spec: BulkInsert, values: Params): number {
    const buffer = this.bulk(spec);
    const columns = spec.types.length;
    for (let i = 0; i < values.length; i += columns) {
      for (let c = 0; c < columns; c++) buffer.values.push(values[i + c] as number | string | null | Buffer);
      buffer.added();
    }
    buffer.flush();
    return buffer.changes;
  }

  /** The statement's `each` once per key (a statement that returns no rows is run). */
  forKeys(statement: ForKeys, keys: Params): Row[] {
    const found: Row[] = [];
    if (keys.length === 0) return found;
    const p = this.prepared(statement.each);
    const prepared = p.mode('rows');
    const width = statement.width;
    for (let i = 0; i < keys.length; i += width) {
      const key = p.bind(keys.slice(i, i + width));
      if (!prepared.reader) prepared.run(key);
      else for (const row of prepared.all(key) as Row[]) found.push(row);
    }
    return found;
  }

  /** `work` in one deferred transaction: COMMIT when it resolves, ROLLBACK when it throws (unless SQLite already rolled back). */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    this.statement('BEGIN').run();
    try {
      const result = await work();
      this.statement('COMMIT').run();
      return result;
    } catch (error) {
      if (this.db.inTransaction) this.statement('ROLLBACK').run();
      throw error;
    }
  }

  private statement(text: string): Database.Statement {
    return this.prepared(text).statement;
  }

  /** The one-row form of a BulkInsert. */
  insertRow(spec: BulkInsert, values: Params): number {
    return this.run(`INSERT INTO ${spec.into} VALUES (${spec.types.map((_, i) => `$${i + 1}`).join(', ')}) ${spec.tail}`, values).changes;
  }

  close(): void {
    this.db.close();
  }
}

type Mode = 'rows' | 'arrays' | 'column';

interface Prepared {
  statement: Database.Statement;
  /** The statement set to return rows this way (a mode stays set on the statement until changed). */
  mode(mode: Mode): Database.Statement;
  bind(params: Params): unknown;
}

function prepare(db: Database.Database, text: string): Prepared {
  const order = text.includes('$') ? [...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])) : [];
  const inOrder = order.every((n, i) => n === i + 1);
  const statement = db.prepare(inOrder ? text.replace(/\$\d+/g, '?') : text.replace(/\$(\d+)/g, '?$1'));
  let current: Mode = 'rows';
  return {
    statement,
    mode(mode) {
      if (mode !== current) {
        // pluck and raw exclude each other: turning one on turns the other off.
        if (mode === 'column') statement.pluck(true);
        else if (mode === 'arrays') statement.raw(true);
        else statement.pluck(false).raw(false);
        current = mode;
      }
      return statement;
    },
    // By position: the array as it is. By number: { 1: first, 2: second, ... }.
    bind: inOrder ? (params) => params : (params) => Object.fromEntries(params.map((value, i) => [i + 1, value])),
  };
}

/** Rows per multi-row INSERT: one call binding 128 rows costs far less than 128 calls. */
const ROWS_PER_INSERT = 128;

/**
 * Rows for one INSERT, stored ROWS_PER_INSERT at a time through a multi-row VALUES statement
 * (the rest at flush in halving chunks, so a handful of statement texts serve every count).
 * Callers push a row's values onto `values` and then call added().
 */
export class RowBuffer {
  readonly values: Array<number | string | null | Buffer> = [];
  /** Rows the statements stored (an ON CONFLICT DO NOTHING skips some). */
  changes = 0;
  private rows = 0;
  private readonly columns: number;
  /** By row count: the text is long, and looking it up in the connection's cache would hash it each time. */
  private readonly statements = new Map<number, Database.Statement>();

  constructor(private readonly connection: SqliteFile, private readonly spec: BulkInsert) {
    this.columns = spec.types.length;
  }

  added(): void {
    if (++this.rows === ROWS_PER_INSERT) this.flush();
  }

  flush(): void {
    let done = 0;
    for (let size = ROWS_PER_INSERT; this.rows > 0; size >>= 1) {
      if (this.rows < size) continue;
      const statement = this.statement(size);
      this.changes += statement.run(done === 0 && this.rows === size ? this.values : this.values.slice(done * this.columns, (done + size) * this.columns)).changes;
      done += size;
      this.rows -= size;
    }
    this.values.length = 0;
  }

  private statement(rows: number): Database.Statement {
    let statement = this.statements.get(rows);
    if (!statement) {
      const row = `(${Array.from({ length: this.columns }, () => '?').join(', ')})`;
      statement = this.connection.db.prepare(`INSERT INTO ${this.spec.into} VALUES ${Array.from({ length: rows }, () => row).join(', ')} ${this.spec.tail}`);
      this.statements.set(rows, statement);
    }
    return statement;
  }
}
