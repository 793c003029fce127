import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { POSTGRES_MIGRATIONS } from '../../src/storage/migrations/postgres.ts';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.ts';
import { SQLITE_MIGRATIONS } from '../../src/storage/migrations/sqlite.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import type { FeedRun, PriceStore } from '../../src/storage/store.ts';
import type { StateId } from '../../src/domain/states.ts';
import { eachDayLength } from '../../src/domain/time.ts';
import { CITIES, NOW, loadFixture } from '../fixture.ts';
import {
  POSTGRES_UNDO_12, POSTGRES_UNDO_13, POSTGRES_UNDO_14, POSTGRES_UNDO_15, POSTGRES_UNDO_16, POSTGRES_UNDO_17,
  SQLITE_UNDO_12, SQLITE_UNDO_13, SQLITE_UNDO_14, SQLITE_UNDO_15, SQLITE_UNDO_16, SQLITE_UNDO_17,
} from './undo-migrations.ts';
import { answers, assertCityTotalsMatchPrices, assertStateTotalsMatchPrices, createPostgresDatabase, postgresAdmin, postgresServerUrl } from '../helpers.ts';

/**
 * Before migration 8 every whole day was a station_daily row of its own: the runs the fixture
 * wrote, as such rows (the price times each day's seconds).
 */
function runsAsRows(runs: ReadonlyArray<Record<string, unknown>>): Array<[number, number, number, number, number]> {
  const rows: Array<[number, number, number, number, number]> = [];
  for (const r of runs) {
    eachDayLength(r.state as StateId, Number(r.from_day), Number(r.to_day), (day, seconds) => {
      rows.push([Number(r.station_key), day, Number(r.fuel), Number(r.price_tenths) * seconds, seconds]);
    });
  }
  assert.ok(rows.length > 0, 'the fixture has whole days');
  return rows;
}
const RUNS = 'SELECT r.station_key, r.fuel, r.from_day, r.to_day, r.price_tenths, s.state FROM station_runs r JOIN stations s ON s.key = r.station_key';

/**
 * Upgrading a database that holds data: migration 5 (city totals kept on write) must fill its
 * new column and table from what is stored, so that an upgraded installation answers exactly as
 * before and as a new one would; migration 6 then widens the city index, 7 marks every block
 * of sealed city days that holds rows, 8 adds station_runs beside the day rows written before
 * it, 9 gives today's changed prices an index of their own, and 10 fills the state totals and
 * indexes positions, 11 counts each feed's runs, 12 lets a station have no position, 15 notes city days left to the next seal and lets the writer hold the marks' triggers, 16 keeps station aliases, 17 keeps city means as runs. Each test loads the fixture,
 * takes the schema back to version 4 by hand (the exact inverse of migrations 5 to 17, the runs
 * written back as the day rows they were before 8; feed_counts dropped), then opens the store, which migrates it
 * again.
 */

/** Migration 7: every block of a city's sealed days that holds rows has a mark (and no other block has one); since 17, every block a run of means covers. */
const MARKED = 'SELECT city_id, block FROM city_daily_marks ORDER BY city_id, block';
const WITH_ROWS = `WITH RECURSIVE b (city_id, block, last) AS (
    SELECT city_id, from_day / 128, to_day / 128 FROM city_runs UNION SELECT city_id, block + 1, last FROM b WHERE block < last)
  SELECT DISTINCT city_id, block FROM b ORDER BY city_id, block`;

/** Runs in the log before the upgrade (two of qld's failed), and what migration 11 makes of them. */
async function recordRuns(store: PriceStore): Promise<void> {
  const run = (feed: string, finishedAt: number, error?: string): FeedRun => ({
    feed, startedAt: finishedAt - 5, finishedAt, stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 1, pricesIgnored: 0, pricesHeld: 0,
    rejected: 0, rejections: [], error, intervalSec: 300,
  });
  for (const [feed, at, error] of [['qld', 300, 'HTTP 500'], ['nsw', 200], ['qld', 100, 'timed out'], ['qld', 50]] as const) {
    await store.recordRun(run(feed, NOW - at, error));
  }
}
const RUN_COUNTS = [{ feed: 'nsw', runs: 1, failures: 0 }, { feed: 'qld', runs: 3, failures: 2 }];

/** After the upgrade: totals filled from the stored prices, the same answers as before, and totals kept on the next write. */
async function assertUpgraded(upgraded: PriceStore, before: string[]): Promise<void> {
  const cities = CITIES.map((c) => c.id);
  await upgraded.migrate();
  assert.deepEqual(await upgraded.feedCounts(), RUN_COUNTS, 'migration 11 counts the runs in the log');
  assert.ok((await upgraded.cityTotals('sydney')).length > 0);
  await assertCityTotalsMatchPrices(upgraded, cities, 'upgraded');
  await assertStateTotalsMatchPrices(upgraded, 'upgraded');
  assert.deepEqual(await answers(upgraded, NOW), before);
  await upgraded.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'ulp91', at: NOW - 60, priceTenths: 1444, available: true }] });
  await assertCityTotalsMatchPrices(upgraded, cities, 'after a write');
  await assertStateTotalsMatchPrices(upgraded, 'after a write');
}

