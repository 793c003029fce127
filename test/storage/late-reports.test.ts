import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CITIES, STATIONS } from '../fixture.ts';
import { cityHistory } from '../../src/domain/history.ts';
import { localTimeToUnix } from '../../src/domain/time.ts';
import type { PriceEvent, PriceStore } from '../../src/storage/store.ts';
import type { Report } from '../../src/storage/write-plan/day-totals.ts';
import { changedSpans, classifyReports, runPiecesOutside } from '../../src/storage/write-plan/late-reports.ts';
import { assertDaysMatchReports, itemAt, testBackends } from '../helpers.ts';

/**
 * History is a function of the reports, not of their arrival (issue 28): whatever order reports
 * come in, in whatever batches, with the state's days closed (sealed) in between by a running
 * server, each station's daily sums and each city's daily means equal those worked out here
 * from all the reports at once.
 */

const HOUR = 3600;
/** Sydney local midnights of 30 March to 10 April 2026 (clocks went back an hour at 03:00 on 5 April). */
const DATES = Array.from({ length: 12 }, (_, i) => new Date(Date.UTC(2026, 2, 30 + i)));
const MIDNIGHTS = DATES.map((d) => localTimeToUnix('nsw', d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), 0, 0, 0));
/** A local day as the store numbers it: days since 1970-01-01 of the local date. */
const DAY_NUMBERS = DATES.map((d) => d.getTime() / 86_400_000);
const BASE = itemAt(MIDNIGHTS, 0);
/** The last seal: midday on 10 April, so every day before 10 April is closed. */
const FINAL_NOW = itemAt(MIDNIGHTS, 11) + 12 * HOUR;
const CUTOFF = itemAt(MIDNIGHTS, 11);
const FUELS = ['lpg', 'e85'] as const;
const SYDNEY = STATIONS.filter((s) => s.feedCode === '1' || s.feedCode === '2');
/** Their ids (slugs of their names). */
const IDS = ['alpha-sydney', 'beta-sydney'];

interface Row { station: number; fuel: number; hour: number; priceTenths: number; available: boolean; order: number; newBatch: boolean; sealHour: number | null }

const rowArb: fc.Arbitrary<Row> = fc.record({
  station: fc.integer({ min: 0, max: 1 }),
  fuel: fc.integer({ min: 0, max: 1 }),
  // On the hour, over ten days: instants repeat (corrections and repeats) and fall on midnights.
  hour: fc.integer({ min: 0, max: 10 * 24 }),
  priceTenths: fc.oneof(fc.constantFrom(1800, 1900), fc.integer({ min: 1500, max: 2200 })),
  available: fc.constantFrom(true, true, true, false),
  order: fc.nat(),
  newBatch: fc.boolean(),
  sealHour: fc.option(fc.integer({ min: 0, max: 11 * 24 }), { freq: 3 }),
});

/** Per station id, fuel and local day: the weighted sum and seconds of the reports' intervals, worked out from all of them at once. */
function reference(arrived: readonly Row[]): Map<string, { weighted: number; seconds: number }> {
  const latest = new Map<string, Map<number, Row>>();
  // Of two rows for one station, fuel and instant, the one that arrived later wins.
  for (const row of arrived) {
    const key = `${row.station}:${row.fuel}`;
    let byHour = latest.get(key);
    if (!byHour) latest.set(key, (byHour = new Map<number, Row>()));
    byHour.set(row.hour, row);
  }
  const days = new Map<string, { weighted: number; seconds: number }>();
  for (const [key, byHour] of latest) {
    const [station, fuel] = key.split(':').map(Number);
    const reports = [...byHour.values()].sort((a, b) => a.hour - b.hour);
    for (const [i, r] of reports.entries()) {
      if (!r.available) continue;
      const from = BASE + r.hour * HOUR;
      const next = reports[i + 1];
      const to = next ? BASE + next.hour * HOUR : CUTOFF;
      for (let d = 0; d < 11; d++) {
        const seconds = Math.min(to, itemAt(MIDNIGHTS, d + 1)) - Math.max(from, itemAt(MIDNIGHTS, d));
        if (seconds <= 0) continue;
        const dayKey = `${itemAt(IDS, station ?? 0)}:${FUELS[fuel ?? 0]}:${itemAt(DAY_NUMBERS, d)}`;
        const sum = days.get(dayKey) ?? { weighted: 0, seconds: 0 };
        sum.weighted += r.priceTenths * seconds;
        sum.seconds += seconds;
        days.set(dayKey, sum);
      }
    }
  }
  return days;
}

