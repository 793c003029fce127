import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { stateFromPostcode } from '../../src/domain/postcodes.ts';

describe('stateFromPostcode (Australia Post ranges)', () => {
  test('each state and territory, ACT inside NSW\'s range at its edges', () => {
    const cases: Array<[string, string | undefined]> = [
      ['2000', 'nsw'], ['1000', 'nsw'], ['2599', 'nsw'], ['2600', 'act'], ['2618', 'act'], ['2619', 'nsw'], ['2899', 'nsw'],
      ['2900', 'act'], ['2920', 'act'], ['2921', 'nsw'], ['2999', 'nsw'], ['0200', 'act'], ['0299', 'act'], ['0800', 'nt'], ['0999', 'nt'],
      ['3000', 'vic'], ['8001', 'vic'], ['4000', 'qld'], ['9726', 'qld'], ['5000', 'sa'], ['6000', 'wa'], ['6999', 'wa'], ['7000', 'tas'],
      ['2486', 'nsw'], // Banora Point, a QLD-file site in NSW
    ];
    for (const [postcode, state] of cases) assert.equal(stateFromPostcode(postcode), state, postcode);
  });

  test('anything but four digits, or a number no state has, is undefined (never guessed)', () => {
    for (const text of ['', '200', '20000', '2OOO', ' 2000', '0100', '0000']) assert.equal(stateFromPostcode(text), undefined, JSON.stringify(text));
  });
});
