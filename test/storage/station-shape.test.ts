import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  FIELD_KINDS, STATION_COLUMN_TYPES, STATION_FIELD_COLUMNS, STATION_SELECT, STATION_TEXT_KEYS, type StationFields, fieldValues, sameFields, storedFields, toStation,
} from '../../src/storage/station-shape.ts';
import { INGEST_STATEMENTS } from '../../src/storage/sql/ingest-statements.ts';
import { COPY_TABLES, columnType } from '../../src/storage/sql/copy-tables.ts';

/** The station's statements and columns as they were written out by hand before station-shape.ts built them (whitespace aside). */
const WRITTEN = {
  select: 'id, name, brand, address, street, suburb, postcode, state, phone, website, latitude, longitude',
  update: `UPDATE stations SET name = $1, brand = $2, address = $3, street = $4, suburb = $5, postcode = $6, state = $7,
    phone = $8, website = $9, latitude = $10, longitude = $11, city_id = $12, named_at = $13 WHERE key = $14`,
  insert: `INSERT INTO stations (name, brand, address, street, suburb, postcode, state, phone, website,
    latitude, longitude, city_id, named_at, id, feed, feed_code) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING key`,
  copy: ['key', 'id', 'feed', 'feed_code', 'name', 'brand', 'address', 'street', 'suburb', 'postcode', 'state',
    'phone', 'website', 'latitude', 'longitude', 'city_id', 'named_at'],
  copyTypes: {
    key: 'integer', id: 'text', feed: 'text', feed_code: 'text', name: 'text', brand: 'text', address: 'text', street: 'text', suburb: 'text',
    postcode: 'text', state: 'text', phone: 'text', website: 'text', latitude: 'double precision', longitude: 'double precision',
    city_id: 'text', named_at: 'bigint',
  },
};

const oneLine = (sql: string): string => sql.replace(/\s+/g, ' ').replace(/\( /g, '(').trim();

const ROW = {
  id: 'ampol-kingsford', name: 'Ampol Kingsford', brand: 'Ampol', address: '123 Anzac Parade, Kingsford NSW 2032', street: '123 Anzac Parade',
  suburb: 'Kingsford', postcode: '2032', state: 'nsw', phone: '02 9000 0000', website: '', latitude: -33.924, longitude: 151.22715,
};

describe('the station shape', () => {
  test('builds the statements and columns that were written out by hand', () => {
    assert.equal(STATION_SELECT, WRITTEN.select);
    assert.equal(oneLine(INGEST_STATEMENTS.updateStation), oneLine(WRITTEN.update));
    assert.equal(oneLine(INGEST_STATEMENTS.insertStation), oneLine(WRITTEN.insert));
    assert.deepEqual(COPY_TABLES.stations.columns, WRITTEN.copy);
    assert.deepEqual(Object.fromEntries(WRITTEN.copy.map((c) => [c, columnType('stations', c)])), WRITTEN.copyTypes);
    assert.deepEqual(STATION_FIELD_COLUMNS, WRITTEN.copy.slice(4, -2));
    assert.deepEqual(STATION_COLUMN_TYPES, Object.fromEntries(WRITTEN.copy.slice(4, -2).map((c) => [c, WRITTEN.copyTypes[c as keyof typeof WRITTEN.copyTypes]])));
  });

  test('a row as the store gives it and as the writer compares it', () => {
    assert.deepEqual(toStation(ROW), {
      id: 'ampol-kingsford', name: 'Ampol Kingsford', brand: 'Ampol', address: '123 Anzac Parade, Kingsford NSW 2032', street: '123 Anzac Parade',
      suburb: 'Kingsford', postcode: '2032', state: 'nsw', phone: '02 9000 0000', website: '', latitude: '-33.9240', longitude: '151.2272',
    });
    assert.deepEqual(toStation({ ...ROW, latitude: null, longitude: null }).latitude, false);
    assert.deepEqual(toStation({ ...ROW, latitude: null, longitude: null }).longitude, false);
    const stored: StationFields = {
      name: 'Ampol Kingsford', brand: 'Ampol', address: '123 Anzac Parade, Kingsford NSW 2032', street: '123 Anzac Parade',
      suburb: 'Kingsford', postcode: '2032', state: 'nsw', phone: '02 9000 0000', website: '', latitude: -33.924, longitude: 151.22715,
    };
    assert.deepEqual(storedFields(ROW), stored);
    assert.deepEqual(storedFields({ ...ROW, latitude: null, longitude: null }), { ...stored, latitude: null, longitude: null });
    assert.deepEqual(fieldValues(stored),
      ['Ampol Kingsford', 'Ampol', '123 Anzac Parade, Kingsford NSW 2032', '123 Anzac Parade', 'Kingsford', '2032', 'nsw', '02 9000 0000', '', -33.924, 151.22715]);
  });

  test('a report is the same as stored only when every field is', () => {
    const stored = storedFields(ROW);
    assert.equal(sameFields(stored, { ...stored }), true);
    const changed: Array<[keyof StationFields, StationFields[keyof StationFields]]> = [
      ['name', 'Ampol Kingsford North'], ['brand', 'EG Ampol'], ['address', ''], ['street', '125 Anzac Parade'], ['suburb', 'Kensington'],
      ['postcode', '2033'], ['state', 'act'], ['phone', ''], ['website', 'https://www.ampol.com.au'], ['latitude', -33.9241], ['longitude', null],
    ];
    assert.deepEqual(changed.map(([key]) => key).sort(), Object.keys(stored).sort(), 'every field is tried');
    for (const [key, value] of changed) assert.equal(sameFields(stored, { ...stored, [key]: value }), false, key);
  });

  test('the kinds: text, nullable text, state, coordinate', () => {
    assert.deepEqual([FIELD_KINDS.text.stored(2032), FIELD_KINDS.text.shown('x'), FIELD_KINDS.text.absent], ['2032', 'x', '']);
    const { optionalText } = FIELD_KINDS;
    assert.deepEqual([optionalText.stored(null), optionalText.stored(undefined), optionalText.stored('ATM'), optionalText.shown(null), optionalText.shown('ATM'), optionalText.absent],
      [null, null, 'ATM', false, 'ATM', null]);
    assert.deepEqual([FIELD_KINDS.coordinate.stored(null), FIELD_KINDS.coordinate.shown(null), FIELD_KINDS.coordinate.shown(-35.5)], [null, false, '-35.5000']);
    assert.deepEqual([FIELD_KINDS.text.type, optionalText.type, FIELD_KINDS.state.type, FIELD_KINDS.coordinate.type], ['text', 'text', 'text', 'double precision']);
  });

  test('the fields a feed gives as free text: all but the state and the coordinates', () => {
    assert.deepEqual(STATION_TEXT_KEYS, ['name', 'brand', 'address', 'street', 'suburb', 'postcode', 'phone', 'website'].map((key) => ({ key, absent: '' })));
  });
});