describe('upgrading a populated database to the city totals (migration 5)', () => {
  test('on SQLite: the totals are filled from the stored prices, answers unchanged, and kept from then on', async () => {
    assert.equal(SQLITE_MIGRATIONS.length, 17, 'this test takes the schema back from version 17 to 4');
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-upgrade-'));
    const path = join(dir, 'old.db');
    try {
      const first = new SqliteStore(path);
      await first.migrate();
      await loadFixture(first);
      await recordRuns(first);
      const before = await answers(first, NOW);
      await first.close();

      const db = new Database(path);
      const insert = db.prepare('INSERT INTO station_daily (station_key, day, fuel, weighted_tenths, seconds) VALUES (?, ?, ?, ?, ?)');
      for (const row of runsAsRows(db.prepare(RUNS).all() as Array<Record<string, unknown>>)) insert.run(...row);
      db.exec(`${SQLITE_UNDO_17} ${SQLITE_UNDO_16} ${SQLITE_UNDO_15} ${SQLITE_UNDO_14} ${SQLITE_UNDO_13} ${SQLITE_UNDO_12}
        DROP TABLE feed_counts;
        DROP TRIGGER state_current_on_insert; DROP TRIGGER state_current_on_update; DROP TRIGGER state_current_on_delete;
        DROP TABLE state_current; DROP INDEX current_prices_by_state; DROP INDEX current_prices_by_fuel; DROP INDEX stations_by_position;
        ALTER TABLE current_prices DROP COLUMN state;
        DROP TABLE station_runs;
        DROP TRIGGER city_daily_marks_on_insert; DROP TRIGGER city_daily_marks_on_update; DROP TRIGGER city_daily_marks_on_delete;
        DROP TABLE city_daily_marks;
        DROP TRIGGER city_current_on_insert; DROP TRIGGER city_current_on_update; DROP TRIGGER city_current_on_delete;
        DROP TABLE city_current; DROP INDEX current_prices_by_city; DROP INDEX current_prices_changed;
        ALTER TABLE current_prices DROP COLUMN city_id;
        PRAGMA user_version = 4;`);
      db.close();

      const upgraded = new SqliteStore(path);
      try {
        await assertUpgraded(upgraded, before);
      } finally { await upgraded.close(); }
      const check = new Database(path, { readonly: true });
      try {
        assert.deepEqual(check.prepare(MARKED).all(), check.prepare(WITH_ROWS).all());
        assert.ok(check.prepare(MARKED).all().length > 0);
      } finally { check.close(); }
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  const server = postgresServerUrl();
  test('on PostgreSQL: the same', { skip: server ? false : 'set FUELPRICE_TEST_POSTGRES to a server URL to run this' }, async () => {
    assert.equal(POSTGRES_MIGRATIONS.length, 17, 'this test takes the schema back from version 17 to 4');
    const database = await createPostgresDatabase(server ?? '');
    after(() => database.drop());
    const first = new PostgresStore({ connectionString: database.url, max: 2 });
    await first.migrate();
    await loadFixture(first);
    await recordRuns(first);
    const before = await answers(first, NOW);
    await first.close();

    await postgresAdmin(database.url, async (client) => {
      for (const row of runsAsRows((await client.query(RUNS)).rows)) {
        await client.query('INSERT INTO station_daily (station_key, day, fuel, weighted_tenths, seconds) VALUES ($1, $2, $3, $4, $5)', row);
      }
    });
    await postgresAdmin(database.url, (client) => client.query(`${POSTGRES_UNDO_17} ${POSTGRES_UNDO_16} ${POSTGRES_UNDO_15} ${POSTGRES_UNDO_14} ${POSTGRES_UNDO_13} ${POSTGRES_UNDO_12}
      DROP TABLE feed_counts;
      DROP TRIGGER state_current_on_insert ON current_prices; DROP TRIGGER state_current_on_update ON current_prices;
      DROP TRIGGER state_current_on_delete ON current_prices;
      DROP FUNCTION state_current_inserted(); DROP FUNCTION state_current_updated(); DROP FUNCTION state_current_deleted();
      DROP FUNCTION state_current_add(text[], smallint[], bigint[], bigint[]);
      DROP TABLE state_current; DROP INDEX stations_by_position; DROP INDEX current_prices_by_fuel;
      ALTER TABLE current_prices DROP COLUMN state;
      DROP TABLE station_runs;
      DROP TRIGGER city_daily_marks_on_insert ON city_daily; DROP TRIGGER city_daily_marks_on_update ON city_daily;
      DROP TRIGGER city_daily_marks_on_delete ON city_daily;
      DROP FUNCTION city_daily_marks_inserted(); DROP FUNCTION city_daily_marks_updated(); DROP FUNCTION city_daily_marks_deleted();
      DROP FUNCTION city_daily_marks_move(text[], integer[]); DROP TABLE city_daily_marks;
      DROP TRIGGER city_current_on_insert ON current_prices; DROP TRIGGER city_current_on_update ON current_prices;
      DROP TRIGGER city_current_on_delete ON current_prices;
      DROP FUNCTION city_current_inserted(); DROP FUNCTION city_current_updated(); DROP FUNCTION city_current_deleted();
      DROP FUNCTION city_current_add(text[], smallint[], bigint[], bigint[]);
      DROP TABLE city_current; ALTER TABLE current_prices DROP COLUMN city_id;
      DELETE FROM schema_migrations WHERE version IN (5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17);`));

    const upgraded = new PostgresStore({ connectionString: database.url, max: 2 });
    try {
      await assertUpgraded(upgraded, before);
    } finally { await upgraded.close(); }
    await postgresAdmin(database.url, async (client) => {
      const marked = (await client.query(MARKED)).rows;
      assert.deepEqual(marked, (await client.query(WITH_ROWS)).rows);
      assert.ok(marked.length > 0);
    });
  });
});
