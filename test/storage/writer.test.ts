import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CITIES, NOW, PRICES, STATIONS, loadFixture } from '../fixture.ts';
import { localTimeToUnix } from '../../src/domain/time.ts';
import { answers, assertCityTotalsMatchPrices, assertDaysMatchReports, assertLiveDayMatchesRows, snapshot, testBackends } from '../helpers.ts';

for (const backend of testBackends()) {
  describe(`the writer on ${backend.name}`, () => {
    test('the same batch twice changes nothing', async () => {
      const { store, drop } = await backend.create();
      try {
        await loadFixture(store);
        const before = await snapshot(store);
        const result = await store.applyBatch({ stations: STATIONS, prices: PRICES });
        assert.deepEqual(result, { stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 0, pricesIgnored: PRICES.length });
        assert.equal(await snapshot(store), before);
      } finally { await drop(); }
    });

    test('reports out of order give exactly the answers of reports in order', async () => {
      const ordered = await backend.create();
      const shuffled = await backend.create();
      try {
        await loadFixture(ordered.store);
        await shuffled.store.upsertCities(CITIES);
        await shuffled.store.applyBatch({ stations: STATIONS, prices: [] });
        // Newest first, one report per batch: every report but the first arrives out of order.
        for (const price of [...PRICES].sort((a, b) => b.at - a.at)) await shuffled.store.applyBatch({ stations: [], prices: [price] });
        await shuffled.store.seal(NOW);
        assert.deepEqual(await answers(shuffled.store, NOW), await answers(ordered.store, NOW));
        await assertDaysMatchReports(shuffled.store, 'shuffled');
        await assertDaysMatchReports(ordered.store, 'ordered');
      } finally { await ordered.drop(); await shuffled.drop(); }
    });

    test('a late report for a sealed day updates the city history', async () => {
      const { store, drop } = await backend.create();
      try {
        await loadFixture(store);
        // Beta Sydney reports 200.0 at 18:00 on 21-11 (Sydney), a day already sealed.
        await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'ulp91', at: 1_795_244_400, priceTenths: 2000, available: true }] });
        const [history] = await answers(store, NOW);
        const ulp91 = (JSON.parse(history ?? '{}') as { data: { history: Array<{ fuel: string; records: Array<{ date: string; average: string }> }> } })
          .data.history.find((h) => h.fuel === 'ulp91');
        // Beta on 21-11: 170.0 for 18 h, 200.0 for 6 h = 177.5; city (1862.5 + 1775) / 2 = 181.875 c -> 1.82.
        assert.deepEqual(ulp91?.records.find((r) => r.date === '21-11-2026')?.average, '1.82');
      } finally { await drop(); }
    });

    test('whole days between reports are one run (across daylight saving too); each seal lengthens it; a late report splits it', async () => {
      const { store, drop } = await backend.create();
      try {
        await store.upsertCities(CITIES);
        await store.applyBatch({ stations: STATIONS, prices: [] });
        // Alpha Sydney (feed code 1, NSW); NSW clocks went forward on 4 October 2026.
        const at = (day: number, hour: number): number => localTimeToUnix('nsw', 2026, 10, day, hour, 0, 0);
        const price = (time: number, priceTenths: number) => ({ feed: 'test', feedCode: '1', fuel: 'ulp91' as const, at: time, priceTenths, available: true });
        await store.applyBatch({ stations: [], prices: [price(at(1, 10), 1800), price(at(6, 15), 1850)] });
        assert.equal(await assertDaysMatchReports(store, 'two reports'), 1); // 2 to 5 October
        // Nothing sealed yet: the city's history reads the same days, runs' days included.
        const everything = { from: null, to: 1_000_000 };
        const parts = await store.cityHistoryParts('sydney', everything);
        assert.deepEqual(parts.stationDays.filter((d) => d.stationId === 'alpha-sydney'), await store.stationDays('alpha-sydney', everything));
        assert.equal(parts.stationDays.filter((d) => d.stationId === 'alpha-sydney').length, 6);
        await store.seal(at(9, 12));
        assert.equal(await assertDaysMatchReports(store, 'first seal'), 2); // and 7 to 8 October
        await store.seal(at(12, 12));
        assert.equal(await assertDaysMatchReports(store, 'second seal'), 2); // 7 to 11 October, lengthened
        await store.applyBatch({ stations: [], prices: [price(at(3, 12), 1700)] });
        assert.equal(await assertDaysMatchReports(store, 'late report'), 3); // 2, 4 to 5, 7 to 11 October
        const days = await store.stationDays('alpha-sydney', { from: null, to: 1_000_000 });
        const october = (day: number): number => Math.floor((at(day, 12) + 11 * 3600) / 86_400);
        assert.deepEqual(days.filter((d) => d.day >= october(3) && d.day <= october(5)).map((d) => [d.day - october(1) + 1, d.weightedTenths / d.seconds, d.seconds]),
          [[3, 1750, 86_400], [4, 1700, 82_800], [5, 1700, 86_400]]);
        // The sealed city days, worked out again from the runs after the late report: Alpha is Sydney's only ulp91.
        const sealed = (await store.cityHistoryParts('sydney', { from: october(1), to: october(11) })).sealed
          .filter((d) => d.fuel === 'ulp91').sort((a, b) => a.day - b.day).map((d) => [d.day - october(1) + 1, d.meanTenths]);
        assert.deepEqual(sealed, [[1, 1800], [2, 1800], [3, 1750], [4, 1700], [5, 1700], [6, (15 * 1700 + 9 * 1850) / 24],
          [7, 1850], [8, 1850], [9, 1850], [10, 1850], [11, 1850]]);
      } finally { await drop(); }
    });

    test('a renamed or moved station keeps its id', async () => {
      const { store, drop } = await backend.create();
      try {
        await loadFixture(store);
        const renamed = { ...STATIONS[0]!, name: 'Alpha Sydney Renamed', slug: 'Alpha Sydney Renamed', latitude: -33.9, longitude: 151.22 }; // first fixture station
        const result = await store.applyBatch({ stations: [renamed], prices: [] });
        assert.deepEqual(result, { stationsAdded: 0, stationsUpdated: 1, pricesAccepted: 0, pricesIgnored: 0 });
        const station = await store.station('alpha-sydney');
        assert.equal(station?.name, 'Alpha Sydney Renamed');
        assert.equal(station?.latitude, '-33.9000');
        assert.equal(await store.station('alpha-sydney-renamed'), undefined);
      } finally { await drop(); }
    });

    test("a city's stored totals (count, sum, min, max per fuel) and today's means totalled in storage equal those worked out from its rows through every kind of write", async () => {
      const { store, drop } = await backend.create();
      const agree = async (step: string): Promise<number> => {
        await assertCityTotalsMatchPrices(store, CITIES.map((c) => c.id), step);
        await assertDaysMatchReports(store, step);
        return assertLiveDayMatchesRows(store, CITIES.map((c) => c.id), NOW, step);
      };
      try {
        await loadFixture(store);
        // Today is the fixture's only unsealed day: every city's today is totalled in storage.
        assert.equal(await agree('fixture'), CITIES.length);
        assert.ok((await store.cityTotals('sydney')).length > 0);
        const at = NOW - 600;
        // Beta Sydney: a new price, then out of stock; Alpha's diesel new; Gamma Perth cheaper.
        await store.applyBatch({ stations: [], prices: [
          { feed: 'test', feedCode: '2', fuel: 'ulp91', at, priceTenths: 1555, available: true },
          { feed: 'test', feedCode: '1', fuel: 'diesel', at, priceTenths: 2101, available: true },
          { feed: 'test', feedCode: '3', fuel: 'ulp91', at, priceTenths: 1499, available: true },
        ] });
        await agree('new prices');
        await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'ulp91', at: at + 60, priceTenths: 1555, available: false }] });
        await agree('out of stock');
        // Alpha Sydney has an out-of-stock report in the fixture already; Beta joins it.
        assert.deepEqual([...new Set((await store.currentOfOutOfStock('sydney')).map((c) => c.stationId))], ['alpha-sydney', 'beta-sydney']);
        // Alpha Sydney moves 60 km out (no city), then back: its prices leave Sydney's totals and return.
        const alpha = STATIONS[0]!; // feed code 1
        await store.applyBatch({ stations: [{ ...alpha, latitude: -33.5, longitude: 150.7 }], prices: [] });
        await agree('moved out');
        assert.ok(!(await store.currentForCity('sydney')).some((c) => c.stationId === 'alpha-sydney'));
        await store.applyBatch({ stations: [alpha], prices: [] });
        await agree('moved back');
        // A late report (replayed history) and the day's seal leave today's prices where they were.
        await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '1', fuel: 'ulp91', at: NOW - 3 * 86_400, priceTenths: 1700, available: true }] });
        await store.seal(NOW + 86_400);
        // Today sealed: nothing live, nothing to total.
        assert.equal(await agree('late report and seal'), 0);
      } finally { await drop(); }
    });

    test('a station is placed in the nearest city of its own state within 25 km, or none', async () => {
      const { store, drop } = await backend.create();
      try {
        await loadFixture(store);
        const current = await store.currentForCity('sydney');
        const ids = [...new Set(current.map((c) => c.stationId))];
        assert.deepEqual(ids, ['alpha-sydney', 'beta-sydney']);
        assert.deepEqual(await store.currentForCity('perth').then((c) => c.map((p) => p.stationId)), ['gamma-perth']);
        // Delta Country (60 km out) reports diesel but belongs to no city: Sydney's diesel is Beta's alone.
        assert.ok(!current.some((c) => c.stationId === 'delta-country'));
      } finally { await drop(); }
    });

    test('a price for a station the store does not know fails the whole batch and writes nothing', async () => {
      const { store, drop } = await backend.create();
      try {
        await loadFixture(store);
        const before = await snapshot(store);
        await assert.rejects(store.applyBatch({
          stations: [{ ...STATIONS[0]!, feedCode: 'new', slug: 'New One', name: 'New One' }], // first fixture station, new code
          prices: [PRICES[0]!, { ...PRICES[0]!, feedCode: 'missing' }], // a known report, then one for an unknown station
        }), /unknown station test\/missing/);
        assert.equal(await snapshot(store), before);
        assert.equal(await store.station('new-one'), undefined);
      } finally { await drop(); }
    });
  });
}

