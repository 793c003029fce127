import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FUELS } from '../../src/domain/fuels.ts';
import { NOW, loadFixture } from '../fixture.ts';
import { type RunningServer, fixedClock, get, snapshot, startServer, testBackends } from '../helpers.ts';
import type { PriceStore } from '../../src/storage/store.ts';

// Day starts (Unix seconds) of the local days used below, worked out by hand.
const SYD = { nov20: 1_795_093_200, nov21: 1_795_179_600, nov22: 1_795_266_000, nov23: 1_795_352_400 };
const PERTH_NOV23 = 1_795_363_200;

/** All 19 fuels with `value` for those named and `none` for the rest. */
function allFuels<T>(named: Record<string, T>, none: T): Array<{ fuel: string } & T> {
  return FUELS.map((fuel) => ({ fuel, ...(named[fuel] ?? none) }));
}

for (const backend of testBackends()) {
  for (const sealed of [true, false]) {
    describe(`API answers on ${backend.name} (${sealed ? 'days sealed' : 'nothing sealed yet'})`, () => {
      let store: PriceStore;
      let drop: () => Promise<void>;
      let server: RunningServer;
      before(async () => {
        ({ store, drop } = await backend.create());
        await loadFixture(store, { seal: sealed });
        server = await startServer(store, fixedClock(NOW));
      });
      after(async () => { await server.close(); await drop(); });

      test('lists cities ordered by id with the page envelope', async () => {
        const r = await get(server, '/v1/cities');
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, {
          data: [
            { id: 'hobart', name: 'Hobart', state: 'tas', latitude: '-42.8794', longitude: '147.3294' },
            { id: 'perth', name: 'Perth', state: 'wa', latitude: '-31.9522', longitude: '115.8614' },
            { id: 'sydney', name: 'Sydney', state: 'nsw', latitude: '-33.8679', longitude: '151.2073' },
          ],
          total_items: 3, total_pages: 1, current_page: 1,
        });
      });

      test('filters cities by state, case-insensitively', async () => {
        const r = await get(server, '/v1/cities?state=WA');
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, { data: [{ id: 'perth', name: 'Perth', state: 'wa', latitude: '-31.9522', longitude: '115.8614' }], total_items: 1, total_pages: 1, current_page: 1 });
      });

      test('returns one city', async () => {
        const r = await get(server, '/v1/cities/sydney');
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, { data: { id: 'sydney', name: 'Sydney', state: 'nsw', latitude: '-33.8679', longitude: '151.2073' } });
      });

      test('paginates stations by page and by offset', async () => {
        const page2 = await get(server, '/v1/stations?limit=2&page=2');
        assert.equal(page2.status, 200);
        const ids = (page2.body as { data: Array<{ id: string }> }).data.map((s) => s.id);
        assert.deepEqual(ids, ['beta-sydney', 'delta-country']);
        assert.deepEqual({ ...(page2.body as object), data: undefined }, { data: undefined, total_items: 5, total_pages: 3, current_page: 2 });

        const offset = await get(server, '/v1/stations?limit=2&offset=3');
        assert.deepEqual((offset.body as { data: Array<{ id: string }> }).data.map((s) => s.id), ['delta-country', 'gamma-perth']);
        assert.equal((offset.body as { current_page: number }).current_page, 2);

        const past = await get(server, '/v1/stations?page=9');
        assert.equal(past.status, 200);
        assert.deepEqual(past.body, { data: [], total_items: 5, total_pages: 1, current_page: 9 });
      });

      test('a name clash gets -2 and the full station shape', async () => {
        const r = await get(server, '/v1/stations?state=nsw&limit=2');
        assert.deepEqual(r.body, {
          data: [
            {
              id: 'alpha-sydney', name: 'Alpha Sydney', brand: 'Ampol', address: '1 George Street, Sydney NSW 2000', street: '1 George Street',
              suburb: 'Sydney', postcode: '2000', state: 'nsw', phone: '(02) 9000 0001', website: '', latitude: '-33.8700', longitude: '151.2100',
            },
            {
              id: 'alpha-sydney-2', name: 'Alpha Sydney', brand: 'Ampol', address: '', street: '', suburb: '', postcode: '2000', state: 'nsw',
              phone: '', website: '', latitude: '-33.8600', longitude: '151.1900',
            },
          ],
          total_items: 4, total_pages: 2, current_page: 1,
        });
      });

      test('station history: time-weighted daily means in cents, newest first', async () => {
        const r = await get(server, '/v1/stations/alpha-sydney/history?timeframe=last-week');
        assert.equal(r.status, 200);
        // ulp91 on 21-11: 180.0 for 6 h, 190.0 for 12 h, 185.0 for 6 h = 44700 / 24 = 1862.5 tenths -> 186.3.
        // e10 on 23-11: 177.0 from 00:00 to 08:00, then out of stock: 177.0.
        // ulp-combined: the mean of the station's ulp91 and e10 values each day.
        assert.deepEqual(r.body, {
          data: {
            id: 'alpha-sydney', name: 'Alpha Sydney',
            history: allFuels<{ records: unknown }>({
              e10: { records: [
                { timestamp: SYD.nov23, date: '23-11-2026', average: '177.0' },
                { timestamp: SYD.nov22, date: '22-11-2026', average: '177.0' },
              ] },
              ulp91: { records: [
                { timestamp: SYD.nov23, date: '23-11-2026', average: '185.0' },
                { timestamp: SYD.nov22, date: '22-11-2026', average: '185.0' },
                { timestamp: SYD.nov21, date: '21-11-2026', average: '186.3' },
                { timestamp: SYD.nov20, date: '20-11-2026', average: '180.0' },
              ] },
              'ulp-combined': { records: [
                { timestamp: SYD.nov23, date: '23-11-2026', average: '181.0' },
                { timestamp: SYD.nov22, date: '22-11-2026', average: '181.0' },
                { timestamp: SYD.nov21, date: '21-11-2026', average: '186.3' },
                { timestamp: SYD.nov20, date: '20-11-2026', average: '180.0' },
              ] },
            }, { records: false }),
          },
        });
      });

      test('station history counts only the time a fuel was available', async () => {
        const r = await get(server, '/v1/stations/beta-sydney/history?timeframe=last-week');
        const history = (r.body as { data: { history: Array<{ fuel: string; records: unknown }> } }).data.history;
        // 22-11: 170.0 until noon, then out of stock; 23-11: out of stock until 09:00, then 175.0.
        assert.deepEqual(history.find((h) => h.fuel === 'ulp91')?.records, [
          { timestamp: SYD.nov23, date: '23-11-2026', average: '175.0' },
          { timestamp: SYD.nov22, date: '22-11-2026', average: '170.0' },
          { timestamp: SYD.nov21, date: '21-11-2026', average: '170.0' },
        ]);
      });

      test('city history: mean of station values in dollars, rounded half away from zero', async () => {
        const r = await get(server, '/v1/cities/sydney/history?timeframe=last-week');
        assert.equal(r.status, 200);
        // ulp91 21-11: (1862.5 + 1700) / 2 = 1781.25 -> 178.125 c -> 1.78; 22-11: (1850 + 1700) / 2 = 177.5 c -> 1.78.
        // ulp-combined 22-11: (1850 + 1700 + 1770) / 3 = 177.33 c -> 1.77; 23-11: (1850 + 1750 + 1770) / 3 = 179.0 c.
        assert.deepEqual(r.body, {
          data: {
            id: 'sydney', name: 'Sydney',
            history: allFuels<{ records: unknown }>({
              e10: { records: [
                { timestamp: SYD.nov23, date: '23-11-2026', average: '1.77' },
                { timestamp: SYD.nov22, date: '22-11-2026', average: '1.77' },
              ] },
              ulp91: { records: [
                { timestamp: SYD.nov23, date: '23-11-2026', average: '1.80' },
                { timestamp: SYD.nov22, date: '22-11-2026', average: '1.78' },
                { timestamp: SYD.nov21, date: '21-11-2026', average: '1.78' },
                { timestamp: SYD.nov20, date: '20-11-2026', average: '1.80' },
              ] },
              diesel: { records: [
                { timestamp: SYD.nov23, date: '23-11-2026', average: '1.99' },
                { timestamp: SYD.nov22, date: '22-11-2026', average: '1.99' },
              ] },
              'ulp-combined': { records: [
                { timestamp: SYD.nov23, date: '23-11-2026', average: '1.79' },
                { timestamp: SYD.nov22, date: '22-11-2026', average: '1.77' },
                { timestamp: SYD.nov21, date: '21-11-2026', average: '1.78' },
                { timestamp: SYD.nov20, date: '20-11-2026', average: '1.80' },
              ] },
              'diesel-combined': { records: [
                { timestamp: SYD.nov23, date: '23-11-2026', average: '1.99' },
                { timestamp: SYD.nov22, date: '22-11-2026', average: '1.99' },
              ] },
            }, { records: false }),
          },
        });
      });

      test('history windows are the state\'s own local days', async () => {
        const r = await get(server, '/v1/cities/perth/history?timeframe=all-time');
        const history = (r.body as { data: { history: Array<{ fuel: string; records: unknown }> } }).data.history;
        assert.deepEqual(history.find((h) => h.fuel === 'ulp91')?.records, [{ timestamp: PERTH_NOV23, date: '23-11-2026', average: '1.65' }]);
      });

      test('timeframe defaults to last-month and last-financial-year excludes this year', async () => {
        const byDefault = await get(server, '/v1/cities/sydney/history');
        const lastMonth = await get(server, '/v1/cities/sydney/history?timeframe=last-month');
        assert.equal(byDefault.status, 200);
        assert.equal(byDefault.text, lastMonth.text);
        const lastFy = await get(server, '/v1/cities/sydney/history?timeframe=last-financial-year');
        assert.deepEqual(lastFy.body, { data: { id: 'sydney', name: 'Sydney', history: allFuels({}, { records: false }) } });
      });

      test('spread: average in dollars, min and max in cents, over available current prices', async () => {
        const r = await get(server, '/v1/cities/sydney/spread');
        assert.equal(r.status, 200);
        const none = { average: false, min: false, max: false };
        assert.deepEqual(r.body, {
          data: {
            id: 'sydney', name: 'Sydney',
            spread: allFuels<Record<string, unknown>>({
              ulp91: { average: '1.80', min: '175.0', max: '185.0' },
              diesel: { average: '1.99', min: '199.0', max: '199.0' },
              'ulp-combined': { average: '1.80', min: '175.0', max: '185.0' },
              'diesel-combined': { average: '1.99', min: '199.0', max: '199.0' },
            }, none),
            // Nothing held for the city: tomorrow is not known.
            tomorrow: false,
          },
        });
      });

      test('average equals the spread average', async () => {
        const r = await get(server, '/v1/cities/sydney/average');
        assert.deepEqual(r.body, {
          data: {
            id: 'sydney', name: 'Sydney',
            averages: allFuels<Record<string, unknown>>({ ulp91: { average: '1.80' }, diesel: { average: '1.99' }, 'ulp-combined': { average: '1.80' }, 'diesel-combined': { average: '1.99' } }, { average: false }),
            tomorrow: false,
          },
        });
      });

      test('unavailable lists stations whose latest report is out of stock', async () => {
        const r = await get(server, '/v1/cities/sydney/unavailable');
        assert.deepEqual(r.body, {
          data: { id: 'sydney', name: 'Sydney', unavailable: allFuels<Record<string, unknown>>({ e10: { stations: ['alpha-sydney'], count: 1 } }, { stations: false, count: 0 }) },
        });
      });

      test('a city without stations answers false everywhere', async () => {
        const spread = await get(server, '/v1/cities/hobart/spread');
        assert.deepEqual(spread.body, { data: { id: 'hobart', name: 'Hobart', spread: allFuels({}, { average: false, min: false, max: false }), tomorrow: false } });
        const unavailable = await get(server, '/v1/cities/hobart/unavailable');
        assert.deepEqual(unavailable.body, { data: { id: 'hobart', name: 'Hobart', unavailable: allFuels({}, { stations: false, count: 0 }) } });
        const history = await get(server, '/v1/cities/hobart/history?timeframe=all-time');
        assert.deepEqual(history.body, { data: { id: 'hobart', name: 'Hobart', history: allFuels({}, { records: false }) } });
      });

      test('unknown ids answer 404 not_found in the error shape', async () => {
        for (const path of ['/v1/cities/atlantis', '/v1/cities/atlantis/history', '/v1/cities/atlantis/spread', '/v1/cities/atlantis/average',
          '/v1/cities/atlantis/unavailable', '/v1/stations/nowhere', '/v1/stations/nowhere/history', '/v1/stations/nowhere/prices',
          '/v1/prices?city=atlantis', '/v1/prices/cheapest?fuel=e10&city=atlantis']) {
          const r = await get(server, path);
          assert.equal(r.status, 404, path);
          const error = (r.body as { error: { code: string; message: string; request_id: string } }).error;
          assert.equal(error.code, 'not_found');
          assert.match(error.message, /^No (city|station) has the id '(atlantis|nowhere)'\.$/);
          assert.equal(error.request_id, r.headers.get('x-request-id'));
        }
      });

      test('requests change nothing stored', async () => {
        const before = await snapshot(store);
        for (const path of ['/v1/cities', '/v1/cities/sydney/history?timeframe=all-time', '/v1/stations/beta-sydney/history', '/v1/cities/sydney/spread']) {
          await get(server, path);
          await get(server, path, { method: 'DELETE' });
        }
        assert.equal(await snapshot(store), before);
      });
    });
  }
}