function event(row: Row): PriceEvent {
  const station = itemAt(SYDNEY, row.station);
  return { feed: station.feed, feedCode: station.feedCode, fuel: FUELS[row.fuel] ?? 'lpg', at: BASE + row.hour * HOUR, priceTenths: row.priceTenths, available: row.available };
}

/**
 * Applies the rows in their arrival order (a batch ends at a row that starts a new one or seals),
 * seals, and checks every station day, run and city mean against the reports at once.
 */
async function arriveAndCheck(store: PriceStore, arrived: readonly Row[]): Promise<void> {
  await store.upsertCities(CITIES);
  await store.applyBatch({ stations: SYDNEY, prices: [] });
  let batch: PriceEvent[] = [];
  let sealedAt = 0;
  for (const row of arrived) {
    batch.push(event(row));
    if (!row.newBatch && row.sealHour === null) continue;
    await store.applyBatch({ stations: [], prices: batch });
    batch = [];
    if (row.sealHour !== null) {
      // A running server's clock only moves forward.
      sealedAt = Math.max(sealedAt, BASE + row.sealHour * HOUR);
      await store.seal(sealedAt);
    }
  }
  if (batch.length > 0) await store.applyBatch({ stations: [], prices: batch });
  await store.seal(FINAL_NOW);

  const want = reference(arrived);
  const got = new Map<string, { weighted: number; seconds: number }>();
  for (const id of IDS) {
    for (const d of await store.stationDays(id, { from: null, to: 1_000_000 })) {
      if (d.seconds > 0) got.set(`${d.stationId}:${d.fuel}:${d.day}`, { weighted: d.weightedTenths, seconds: d.seconds });
    }
  }
  const sorted = (m: Map<string, unknown>): Array<[string, unknown]> => [...m].sort(([a], [b]) => a.localeCompare(b));
  assert.deepEqual(sorted(got), sorted(want));
  await assertDaysMatchReports(store);

  // The city's sealed means: the mean of its stations' daily means, day by day.
  const range = { from: itemAt(DAY_NUMBERS, 0), to: itemAt(DAY_NUMBERS, 10) };
  const history = cityHistory('nsw', await store.cityHistoryParts('sydney', range, FINAL_NOW), range, FINAL_NOW);
  for (const fuel of FUELS) {
    const expected = DAY_NUMBERS.slice(0, 11).flatMap((day) => {
      const means = IDS.map((id) => want.get(`${id}:${fuel}:${day}`)).filter((v) => v !== undefined).map((v) => v.weighted / v.seconds);
      return means.length === 0 ? [] : [{ day, meanTenths: means.reduce((a, b) => a + b, 0) / means.length }];
    }).reverse();
    const actual = history.get(fuel) ?? [];
    assert.deepEqual(actual.map((m) => m.day), expected.map((m) => m.day), fuel);
    for (const [i, m] of actual.entries()) assert.ok(Math.abs(m.meanTenths - itemAt(expected, i).meanTenths) < 1e-6, `${fuel} ${m.day}: ${m.meanTenths} against ${itemAt(expected, i).meanTenths}`);
  }
}

