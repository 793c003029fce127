import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Batch, CityInput, StationInput } from '../../../src/storage/store.ts';
import { NOW } from '../../fixture.ts';
import { fixedClock, get, servedStore, testBackends } from '../../helpers.ts';

/*
 * A station whose source gives no position (the NSW and WA history files have none) as the API
 * shows it: latitude and longitude false, in no city (not even the city its suburb is named
 * after), never near anything, and in its state's lists like any other. Worked out by hand:
 *
 *   near-one        -33.87,151.2 (Testville's centre), city testville   ulp91 180.0
 *   nowhere-known   no position, suburb "Testville", postcode 2000, nsw ulp91 130.0 (the state's cheapest)
 */
const T = NOW - 3600;
const P = '-33.87,151.2';
const CITIES: CityInput[] = [{ id: 'testville', name: 'Testville', state: 'nsw', latitude: -33.87, longitude: 151.2 }];
const station = (code: string, name: string, latitude: number | null, longitude: number | null): StationInput => ({
  feed: 'test', feedCode: code, slug: name, name, brand: 'Metro', address: `${code} Test Road, Testville NSW 2000`, street: `${code} Test Road`,
  suburb: 'Testville', postcode: '2000', state: 'nsw', phone: '', website: '', latitude, longitude,
});
const STATIONS = [station('1', 'Near One', -33.87, 151.2), station('2', 'Nowhere Known', null, null)];
const PRICES: Batch['prices'] = [
  { feed: 'test', feedCode: '1', fuel: 'ulp91', at: T, priceTenths: 1800, available: true },
  { feed: 'test', feedCode: '2', fuel: 'ulp91', at: T, priceTenths: 1300, available: true },
];

const NOWHERE = {
  id: 'nowhere-known', name: 'Nowhere Known', brand: 'Metro', address: '2 Test Road, Testville NSW 2000', street: '2 Test Road',
  suburb: 'Testville', postcode: '2000', state: 'nsw', phone: '', website: '', latitude: false, longitude: false,
};
const NEAR_ONE = { ...NOWHERE, id: 'near-one', name: 'Near One', address: '1 Test Road, Testville NSW 2000', street: '1 Test Road', latitude: '-33.8700', longitude: '151.2000' };

for (const backend of testBackends()) {
  describe(`a station without a position on ${backend.name}`, () => {
    const { server } = servedStore(backend, fixedClock(NOW), async (store) => {
      await store.upsertCities(CITIES);
      await store.applyBatch({ stations: STATIONS, prices: PRICES });
    });
    async function ok(path: string): Promise<unknown> {
      const r = await get(server, path);
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      return r.body;
    }
    const ids = async (path: string): Promise<string[]> => ((await ok(path)) as { data: Array<{ id?: string; station_id?: string }> }).data.map((s) => s.id ?? s.station_id ?? '?');

    test('shows latitude and longitude as false, in the list and alone', async () => {
      assert.deepEqual(await ok('/v1/stations/nowhere-known'), { data: NOWHERE });
      assert.deepEqual(await ok('/v1/stations?state=nsw'), { data: [NEAR_ONE, NOWHERE], total_items: 2, total_pages: 1, current_page: 1 });
    });

    test('as CSV, its coordinates are empty fields', async () => {
      const r = await get(server, '/v1/stations?state=nsw&format=csv');
      assert.equal(r.status, 200);
      assert.equal(r.text, 'id,name,brand,address,street,suburb,postcode,state,phone,website,latitude,longitude\r\n'
        + 'near-one,Near One,Metro,"1 Test Road, Testville NSW 2000",1 Test Road,Testville,2000,nsw,,,-33.8700,151.2000\r\n'
        + 'nowhere-known,Nowhere Known,Metro,"2 Test Road, Testville NSW 2000",2 Test Road,Testville,2000,nsw,,,,\r\n');
    });

    test('is never near anything, with or without other filters', async () => {
      assert.deepEqual(await ids(`/v1/stations?near=${P}&radius=100`), ['near-one']);
      assert.deepEqual(await ids(`/v1/stations?near=${P}&radius=100&state=nsw`), ['near-one']);
      assert.deepEqual(await ids(`/v1/stations?near=${P}&radius=100&fuel=ulp91`), ['near-one']);
      assert.deepEqual(await ids(`/v1/prices/cheapest?fuel=ulp91&near=${P}&radius=100`), ['near-one']);
    });

    test('is in no city, though its suburb bears the city\'s name: the city\'s lists and today\'s figures leave it out', async () => {
      assert.deepEqual(await ids('/v1/stations?city=testville'), ['near-one']);
      assert.deepEqual(await ids('/v1/prices/cheapest?fuel=ulp91&city=testville'), ['near-one']);
      const spread = (await ok('/v1/cities/testville/spread')) as { data: { spread: Array<{ fuel: string; average: unknown; min: unknown; max: unknown }> } };
      assert.deepEqual(spread.data.spread.find((s) => s.fuel === 'ulp91'), { fuel: 'ulp91', average: '1.80', min: '180.0', max: '180.0' });
    });

    test('is ranked in its state like any station, its coordinates false', async () => {
      assert.deepEqual(await ok('/v1/prices/cheapest?fuel=ulp91&state=nsw'), {
        data: [
          { station_id: 'nowhere-known', name: 'Nowhere Known', brand: 'Metro', address: '2 Test Road, Testville NSW 2000', latitude: false, longitude: false, price: '130.0', updated_at: T },
          { station_id: 'near-one', name: 'Near One', brand: 'Metro', address: '1 Test Road, Testville NSW 2000', latitude: '-33.8700', longitude: '151.2000', price: '180.0', updated_at: T },
        ],
        total_items: 2, total_pages: 1, current_page: 1,
      });
    });
  });
}
