/**
 * `ingest vic` on Fair Fuel's real answer of 1 May 2026 (test/fixtures/feeds/vic/real/), served by
 * the VIC fake, into a fresh store of each backend: every price row of the answer is counted once,
 * and the run's figures are those of a reference count written here from the raw JSON.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runLine } from '../../../src/cli/ingest.ts';
import { ensureCities } from '../../../src/ingest/cities.ts';
import { FeedHttp } from '../../../src/ingest/feed-fetch.ts';
import { vicAdapter } from '../../../src/ingest/feeds/vic.ts';
import { runFeed } from '../../../src/ingest/runner.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { MemoryLog } from '../../fakes/context.ts';
import { instantRetries } from '../../fakes/server.ts';
import { type VicFake, VIC_TEST_CONSUMER_ID, startVicFake, vicRealBodies, vicRealPrices } from '../../fakes/vic.ts';
import { fixedClock, testBackends } from '../../helpers.ts';

/** 2026-05-02T00:00:00Z (2026-01-01 = 1_767_225_600, plus 121 days): 10:00 in Melbourne, the day after. */
const NOW = 1_767_225_600 + 121 * 86_400;

interface Reference { read: number; stored: number; rejected: Map<string, number>; stations: number; refused: number }

/**
 * The reference: every fuelPrices entry is a row. A station whose position is outside Australia
 * (latitude -44 to -9, longitude 112 to 160) is refused, and on a fresh store its rows are of an
 * unknown station; an in-stock price outside the fuel's bounds (LPG 30 to 300 c/L, the others here
 * 50 to 500) is rejected by that reason; every other row is stored.
 */
function reference(body: string): Reference {
  const fuels: Record<string, string> = { U91: 'ulp91', P95: 'ulp95', P98: 'ulp98', E10: 'e10', E85: 'e85', DSL: 'diesel', PDSL: 'pdiesel', LPG: 'lpg', LNG: 'lng', CNG: 'cng' };
  const bounds: Record<string, [number, number]> = { lpg: [30, 300], e85: [40, 500], lng: [30, 500], cng: [30, 500] };
  const out: Reference = { read: 0, stored: 0, rejected: new Map(), stations: 0, refused: 0 };
  const reject = (reason: string): void => { out.rejected.set(reason, (out.rejected.get(reason) ?? 0) + 1); };
  const details = (JSON.parse(body) as { fuelPriceDetails: Array<{ fuelStation: { location: { latitude: number; longitude: number } }; fuelPrices: Array<{ fuelType: string; isAvailable: boolean; price: number | null }> }> }).fuelPriceDetails;
  for (const { fuelStation, fuelPrices } of details) {
    const { latitude, longitude } = fuelStation.location;
    const placed = latitude >= -44 && latitude <= -9 && longitude >= 112 && longitude <= 160;
    if (placed) out.stations++;
    else out.refused++;
    for (const row of fuelPrices) {
      out.read++;
      const fuel = fuels[row.fuelType];
      assert.ok(fuel, row.fuelType);
      const [low, high] = bounds[fuel] ?? [50, 500];
      if (!placed) reject('unknown station');
      else if (row.isAvailable && row.price !== null && (row.price < low || row.price > high)) reject(`price outside ${low}-${high} c/L for ${fuel}`);
      else out.stored++;
    }
  }
  return out;
}

for (const backend of testBackends()) {
  describe(`ingest vic on the real answer of 1 May 2026 on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let fake: VicFake;
    const expected = reference(vicRealPrices('2026-05-01'));
    const config = (): { url: string; credentials: Record<string, string> } => ({ url: fake.url, credentials: { VIC_FAIRFUEL_CONSUMER_ID: VIC_TEST_CONSUMER_ID } });
    const run = () => runFeed({ store, adapter: vicAdapter, config: config(), clock: fixedClock(NOW), log: new MemoryLog(), http: new FeedHttp(instantRetries()) });
    before(async () => {
      ({ store, drop } = await backend.create());
      await ensureCities(store);
      fake = await startVicFake(VIC_TEST_CONSUMER_ID, vicRealBodies());
    });
    after(async () => {
      await fake.close();
      await drop();
    });

    test('the reference itself: 1,727 stations and 7,249 price rows, as the capture holds', () => {
      assert.deepEqual([expected.stations + expected.refused, expected.read], [1_727, 7_249]);
    });

    test('every row is counted once: read = stored + already known + corrected + held + rejected by reason', async () => {
      const first = await run();
      assert.equal(first.error, undefined);
      assert.equal(first.pricesRead, expected.read);
      assert.deepEqual([first.pricesAccepted, first.pricesIgnored, first.pricesCorrected, first.pricesHeld, first.pricesReleased], [expected.stored, 0, 0, 0, 0]);
      const priceReasons = first.rejections.filter((r) => r.of === undefined).map((r) => [r.reason, r.count]);
      assert.deepEqual(new Map(priceReasons as Array<[string, number]>), expected.rejected);
      assert.equal(first.rejected, [...expected.rejected.values()].reduce((a, b) => a + b, 0));
      assert.equal(first.pricesAccepted + first.pricesIgnored + (first.pricesCorrected ?? 0) + first.pricesHeld + first.rejected, first.pricesRead);
      // BP Rockbank Truckstop's latitude is +37.7 that day (its sign is right on 2 May): the station is refused, its 5 rows counted.
      assert.deepEqual(first.rejections.filter((r) => r.of === 'stations').map((r) => [r.reason, r.count]), [['station position outside Australia', expected.refused]]);
      assert.equal(first.stationsAdded, expected.stations);
      assert.equal(runLine(first).replace(/^.*?ok +\d+s {2}/, ''),
        `stations +${expected.stations} ~0 (1 refused), prices 7249 read: ${expected.stored} stored, 0 already known, 0 corrected, 0 held, ${first.rejected} rejected`);
      const [recorded] = await store.feedRuns({ feed: 'vic', limit: 1 });
      assert.deepEqual(recorded, first);
    });

    test('the same answer again: every stored row already known, the rest rejected as before', async () => {
      const again = await run();
      assert.deepEqual([again.pricesRead, again.pricesAccepted, again.pricesIgnored, again.pricesHeld, again.rejected],
        [expected.read, 0, expected.stored, 0, expected.read - expected.stored]);
    });
  });
}