for (const backend of testBackends()) {
  describe(`late reports on ${backend.name}`, () => {
    test('daily sums and city means equal those of all the reports at once, whatever the arrival order, batches and seals in between', async () => {
      await fc.assert(fc.asyncProperty(fc.array(rowArb, { minLength: 1, maxLength: 30 }), async (rows) => {
        const arrived = rows.map((row, i) => ({ row, i })).sort((a, b) => a.row.order - b.row.order || a.i - b.i).map(({ row }) => row);
        const { store, drop } = await backend.create();
        try {
          await arriveAndCheck(store, arrived);
        } finally { await drop(); }
      }), { numRuns: backend.name === 'sqlite' ? 60 : 20 });
    });

    test('one batch\'s late reports rebuilding two spans of one fuel, a run of whole days across both: its days outside both are kept', async () => {
      // 1800 from 30 March, again at 3 April's midnight, sealed to 8 April: a run of whole days. Then
      // one batch brings two excursions, on 1 and 5 April: their spans (1 to 2, the next report's
      // midnight ending the first; 5 to 8 April) are two spans of one group, the run cut by both.
      const row = (hour: number, priceTenths: number, end: Partial<Row> = {}): Row =>
        ({ station: 0, fuel: 0, hour, priceTenths, available: true, order: 0, newBatch: false, sealHour: null, ...end });
      const { store, drop } = await backend.create();
      try {
        await arriveAndCheck(store, [
          row(2, 1800), row(96, 1800), row(230, 1900, { sealHour: 232 }),
          row(50, 2000), row(52, 1800), row(150, 2100), row(151, 1800, { newBatch: true }),
        ]);
        const days = (await store.stationDays('alpha-sydney', { from: null, to: 1_000_000 })).filter((d) => d.fuel === 'lpg' && d.seconds > 0);
        // Days off 1800 (30 March counted 0): the two excursions', and 8 and 9 April's (1900 from the afternoon of 8 April).
        const offDays = days.filter((d) => d.weightedTenths !== 1800 * d.seconds).map((d) => d.day - itemAt(DAY_NUMBERS, 0));
        assert.deepEqual(offDays, [2, 6, 9, 10]);
      } finally { await drop(); }
    });

    test('a report later than the current one but inside days already closed is late: VIC\'s published-a-day-late sequence', async () => {
      // A station at 174.9 from the day before; the next day's file, read after a running server
      // closed 1 May, says 219.9 from 06:07 on 1 May: 1 May is 174.9 for 6 h 7 min, then 219.9.
      const { store, drop } = await backend.create();
      try {
        await store.upsertCities(CITIES);
        const station = itemAt(SYDNEY, 0);
        await store.applyBatch({ stations: [station], prices: [] });
        const at = (d: number, h: number, m = 0): number => localTimeToUnix('nsw', 2026, 5, d, h, m, 0);
        const price = (time: number, priceTenths: number): PriceEvent => ({ feed: station.feed, feedCode: station.feedCode, fuel: 'lpg', at: time, priceTenths, available: true });
        await store.applyBatch({ stations: [], prices: [price(localTimeToUnix('nsw', 2026, 4, 30, 9, 0, 0), 1749)] });
        await store.seal(at(1, 12));
        await store.seal(at(2, 0, 30));
        const result = await store.applyBatch({ stations: [], prices: [price(at(1, 6, 7), 2199)] });
        assert.deepEqual(result, { stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 1, pricesIgnored: 0, pricesCorrected: 0 });
        const day = Date.UTC(2026, 4, 1) / 86_400_000;
        const days = await store.stationDays(itemAt(IDS, 0), { from: day, to: day });
        const seconds = 6 * HOUR + 7 * 60;
        const weighted = 1749 * seconds + 2199 * (86_400 - seconds);
        assert.deepEqual(days.filter((d) => d.fuel === 'lpg').map((d) => [d.day, d.weightedTenths, d.seconds]), [[day, weighted, 86_400]]);
        // (174.9 × 22,020 s + 219.9 × 64,380 s) / 86,400 s = 208.4 c, as the issue worked it out.
        assert.equal((weighted / 86_400 / 10).toFixed(1), '208.4');
      } finally { await drop(); }
    });

    test('the same report again is already known; a new price for a stored instant corrects it, the later row winning', async () => {
      const { store, drop } = await backend.create();
      try {
        await store.upsertCities(CITIES);
        const station = itemAt(SYDNEY, 0);
        await store.applyBatch({ stations: [station], prices: [] });
        const at = localTimeToUnix('nsw', 2026, 5, 1, 9, 0, 0);
        const price = (priceTenths: number, available = true): PriceEvent => ({ feed: station.feed, feedCode: station.feedCode, fuel: 'lpg', at, priceTenths, available });
        // One batch: a new instant, the same row again, then two corrections (QLD sends same-minute corrections so).
        assert.deepEqual(await store.applyBatch({ stations: [], prices: [price(1800), price(1800), price(1810), price(1820)] }),
          { stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 1, pricesIgnored: 1, pricesCorrected: 2 });
        assert.deepEqual(await store.applyBatch({ stations: [], prices: [price(1820)] }),
          { stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 0, pricesIgnored: 1, pricesCorrected: 0 });
        assert.deepEqual(await store.applyBatch({ stations: [], prices: [price(1830, false)] }),
          { stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 0, pricesIgnored: 0, pricesCorrected: 1 });
        const current = (await store.currentForStation(itemAt(IDS, 0))).find((c) => c.fuel === 'lpg');
        assert.deepEqual([current?.priceTenths, current?.available], [1830, false]);
        await store.seal(localTimeToUnix('nsw', 2026, 5, 3, 1, 0, 0));
        // Out of stock from 09:00 on 1 May: only the nine hours before count, and none were reported.
        assert.deepEqual((await store.stationDays(itemAt(IDS, 0), { from: null, to: 1_000_000 })).filter((d) => d.seconds > 0), []);
      } finally { await drop(); }
    });
  });
}

