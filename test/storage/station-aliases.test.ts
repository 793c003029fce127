import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PriceStore, StationInput } from '../../src/storage/store.ts';
import { freshStores, testBackends } from '../helpers.ts';

/*
 * The writer's identity rules (docs/DATA.md "What a station shows" and "Ids"), on real NSW
 * stations: a history station shows its latest-dated row's fields whatever the order they come
 * in, and takes the id of its name when a later row renames it; a live station taking it over
 * takes the live id; every id a station had answers as an alias of its id now; no station is
 * ever given an id that is an alias.
 */
const history = (name: string, brand: string, address: string, namedAt: number, slug = `${name} 99 Bellevue Rd 2525`): StationInput => ({
  feed: 'nsw', feedCode: 'history:99 bellevue rd|2525', slug, name, brand, address, street: address.split(',')[0] ?? '', suburb: 'Figtree',
  postcode: '2525', state: 'nsw', phone: '', website: '', latitude: null, longitude: null, namedAt,
});
/** "Caltex Figtree, 99 Bellevue Rd" (December 2018) and "Metro Figtree, 99 Bellevue Road" (April 2020), as dated rows. */
const CALTEX = history('Caltex Figtree', 'Caltex', '99 Bellevue Rd, Figtree NSW 2525', 1_544_000_000);
const METRO = history('Metro Figtree', 'Metro Fuel', '99 Bellevue Road, FIGTREE NSW 2525', 1_586_000_000, 'Metro Figtree 99 Bellevue Road 2525');
const LIVE: StationInput = {
  feed: 'nsw', feedCode: 'NSW-999', slug: 'Ampol Figtree', name: 'Ampol Figtree', brand: 'Ampol', address: '99 Bellevue Rd, Figtree NSW 2525',
  street: '99 Bellevue Rd', suburb: 'Figtree', postcode: '2525', state: 'nsw', phone: '', website: '', latitude: -34.4302, longitude: 150.8562,
  adopts: 'history:99 bellevue rd|2525',
};

for (const backend of testBackends()) {
  describe(`station ids and aliases on ${backend.name}`, () => {
    const fresh = freshStores(backend);
    const shown = async (store: PriceStore, code: string): Promise<[string, string, string] | undefined> => {
      const s = (await store.feedStations('nsw')).find((f) => f.feedCode === code);
      return s && [s.id, s.name, s.brand];
    };

    test('the latest-dated row\'s fields and id in either order; the earlier id an alias only when it was answered', async () => {
      const later = await fresh();
      await later.applyBatch({ stations: [CALTEX], prices: [] });
      assert.deepEqual(await shown(later, CALTEX.feedCode), ['caltex-figtree-99-bellevue-rd-2525', 'Caltex Figtree', 'Caltex']);
      await later.applyBatch({ stations: [METRO], prices: [] });
      assert.deepEqual(await shown(later, CALTEX.feedCode), ['metro-figtree-99-bellevue-road-2525', 'Metro Figtree', 'Metro Fuel']);
      assert.equal(await later.stationAlias('caltex-figtree-99-bellevue-rd-2525'), 'metro-figtree-99-bellevue-road-2525');

      const earlier = await fresh();
      await earlier.applyBatch({ stations: [METRO], prices: [] });
      // The earlier row after the later one: nothing changes, and nothing is an alias.
      const result = await earlier.applyBatch({ stations: [CALTEX], prices: [] });
      assert.deepEqual([result.stationsAdded, result.stationsUpdated], [0, 0]);
      assert.deepEqual(await shown(earlier, CALTEX.feedCode), ['metro-figtree-99-bellevue-road-2525', 'Metro Figtree', 'Metro Fuel']);
      assert.equal(await earlier.stationAlias('caltex-figtree-99-bellevue-rd-2525'), undefined);

      // A tie of dates: the fields that sort last as text, in either order.
      const tie = { ...CALTEX, namedAt: METRO.namedAt };
      for (const pair of [[tie, METRO], [METRO, tie]]) {
        const store = await fresh();
        for (const s of pair) await store.applyBatch({ stations: [s], prices: [] });
        assert.deepEqual(await shown(store, CALTEX.feedCode), ['metro-figtree-99-bellevue-road-2525', 'Metro Figtree', 'Metro Fuel']);
      }
    });

    test('a history station of a database made before these rules (no row date, an id of its name) takes the id of the rule at its next row, the old id its alias', async () => {
      const store = await fresh();
      await store.applyBatch({ stations: [{ ...CALTEX, slug: 'Caltex Figtree', namedAt: undefined }], prices: [] });
      assert.deepEqual(await shown(store, CALTEX.feedCode), ['caltex-figtree', 'Caltex Figtree', 'Caltex']);
      await store.applyBatch({ stations: [CALTEX], prices: [] });
      assert.deepEqual(await shown(store, CALTEX.feedCode), ['caltex-figtree-99-bellevue-rd-2525', 'Caltex Figtree', 'Caltex']);
      assert.equal(await store.stationAlias('caltex-figtree'), 'caltex-figtree-99-bellevue-rd-2525');
    });

    test('a live station taking a history station over takes its live id; every old id answers; no new station takes an alias', async () => {
      const store = await fresh();
      await store.applyBatch({ stations: [CALTEX], prices: [] });
      await store.applyBatch({ stations: [METRO], prices: [] });
      await store.applyBatch({ stations: [LIVE], prices: [] });
      assert.deepEqual(await shown(store, 'NSW-999'), ['ampol-figtree', 'Ampol Figtree', 'Ampol']);
      assert.equal(await store.stationAlias('caltex-figtree-99-bellevue-rd-2525'), 'ampol-figtree');
      assert.equal(await store.stationAlias('metro-figtree-99-bellevue-road-2525'), 'ampol-figtree');
      assert.equal((await store.station('ampol-figtree'))?.name, 'Ampol Figtree');
      assert.equal(await store.station('metro-figtree-99-bellevue-road-2525'), undefined);
      // A station whose name makes an alias's slug is numbered: the old id keeps meaning the station it meant.
      await store.applyBatch({ stations: [{ ...LIVE, feedCode: 'NSW-1000', slug: 'Metro Figtree 99 Bellevue Road 2525', name: 'Metro Figtree 99 Bellevue Road 2525', adopts: undefined }], prices: [] });
      assert.deepEqual((await shown(store, 'NSW-1000'))?.[0], 'metro-figtree-99-bellevue-road-2525-2');
      assert.equal(await store.stationAlias('metro-figtree-99-bellevue-road-2525'), 'ampol-figtree');
    });
  });
}
