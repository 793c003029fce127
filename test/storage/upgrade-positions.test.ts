import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import type { PriceStore, StationInput } from '../../src/storage/store.ts';
import { NOW, loadFixture } from '../fixture.ts';
import { answers, createPostgresDatabase, postgresAdmin, postgresServerUrl } from '../helpers.ts';
import {
  POSTGRES_UNDO_12, POSTGRES_UNDO_13, POSTGRES_UNDO_14, POSTGRES_UNDO_15, POSTGRES_UNDO_16, POSTGRES_UNDO_17,
  SQLITE_UNDO_12, SQLITE_UNDO_13, SQLITE_UNDO_14, SQLITE_UNDO_15, SQLITE_UNDO_16, SQLITE_UNDO_17,
} from './undo-migrations.ts';

/**
 * Migration 12 lets a station have no position: a populated database at version 11 is upgraded
 * with every station's key, id and position kept, answers unchanged, and a station without a
 * position can then be stored (and one with half a position cannot).
 */
const KEYS = 'SELECT key, id, latitude, longitude, city_id FROM stations ORDER BY key';

const POSITIONLESS: StationInput = {
  feed: 'nsw', feedCode: 'history:x', slug: 'Old Servo', name: 'Old Servo', brand: 'Caltex', address: '1 Main Rd, Bourke NSW 2840',
  street: '1 Main Rd', suburb: 'Bourke', postcode: '2840', state: 'nsw', phone: '', website: '', latitude: null, longitude: null,
};

async function assertUpgraded(store: PriceStore, before: string[]): Promise<void> {
  await store.migrate();
  assert.deepEqual(await answers(store, NOW), before);
  const result = await store.applyBatch({ stations: [POSITIONLESS], prices: [] });
  assert.equal(result.stationsAdded, 1);
  const shown = await store.station('old-servo');
  assert.equal(shown?.latitude, false);
  assert.equal(shown?.longitude, false);
}

describe('upgrading a populated database to stations without a position (migration 12)', () => {
  test('on SQLite: keys, ids and positions kept, answers unchanged, a position-less station storable, half a position refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-upgrade12-'));
    const path = join(dir, 'old.db');
    try {
      const first = new SqliteStore(path);
      await first.migrate();
      await loadFixture(first);
      const before = await answers(first, NOW);
      await first.close();
      const db = new Database(path);
      const rows = db.prepare(KEYS).all();
      db.exec(`${SQLITE_UNDO_17} ${SQLITE_UNDO_16} ${SQLITE_UNDO_15} ${SQLITE_UNDO_14} ${SQLITE_UNDO_13} ${SQLITE_UNDO_12} PRAGMA user_version = 11;`);
      db.close();

      const upgraded = new SqliteStore(path);
      try {
        await assertUpgraded(upgraded, before);
      } finally { await upgraded.close(); }
      const check = new Database(path);
      try {
        assert.deepEqual(check.prepare(`${KEYS} LIMIT ${rows.length}`).all(), rows);
        assert.equal(check.pragma('user_version', { simple: true }), 17);
        assert.throws(() => check.prepare("UPDATE stations SET latitude = NULL WHERE id = 'beta-sydney'").run(), /CHECK constraint failed/);
      } finally { check.close(); }
    } finally { rmSync(dir, { recursive: true, force: true }); }
  });

  const server = postgresServerUrl();
  test('on PostgreSQL: the same', { skip: server ? false : 'set FUELPRICE_TEST_POSTGRES to a server URL to run this' }, async () => {
    const database = await createPostgresDatabase(server ?? '');
    after(() => database.drop());
    const first = new PostgresStore({ connectionString: database.url, max: 2 });
    await first.migrate();
    await loadFixture(first);
    const before = await answers(first, NOW);
    await first.close();
    const rows = await postgresAdmin(database.url, async (client) => {
      const found: unknown[] = (await client.query(KEYS)).rows;
      await client.query(`${POSTGRES_UNDO_17} ${POSTGRES_UNDO_16} ${POSTGRES_UNDO_15} ${POSTGRES_UNDO_14} ${POSTGRES_UNDO_13} ${POSTGRES_UNDO_12} DELETE FROM schema_migrations WHERE version IN (12, 13, 14, 15, 16, 17);`);
      return found;
    });

    const upgraded = new PostgresStore({ connectionString: database.url, max: 2 });
    try {
      await assertUpgraded(upgraded, before);
    } finally { await upgraded.close(); }
    await postgresAdmin(database.url, async (client) => {
      assert.deepEqual((await client.query(`${KEYS} LIMIT ${rows.length}`)).rows, rows);
      await assert.rejects(client.query("UPDATE stations SET latitude = NULL WHERE id = 'beta-sydney'"), /stations_position_whole/);
    });
  });
});
