import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { binaryArray } from '../../src/storage/postgres/binary-arrays.ts';
import { bulkInsert, createPool } from '../../src/storage/postgres/postgres-connection.ts';
import type { BulkInsert } from '../../src/storage/sql/dialect.ts';
import { createPostgresDatabase, postgresServerUrl } from '../helpers.ts';

const SERVER = postgresServerUrl();

/*
 * Bulk writes send numeric columns to PostgreSQL as binary arrays (src/storage/postgres/
 * binary-arrays.ts). The reference is the way they went before: the same columns as JavaScript
 * arrays, which node-postgres sends as array literals. What is stored must be the same bits.
 */

const COLUMNS = ['s', 'i', 'b', 'd', 'f', 't'] as const;
const TYPES = ['smallint', 'integer', 'bigint', 'double precision', 'boolean', 'text'];
const spec = (table: string): BulkInsert => ({ into: `${table} (s, i, b, d, f, t)`, types: TYPES, tail: '' });

// Edge values of every type: range ends, doubles whose shortest digits are long, subnormals, −0.
const ROWS: unknown[][] = [
  [-32768, -2147483648, -Number.MAX_SAFE_INTEGER, 0.1 + 0.2, true, 'a'],
  [32767, 2147483647, Number.MAX_SAFE_INTEGER, 1 / 3, false, 'b'],
  [0, 0, 0, -0, 1, 'sydney'],
  [1, -1, 1774915200, 5e-324, 0, ''],
  [-1, 7, -1, Number.MAX_VALUE, true, 'ünïcode'],
  [12, 1234567, 9007199254740990, 2357.123456789012, false, 'x'],
  [3, 4, 5, -Number.MIN_VALUE * 3, true, 'y'],
];

function columnsOf(rows: readonly unknown[][]): unknown[][] {
  return COLUMNS.map((_, c) => rows.map((row) => row[c]));
}

describe('binary arrays of bulk writes on PostgreSQL', { skip: SERVER ? false : 'set FUELPRICE_TEST_POSTGRES to a server URL to run these' }, () => {
  let database: { url: string; drop: () => Promise<void> };
  let pool: pg.Pool;
  before(async () => {
    database = await createPostgresDatabase(SERVER ?? '');
    pool = createPool({ connectionString: database.url, max: 1 });
    for (const table of ['sent_binary', 'sent_literal']) {
      await pool.query(`CREATE TABLE ${table} (n serial, s smallint, i integer, b bigint, d double precision, f boolean, t text)`);
    }
  });
  after(async () => {
    await pool.end();
    await database.drop();
  });

  /** Each stored row as the bytes of its values (the binary send of each column) and its text. */
  const stored = async (table: string): Promise<string[]> => (await pool.query<{ row: string }>(
    `SELECT concat_ws(' ', int2send(s), int4send(i), int8send(b), float8send(d), boolsend(f), t, d::text) AS row FROM ${table} ORDER BY n`,
  )).rows.map((r) => r.row);

  test('store exactly what array literals stored', async () => {
    await bulkInsert(pool, spec('sent_binary'), columnsOf(ROWS));
    const arrays = TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ');
    await pool.query(`INSERT INTO sent_literal (s, i, b, d, f, t) SELECT * FROM unnest(${arrays})`, columnsOf(ROWS));
    const binary = await stored('sent_binary');
    assert.equal(binary.length, ROWS.length);
    assert.deepEqual(binary, await stored('sent_literal'));
    // And the doubles are the JavaScript numbers given (−0 stored as 0, as its literal "0" was).
    const doubles = (await pool.query<{ d: number }>('SELECT d FROM sent_binary ORDER BY n')).rows.map((r) => r.d);
    assert.deepEqual(doubles, [0.30000000000000004, 0.3333333333333333, 0, 5e-324, 1.7976931348623157e308, 2357.123456789012, -1.5e-323]);
    assert.equal(Object.is(doubles[2], -0), false);
  });

  test('a column of one repeated string (sent once, through array_fill) stores that string on every row', async () => {
    await pool.query('TRUNCATE sent_binary, sent_literal');
    const same = ROWS.map((row) => [...row.slice(0, 5), 'sydney']);
    await bulkInsert(pool, spec('sent_binary'), columnsOf(same));
    const arrays = TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ');
    await pool.query(`INSERT INTO sent_literal (s, i, b, d, f, t) SELECT * FROM unnest(${arrays})`, columnsOf(same));
    const binary = await stored('sent_binary');
    assert.equal(binary.length, ROWS.length);
    assert.deepEqual(binary, await stored('sent_literal'));
    assert.deepEqual((await pool.query<{ t: string }>('SELECT DISTINCT t FROM sent_binary')).rows, [{ t: 'sydney' }]);
  });

  test('a value that does not fit its column meets the error it met as a literal', async () => {
    const bad = async (row: unknown[]): Promise<unknown> => {
      try {
        await bulkInsert(pool, spec('sent_binary'), columnsOf([row]));
        return 'stored';
      } catch (error) {
        return (error as { code?: unknown }).code;
      }
    };
    assert.equal(await bad([1, 1.5, 1, 1, true, 'a']), '22P02'); // integer syntax
    assert.equal(await bad([40000, 1, 1, 1, true, 'a']), '22003'); // smallint out of range
    assert.equal(await bad([1, 2147483648, 1, 1, true, 'a']), '22003'); // integer out of range
    // A null goes as a literal too, and is stored as NULL.
    assert.equal(await bad([1, 1, null, null, null, null]), 'stored');
    const last: unknown = (await pool.query('SELECT s, i, b, d, f, t FROM sent_binary ORDER BY n DESC LIMIT 1')).rows[0];
    assert.deepEqual(last, { s: 1, i: 1, b: null, d: null, f: null, t: null });
  });
});

describe('binaryArray', () => {
  test('encodes array_send\'s format: dimensions, element type, then each element\'s length and bytes', () => {
    assert.deepEqual(binaryArray('integer', [1, -2]), Buffer.from([
      0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 2, 0, 0, 0, 1,
      0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 4, 0xff, 0xff, 0xff, 0xfe,
    ]));
    assert.deepEqual(binaryArray('double precision', [1]), Buffer.from([
      0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 2, 189, 0, 0, 0, 1, 0, 0, 0, 1,
      0, 0, 0, 8, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
    ]));
  });

  test('leaves to literals what it cannot encode exactly', () => {
    assert.equal(binaryArray('text', ['a']), undefined);
    assert.equal(binaryArray('integer', []), undefined);
    assert.equal(binaryArray('integer', [1, null]), undefined);
    assert.equal(binaryArray('integer', [1, '2']), undefined);
    assert.equal(binaryArray('smallint', [32768]), undefined);
    assert.equal(binaryArray('bigint', [2 ** 53]), undefined);
    assert.equal(binaryArray('boolean', [2]), undefined);
    assert.equal(binaryArray('double precision', [1n]), undefined);
  });
});
