import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { COPY_STATEMENT_TIMEOUT_MS } from '../../src/cli/copy.ts';
import { COMBINED_FUELS, FUELS } from '../../src/domain/fuels.ts';
import { isStorageUnavailable } from '../../src/storage/errors.ts';
import { openStore } from '../../src/storage/open.ts';
import { POSTGRES_MIGRATIONS } from '../../src/storage/migrations/postgres.ts';
import { createPool } from '../../src/storage/postgres/postgres-connection.ts';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { CITIES, NOW, PRICES, STATIONS, loadFixture } from '../fixture.ts';
import { answers, createPostgresDatabase, itemAt, postgresAdmin, postgresServerUrl } from '../helpers.ts';

const SERVER = postgresServerUrl();
const NOWHERE = 'postgres://postgres@127.0.0.1:1/nowhere'; // port 1: nothing listens

/** A fresh database, migrated or not, with as many stores on it as asked (each its own pool, like separate processes). */
async function withDatabase(
  options: { stores: number; migrate?: boolean; icuLocale?: string },
  work: (stores: PostgresStore[], url: string) => Promise<void>,
): Promise<void> {
  const database = await createPostgresDatabase(SERVER ?? '', options);
  const stores = Array.from({ length: options.stores }, () => new PostgresStore({ connectionString: database.url, max: 4 }));
  try {
    if (options.migrate ?? true) await stores[0]?.migrate();
    await work(stores, database.url);
  } finally {
    for (const store of stores) await store.close();
    await database.drop();
  }
}


