import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assignCity, distanceKm, slugify, uniqueSlug } from '../../src/storage/places.ts';
import { hashToken, newToken, parseDuration } from '../../src/tokens.ts';

describe('station names and places', () => {
  test('slugs are lowercase ASCII words joined by hyphens', () => {
    assert.equal(slugify('Ampol Foodary Kingsford'), 'ampol-foodary-kingsford');
    assert.equal(slugify('  7-Eleven  Carlton (North) '), '7-eleven-carlton-north');
    assert.equal(slugify('Café Bondi & Co'), 'cafe-bondi-and-co');
    assert.equal(slugify('***'), 'station');
  });

  test('a clash adds -2, then -3', () => {
    const taken = new Set(['bp-dubbo', 'bp-dubbo-2']);
    assert.equal(uniqueSlug('BP Dubbo', (s) => taken.has(s)), 'bp-dubbo-3');
    assert.equal(uniqueSlug('BP Orange', (s) => taken.has(s)), 'bp-orange');
  });

  test('Sydney to Melbourne is about 713 km on a 6,371 km sphere', () => {
    assert.equal(Math.round(distanceKm(-33.8679, 151.2073, -37.814, 144.9633)), 713);
  });

  test('the nearest city within 25 km wins; beyond 25 km, none', () => {
    const cities = [{ id: 'a', latitude: -33.0, longitude: 151.0 }, { id: 'b', latitude: -33.1, longitude: 151.0 }];
    assert.equal(assignCity(cities, -33.02, 151.0), 'a');
    assert.equal(assignCity(cities, -33.09, 151.0), 'b');
    assert.equal(assignCity(cities, -34.0, 151.0), null); // about 100 km from both
  });
});

describe('tokens', () => {
  test('a new token has the public id in it and only its hash is kept', () => {
    const { token, record } = newToken('app', 1000, { expiresInSec: 60, rateLimit: 5 });
    assert.match(token, /^fp_[a-z2-7]{8}_[A-Za-z0-9_-]{43}$/);
    assert.equal(token.slice(3, 11), record.id);
    assert.deepEqual(record.hash, hashToken(token));
    assert.equal(record.expiresAt, 1060);
    assert.equal(record.rateLimit, 5);
    assert.ok(!JSON.stringify(record).includes(token.slice(12)));
  });

  test('durations', () => {
    assert.equal(parseDuration('90d'), 7_776_000);
    assert.equal(parseDuration('12h'), 43_200);
    assert.equal(parseDuration('30m'), 1800);
    assert.equal(parseDuration('3600'), 3600);
    assert.equal(parseDuration('2w'), 1_209_600);
    for (const bad of ['0d', '-1d', '1.5d', 'soon', '', '10y']) assert.equal(parseDuration(bad), undefined, bad);
  });
});
