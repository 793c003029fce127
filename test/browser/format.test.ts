import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  addressParts, ageText, centsOf, dayLabels, distinctNames, fractionOf, isOld, nearest, onceEach, parseLocation, priceColour, project, retryAfterSec, retryText, shortDate,
} from '../../src/web/page/format.ts';

describe("the dashboard's pure pieces", () => {
  test('how old a price is', () => {
    const now = 1_795_395_600;
    assert.deepEqual([0, 59, 60, 3_599, 3_600, 3 * 3_600 + 3_599, 47 * 3_600 + 3_599, 48 * 3_600, 9 * 86_400 + 5].map((ago) => ageText(now - ago, now)),
      ['just now', 'just now', '1 min ago', '59 min ago', '1 h ago', '3 h ago', '47 h ago', '2 days ago', '9 days ago']);
    assert.equal(ageText(now + 30, now), 'just now', 'a clock a little ahead is not "in the future"');
  });

  test('a typed location becomes the near parameter, or says what is wrong', () => {
    assert.deepEqual(parseLocation(' -33.8688 , 151.2093 '), { near: '-33.8688,151.2093', point: { latitude: -33.8688, longitude: 151.2093 } });
    assert.deepEqual(parseLocation('-31,115'), { near: '-31,115', point: { latitude: -31, longitude: 115 } });
    for (const bad of ['', '-33.8', '1e2,3', '-33.8;151.2', 'a,b', '1,2,3', '-33.,151']) {
      assert.deepEqual(parseLocation(bad), { error: 'Give a location as latitude, longitude in decimal degrees, e.g. -33.87, 151.21.' }, bad);
    }
    assert.deepEqual(parseLocation('91,0'), { error: 'The latitude must be between -90 and 90.' });
    assert.deepEqual(parseLocation('0,180.5'), { error: 'The longitude must be between -180 and 180.' });
  });

  test('the nearest city', () => {
    const cities = [{ id: 'sydney', latitude: -33.8679, longitude: 151.2073 }, { id: 'perth', latitude: -31.9522, longitude: 115.8614 }];
    assert.equal(nearest(cities, { latitude: -32, longitude: 116 })?.id, 'perth');
    assert.equal(nearest([], { latitude: 0, longitude: 0 }), undefined);
  });

  test('colours run green (cheapest) to red (dearest)', () => {
    assert.equal(priceColour(0), 'hsl(130, 70%, 40%)');
    assert.equal(priceColour(1), 'hsl(0, 70%, 40%)');
    assert.equal(priceColour(0.5), 'hsl(65, 70%, 40%)');
    assert.equal(priceColour(Number.NaN), priceColour(0));
    assert.equal(fractionOf(180, 170, 190), 0.5);
    assert.equal(fractionOf(180, 180, 180), 0);
  });

  test('the plot keeps north up and a kilometre the same both ways, within the box', () => {
    const box = { width: 600, height: 420, padding: 20 };
    const placed = project([{ latitude: -33, longitude: 151 }, { latitude: -34, longitude: 151 }, { latitude: -33.5, longitude: 151.5 }], box);
    const [north, south, east] = placed as [{ x: number; y: number }, { x: number; y: number }, { x: number; y: number }];
    assert.ok(north.y < south.y, 'north is up');
    assert.ok(east.x > north.x, 'east is right');
    assert.equal(north.x, south.x);
    assert.ok(Math.abs((south.y - north.y) / 2 - (east.x - north.x) / Math.cos((33.5 * Math.PI) / 180)) < 1e-9, 'half a degree of latitude = half a degree of longitude × cos(latitude)');
    for (const p of placed) assert.ok(p.x >= 20 && p.x <= 580 && p.y >= 20 && p.y <= 400);
    assert.deepEqual(project([{ latitude: -33, longitude: 151 }], box), [{ x: 300, y: 210 }], 'one point: the middle');
  });

  test('Retry-After as seconds, and in words', () => {
    assert.equal(retryAfterSec('42', 0), 42);
    assert.equal(retryAfterSec(null, 0), 60);
    assert.equal(retryAfterSec('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')), 30);
    assert.equal(retryAfterSec('soon', 0), 60);
    assert.deepEqual([0, 1, 119, 120, 601].map(retryText), ['You can try again now.', 'Try again in 1 s.', 'Try again in 119 s.', 'Try again in 2 min.', 'Try again in 11 min.']);
  });

  test('chart days are labelled in the city\'s zone, day and month, or month and year when ticks are a month apart', () => {
    // Perth's midnight of 23 Nov 2026 is 16:00 UTC on the 22nd; Sydney's is 13:00 UTC on the 22nd.
    const perthMidnight = Date.UTC(2026, 10, 22, 16) / 1000;
    assert.deepEqual(dayLabels('Australia/Perth')([perthMidnight, perthMidnight + 86_400]), ['23 Nov', '24 Nov']);
    assert.deepEqual(dayLabels('Australia/Sydney')([perthMidnight]), ['23 Nov']);
    assert.deepEqual(dayLabels('UTC')([perthMidnight]), ['22 Nov'], 'the same instant is still the 22nd in UTC');
    const sydneyJan = Date.UTC(2025, 11, 31, 13) / 1000;
    assert.deepEqual(dayLabels('Australia/Sydney')([sydneyJan, sydneyJan + 31 * 86_400]), ['Jan 2026', 'Feb 2026']);
  });

  test('stations sharing a name are told apart by suburb, or by street where the suburb is shared or already in the name', () => {
    assert.deepEqual(addressParts('721 Beach Avenue, Mill Valley NSW 2016'), { street: '721 Beach Avenue', suburb: 'Mill Valley' });
    assert.deepEqual(addressParts('Kingsford'), { street: '', suburb: 'Kingsford' });
    const names = distinctNames([
      { station_id: 'a', name: 'Ampol Mill Valley', address: '721 Beach Avenue, Mill Valley NSW 2016' },
      { station_id: 'b', name: 'Ampol Mill Valley', address: '233 Darling Parade, Mill Valley NSW 2016' },
      { station_id: 'c', name: 'Shell', address: '1 High St, Kew VIC 3101' },
      { station_id: 'd', name: 'shell', address: '2 Low St, Hawthorn VIC 3122' },
      { station_id: 'e', name: 'bp Langmore', address: '9 Albert Way, Langmore NSW 2082' },
    ]);
    assert.deepEqual([...names], [['a', 'Ampol Mill Valley (721 Beach Avenue)'], ['b', 'Ampol Mill Valley (233 Darling Parade)'],
      ['c', 'Shell (Kew)'], ['d', 'shell (Hawthorn)'], ['e', 'bp Langmore']]);
  });

  test('a price a week old or more is old, dated in the city\'s zone; averages in cents with one decimal; a tick label said once', () => {
    const now = 1_795_395_600; // 2026-11-23 12:00 in Sydney
    assert.deepEqual([7 * 86_400 - 1, 7 * 86_400].map((ago) => isOld(now - ago, now)), [false, true]);
    assert.equal(shortDate(now - 121 * 86_400, now, 'Australia/Sydney'), '25 July', 'as en-AU abbreviates it');
    assert.equal(shortDate(now - 400 * 86_400, now, 'Australia/Sydney'), '19 Oct 2025');
    assert.deepEqual(['1.85', '0.59', '2.00', '0.05'].map(centsOf), ['185.0', '59.0', '200.0', '5.0']);
    assert.deepEqual(onceEach(['$1.82', '$1.82', '$1.83', '$1.83', '$1.82']), ['$1.82', '', '$1.83', '', '$1.82']);
  });
});
