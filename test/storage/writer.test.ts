import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CITIES, NOW, PRICES, STATIONS, loadFixture } from '../fixture.ts';
import { type FuelSeries, cityHistory } from '../../src/domain/history.ts';
import { dayStart, localDayOf, localTimeToUnix } from '../../src/domain/time.ts';
import type { PriceEvent, PriceStore } from '../../src/storage/store.ts';
import { answers, assertCityTotalsMatchPrices, assertDaysMatchReports, assertStateTotalsMatchPrices, assertLiveDayMatchesRows, itemAt, snapshot, testBackends } from '../helpers.ts';

for (const backend of testBackends()) {
  describe(`the writer on ${backend.name}`, () => {
    test('the same batch twice changes nothing', async () => {
      const { store, drop } = await backend.create();
      try {
        await loadFixture(store);
        const before = await snapshot(store);
        const result = await store.applyBatch({ stations: STATIONS, prices: PRICES });
        assert.deepEqual(result, { stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 0, pricesIgnored: PRICES.length, pricesCorrected: 0 });
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
        const renamed = { ...itemAt(STATIONS, 0), name: 'Alpha Sydney Renamed', slug: 'Alpha Sydney Renamed', latitude: -33.9, longitude: 151.22 }; // first fixture station
        const result = await store.applyBatch({ stations: [renamed], prices: [] });
        assert.deepEqual(result, { stationsAdded: 0, stationsUpdated: 1, pricesAccepted: 0, pricesIgnored: 0, pricesCorrected: 0 });
        const station = await store.station('alpha-sydney');
        assert.equal(station?.name, 'Alpha Sydney Renamed');
        assert.equal(station?.latitude, '-33.9000');
        assert.equal(await store.station('alpha-sydney-renamed'), undefined);
      } finally { await drop(); }
    });

    test("a city's and a state's stored totals (count, sum, min, max per fuel) and today's means totalled in storage equal those worked out from its rows through every kind of write", async () => {
      const { store, drop } = await backend.create();
      const agree = async (step: string): Promise<number> => {
        await assertCityTotalsMatchPrices(store, CITIES.map((c) => c.id), step);
        await assertStateTotalsMatchPrices(store, step);
        await assertDaysMatchReports(store, step);
        return assertLiveDayMatchesRows(store, CITIES.map((c) => c.id), NOW, step);
      };
      try {
        await loadFixture(store);
        // Today is the fixture's only unsealed day: every city's today is totalled in storage.
        assert.equal(await agree('fixture'), CITIES.length);
        assert.ok((await store.cityTotals('sydney')).length > 0);
        // Alpha Sydney's first diesel, reported this very second: no seconds today yet, so only
        // Beta's diesel makes today's mean, while both count in the city's totals.
        await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '1', fuel: 'diesel', at: NOW, priceTenths: 2101, available: true }] });
        await agree('a price this very second');
        const at = NOW - 600;
        // Beta Sydney: a new price, then out of stock; Alpha's diesel earlier (replayed); Gamma Perth cheaper.
        await store.applyBatch({ stations: [], prices: [
          { feed: 'test', feedCode: '2', fuel: 'ulp91', at, priceTenths: 1555, available: true },
          { feed: 'test', feedCode: '1', fuel: 'diesel', at, priceTenths: 2101, available: true },
          { feed: 'test', feedCode: '3', fuel: 'ulp91', at, priceTenths: 1499, available: true },
        ] });
        await agree('new prices');
        await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'ulp91', at: at + 60, priceTenths: 1555, available: false }] });
        await agree('out of stock');
        // Alpha Sydney has an out-of-stock report in the fixture already; Beta joins it.
        assert.deepEqual([...new Set((await store.cityOutOfStock('sydney')).map((c) => c.stationId))].sort(), ['alpha-sydney', 'beta-sydney']);
        // Alpha Sydney moves 60 km out (no city), then back: its prices leave Sydney's totals and return.
        const alpha = itemAt(STATIONS, 0); // feed code 1
        await store.applyBatch({ stations: [{ ...alpha, latitude: -33.5, longitude: 150.7 }], prices: [] });
        await agree('moved out');
        assert.ok(!(await store.currentForCity('sydney')).some((c) => c.stationId === 'alpha-sydney'));
        await store.applyBatch({ stations: [alpha], prices: [] });
        await agree('moved back');
        // Gamma Perth (feed code 3) said to be in SA, then back in WA: its prices move between the state totals.
        const gamma = itemAt(STATIONS, 2);
        await store.applyBatch({ stations: [{ ...gamma, state: 'sa' }], prices: [] });
        await agree('moved to another state');
        assert.deepEqual([(await store.stateTotals('wa')).length, (await store.stateTotals('sa')).map((t) => [t.fuel, t.count])], [0, [['ulp91', 1]]]);
        await store.applyBatch({ stations: [gamma], prices: [] });
        await agree('moved back to its state');
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
          stations: [{ ...itemAt(STATIONS, 0), feedCode: 'new', slug: 'New One', name: 'New One' }], // first fixture station, new code
          prices: [itemAt(PRICES, 0), { ...itemAt(PRICES, 0), feedCode: 'missing' }], // a known report, then one for an unknown station
        }), /unknown station test\/missing/);
        assert.equal(await snapshot(store), before);
        assert.equal(await store.station('new-one'), undefined);
      } finally { await drop(); }
    });
  });
}

