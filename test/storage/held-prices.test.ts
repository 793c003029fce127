/**
 * Held prices (dated ahead: WA's tomorrow) on both backends: the reads tomorrow is made of, and
 * the data version (which keys the answer cache and ETags) moving when a price is held or released.
 * The read models keep every held price for the data version they read them at (read-models/held-index.ts):
 * another store on the same database (another process) holding or releasing one is seen.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CITIES, STATIONS } from '../fixture.ts';
import { ReadModels } from '../../src/read-models/read-models.ts';
import { cheapest } from '../../src/read-models/searches.ts';
import type { HeldPrice, PriceEvent } from '../../src/storage/store.ts';
import { itemAt, testBackends, twoStores } from '../helpers.ts';

const NOW = Date.parse('2026-11-23T15:00:00+08:00') / 1000;
const SIX = Date.parse('2026-11-24T06:00:00+08:00') / 1000;

/** A station's held prices, as the price routes read them (stationsPrices). */
async function heldAt(models: ReadModels, id: string): Promise<readonly HeldPrice[]> {
  return (await models.stationsPrices([id])).get(id)?.held ?? [];
}

for (const backend of testBackends()) {
  describe(`held prices on ${backend.name}`, () => {
    test('holding bumps the data version, holding the same again does not, releasing does; the reads see what is held', async () => {
      const { store, drop } = await backend.create();
      try {
        await store.migrate();
        await store.upsertCities(CITIES);
        const models = new ReadModels(store);
        const gamma = itemAt(STATIONS, 2); // Gamma Perth, WA
        const later = (fuel: PriceEvent['fuel'], at: number, priceTenths: number, available = true): PriceEvent =>
          ({ feed: gamma.feed, feedCode: gamma.feedCode, fuel, at, priceTenths, available });
        await store.applyFeedBatch({ stations: [gamma], prices: [] }, { now: NOW });
        const v0 = await store.dataVersion();
        const batch = { stations: [], prices: [later('ulp91', SIX, 1599), later('ulp91', SIX + 86_400, 1629), later('diesel', SIX, 1899, false)] };
        const first = await store.applyFeedBatch(batch, { now: NOW });
        assert.deepEqual([first.pricesHeld, first.pricesHeldCorrected], [3, 0]);
        const v1 = await store.dataVersion();
        assert.notEqual(v1, v0, 'holding a price changes what the API answers');
        await store.applyFeedBatch(batch, { now: NOW });
        assert.equal(await store.dataVersion(), v1, 'the same held prices again change nothing');

        const station = await heldAt(models, 'gamma-perth');
        assert.deepEqual(station.map((h) => [h.fuel, h.at, h.priceTenths, h.available]),
          // In the API's fuel order (ulp91 before diesel), then by instant.
          [['ulp91', SIX, 1599, true], ['ulp91', SIX + 86_400, 1629, true], ['diesel', SIX, 1899, false]]);
        const city = await models.heldForCity('perth');
        assert.equal(city.length, 3);
        const tomorrow = await cheapest(models, { fuel: 'ulp91', area: { state: 'wa' }, order: 'asc', limit: 10, offset: 0, day: 'tomorrow' });
        assert.deepEqual(tomorrow.items.map((i) => [i.stationId, i.priceTenths, i.reportedAt]), [['gamma-perth', 1599, SIX]]);
        assert.deepEqual((await cheapest(models, { fuel: 'diesel', area: { city: 'perth' }, order: 'asc', limit: 10, offset: 0, day: 'tomorrow' })).total, 0);

        // Published anew with another price (and another availability): corrected, the later row wins; the same again is known.
        const corrected = await store.applyFeedBatch({ stations: [], prices: [later('ulp91', SIX, 1589), later('diesel', SIX, 1899, true)] }, { now: NOW });
        assert.deepEqual([corrected.pricesHeld, corrected.pricesHeldCorrected], [0, 2]);
        const v2 = await store.dataVersion();
        assert.notEqual(v2, v1, 'correcting a held price changes what the API answers');
        const again = await store.applyFeedBatch({ stations: [], prices: [later('ulp91', SIX, 1589)] }, { now: NOW });
        assert.deepEqual([again.pricesHeld, again.pricesHeldCorrected], [0, 0]);
        assert.equal(await store.dataVersion(), v2);
        assert.deepEqual((await heldAt(models, 'gamma-perth')).map((h) => [h.fuel, h.at, h.priceTenths, h.available]),
          [['ulp91', SIX, 1589, true], ['ulp91', SIX + 86_400, 1629, true], ['diesel', SIX, 1899, true]]);

        await store.releaseDue(SIX);
        assert.notEqual(await store.dataVersion(), v2, 'releasing a held price changes what the API answers');
        assert.deepEqual((await heldAt(models, 'gamma-perth')).map((h) => h.at), [SIX + 86_400]);
      } finally {
        await drop();
      }
    });

    test('held prices kept for a version: another store holding or releasing one is read once the version has moved', async () => {
      const { reader, writer, drop } = await twoStores(backend.name);
      try {
        await writer.migrate();
        await writer.upsertCities(CITIES);
        const gamma = itemAt(STATIONS, 2); // Gamma Perth, WA
        await writer.applyFeedBatch({ stations: [gamma], prices: [] }, { now: NOW });
        // Read at every request, as a second process sees another's write once its reading of the versions is stale.
        reader.setVersionReuseMs(0);
        const models = new ReadModels(reader);
        const perth = async (): Promise<Array<[string, number, number]>> => (await models.heldForCity('perth')).map((h) => [h.fuel, h.at, h.priceTenths]);
        assert.deepEqual(await perth(), []);
        assert.equal((await cheapest(models, { fuel: 'ulp91', area: { city: 'perth' }, order: 'asc', limit: 10, offset: 0, day: 'tomorrow' })).total, 0);

        await writer.applyFeedBatch({ stations: [], prices: [{ feed: gamma.feed, feedCode: gamma.feedCode, fuel: 'ulp91', at: SIX, priceTenths: 1599, available: true }] }, { now: NOW });
        assert.deepEqual(await perth(), [['ulp91', SIX, 1599]]);
        assert.deepEqual((await heldAt(models, 'gamma-perth')).map((h) => h.priceTenths), [1599]);
        assert.deepEqual((await cheapest(models, { fuel: 'ulp91', area: { state: 'wa' }, order: 'asc', limit: 10, offset: 0, day: 'tomorrow' })).items.map((i) => [i.stationId, i.priceTenths]), [['gamma-perth', 1599]]);
        assert.deepEqual([...(await models.stationsPrices(['gamma-perth'])).values()].map((s) => s.held.map((h) => h.priceTenths)), [[1599]]);

        await writer.releaseDue(SIX);
        assert.deepEqual(await perth(), []);
        assert.equal((await cheapest(models, { fuel: 'ulp91', area: { city: 'perth' }, order: 'asc', limit: 10, offset: 0, day: 'tomorrow' })).total, 0);
      } finally {
        await drop();
      }
    });
  });
}
