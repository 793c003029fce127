import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { SQLITE_DIALECT } from '../../src/storage/sql/dialect.ts';
import { readStatements } from '../../src/storage/sql/statements.ts';
import { SqliteFile, sqliteText } from '../../src/storage/sqlite/sqlite-file.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'fuelprice-sqlite-text-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('$n placeholders become +? in order, else +?n bound by number', () => {
  assert.deepEqual(sqliteText('SELECT a FROM t WHERE b = $1 AND c IN ($2, $3) LIMIT $4'),
    { text: 'SELECT a FROM t WHERE b = +? AND c IN (+?, +?) LIMIT +?', byPosition: true });
  assert.deepEqual(sqliteText('SELECT a FROM t WHERE b = $2 OR c = $1 OR d = $2'),
    { text: 'SELECT a FROM t WHERE b = +?2 OR c = +?1 OR d = +?2', byPosition: false });
  assert.deepEqual(sqliteText("SELECT value FROM meta WHERE key = 'x'"), { text: "SELECT value FROM meta WHERE key = 'x'", byPosition: true });
});

test('a value bound behind the plus reads, compares and is stored as a bare parameter would be', () => {
  const file = new SqliteFile(':memory:');
  file.run('CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n NUMERIC)');
  file.run("INSERT INTO t VALUES (5, 1.5, '5', x'35', 5), (7, 2.0, 'seven', x'00ff', '7.0'), (NULL, NULL, NULL, NULL, NULL)");
  // The reference: the same statements with bare parameters, straight through better-sqlite3.
  const reference = file.db;
  const values: unknown[] = [5, '5', 1.5, 2, '2.0', 'seven', '', 'Café ✓', Buffer.from('5'), Buffer.from([0, 255]), null, 2 ** 53 - 1, -0.25];
  for (const value of values) {
    assert.deepEqual(file.all('SELECT $1 AS v, typeof($1) AS type', [value]), reference.prepare('SELECT ? AS v, typeof(?) AS type').all(value, value), String(value));
    for (const column of ['i', 'r', 's', 'b', 'n']) {
      for (const op of ['=', '<', 'IS']) {
        const sql = `SELECT rowid FROM t WHERE ${column} ${op} $1 ORDER BY rowid`;
        assert.deepEqual(file.all(sql, [value]), reference.prepare(sql.replace('$1', '?')).all(value), `${column} ${op} ${String(value)}`);
      }
    }
  }
  file.run('CREATE TABLE u (i INTEGER, s TEXT, n NUMERIC)');
  for (const value of values.filter((v) => !Buffer.isBuffer(v))) {
    file.run('DELETE FROM u');
    file.run('INSERT INTO u VALUES ($1, $2, $3)', [value, value, value]);
    reference.prepare('INSERT INTO u VALUES (?, ?, ?)').run(value, value, value);
    const [mine, theirs] = reference.prepare('SELECT i, typeof(i) AS ti, s, typeof(s) AS ts, n, typeof(n) AS tn FROM u ORDER BY rowid').all();
    assert.deepEqual(mine, theirs, String(value));
  }
  file.close();
});

/** A new database at the current schema, opened read-only, and the query plan of a statement in it with every parameter NULL. */
async function migratedDatabase(name: string): Promise<{ db: Database.Database; plan: (sql: string, text: string) => string[] }> {
  const path = join(dir, name);
  const store = new SqliteStore(path);
  await store.migrate();
  await store.close();
  const db = new Database(path, { readonly: true });
  // Every parameter bound to NULL: a plan is made when the statement is prepared, before any value.
  const plan = (sql: string, text: string): string[] => {
    const numbers = [...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
    const nulls = sqliteText(text).byPosition ? numbers.map(() => null) : [Object.fromEntries(numbers.map((n) => [n, null]))];
    return db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...nulls).map((r) => (r as { detail: string }).detail);
  };
  return { db, plan };
}

test('every read statement keeps the query plan of its bare-parameter form (an index stays an index)', async () => {
  const { db, plan } = await migratedDatabase('plans.db');
  const texts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (typeof value === 'function') collect((value as (n: number) => unknown)(3));
    else if (value && typeof value === 'object') for (const v of Object.values(value)) collect(v);
  };
  collect(readStatements(SQLITE_DIALECT));
  const statements = texts.filter((text) => text.includes('$'));
  assert.ok(statements.length >= 25, `only ${statements.length} statements with parameters`);
  for (const text of statements) {
    const { text: plussed, byPosition } = sqliteText(text);
    const bare = byPosition ? text.replace(/\$\d+/g, '?') : text.replace(/\$(\d+)/g, '?$1');
    assert.deepEqual(plan(plussed, text), plan(bare, text), text.slice(0, 160));
  }
  db.close();
});

test('every held price is read with its station in one join through a key (once a data version: read-models/held-index.ts)', async () => {
  const { db, plan: planOf } = await migratedDatabase('held-plans.db');
  const text = readStatements(SQLITE_DIALECT).heldPrices;
  const plan = planOf(sqliteText(text).text, text).join(' | ');
  // One side scanned, the other found by feed and feed code: never a scan of one for each row of the other.
  assert.match(plan, /SEARCH (p USING PRIMARY KEY|s USING INDEX \w+) \(feed=\? AND feed_code=\?\)/);
  db.close();
});
