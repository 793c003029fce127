import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brandNames, brandsFrom } from '../../src/storage/brands.ts';
import { brandId, slugify } from '../../src/domain/places.ts';

describe('brands', () => {
  test('a brand id is the slug of its name; a name with nothing to slug is no brand', () => {
    assert.equal(brandId('7-Eleven'), '7-eleven');
    assert.equal(brandId('Reddy Express'), 'reddy-express');
    assert.equal(brandId('Café & Co'), 'cafe-and-co');
    assert.equal(brandId(''), undefined);
    assert.equal(brandId(' -- '), undefined);
    assert.equal(slugify(''), 'station');
  });

  test('names that slug alike are one brand, named as most of its stations are; brandless stations are left out', () => {
    const counts = [
      { brand: 'BP', count: 2 }, { brand: 'bp', count: 3 }, { brand: '', count: 4 }, { brand: 'Ampol', count: 1 },
      { brand: 'Shell', count: 1 }, { brand: 'SHELL', count: 1 }, { brand: '7-Eleven', count: 5 },
    ];
    assert.deepEqual(brandsFrom(counts), [
      { id: '7-eleven', name: '7-Eleven', stationCount: 5 },
      { id: 'ampol', name: 'Ampol', stationCount: 1 },
      { id: 'bp', name: 'bp', stationCount: 5 },
      { id: 'shell', name: 'SHELL', stationCount: 2 },
    ]);
    assert.deepEqual(brandNames(counts, 'bp'), ['BP', 'bp']);
    assert.deepEqual(brandNames(counts, 'caltex'), []);
    assert.deepEqual(brandsFrom([]), []);
  });
});