for (const backend of testBackends()) {
  describe(`sealed days on ${backend.name}`, () => {
    test('a new station reporting old prices counts in sealed city days at once', async () => {
      const { store, drop } = await backend.create();
      try {
        await loadFixture(store);
        const newcomer = { ...STATIONS[1]!, feedCode: '9', slug: 'Epsilon Sydney', name: 'Epsilon Sydney', latitude: -33.87, longitude: 151.2 }; // shape of a fixture station
        await store.applyBatch({ stations: [newcomer], prices: [{ feed: 'test', feedCode: '9', fuel: 'ulp91', at: 1_795_093_200, priceTenths: 1600, available: true }] });
        const [history] = await answers(store, NOW);
        const ulp91 = (JSON.parse(history ?? '{}') as { data: { history: Array<{ fuel: string; records: Array<{ date: string; average: string }> }> } })
          .data.history.find((h) => h.fuel === 'ulp91');
        // 20-11: (1800 + 1600) / 2 = 170.0 c; 21-11: (1862.5 + 1700 + 1600) / 3 = 172.08 c.
        assert.deepEqual(ulp91?.records.filter((r) => r.date === '20-11-2026' || r.date === '21-11-2026').map((r) => r.average), ['1.72', '1.70']);
      } finally { await drop(); }
    });
  });
}
