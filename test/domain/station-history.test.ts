import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { FUELS } from '../../src/domain/fuels.ts';
import { pooledStationHistory, stationHistory } from '../../src/domain/history.ts';
import type { CurrentPrice, StationDayRow } from '../../src/domain/price-rows.ts';
import { STATES } from '../../src/domain/states.ts';
import { dayStart } from '../../src/domain/time.ts';

const DAY0 = 20_400; // 2025-11-08
// Fuels that pool into combined ids, and some that do not.
const anyFuel = fc.constantFrom(...FUELS.filter((f) => ['e10', 'ulp91', 'ulp95', 'ulp98', 'diesel', 'pdiesel', 'lpg', 'ulp-combined'].includes(f)));

/** A station's stored days (one per fuel and day, in day then fuel order, as stationDays gives them) and its current prices. */
const anyStation = fc.record({
  state: fc.constantFrom(...STATES),
  days: fc.uniqueArray(fc.record({ fuel: anyFuel, day: fc.integer({ min: DAY0, max: DAY0 + 60 }), price: fc.integer({ min: 1000, max: 2500 }),
    seconds: fc.integer({ min: 0, max: 86_400 }) }), { selector: (d) => `${d.fuel}:${d.day}`, maxLength: 120 }),
  current: fc.uniqueArray(fc.record({ fuel: anyFuel, price: fc.integer({ min: 1000, max: 2500 }), available: fc.boolean(),
    openDay: fc.integer({ min: DAY0 + 55, max: DAY0 + 62 }), openSecond: fc.integer({ min: 0, max: 86_399 }) }), { selector: (c) => c.fuel, maxLength: 6 }),
  from: fc.option(fc.integer({ min: DAY0 - 5, max: DAY0 + 62 })),
  span: fc.integer({ min: 0, max: 70 }),
  nowSecond: fc.integer({ min: 0, max: 86_399 }),
});

describe('station history', () => {
  test('the one-station path gives exactly what the general (city) path gives: days, means to the last bit, fuel order', () => {
    fc.assert(fc.property(anyStation, ({ state, days, current, from, span, nowSecond }) => {
      const rows: StationDayRow[] = days
        .sort((a, b) => a.day - b.day || FUELS.indexOf(a.fuel) - FUELS.indexOf(b.fuel))
        .map((d) => ({ stationId: 's', fuel: d.fuel, day: d.day, weightedTenths: d.price * d.seconds, seconds: d.seconds }));
      const now = dayStart(state, DAY0 + 62) + nowSecond;
      const prices: CurrentPrice[] = current.map((c) => ({
        stationId: 's', fuel: c.fuel, priceTenths: c.price, available: c.available, reportedAt: 0, openFrom: dayStart(state, c.openDay) + c.openSecond,
      }));
      const range = { from, to: (from ?? DAY0) + span };
      const lean = stationHistory(state, rows, prices, range, now);
      assert.deepEqual([...lean], [...pooledStationHistory(state, rows, prices, range, now)]);
    }), { numRuns: 1500 });
  });
});
