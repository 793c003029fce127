/**
 * The changes feed in storage (storage/sql/changes.ts): a reader paging with its cursor while
 * writers commit, on PostgreSQL from several connections at once (their transactions contend
 * for the writer's lock and commit in any order the server picks), ends with an exact copy of
 * the current prices: no change skipped, none served twice. On SQLite the writes come one after
 * another from a second connection (one writer of the file at a time), between the reader's pages.
 *
 * The reference is worked out here from the reports themselves: a station's current price for a
 * fuel is its report with the latest instant, whatever order the writes committed in.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { NOW, PRICES, loadFixture } from '../fixture.ts';
import { createPostgresDatabase, postgresServerUrl } from '../helpers.ts';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import type { PriceChange, PriceEvent, PriceStore } from '../../src/storage/store.ts';

const FUELS = ['ulp91', 'e10', 'diesel'] as const;
const CODES = ['1', '2', '3', '5'];
const SLUGS: Record<string, string> = { 1: 'alpha-sydney', 2: 'beta-sydney', 3: 'gamma-perth', 5: 'delta-country' };

/** Batch i: every station and fuel of CODES x FUELS, at NOW + i minutes, at prices that change with i and sometimes repeat or go out of stock. */
function batch(i: number): PriceEvent[] {
  return CODES.flatMap((code, c) => FUELS.map((fuel, f): PriceEvent => ({
    feed: 'test', feedCode: code, fuel, at: NOW + 60 * (i + 1), priceTenths: 1700 + ((i * 7 + c * 3 + f) % 5) * 10, available: (i + c + f) % 6 !== 0,
  })));
}

/** The state after every report: per station and fuel, the latest report's price and availability. */
function reference(batches: number): Map<string, string> {
  const latest = new Map<string, PriceEvent>();
  for (const report of [...PRICES, ...Array.from({ length: batches }, (_, i) => batch(i)).flat()]) {
    const key = `${SLUGS[report.feedCode] ?? report.feedCode}/${report.fuel}`;
    const known = latest.get(key);
    if (!known || report.at > known.at) latest.set(key, report);
  }
  return new Map([...latest].map(([key, r]) => [key, `${r.priceTenths}:${r.available}`]));
}

/** Follows the feed from 0 to its end, `limit` a page; `between` runs between pages (writes), until it says it is done. */
async function follow(store: PriceStore, limit: number, copy: Map<string, string>, seen: number[], between: () => Promise<boolean>): Promise<void> {
  let cursor = 0;
  let writing = true;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await store.priceChanges({ since: cursor, limit });
    for (const c of page.changes) record(c, copy, seen);
    cursor = page.next;
    if (writing) writing = await between();
    else if (!page.more) return;
  }
  assert.fail('the feed did not end');
}

function record(c: PriceChange, copy: Map<string, string>, seen: number[]): void {
  seen.push(c.seq);
  copy.set(`${c.stationId}/${c.fuel}`, `${c.priceTenths}:${c.available}`);
}

function assertExact(copy: Map<string, string>, seen: number[], batches: number): void {
  // Strictly increasing: none twice, oldest first.
  for (let i = 1; i < seen.length; i++) assert.ok((seen[i - 1] ?? 0) < (seen[i] ?? 0), `change ${seen[i]} after ${seen[i - 1]}`);
  assert.deepEqual(new Map([...copy].sort()), new Map([...reference(batches)].sort()));
}

const BATCHES = 24;

describe('the changes feed while writers commit', () => {
  test('on SQLite: writes from a second connection between pages', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-changes-'));
    const reader = new SqliteStore(join(dir, 'test.db'));
    const writer = new SqliteStore(join(dir, 'test.db'));
    try {
      await reader.migrate();
      await loadFixture(writer, { seal: false });
      const copy = new Map<string, string>();
      const seen: number[] = [];
      let next = 0;
      await follow(reader, 5, copy, seen, async () => {
        if (next < BATCHES) await writer.applyBatch({ stations: [], prices: batch(next++) });
        return next < BATCHES;
      });
      assertExact(copy, seen, BATCHES);
    } finally {
      await reader.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const server = postgresServerUrl();
  test('on PostgreSQL: four connections writing at once while the reader pages', { skip: server ? false : 'set FUELPRICE_TEST_POSTGRES to run this' }, async () => {
    const database = await createPostgresDatabase(server ?? '');
    const reader = new PostgresStore({ connectionString: database.url, max: 2 });
    const writers = Array.from({ length: 4 }, () => new PostgresStore({ connectionString: database.url, max: 1 }));
    try {
      await reader.migrate();
      await loadFixture(writers[0] ?? assert.fail(), { seal: false });
      const copy = new Map<string, string>();
      const seen: number[] = [];
      // Each writer its share of the batches, in a shuffled order (so later reports often commit first).
      const order = Array.from({ length: BATCHES }, (_, i) => (i * 7) % BATCHES);
      let done = false;
      const writing = Promise.all(writers.map(async (w, k) => {
        for (const i of order.filter((_, j) => j % writers.length === k)) await w.applyBatch({ stations: [], prices: batch(i) });
      })).finally(() => { done = true; });
      await follow(reader, 3, copy, seen, async () => !done);
      await writing;
      assertExact(copy, seen, BATCHES);
    } finally {
      await reader.close();
      for (const w of writers) await w.close();
      await database.drop();
    }
  });
});
