import type { BulkRows, Connection, TransactionKind } from '../sql/connection.ts';
import type { BulkInsert, ForKeys, Params, Row } from '../sql/dialect.ts';
import { SqliteFile } from './sqlite-file.ts';

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

  constructor(path: string, readonly = false) {
    this.file = new SqliteFile(path, readonly);
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

  /** Outside a transaction the rows wait for done(), which waits for any open transaction (inside one they go as they come). */
  bulkRows(spec: BulkInsert): BulkRows {
    const values: unknown[] = [];
    return { values, added: () => undefined, done: () => this.bulkInsert(spec, values) };
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

  bulkRows(spec: BulkInsert): BulkRows {
    return this.file.bulk(spec);
  }

  transaction<T>(_kind: TransactionKind, work: (tx: Connection) => Promise<T>): Promise<T> {
    return work(this);
  }
}