/** A second NSW city: a state's seal works its cities out one after the other. */
const NEWCASTLE = { id: 'newcastle', name: 'Newcastle', state: 'nsw', latitude: -32.9283, longitude: 151.7817 } as const;

/**
 * Reports of eight stations, four in Sydney and four in Newcastle, over six weeks across the
 * start of daylight saving (4 October 2026), from a seeded generator: gaps of an hour to a week
 * (so whole days are runs and the days reports fall in are sums), fuels that count towards
 * combined ids, one report in ten out of stock; Newcastle's days end a while before the last.
 * One report is left out, to be sent late.
 */
function sealedMeansData(): { stations: typeof STATIONS; prices: PriceEvent[]; late: PriceEvent; from: number; to: number } {
  let seed = 20_261_004;
  const random = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  const stations = Array.from({ length: 8 }, (_, i) => ({
    ...itemAt(STATIONS, 1), feedCode: `s${i}`, slug: `Station ${i}`, name: `Station ${i}`,
    ...(i % 2 === 0 ? { latitude: -33.87 + i / 1000, longitude: 151.2 } : { latitude: -32.93 + i / 1000, longitude: 151.78 }),
  }));
  const from = localDayOf('nsw', localTimeToUnix('nsw', 2026, 9, 15, 0, 0, 0));
  const to = from + 41;
  const prices: PriceEvent[] = [];
  for (const station of stations) {
    for (const fuel of ['ulp91', 'e10', 'ulp95', 'ulp98', 'diesel', 'pdiesel', 'lpg'] as const) {
      if (random() < 0.3) continue;
      // Newcastle's stations all run out at the same midnight, their last price held to it (a run).
      const runOut = station.latitude > -33 ? dayStart('nsw', from + 30) : undefined;
      let at = dayStart('nsw', from) + Math.floor(random() * 86_400);
      while (at < (runOut === undefined ? dayStart('nsw', to + 1) : runOut - 3 * 86_400)) {
        prices.push({ feed: 'test', feedCode: station.feedCode, fuel, at, priceTenths: 1500 + Math.floor(random() * 700), available: random() >= 0.1 });
        at += 3600 + Math.floor(random() ** 3 * 7 * 86_400);
      }
      if (runOut !== undefined) prices.push({ feed: 'test', feedCode: station.feedCode, fuel, at: runOut, priceTenths: 1500, available: false });
    }
  }
  const late = itemAt(prices.splice(Math.floor(prices.length / 2), 1), 0);
  return { stations, prices, late, from, to };
}

/** Each fuel's daily means, to compare within rounding (the sums may add the same terms in another order). */
function assertSameMeans(actual: FuelSeries[], expected: FuelSeries[], step: string): void {
  expected.forEach((city, i) => assertSameSeries(actual[i] ?? (new Map() as FuelSeries), city, `${step}, city ${i}`));
}

function assertSameSeries(actual: FuelSeries, expected: FuelSeries, step: string): void {
  assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort(), step);
  for (const [fuel, days] of expected) {
    const got = actual.get(fuel) ?? [];
    assert.deepEqual(got.map((d) => d.day), days.map((d) => d.day), `${step}: ${fuel}`);
    days.forEach((d, i) => {
      const mean = got[i]?.meanTenths ?? NaN;
      assert.ok(Math.abs(mean - d.meanTenths) <= 1e-12 * d.meanTenths, `${step}: ${fuel} day ${d.day}: ${mean} vs ${d.meanTenths}`);
    });
  }
}

for (const backend of testBackends()) {
  describe(`sealed days on ${backend.name}`, () => {
    test('sealed city means are the means of the stations\' daily means, before and after a late report', async () => {
      const { stations, prices, late, from, to } = sealedMeansData();
      const range = { from, to };
      const sealAt = dayStart('nsw', to + 1) + 3600;
      const history = async (store: PriceStore): Promise<FuelSeries[]> => Promise.all(['newcastle', 'sydney']
        .map(async (city) => cityHistory('nsw', await store.cityHistoryParts(city, range), range, sealAt)));
      const early = await backend.create();
      const lately = await backend.create();
      try {
        for (const { store } of [early, lately]) {
          await store.upsertCities([...CITIES, NEWCASTLE]);
          await store.applyBatch({ stations, prices: store === early.store ? [...prices, late] : prices });
        }
        // Unsealed, the city's days are worked out in JS from every station's days (runs' days included).
        const unsealed = await history(early.store);
        assert.deepEqual(unsealed.map((city) => (city.get('ulp-combined')?.length ?? 0) > 25), [true, true]);
        await early.store.seal(sealAt);
        assert.equal((await early.store.cityHistoryParts('sydney', range)).stationDays.length, 0); // all sealed
        assertSameMeans(await history(early.store), unsealed, 'sealed');
        // The late report's city days are sealed again, from the station's days replayed.
        await lately.store.seal(sealAt);
        await lately.store.applyBatch({ stations: [], prices: [late] });
        assertSameMeans(await history(lately.store), unsealed, 'late report after the seal');
      } finally { await early.drop(); await lately.drop(); }
    });

    test('a new station reporting old prices counts in sealed city days at once', async () => {
      const { store, drop } = await backend.create();
      try {
        await loadFixture(store);
        const newcomer = { ...itemAt(STATIONS, 1), feedCode: '9', slug: 'Epsilon Sydney', name: 'Epsilon Sydney', latitude: -33.87, longitude: 151.2 }; // shape of a fixture station
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
