import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { BulkInsert, ForKeys, Params, Row } from '../sql/dialect.ts';

/**
 * One SQLite database file, called synchronously: its pragmas, its prepared statements (every query parameterised
 * and compiled once, cached by text) and many-row inserts. Statements are written with `$1`,
 * `$2`, ... as on PostgreSQL (sql/dialect.ts): sqliteText turns them into SQLite's.
 */
export class SqliteFile {
  readonly db: Database.Database;
  private readonly statements = new Map<string, Prepared>();

  /** `readonly`: a reader beside the server's own connection (the derived-answers worker); the file is in WAL mode already. */
  constructor(path: string, readonly = false) {
    if (readonly) {
      this.db = new Database(path, { readonly: true, fileMustExist: true });
      this.db.pragma('busy_timeout = 5000');
      return;
    }
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

  /** Rows given one after another in `values`, ROWS_PER_INSERT to a statement (the rest in halving chunks); returns the rows stored. */
  bulkInsert(spec: BulkInsert, values: Params): number {
    const width = spec.types.length;
    let rows = values.length / width;
    let done = 0;
    let changes = 0;
    for (let size = ROWS_PER_INSERT; rows > 0;) {
      if (rows < size) { size >>= 1; continue; }
      const chunk = rows === size && done === 0 ? values : values.slice(done * width, (done + size) * width);
      changes += this.insertStatement(spec, size).run(chunk).changes;
      done += size;
      rows -= size;
    }
    return changes;
  }

  /** By spec and row count: the text is long, and looking it up by text would hash it each time. */
  private readonly inserts = new WeakMap<BulkInsert, Map<number, Database.Statement>>();

  insertStatement(spec: BulkInsert, rows: number): Database.Statement {
    let bySize = this.inserts.get(spec);
    if (!bySize) this.inserts.set(spec, (bySize = new Map<number, Database.Statement>()));
    let statement = bySize.get(rows);
    if (!statement) {
      const row = `(${spec.types.map(() => '?').join(', ')})`;
      statement = this.db.prepare(`INSERT INTO ${spec.into} VALUES ${Array.from({ length: rows }, () => row).join(', ')} ${spec.tail}`);
      bySize.set(rows, statement);
    }
    return statement;
  }

  /** The statement's `each` once per key (a statement that returns no rows is run). */
  forKeys(statement: ForKeys, keys: Params): Row[] {
    const found: Row[] = [];
    if (keys.length === 0) return found;
    const p = this.prepared(statement.each);
    const prepared = p.mode('rows');
    const width = statement.width;
    // One array for every key: the values are copied when bound.
    const values = new Array<unknown>(width);
    for (let i = 0; i < keys.length; i += width) {
      for (let c = 0; c < width; c++) values[c] = keys[i + c];
      const key = p.bind(values);
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

/**
 * A statement's text as SQLite takes it, and whether its parameters are bound by position: each
 * `$n` becomes `+?` when every placeholder appears once and in order (the common case), else
 * `+?NNN`, bound by number.
 *
 * The unary plus changes no value (SQLite: "a no-op ... on strings, numbers, blobs or NULL", and
 * `+?` has no affinity, as `?` has none) and leaves a column compared with it indexed. What it
 * does: SQLite compiles some statements for the values first bound to a bare parameter (a
 * `LIMIT ?`, a join's `s.id = ?` carried to the other table's key) and marks them to be compiled
 * again when a new value is bound, which here is every execution: more than half the CPU of an
 * uncached answer as short as `/v1/stations/{id}/prices` (bench/RESULTS.md, "Statements compiled
 * once"). SQLite's switch for this (SQLITE_DBCONFIG_ENABLE_QPSG) is not
 * reachable through better-sqlite3; a parameter behind an operator is never looked at, so a
 * statement keeps the plan it was prepared with (test/storage/sqlite-text.test.ts).
 */
export function sqliteText(text: string): { text: string; byPosition: boolean } {
  const order = text.includes('$') ? [...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])) : [];
  const byPosition = order.every((n, i) => n === i + 1);
  return { text: byPosition ? text.replace(/\$\d+/g, '+?') : text.replace(/\$(\d+)/g, '+?$1'), byPosition };
}

function prepare(db: Database.Database, text: string): Prepared {
  const { text: sql, byPosition: inOrder } = sqliteText(text);
  const statement = db.prepare(sql);
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
 * Rows for one INSERT, stored ROWS_PER_INSERT at a time as they come (city means stream theirs).
 * Callers push a row's values onto `values` and then call added().
 */
export class RowBuffer {
  readonly values: unknown[] = [];
  /** Rows the statements stored (an ON CONFLICT DO NOTHING skips some). */
  changes = 0;
  private rows = 0;

  constructor(private readonly file: SqliteFile, private readonly spec: BulkInsert) {}

  added(): void {
    if (++this.rows === ROWS_PER_INSERT) this.flush();
  }

  flush(): void {
    this.changes += this.file.bulkInsert(this.spec, this.values);
    this.rows = 0;
    this.values.length = 0;
  }

  /** BulkRows.done(): the rest stored at once. */
  async done(): Promise<number> {
    this.flush();
    return this.changes;
  }
}
