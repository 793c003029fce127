import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stationPriceEntries } from '../../src/domain/api-entries.ts';

test('a combined id shows a report a feed made under it, and only that', () => {
  const entries = stationPriceEntries([
    { stationId: 's', fuel: 'ulp-combined', priceTenths: 1799, available: true, reportedAt: 1_000, openFrom: 1_000, lastAvailableTenths: 1799 },
    { stationId: 's', fuel: 'diesel', priceTenths: 0, available: false, reportedAt: 2_000, openFrom: 2_000, lastAvailableTenths: 2005 },
  ], 'wa');
  assert.equal(entries.length, 19);
  assert.deepEqual(entries.find((e) => e.fuel === 'ulp-combined'), { fuel: 'ulp-combined', price: '179.9', available: true, updated_at: 1_000, source: 'wa', tomorrow: false });
  assert.deepEqual(entries.find((e) => e.fuel === 'diesel'), { fuel: 'diesel', price: '200.5', available: false, updated_at: 2_000, source: 'wa', tomorrow: false });
  assert.deepEqual(entries.find((e) => e.fuel === 'diesel-combined'), { fuel: 'diesel-combined', price: false, available: false, updated_at: false, source: false, tomorrow: false });
  assert.deepEqual(entries.find((e) => e.fuel === 'ulp91'), { fuel: 'ulp91', price: false, available: false, updated_at: false, source: false, tomorrow: false });
});

test('out of stock shows the last price in stock, or false when the fuel was never in stock', () => {
  const entries = stationPriceEntries([
    { stationId: 's', fuel: 'ev', priceTenths: 0, available: false, reportedAt: 3_000, openFrom: 3_000, lastAvailableTenths: undefined },
    { stationId: 's', fuel: 'lpg', priceTenths: 1090, available: false, reportedAt: 4_000, openFrom: 4_000, lastAvailableTenths: 999 },
  ], 'nsw');
  assert.deepEqual(entries.find((e) => e.fuel === 'ev'), { fuel: 'ev', price: false, available: false, updated_at: 3_000, source: 'nsw', tomorrow: false });
  // The out-of-stock report's own figure is not a price anyone could pay: the last one in stock is shown.
  assert.deepEqual(entries.find((e) => e.fuel === 'lpg'), { fuel: 'lpg', price: '99.9', available: false, updated_at: 4_000, source: 'nsw', tomorrow: false });
});
