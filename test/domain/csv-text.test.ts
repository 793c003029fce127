import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvField, csvText } from '../../src/domain/csv-text.ts';

test('null is an empty field, as false and undefined are (a nullable column\'s row), not a thrown TypeError', () => {
  assert.equal(csvField(null), '');
  assert.equal(csvField(false), '');
  assert.equal(csvField(undefined), '');
});

test('a row with a null field is written with that field empty, the others as they are', () => {
  const rows = [{ id: 'a', features: null, name: 'A, one' }, { id: 'b', features: 'car wash', name: null }];
  assert.equal(csvText(['id', 'features', 'name'], rows), 'id,features,name\r\na,,"A, one"\r\nb,car wash,\r\n');
});
