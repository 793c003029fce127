import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stationPriceEntries } from '../../src/domain/api-entries.ts';

test('a combined id shows a report a feed made under it, and only that', () => {
  const entries = stationPriceEntries([
    { stationId: 's', fuel: 'ulp-combined', priceTenths: 1799, available: true, reportedAt: 1_000, openFrom: 1_000 },
    { stationId: 's', fuel: 'diesel', priceTenths: 2005, available: false, reportedAt: 2_000, openFrom: 2_000 },
  ], 'wa');
  assert.equal(entries.length, 19);
  assert.deepEqual(entries.find((e) => e.fuel === 'ulp-combined'), { fuel: 'ulp-combined', price: '179.9', available: true, updated_at: 1_000, source: 'wa' });
  assert.deepEqual(entries.find((e) => e.fuel === 'diesel'), { fuel: 'diesel', price: '200.5', available: false, updated_at: 2_000, source: 'wa' });
  assert.deepEqual(entries.find((e) => e.fuel === 'diesel-combined'), { fuel: 'diesel-combined', price: false, available: false, updated_at: false, source: false });
  assert.deepEqual(entries.find((e) => e.fuel === 'ulp91'), { fuel: 'ulp91', price: false, available: false, updated_at: false, source: false });
});
