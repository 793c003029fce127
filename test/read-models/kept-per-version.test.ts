/**
 * What the read models read once a data version and keep (read-models/per-version.ts PerVersion): the held
 * prices (test/storage/held-prices.test.ts) and each output fuel's prices by city and state, which `cheapest`
 * in a city or a state ranks (read-models/area-prices.ts). Another store on the same database (another
 * process) writing a price is answered once the version has moved, in every order and with max_age
 * (near a point too: the near index's prices are kept with the rows they were built from, which
 * max_age filters: read-models/read-models.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PerVersion } from '../../src/read-models/per-version.ts';
import { ReadModels } from '../../src/read-models/read-models.ts';
import { cheapest } from '../../src/read-models/searches.ts';
import type { PriceEvent } from '../../src/storage/store.ts';
import { NOW, PRICES, STATIONS, loadFixture } from '../fixture.ts';
import { testBackends, twoStores } from '../helpers.ts';

describe('PerVersion', () => {
  test('one read a version however many ask at once; a new version is read again; a failed read is forgotten', async () => {
    const kept = new PerVersion<string, string>();
    let reads = 0;
    const read = (value: string) => async (): Promise<string> => { reads++; await new Promise((resolve) => setImmediate(resolve)); return value; };
    assert.deepEqual(await Promise.all([kept.get('a', 1, read('one')), kept.get('a', 1, read('other')), kept.get('a', 1, read('other'))]), ['one', 'one', 'one']);
    assert.equal(reads, 1);
    assert.equal(await kept.get('b', 1, read('b')), 'b', 'each key its own');
    assert.equal(await kept.get('a', 2, read('two')), 'two');
    assert.equal(kept.peek('a', 1), undefined, 'only the last version is kept');
    await assert.rejects(kept.get('a', 3, () => Promise.reject(new Error('storage out of reach'))), /out of reach/);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(kept.peek('a', 3), undefined);
    assert.equal(await kept.get('a', 3, read('three')), 'three');
    assert.equal(reads, 4);
  });
});

/** The reference: each station's latest report per fuel, the lowest available price of the output's members (here ulp91 alone), ranked. */
function expectedRanking(events: readonly PriceEvent[], feedCodes: readonly string[], order: 'asc' | 'desc', since?: number): Array<[string, number]> {
  const latest = new Map<string, PriceEvent>();
  for (const e of events) {
    const key = `${e.feedCode}\u0000${e.fuel}`;
    const seen = latest.get(key);
    if (!seen || e.at >= seen.at) latest.set(key, e);
  }
  const rows = [...latest.values()].filter((e) => e.fuel === 'ulp91' && e.available && feedCodes.includes(e.feedCode) && (since === undefined || e.at >= since));
  const sign = order === 'asc' ? 1 : -1;
  return rows.map((e): [string, number] => [e.feedCode, e.priceTenths]).sort((a, b) => sign * (a[1] - b[1]) || (a[0] < b[0] ? -1 : 1));
}

for (const backend of testBackends()) {
  describe(`prices kept per data version on ${backend.name}`, () => {
    test('cheapest in a city or a state: another store\'s new price is ranked once the version has moved, in both orders and with max_age', async () => {
      const { reader, writer, drop } = await twoStores(backend.name);
      try {
        await writer.migrate();
        await loadFixture(writer);
        reader.setVersionReuseMs(0);
        // Station ids by feed code, as the reader's answers name them.
        const idOf = new Map<string, string>();
        for (const s of STATIONS) {
          const found = (await reader.listStations({ limit: 100, offset: 0, state: s.state })).items.filter((x) => x.name === s.name && x.latitude === s.latitude?.toFixed(4));
          if (found[0]) idOf.set(s.feedCode, found[0].id);
        }
        const sydney = ['1', '2', '4'];
        const nsw = ['1', '2', '4', '5'];
        const models = new ReadModels(reader);
        const ranked = async (area: { city: string } | { state: 'nsw' }, order: 'asc' | 'desc', since?: number): Promise<Array<[string, number]>> =>
          (await cheapest(models, { fuel: 'ulp91', area, order, limit: 10, offset: 0, day: 'today', since })).items.map((i) => [i.stationId, i.priceTenths]);
        const want = (events: readonly PriceEvent[], codes: readonly string[], order: 'asc' | 'desc', since?: number): Array<[string, number]> =>
          expectedRanking(events, codes, order, since).map(([code, price]) => [idOf.get(code) ?? code, price]);

        // Near Sydney's centre (its three stations within 3 km, Delta Country 60 km out), with max_age: the rows kept at this version.
        const near = { near: { centre: { latitude: -33.8688, longitude: 151.2093 }, radiusKm: 5 } };
        const since = NOW - 3600;
        const nearSince = async (): Promise<Array<[string, number]>> =>
          (await cheapest(models, { fuel: 'ulp91', area: near, order: 'asc', limit: 10, offset: 0, day: 'today', since })).items.map((i) => [i.stationId, i.priceTenths]);
        assert.deepEqual(await nearSince(), want(PRICES, sydney, 'asc', since));
        const before = await ranked({ city: 'sydney' }, 'asc');
        assert.deepEqual(before, want(PRICES, sydney, 'asc'));
        assert.equal(before.length, 2, 'two of Sydney\'s stations sell ulp91: both sides of the change are tried');

        // The other store: the second Alpha Sydney (feed code 4) reports ulp91 cheapest of all.
        const cheaper: PriceEvent = { feed: 'test', feedCode: '4', fuel: 'ulp91', at: NOW - 600, priceTenths: 1599, available: true };
        await writer.applyBatch({ stations: [], prices: [cheaper] });
        const events = [...PRICES, cheaper];
        for (const order of ['asc', 'desc'] as const) {
          assert.deepEqual(await ranked({ city: 'sydney' }, order), want(events, sydney, order), `Sydney ${order}`);
          assert.deepEqual(await ranked({ state: 'nsw' }, order), want(events, nsw, order), `NSW ${order}`);
        }
        // max_age: only the reports since the last hour (the kept rows filtered for this request, the kept ranking untouched).
        assert.deepEqual(await nearSince(), want(events, sydney, 'asc', since));
        assert.equal((await nearSince()).length, 1);
        assert.deepEqual(await ranked({ city: 'sydney' }, 'asc', since), want(events, sydney, 'asc', since));
        assert.equal((await ranked({ city: 'sydney' }, 'asc', since)).length, 1);
        assert.deepEqual(await ranked({ city: 'sydney' }, 'asc'), want(events, sydney, 'asc'));
      } finally {
        await drop();
      }
    });
  });
}