describe('PostgreSQL storage', { skip: SERVER ? false : 'set FUELPRICE_TEST_POSTGRES to a server URL to run these' }, () => {
  test('several processes migrating at once apply each version once', async () => {
    await withDatabase({ stores: 4, migrate: false }, async (stores, url) => {
      await Promise.all(stores.map((s) => s.migrate()));
      await stores[0]?.migrate();
      const pool = createPool({ connectionString: url });
      try {
        const versions = (await pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')).rows.map((r) => r.version);
        assert.deepEqual(versions, POSTGRES_MIGRATIONS.map((_, i) => i + 1));
        const groups = await pool.query<{ n: number }>('SELECT count(*) AS n FROM fuel_groups');
        const combinedMembers = Object.values(COMBINED_FUELS).flat().length;
        assert.equal(groups.rows[0]?.n, FUELS.length + combinedMembers);
      } finally { await pool.end(); }
    });
  });

  test('a role with only SELECT, INSERT, UPDATE and DELETE opens an up-to-date database, serves and ingests (no DDL needed)', async () => {
    await withDatabase({ stores: 1 }, async (stores, url) => {
      const owner = itemAt(stores, 0);
      await loadFixture(owner);
      const role = `fuelprice_dml_${process.pid}_${Date.now()}`;
      await postgresAdmin(url, async (client) => {
        await client.query(`CREATE ROLE ${role} LOGIN`);
        await client.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
        await client.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
        await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
        await client.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
      });
      const limitedUrl = new URL(url);
      limitedUrl.username = role;
      const limited = new PostgresStore({ connectionString: limitedUrl.toString(), max: 2 });
      try {
        await limited.migrate();
        assert.deepEqual(await answers(limited, NOW), await answers(owner, NOW));
        const result = await limited.applyBatch({ stations: [], prices: [{ ...itemAt(PRICES, 0), at: NOW - 60, priceTenths: 1234 }] });
        assert.equal(result.pricesAccepted, 1);
        // The role really has no DDL: what migrate() used to run first fails for it.
        await assert.rejects(postgresAdmin(limitedUrl.toString(), (c) => c.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer)')),
          /permission denied/);
      } finally {
        await limited.close();
        await postgresAdmin(url, async (client) => {
          await client.query(`DROP OWNED BY ${role}`);
          await client.query(`DROP ROLE ${role}`);
        });
      }
    });
  });

  test('connections name the application and carry a 5 s statement timeout; bigint reads back as a number', async () => {
    await withDatabase({ stores: 0, migrate: false }, async (_, url) => {
      const pool = createPool({ connectionString: url });
      try {
        const { rows } = await pool.query<Record<string, unknown>>(
          "SELECT current_setting('application_name') AS app, current_setting('statement_timeout') AS timeout, 9007199254740991::bigint AS big");
        assert.deepEqual(rows[0], { app: 'fuelprice', timeout: '5s', big: Number.MAX_SAFE_INTEGER });
        await assert.rejects(pool.query('SELECT 9007199254740993::bigint AS n'), /does not fit a JavaScript number/);
      } finally { await pool.end(); }
      const impatient = createPool({ connectionString: url, statementTimeoutMs: 50 });
      try {
        await assert.rejects(impatient.query('SELECT pg_sleep(1)'), (error: unknown) => isStorageUnavailable(error) && /statement timeout/.test(String(error)));
      } finally { await impatient.end(); }
      // A connection not had within connectTimeoutMs fails (here: the pool's one connection is taken).
      const single = createPool({ connectionString: url, max: 1, connectTimeoutMs: 50 });
      const held = await single.connect();
      try {
        await assert.rejects(single.query('SELECT 1'), /timeout exceeded when trying to connect/);
      } finally { held.release(); await single.end(); }
    });
  });

  test('openStore opens postgres:// and postgresql:// URLs, migrated', async () => {
    await withDatabase({ stores: 0, migrate: false }, async (_, url) => {
      for (const scheme of ['postgres:', 'postgresql:']) {
        const store = await openStore(url.replace(/^postgres:/, scheme));
        try {
          assert.equal(store.backend, 'postgres');
          assert.deepEqual(await store.counts(), { cities: 0, stations: 0, prices: 0 });
          await store.ping();
        } finally { await store.close(); }
      }
    });
  });

  test('openStore takes a longer statement timeout when told (copy: COPY_STATEMENT_TIMEOUT_MS), else the 5 s of a request', async () => {
    await withDatabase({ stores: 0, migrate: false }, async (_, url) => {
      const timeoutOf = async (store: PriceStore): Promise<unknown> => {
        // The store's own connection, as its statements see the setting.
        const connection = (store as unknown as { connection: { rows<R>(sql: string): Promise<R[]> } }).connection;
        return (await connection.rows<{ t: string }>("SELECT current_setting('statement_timeout') AS t"))[0]?.t;
      };
      const patient = await openStore(url, { migrate: false, statementTimeoutMs: COPY_STATEMENT_TIMEOUT_MS });
      try { assert.equal(await timeoutOf(patient), `${COPY_STATEMENT_TIMEOUT_MS / 60_000}min`); } finally { await patient.close(); }
      const plain = await openStore(url, { migrate: false });
      try { assert.equal(await timeoutOf(plain), '5s'); } finally { await plain.close(); }
    });
  });

  test('out of reach: ping rejects with an error the API answers 503, and openStore fails rather than hang', async () => {
    const store = new PostgresStore({ connectionString: NOWHERE });
    try {
      await assert.rejects(store.ping(), (error: unknown) => isStorageUnavailable(error));
    } finally { await store.close(); }
    await assert.rejects(openStore(NOWHERE), (error: unknown) => isStorageUnavailable(error));
  });

  test('lists order ids by bytes even in a database whose collation orders otherwise', async () => {
    await withDatabase({ stores: 1, icuLocale: 'en-US' }, async ([store]) => {
      assert.ok(store);
      const ids = ['alpha', 'Zed', 'a-b', 'ab', 'a9'];
      await store.upsertCities(ids.map((id) => ({ id, name: id, state: 'nsw', latitude: -33.87, longitude: 151.21 })));
      const listed = (await store.listCities({ state: undefined, limit: 10, offset: 0 })).items.map((c) => c.id);
      assert.deepEqual(listed, ['Zed', 'a-b', 'a9', 'ab', 'alpha']);
    });
  });

  test('two processes writing the same batch at once: one writes it, the other finds it all there', async () => {
    await withDatabase({ stores: 2 }, async ([a, b]) => {
      assert.ok(a && b);
      await a.upsertCities(CITIES);
      const results = await Promise.all([a.applyBatch({ stations: STATIONS, prices: PRICES }), b.applyBatch({ stations: STATIONS, prices: PRICES })]);
      results.sort((x, y) => y.pricesAccepted - x.pricesAccepted);
      assert.deepEqual(results, [
        { stationsAdded: STATIONS.length, stationsUpdated: 0, pricesAccepted: PRICES.length, pricesIgnored: 0, pricesCorrected: 0 },
        { stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 0, pricesIgnored: PRICES.length, pricesCorrected: 0 },
      ]);
      assert.deepEqual(await b.counts(), { cities: CITIES.length, stations: STATIONS.length, prices: PRICES.length });
    });
  });

  test('reports arriving out of order from two processes at once give the answers of one ordered batch', async () => {
    await withDatabase({ stores: 3 }, async ([reader, a, b]) => {
      assert.ok(reader && a && b);
      await withDatabase({ stores: 1 }, async ([ordered]) => {
        assert.ok(ordered);
        await loadFixture(ordered);
        await a.upsertCities(CITIES);
        await a.applyBatch({ stations: STATIONS, prices: [] });
        const newestFirst = [...PRICES].sort((x, y) => y.at - x.at);
        const send = async (store: PriceStore, parity: number): Promise<void> => {
          for (const [i, price] of newestFirst.entries()) if (i % 2 === parity) await store.applyBatch({ stations: [], prices: [price] });
        };
        await Promise.all([send(a, 0), send(b, 1)]);
        await reader.seal(NOW);
        assert.deepEqual(await answers(reader, NOW), await answers(ordered, NOW));
      });
    });
  });

  test('Unix seconds past 2038 and daily sums past 2^31 are stored and read back exactly', async () => {
    await withDatabase({ stores: 1 }, async ([store]) => {
      assert.ok(store);
      const at = 2_200_000_000; // 2039
      await store.upsertCities(CITIES);
      await store.applyBatch({ stations: [itemAt(STATIONS, 0)], prices: [{ feed: 'test', feedCode: '1', fuel: 'ulp91', at, priceTenths: 30_000, available: true }] }); // first fixture station
      await store.seal(at + 3 * 86_400);
      const current = await store.currentForStation('alpha-sydney');
      assert.equal(current[0]?.reportedAt, at);
      const days = await store.stationDays('alpha-sydney', { from: null, to: 1_000_000 });
      // The second day is whole: 30,000 tenths x 86,400 s = 2,592,000,000, more than 2^31.
      assert.equal(days[1]?.weightedTenths, 2_592_000_000);
      assert.equal(days[1]?.seconds, 86_400);
    });
  });

  test('failed batches give their connections back', async () => {
    await withDatabase({ stores: 1 }, async ([store], url) => {
      assert.ok(store);
      await loadFixture(store);
      // The pool holds 4 connections: a leak would make the fifth batch wait and time out.
      for (let i = 0; i < 8; i++) {
        await assert.rejects(store.applyBatch({ stations: [], prices: [{ ...itemAt(PRICES, 0), feedCode: 'missing' }] }), /unknown station test\/missing/); // a fixture report
      }
      assert.equal((await store.counts()).prices, PRICES.length);
      const sessions = await postgresAdmin(SERVER ?? '', (client) => client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'idle in transaction'", [new URL(url).pathname.slice(1)]));
      assert.equal(sessions.rows[0]?.n, 0);
    });
  });
});
