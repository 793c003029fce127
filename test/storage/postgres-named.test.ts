import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PostgresConnection, createPool } from '../../src/storage/postgres/postgres-connection.ts';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.ts';
import { createPostgresDatabase, postgresServerUrl } from '../helpers.ts';

const SERVER = postgresServerUrl();
const VERSION = 'SELECT value FROM meta WHERE key = $1';

/*
 * Reads outside a transaction go as named statements, prepared once per connection
 * (src/storage/postgres/statement-names.ts), and fall back to unnamed where a name cannot serve.
 * One connection in the pool, so that what the tests do to it is what the reads meet.
 */
describe('named statements on PostgreSQL', { skip: SERVER ? false : 'set FUELPRICE_TEST_POSTGRES to a server URL to run these' }, () => {
  let database: { url: string; drop: () => Promise<void> };
  let expected: unknown[];
  before(async () => {
    database = await createPostgresDatabase(SERVER ?? '');
    const store = new PostgresStore({ connectionString: database.url });
    await store.migrate();
    await store.close();
    const pool = createPool({ connectionString: database.url, max: 1 });
    expected = (await pool.query("SELECT value FROM meta WHERE key = 'data_version'")).rows;
    await pool.end();
    assert.equal(expected.length, 1);
  });
  after(async () => database.drop());

  const withConnection = async (work: (connection: PostgresConnection) => Promise<void>): Promise<void> => {
    const connection = new PostgresConnection(createPool({ connectionString: database.url, max: 1 }));
    try {
      await work(connection);
    } finally {
      await connection.close();
    }
  };
  const prepared = async (connection: PostgresConnection): Promise<string[]> =>
    (await connection.pool.query<{ statement: string }>('SELECT statement FROM pg_prepared_statements ORDER BY statement')).rows.map((r) => r.statement);

  test('a read is prepared once on its connection and reused', async () => {
    await withConnection(async (connection) => {
      for (let i = 0; i < 3; i++) assert.deepEqual(await connection.rows(VERSION, ['data_version']), expected);
      assert.deepEqual(await connection.arrays(VERSION, ['data_version']), [[Object.values(expected[0] as object)[0]]]);
      assert.deepEqual(await prepared(connection), [VERSION]);
      // Inside a transaction nothing is named: a failed statement there could not be sent again.
      await connection.transaction('writer', async (tx) => assert.deepEqual(await tx.rows('SELECT value FROM meta WHERE key = $1 AND $2 = 1', ['data_version', 1]), expected));
      assert.deepEqual(await prepared(connection), [VERSION]);
    });
  });

  test('a connection that lost its statements (PgBouncer, DISCARD ALL) answers unnamed, and the pool names nothing more', async () => {
    await withConnection(async (connection) => {
      assert.deepEqual(await connection.rows(VERSION, ['data_version']), expected);
      await connection.pool.query('DEALLOCATE ALL'); // node-postgres still takes the statement for prepared
      assert.deepEqual(await connection.rows(VERSION, ['data_version']), expected);
      assert.equal(connection.names.enabled, false);
      assert.deepEqual(await connection.rows(VERSION, ['tokens_version']), (await connection.pool.query("SELECT value FROM meta WHERE key = 'tokens_version'")).rows);
      assert.deepEqual(await prepared(connection), []);
    });
  });

  test('a statement whose result a migration changed (SELECT *) is answered unnamed from then on; the others stay named', async () => {
    await withConnection(async (connection) => {
      const byKey = 'SELECT * FROM meta WHERE key = $1';
      const before = await connection.rows(byKey, ['data_version']);
      assert.deepEqual(Object.keys(before[0] ?? {}).sort(), ['key', 'value']);
      await connection.pool.query('ALTER TABLE meta ADD COLUMN note text');
      try {
        const afterChange = await connection.rows(byKey, ['data_version']);
        assert.deepEqual(Object.keys(afterChange[0] ?? {}).sort(), ['key', 'note', 'value']);
        assert.deepEqual(await connection.rows(byKey, ['data_version']), afterChange);
        assert.equal(connection.names.enabled, true);
        assert.deepEqual(await connection.rows(VERSION, ['data_version']), expected);
        assert.ok((await prepared(connection)).includes(VERSION));
      } finally {
        await connection.pool.query('ALTER TABLE meta DROP COLUMN note');
      }
    });
  });
});
