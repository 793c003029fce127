import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { boxAround, formatKm, metresBetween, parseNear, parseRadius, withinRadius } from '../../src/domain/nearby.ts';
import { rankPrices } from '../../src/domain/cheapest.ts';

describe('near: parameters, the box, the rule', () => {
  test('near and radius parse only in range', () => {
    assert.deepEqual(parseNear('-33.87,151.2'), { latitude: -33.87, longitude: 151.2 });
    assert.deepEqual(parseNear('90,-180'), { latitude: 90, longitude: -180 });
    for (const bad of ['90.0001,0', '0,-180.5', '-33.87', '1e1,0', ' 1,2', '1,2,3', 'NaN,0', 'Infinity,0']) assert.equal(parseNear(bad), undefined, bad);
    assert.equal(parseRadius(undefined), 5);
    assert.equal(parseRadius('0.1'), 0.1);
    assert.equal(parseRadius('100'), 100);
    assert.equal(parseRadius('2.5'), 2.5);
    for (const bad of ['0.099', '100.001', '0', '', '1e1', '-1', '5.0001']) assert.equal(parseRadius(bad), undefined, bad);
  });

  test('distance_km is the whole metres to one decimal, half up', () => {
    assert.deepEqual([0, 49, 50, 149, 150, 1001, 4950, 5004, 31135, 712682].map(formatKm),
      ['0.0', '0.0', '0.1', '0.1', '0.2', '1.0', '5.0', '5.0', '31.1', '712.7']);
  });

  test('one degree of latitude is 6371 km * pi / 180 = 111194.93 m', () => {
    assert.equal(metresBetween({ latitude: 0, longitude: 0 }, { latitude: 1, longitude: 0 }), 111195);
    assert.equal(metresBetween({ latitude: -33.87, longitude: 151.2 }, { latitude: -33.825, longitude: 151.2 }), 5004);
  });

  test('the box holds the whole circle, and no more than it must', () => {
    const centre = { latitude: -33.87, longitude: 151.2 };
    const box = boxAround(centre, 5);
    // 5.001 km of latitude either side; longitude asin(sin(5.001 / 6371) / cos 33.87) = 0.05417 degrees.
    assert.deepEqual([box.south, box.north, box.west, box.east].map((x) => x.toFixed(5)), ['-33.91498', '-33.82502', '151.14583', '151.25417']);
    // Points on the circle in every direction are in the box.
    for (let bearing = 0; bearing < 360; bearing += 5) {
      const b = (bearing * Math.PI) / 180;
      const d = 5 / 6371;
      const lat1 = (centre.latitude * Math.PI) / 180;
      const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(b));
      const lon2 = (centre.longitude * Math.PI) / 180 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2));
      const point = { latitude: (lat2 * 180) / Math.PI, longitude: (lon2 * 180) / Math.PI };
      assert.ok(point.latitude >= box.south && point.latitude <= box.north && point.longitude >= box.west && point.longitude <= box.east, `bearing ${bearing}`);
    }
    // Across the antimeridian or at a pole: every longitude.
    assert.deepEqual(boxAround({ latitude: -17, longitude: 179.99 }, 5), { ...boxAround({ latitude: -17, longitude: 179.99 }, 5), west: -180, east: 180 });
    const pole = boxAround({ latitude: -89.99, longitude: 0 }, 100);
    assert.deepEqual([pole.south, pole.west, pole.east], [-90, -180, 180]);
  });

  test('within the radius: nearest first, ties by id', () => {
    const centre = { latitude: 0, longitude: 0 };
    const at = (id: string, latitude: number) => ({ id, latitude, longitude: 0 });
    const found = withinRadius([at('b', 0.01), at('a', 0.01), at('c', 0.005), at('d', 0.05)], { centre, radiusKm: 2 });
    assert.deepEqual(found.map((p) => [p.id, p.metres]), [['c', 556], ['a', 1112], ['b', 1112]]);
  });

  test('ranking prices: one per station (its lowest member price, of equal ones the later), by price, distance, id', () => {
    const p = (stationId: string, priceTenths: number, reportedAt: number, latitude = 0) => ({ stationId, priceTenths, reportedAt, latitude, longitude: 0 });
    const prices = [p('b', 1700, 10), p('b', 1650, 5), p('a', 1650, 1), p('a', 1650, 9), p('c', 1650, 3, 0.001), p('d', 1800, 1)];
    assert.deepEqual(rankPrices(prices, 'asc').map((r) => [r.stationId, r.priceTenths, r.reportedAt]), [['a', 1650, 9], ['b', 1650, 5], ['c', 1650, 3], ['d', 1800, 1]]);
    assert.deepEqual(rankPrices(prices, 'desc').map((r) => r.stationId), ['d', 'a', 'b', 'c']);
    const near = rankPrices(prices, 'asc', { centre: { latitude: 0.001, longitude: 0 }, radiusKm: 0.2 });
    assert.deepEqual(near.map((r) => [r.stationId, r.metres]), [['c', 0], ['a', 111], ['b', 111], ['d', 111]]);
    assert.deepEqual(rankPrices(prices, 'asc', { centre: { latitude: 0.001, longitude: 0 }, radiusKm: 0.1 }).map((r) => r.stationId), ['c']);
  });
});