describe('the days a late report changes', () => {
  const r = (at: number, priceTenths = 1800): Report => ({ at, priceTenths, available: true });
  const at = (d: number, h: number): number => localTimeToUnix('wa', 2026, 6, d, h, 0, 0);
  const day = (d: number): number => Date.UTC(2026, 5, d) / 86_400_000;

  test('from its own day to the day of the next report, or of the open interval\'s start; spans that touch are one', () => {
    const stored = [r(at(1, 9)), r(at(3, 9)), r(at(10, 9)), r(at(12, 0)), r(at(20, 9))];
    // A change on the 3rd reaches the 10th's report; one on the 12th (at midnight) the 20th's; the open interval starts on the 25th.
    assert.deepEqual(changedSpans('wa', [at(3, 9), at(12, 0)], stored, at(25, 6)), [{ from: day(3), to: day(10) }, { from: day(12), to: day(20) }]);
    // The report of the 20th changed: its interval runs to the open interval's start.
    assert.deepEqual(changedSpans('wa', [at(20, 9)], stored, at(25, 6)), [{ from: day(20), to: day(25) }]);
    // Changes on the 1st and the 3rd: [1st, 3rd] and [3rd, 10th] merge.
    assert.deepEqual(changedSpans('wa', [at(1, 9), at(3, 9)], stored, at(25, 6)), [{ from: day(1), to: day(10) }]);
    // A next report at midnight: the day before it is the last changed.
    assert.deepEqual(changedSpans('wa', [at(10, 9)], stored, at(25, 6)), [{ from: day(10), to: day(11) }]);
    // A change at the open interval's start changes no closed day.
    assert.deepEqual(changedSpans('wa', [at(25, 6)], [...stored, r(at(25, 6))], at(25, 6)), []);
  });

  test('runs keep their days outside a rebuilt span', () => {
    assert.deepEqual(runPiecesOutside([{ from: 10, to: 20, priceTenths: 1 }, { from: 22, to: 23, priceTenths: 2 }], { from: 15, to: 22 }),
      [{ from: 10, to: 14, priceTenths: 1 }, { from: 23, to: 23, priceTenths: 2 }]);
    assert.deepEqual(runPiecesOutside([{ from: 15, to: 22, priceTenths: 1 }], { from: 15, to: 22 }), []);
  });

  test('rows against what is stored: new, the same report again, or a correction', () => {
    const rows = [r(1, 100), r(1, 100), r(2, 200), r(2, 210), r(3, 300), r(3, 300), { at: 4, priceTenths: 400, available: false }];
    const stored = new Map<number, Report>([[2, r(2, 200)], [3, r(3, 290)], [4, r(4, 400)]]);
    const out = classifyReports(rows, (t) => stored.get(t));
    assert.deepEqual(out, {
      fresh: [r(1, 100)],
      corrected: [r(2, 210), r(3, 300), { at: 4, priceTenths: 400, available: false }],
      // 1: the second row repeats the first; 2: 200 repeats the stored one; 3: the second 300 repeats the first.
      known: 3,
      // 2: 210; 3: 300 against 290; 4: unavailable against available.
      correcting: 3,
    });
  });
});
