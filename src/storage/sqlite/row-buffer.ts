import type Database from 'better-sqlite3';

/** How the SQLite writer gets a prepared statement: cached by text, compiled once. */
export type Sql = (text: string) => Database.Statement;

/** Rows per multi-row INSERT: one call binding 128 rows costs far less than 128 calls. */
const ROWS_PER_INSERT = 128;

/**
 * Rows for one INSERT, stored ROWS_PER_INSERT at a time through a multi-row VALUES statement
 * (the rest at flush in halving chunks, so a handful of statement texts serve every count).
 * Callers push a row's values onto `values` and then call added().
 */
export class RowBuffer {
  readonly values: Array<number | string | null> = [];
  private rows = 0;
  /** By row count: the text is long, and looking it up in the store's cache would hash it each time. */
  private readonly statements = new Map<number, Database.Statement>();

  constructor(private readonly sql: Sql, private readonly head: string, private readonly columns: number, private readonly tail: string) {}

  added(): void {
    if (++this.rows === ROWS_PER_INSERT) this.flush();
  }

  flush(): void {
    let done = 0;
    for (let size = ROWS_PER_INSERT; this.rows > 0; size >>= 1) {
      if (this.rows < size) continue;
      const statement = this.statement(size);
      statement.run(done === 0 && this.rows === size ? this.values : this.values.slice(done * this.columns, (done + size) * this.columns));
      done += size;
      this.rows -= size;
    }
    this.values.length = 0;
  }

  private statement(rows: number): Database.Statement {
    let statement = this.statements.get(rows);
    if (!statement) {
      const row = `(${Array.from({ length: this.columns }, () => '?').join(', ')})`;
      statement = this.sql(`${this.head} VALUES ${Array.from({ length: rows }, () => row).join(', ')}${this.tail}`);
      this.statements.set(rows, statement);
    }
    return statement;
  }
}
