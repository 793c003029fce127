import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Statements made outside a transaction (every API request's reads, and the few writes made
 * alone) go to PostgreSQL as named statements,
 * prepared once per connection: unnamed, the server parsed and planned each one at every
 * execution, most of a short read's round trip (bench/RESULTS.md, "Statements compiled once").
 * A name is the hash of the text, so a text always has the same name on every connection.
 *
 * What a name can meet, and what is done then (the statement, which did not run, is sent again
 * unnamed each time, so nobody sees the error):
 * - 26000 (no such prepared statement) or 42P05 (one of that name exists): the connection is
 *   not the one the statement was prepared on, as behind PgBouncer in transaction mode, or was
 *   reset (DISCARD ALL): this pool names nothing more.
 * - 0A000 (cached plan must not change result type): a migration changed a table a `SELECT *`
 *   reads since the statement was prepared: that text is sent unnamed from then on.
 * Transactions (the writer, snapshots) are left unnamed: a failed statement aborts its
 * transaction, so it could not be sent again.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private readonly unnamed = new Set<string>();
  private naming = true;

  /** The name to send the text under, or undefined to send it unnamed. */
  nameOf(text: string): string | undefined {
    if (!this.naming || this.unnamed.has(text)) return undefined;
    let name = this.names.get(text);
    if (name === undefined) this.names.set(text, (name = `fp_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`));
    return name;
  }

  /** Whether an error of a named statement means sending it again unnamed (and what to name from now on). */
  retriesUnnamed(text: string, error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === '26000' || code === '42P05') this.naming = false;
    else if (code === '0A000') this.unnamed.add(text);
    else return false;
    return true;
  }

  /** Whether this pool still names its reads. */
  get enabled(): boolean {
    return this.naming;
  }
}

/** A statement outside a transaction, named where it can be (StatementNames). */
export async function namedQuery<R extends pg.QueryResultRow>(
  pool: pg.Pool, names: StatementNames, text: string, values: unknown[], rowMode?: 'array',
): Promise<pg.QueryResult<R>> {
  const name = names.nameOf(text);
  const unnamed = { text, values, ...(rowMode ? { rowMode } : {}) };
  if (name === undefined) return pool.query<R>(unnamed);
  try {
    return await pool.query<R>({ ...unnamed, name });
  } catch (error) {
    if (!names.retriesUnnamed(text, error)) throw error;
    return pool.query<R>(unnamed);
  }
}
