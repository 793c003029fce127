import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { stripBom } from '../../src/ingest/feed-error.ts';
import { MAX_FUTURE_SEC, Normaliser, centsToTenths } from '../../src/ingest/normalise.ts';

const NOW = 1_795_395_600;
const raw = {
  code: ' 42 ', name: 'Ampol  Foodary\tBathurst', brand: 'Ampol', address: '1 Durham St, BATHURST NSW 2795', suburb: 'BATHURST',
  postcode: '2795', state: 'NSW', latitude: -33.42, longitude: 149.58,
};

describe('Normaliser', () => {
  test('a price of 0 is read as out of stock, whatever the feed says of availability', () => {
    const n = new Normaliser('vic', { U91: 'ulp91', EV: 'ev' }, NOW);
    assert.equal(n.price({ code: '7', fuelCode: 'U91', at: NOW - 60, priceTenths: 0, available: true }), true);
    assert.equal(n.price({ code: '7', fuelCode: 'EV', at: NOW - 60, priceTenths: 0, available: false }), true);
    assert.deepEqual(n.batch().prices, [
      { feed: 'vic', feedCode: '7', fuel: 'ulp91', at: NOW - 60, priceTenths: 0, available: false },
      { feed: 'vic', feedCode: '7', fuel: 'ev', at: NOW - 60, priceTenths: 0, available: false },
    ]);
    assert.deepEqual(n.rejected(), []);
  });

  test('a station is trimmed, its state lower-cased, its slug made from its name', () => {
    const n = new Normaliser('nsw', {}, NOW);
    assert.equal(n.station(raw), true);
    assert.deepEqual(n.batch().stations, [{
      feed: 'nsw', feedCode: '42', slug: 'ampol-foodary-bathurst', name: 'Ampol Foodary Bathurst', brand: 'Ampol',
      address: '1 Durham St, BATHURST NSW 2795', street: '', suburb: 'BATHURST', postcode: '2795', state: 'nsw', phone: '', website: '',
      latitude: -33.42, longitude: 149.58,
    }]);
    assert.equal(n.hasStation('42'), true);
  });

  test('stations without a code, a name, a known state or a position in Australia are rejected alone, by reason', () => {
    const n = new Normaliser('nsw', {}, NOW);
    assert.equal(n.station({ ...raw, code: '' }), false);
    assert.equal(n.station({ ...raw, name: '  ' }), false);
    assert.equal(n.station({ ...raw, state: 'NZ' }), false);
    assert.equal(n.station({ ...raw, latitude: Number.NaN }), false);
    assert.equal(n.station({ ...raw, latitude: 33.42 }), false);
    assert.equal(n.station({ ...raw, code: 'a\u0000b' }), true);
    assert.deepEqual(n.rejected().map((r) => [r.reason, r.count]), [
      ['station without a usable code', 1], ['station without a name', 1], ['station with an unknown state', 1], ['station position outside Australia', 2],
    ]);
    assert.equal(n.batch().stations[0]?.feedCode, 'a b');
  });

  test('prices: mapped, ignored, unknown, out of bounds, too far ahead; unavailable prices skip the bounds', () => {
    const n = new Normaliser('nsw', { U91: 'ulp91', LPG: 'lpg', ADB: null }, NOW);
    const p = (fuelCode: string, priceTenths: number, at = NOW, available = true) => n.price({ code: '42', fuelCode, at, priceTenths, available });
    assert.equal(p('U91', 1859), true);
    assert.equal(p('ADB', 999), false);
    assert.equal(p('E99', 1859), false);
    assert.equal(p('U91', 499), false);
    assert.equal(p('U91', 5001), false);
    assert.equal(p('LPG', 5001), false);
    assert.equal(p('LPG', 2999), true);
    assert.equal(p('U91', 1859.5), false);
    assert.equal(p('U91', 1859, NOW + MAX_FUTURE_SEC + 1), false);
    assert.equal(p('U91', 1859, NOW + MAX_FUTURE_SEC), true);
    assert.equal(p('U91', 9999, NOW + 1, false), true);
    assert.equal(p('U91', -5, NOW + 2, false), true);
    assert.deepEqual(n.batch().prices.map((x) => [x.fuel, x.priceTenths, x.available]), [
      ['ulp91', 1859, true], ['lpg', 2999, true], ['ulp91', 1859, true], ['ulp91', 9999, false], ['ulp91', 0, false],
    ]);
    assert.deepEqual(n.rejected().map((r) => [r.reason, r.count]), [
      ['unknown fuel code', 1], ['price outside 50-500 c/L for ulp91', 2], ['price outside 30-300 c/L for lpg', 1],
      ['price that is not a number', 1], ['price dated more than two days ahead', 1],
    ]);
  });

  test('merge adds counts by reason and keeps the first example', () => {
    assert.deepEqual(Normaliser.merge([[{ reason: 'a', count: 1, example: 'x' }], [{ reason: 'a', count: 2, example: 'y' }, { reason: 'b', count: 1, example: 'z' }]]),
      [{ reason: 'a', count: 3, example: 'x' }, { reason: 'b', count: 1, example: 'z' }]);
  });
});

describe('units and bodies', () => {
  test('cents a litre to tenths, half away from zero beyond a tenth', () => {
    assert.equal(centsToTenths('185.9'), 1859);
    assert.equal(centsToTenths(185.9), 1859);
    assert.equal(centsToTenths('185.95'), 1860);
    assert.equal(centsToTenths(' 200 '), 2000);
    assert.equal(centsToTenths('1,859'), undefined);
    assert.equal(centsToTenths('-1'), undefined);
    assert.equal(centsToTenths(''), undefined);
    assert.equal(centsToTenths(null), undefined);
  });

  test('a leading byte-order mark is dropped, nothing else', () => {
    assert.equal(stripBom('\ufeff<rss/>'), '<rss/>');
    assert.equal(stripBom('<rss/>\ufeff'), '<rss/>\ufeff');
  });
});
