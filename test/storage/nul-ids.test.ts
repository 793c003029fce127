import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ReadModels } from '../../src/read-models/read-models.ts';
import { cheapest } from '../../src/read-models/searches.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { NOW, loadFixture } from '../fixture.ts';
import { testBackends } from '../helpers.ts';

/*
 * An id holding NUL names nothing stored, on both backends alike: PostgreSQL text cannot hold
 * NUL (a query binding one fails), so the store refuses such ids before asking either database.
 */
const NUL = 'sydney\u0000';

for (const backend of testBackends()) {
  describe(`ids containing NUL on ${backend.name}`, () => {
    const drops: Array<() => Promise<void>> = [];
    after(async () => { for (const d of drops) await d(); });

    test('name no city, station, token or cursor, and every read of one answers empty', async () => {
      const created = await backend.create();
      drops.push(created.drop);
      const store: PriceStore = created.store;
      await loadFixture(store, { seal: true });
      assert.equal(await store.city(NUL), undefined);
      assert.equal(await store.station(NUL), undefined);
      assert.equal((await store.stationsPrices([NUL])).size, 0);
      assert.equal(await store.tokenById(NUL), undefined);
      assert.equal(await store.revokeToken(NUL, NOW), false);
      assert.equal(await store.feedCursor(NUL), undefined);
      assert.deepEqual(await store.feedStations(NUL), []);
      assert.deepEqual(await store.feedRuns({ feed: NUL, limit: 10 }), []);
      assert.deepEqual(await store.stationDays(NUL, { from: null, to: 30_000 }), []);
      const reads = [store.currentForStation(NUL), new ReadModels(store).heldForCity(NUL), store.currentForCity(NUL),
        store.cityTotals(NUL), store.citySums(NUL), store.cityOutOfStock(NUL)];
      for (const read of reads) assert.deepEqual(await read, []);
      const parts = await store.cityHistoryParts(NUL, { from: null, to: 30_000 });
      assert.deepEqual([parts.sealed, parts.stationDays, parts.current], [[], [], []]);
      for (const day of ['today', 'tomorrow'] as const) {
        const page = await cheapest(new ReadModels(store), { fuel: 'ulp91', area: { city: NUL }, order: 'asc', limit: 10, offset: 0, day });
        assert.deepEqual([page.items, page.total, page.stations], [[], 0, []]);
      }
    });

    test('the same ids without NUL still name what is stored', async () => {
      const created = await backend.create();
      drops.push(created.drop);
      const store: PriceStore = created.store;
      await loadFixture(store, { seal: true });
      assert.equal((await store.city('sydney'))?.name, 'Sydney');
    });
  });
}
