import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CurrentPrice } from '../../src/domain/price-rows.ts';
import { type HeldPrice, pairedTomorrow } from '../../src/domain/tomorrow.ts';

const SIX = 1_795_989_600;
const cur = (stationId: string, fuel: CurrentPrice['fuel'], priceTenths: number, available = true): CurrentPrice =>
  ({ stationId, fuel, priceTenths, available, reportedAt: SIX - 86_400, openFrom: SIX - 86_400 });
const held = (stationId: string, fuel: HeldPrice['fuel'], priceTenths: number, at = SIX, available = true): HeldPrice =>
  ({ stationId, fuel, priceTenths, available, at, latitude: -31.9, longitude: 115.9 });

test('today against tomorrow over the same stations only', () => {
  const current = [cur('a', 'ulp91', 1800), cur('b', 'ulp91', 1900), cur('c', 'ulp91', 2000), cur('d', 'ulp91', 1700, false), cur('a', 'e10', 1750)];
  const next = [
    held('a', 'ulp91', 1850), held('a', 'ulp91', 1990, SIX + 86_400), // a: its earliest, 185.0
    held('b', 'ulp91', 1880), // b: 188.0
    held('d', 'ulp91', 1600), // d is out of stock now: not compared
    held('e', 'ulp91', 1500), // e has no price now: not compared
    held('c', 'ulp91', 2100, SIX, false), // c out of stock tomorrow: not compared
    held('a', 'e10', 1790),
  ];
  // ulp91: a and b. Now (180.0 + 190.0) / 2 = 185.0; tomorrow (185.0 + 188.0) / 2 = 186.5.
  assert.deepEqual(pairedTomorrow(current, next, 'ulp91'), { nowTenths: 1850, tomorrowTenths: 1865, count: 2 });
  // ulp-combined pools ulp91 and e10 as the city's average does: a's ulp91, b's ulp91, a's e10.
  // Now (1800 + 1900 + 1750) / 3; tomorrow (1850 + 1880 + 1790) / 3.
  assert.deepEqual(pairedTomorrow(current, next, 'ulp-combined'), { nowTenths: 5450 / 3, tomorrowTenths: 5520 / 3, count: 3 });
  assert.equal(pairedTomorrow(current, next, 'diesel'), undefined);
  assert.equal(pairedTomorrow(current, [], 'ulp91'), undefined);
});
