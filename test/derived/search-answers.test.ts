/**
 * Searches on the search worker (src/derived/search-answers.ts, docs/DERIVED.md) under writes, on
 * both backends, over a real HTTP server: cheapest near a point, cheapest in a city and along a
 * route are worked out on a worker thread from indexes it keeps per data version. Every round
 * writes a new price (through the served store, or through a second store on the same database, as
 * another process would) and asks the three at once: each answer must be the ranking of the
 * prices as the test itself holds them after the write, never one of the indexes kept before it.
 * A request sent while a write is under way may be answered as of before or after it, nothing else.
 *
 * Six stations of Sydney on the meridian 151.2 (0.01 degree of latitude apart, 0.001 degree east of
 * it): all within 25 km of the point and within a 2 km corridor of the path, so each expected list
 * is the stations' ulp91 prices cheapest first (prices are kept distinct, so the ties' keys never decide).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DerivedAnswers } from '../../src/derived/derived-answers.ts';
import { encodePolyline } from '../../src/domain/route.ts';
import type { PriceStore, StationInput } from '../../src/storage/store.ts';
import { CITIES, NOW } from '../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends, twoStores } from '../helpers.ts';

const IDS = ['search-a', 'search-b', 'search-c', 'search-d', 'search-e', 'search-f'];
const STATIONS: StationInput[] = IDS.map((id, i) => ({
  feed: 'test', feedCode: id, slug: id, name: id, brand: 'Test', address: '', street: '', suburb: 'Sydney', postcode: '2000', state: 'nsw',
  phone: '', website: '', latitude: -33.82 - 0.01 * i, longitude: 151.201,
}));
const FIRST = [1801, 1743, 1779, 1765, 1812, 1790];
const PATH = encodePolyline([{ latitude: -33.78, longitude: 151.2 }, { latitude: -33.92, longitude: 151.2 }]);
const URLS = {
  near: '/v1/prices/cheapest?fuel=ulp91&near=-33.85,151.2&radius=25',
  city: '/v1/prices/cheapest?fuel=ulp91&city=sydney',
  along: `/v1/prices/along?fuel=ulp91&corridor=2&path=${encodeURIComponent(PATH)}`,
};

/** The ranking the test expects from the prices it wrote: [id, price as shown], cheapest first. */
function ranking(prices: ReadonlyMap<string, number>): Array<[string, string]> {
  return [...prices].sort(([, a], [, b]) => a - b).map(([id, tenths]) => [id, (tenths / 10).toFixed(1)]);
}

function shown(body: unknown): Array<[string, string]> {
  return (body as { data: Array<{ station_id: string; price: string }> }).data.map((i) => [i.station_id, i.price]);
}

for (const backend of testBackends()) {
  describe(`searches on the search worker under writes, on ${backend.name}`, () => {
    let reader: PriceStore;
    let writer: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    let derived: DerivedAnswers;
    const prices = new Map(IDS.map((id, i) => [id, FIRST[i] ?? 0]));
    let at = NOW - 3600;
    /** A new report for one station, through `store`. */
    const report = (store: PriceStore, id: string, tenths: number) =>
      store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: id, fuel: 'ulp91', at: ++at, priceTenths: tenths, available: true }] });

    before(async () => {
      ({ reader, writer, drop } = await twoStores(backend.name));
      await reader.migrate();
      await reader.upsertCities(CITIES);
      await reader.applyBatch({ stations: STATIONS, prices: IDS.map((id) => ({ feed: 'test', feedCode: id, fuel: 'ulp91', at, priceTenths: prices.get(id) ?? 0, available: true })) });
      const clock = fixedClock(NOW);
      derived = new DerivedAnswers(reader, clock);
      server = await startServer(reader, clock, { derived });
    });
    after(async () => { await server.close(); await drop(); });

    test('after every write, by this process or another, each search answers the prices as written', async () => {
      for (const [name, url] of Object.entries(URLS)) {
        const r = await get(server, url);
        assert.equal(r.status, 200, name);
        assert.deepEqual(shown(r.body), ranking(prices), name);
      }
      for (let round = 0; round < 8; round++) {
        const id = IDS[(round * 5) % IDS.length] ?? assert.fail('id');
        // Alternately the cheapest and the dearest of all, so that every write changes the order.
        const tenths = round % 2 === 0 ? 1700 - round : 1900 + round;
        const byOther = round % 2 === 1;
        await report(byOther ? writer : reader, id, tenths);
        prices.set(id, tenths);
        // Another process's write is seen by requests that start VERSION_REUSE_MS (10 ms) after it committed.
        if (byOther) await new Promise((r) => setTimeout(r, 30));
        const answers = await Promise.all(Object.values(URLS).map((url) => get(server, url)));
        for (const [i, name] of Object.keys(URLS).entries()) {
          assert.equal(answers[i]?.status, 200, `${name}, round ${round}`);
          assert.deepEqual(shown(answers[i]?.body), ranking(prices), `${name}, round ${round}`);
        }
      }
      // Worked out by the search lane (counted per kind), once per URL and data version: the answer cache keeps each.
      assert.equal(derived.computations('cheapest', {} as never), 2 * 9);
      assert.equal(derived.computations('along', {} as never), 9);
    });

    test('stations near a point are a search too: worked out on the search lane once a data version, fresh after a write', async () => {
      const url = '/v1/stations?near=-33.85,151.2&radius=25';
      const before = derived.computations('nearStations', {} as never);
      const first = await get(server, url);
      assert.equal(first.status, 200);
      const ids = (first.body as { data: Array<{ id: string }> }).data.map((s) => s.id);
      assert.deepEqual([...ids].sort(), [...IDS].sort());
      // The nearest is the station on the point's latitude (-33.85: search-d), the farthest the one 0.03 degrees north.
      assert.equal(ids[0], 'search-d');
      assert.equal(ids.at(-1), 'search-a');
      assert.equal((await get(server, url)).status, 200);
      assert.equal(derived.computations('nearStations', {} as never), before + 1, 'the second ask is the answer cache\'s');
      await report(reader, 'search-a', 1750);
      prices.set('search-a', 1750); // the model the other tests rank by
      assert.equal((await get(server, url)).status, 200);
      assert.equal(derived.computations('nearStations', {} as never), before + 2, 'asked again after a write');
    });

    test('a search sent while a write is under way answers as of before it or after it', async () => {
      for (let round = 0; round < 6; round++) {
        const id = IDS[round] ?? assert.fail('id');
        const was = ranking(prices);
        const asked = Promise.all(Object.values(URLS).map((url) => get(server, url)));
        const tenths = 1600 + round;
        await report(round % 2 === 0 ? reader : writer, id, tenths);
        prices.set(id, tenths);
        const now = ranking(prices);
        for (const [i, answer] of (await asked).entries()) {
          assert.equal(answer.status, 200);
          const got = shown(answer.body);
          assert.ok(JSON.stringify(got) === JSON.stringify(was) || JSON.stringify(got) === JSON.stringify(now),
            `${Object.keys(URLS)[i]}, round ${round}: ${JSON.stringify(got)}`);
        }
        // And once it is over (and seen by this process), the new prices only.
        await new Promise((r) => setTimeout(r, 30));
        for (const url of Object.values(URLS)) assert.deepEqual(shown((await get(server, url)).body), now, url);
      }
    });
  });
}
