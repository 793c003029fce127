import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ReadModels } from '../../src/read-models/read-models.ts';
import { nearStations } from '../../src/read-models/searches.ts';
import type { CityInput, PriceStore, StationInput, StationListQuery } from '../../src/storage/store.ts';
import { NOW } from '../fixture.ts';
import { testBackends } from '../helpers.ts';

/*
 * The writer and the reads with a station that has no position: stored without one (never 0,0),
 * in no city, in no near search; when a later report of the same station brings a position
 * (the live feed of a site a history file created), it gets one, its city, and its prices move
 * into that city's totals.
 */
const SYDNEY: CityInput = { id: 'sydney', name: 'Sydney', state: 'nsw', latitude: -33.8679, longitude: 151.2073 };
const OLD: StationInput = {
  feed: 'qld', feedCode: '61401005', slug: 'Puma Kangaroo Point', name: 'Puma Kangaroo Point', brand: 'Puma Energy',
  address: '1 George Street, Sydney NSW 2000', street: '1 George Street', suburb: 'Sydney', postcode: '2000', state: 'nsw', phone: '', website: '',
  latitude: null, longitude: null,
};
const near = { centre: { latitude: -33.87, longitude: 151.21 }, radiusKm: 100 };

for (const backend of testBackends()) {
  describe(`a station without a position in storage on ${backend.name}`, () => {
    const drops: Array<() => Promise<void>> = [];
    after(async () => { for (const d of drops) await d(); });

    test('is in no city and no near search until a report gives it a position', async () => {
      const created = await backend.create();
      drops.push(created.drop);
      const store: PriceStore = created.store;
      await store.upsertCities([SYDNEY]);
      const result = await store.applyBatch({ stations: [OLD], prices: [{ feed: 'qld', feedCode: '61401005', fuel: 'ulp91', at: NOW - 60, priceTenths: 1859, available: true }] });
      assert.deepEqual([result.stationsAdded, result.pricesAccepted], [1, 1]);
      // A list near a point is a search over the read models (read-models/searches.ts), the rest storage's list.
      const models = new ReadModels(store);
      const list = (query: Partial<StationListQuery>) =>
        nearStations(models, { state: undefined, limit: 10, offset: 0, ...query }).then((r) => r.items.map((s) => s.id));
      assert.deepEqual(await list({}), ['puma-kangaroo-point']);
      assert.deepEqual(await list({ city: 'sydney' }), []);
      assert.deepEqual(await list({ near }), []);
      assert.deepEqual(await list({ near, state: 'nsw' }), []);
      assert.deepEqual(await store.cityTotals('sydney'), []);

      // The live feed's report of the same site, with its position (1 George St, Sydney).
      const moved = await store.applyBatch({ stations: [{ ...OLD, latitude: -33.8625, longitude: 151.2081 }], prices: [] });
      assert.equal(moved.stationsUpdated, 1);
      assert.deepEqual(await list({ city: 'sydney' }), ['puma-kangaroo-point']);
      assert.deepEqual(await list({ near }), ['puma-kangaroo-point']);
      assert.deepEqual(await list({ near, state: 'nsw' }), ['puma-kangaroo-point']);
      const station = await store.station('puma-kangaroo-point');
      assert.deepEqual([station?.latitude, station?.longitude], ['-33.8625', '151.2081']);
      assert.deepEqual((await store.cityTotals('sydney')).map((t) => [t.fuel, t.count, t.sumTenths, t.minTenths, t.maxTenths]), [['ulp91', 1, 1859, 1859, 1859]]);
    });
  });
}
