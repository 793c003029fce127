import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assignCity, distanceKm, slugify, uniqueSlug } from '../../src/domain/places.ts';

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
