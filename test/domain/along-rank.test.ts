import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ALONG_ORDERS, type AlongPrice, rankAlong } from '../../src/domain/along.ts';

/** The documented orders, written again here: each key in turn, the station id last (ids here are plain ASCII). */
const reference = (found: readonly AlongPrice[], order: string, fillCents: (a: AlongPrice) => number): AlongPrice[] => {
  const id = (a: AlongPrice, b: AlongPrice): number => (a.stationId < b.stationId ? -1 : a.stationId > b.stationId ? 1 : 0);
  const price = (a: AlongPrice, b: AlongPrice): number => a.priceTenths - b.priceTenths || a.alongKm - b.alongKm || id(a, b);
  const by = order === 'along' ? (a: AlongPrice, b: AlongPrice): number => a.alongKm - b.alongKm || id(a, b)
    : order === 'net_cost' ? (a: AlongPrice, b: AlongPrice): number => fillCents(a) - fillCents(b) || price(a, b) : price;
  return [...found].sort(by);
};

test('along: every page of every order is the page of the whole list sorted, ties on the first key across the page edge included', () => {
  // Few prices and along values, so that many stations tie on an order's first key at the page's edge.
  const station = fc.record({
    id: fc.integer({ min: 0, max: 999 }), priceTenths: fc.integer({ min: 1800, max: 1806 }),
    alongKm: fc.constantFrom(0, 1.5, 3, 3.25, 10), metres: fc.integer({ min: 0, max: 2000 }),
  });
  fc.assert(fc.property(
    fc.uniqueArray(station, { selector: (s) => s.id, maxLength: 60 }), fc.constantFrom(...ALONG_ORDERS),
    fc.integer({ min: 1, max: 25 }), fc.integer({ min: 0, max: 70 }), fc.boolean(),
    (stations, order, limit, offset, withFill) => {
      const make = (): AlongPrice[] => stations.map((s) => ({
        stationId: `s-${String(s.id).padStart(3, '0')}`, latitude: -33, longitude: 151, priceTenths: s.priceTenths, reportedAt: 0, metres: s.metres, alongKm: s.alongKm,
      }));
      const fill = withFill || order === 'net_cost' ? { litres: 40, consumption: 8 } : undefined;
      // Net cost in whole cents by the documented formula, dollars = price × (litres + detour km × consumption / 100) / 100,
      // rounded half up once (all positive); in dollars first, as documented, so that a half cent rounds as the code's does.
      const cents = (a: AlongPrice): number => (fill ? Math.round(((a.priceTenths / 10) * (fill.litres + ((2 * a.metres) / 1000) * fill.consumption / 100)) / 100 * 100) : 0);
      const want = reference(make(), order, cents).slice(offset, offset + limit).map((a) => a.stationId);
      const got = rankAlong(make(), order, limit, offset, fill);
      assert.deepEqual(got.items.map((a) => a.stationId), want);
      assert.equal(got.total, stations.length);
    },
  ), { numRuns: 400 });
});
