import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { postcodeStates, stateFromPostcode, stationState } from '../../src/domain/postcodes.ts';

test('each state\'s postcode ranges, both ends', () => {
  const cases: Array<[string, string[]]> = [
    ['0200', ['act']], ['0299', ['act']], ['0800', ['nt']], ['0999', ['nt']], ['1000', ['nsw']], ['2000', ['nsw']], ['2599', ['nsw']],
    ['2600', ['act']], ['2618', ['act', 'nsw']], ['2619', ['nsw']], ['2899', ['nsw']], ['2900', ['act']], ['2920', ['act']], ['2921', ['nsw']],
    ['3000', ['vic']], ['3999', ['vic']], ['8000', ['vic']], ['4000', ['qld']], ['4999', ['qld']], ['9999', ['qld']],
    ['5000', ['sa']], ['5999', ['sa']], ['6000', ['wa']], ['6797', ['wa']], ['6800', ['wa']], ['7000', ['tas']], ['7999', ['tas']],
  ];
  for (const [postcode, states] of cases) assert.deepEqual(postcodeStates(postcode), states, postcode);
});

test('shared postcodes name the range\'s state first; nothing for what is not a postcode of ours', () => {
  assert.deepEqual(postcodeStates('2620'), ['nsw', 'act']);
  assert.deepEqual(postcodeStates('4383'), ['qld', 'nsw']);
  assert.deepEqual(postcodeStates('3644'), ['vic', 'nsw']);
  assert.deepEqual(postcodeStates('0872'), ['nt', 'sa', 'wa']);
  for (const bad of ['', '486', '24860', 'QLD', '6798', '6799', '0100', ' 2486x']) assert.deepEqual(postcodeStates(bad), [], bad);
  assert.deepEqual(postcodeStates(' 2486 '), ['nsw']);
});

test('a station\'s state: its postcode\'s, the feed\'s when the postcode is missing or shared with it', () => {
  // Ampol Foodary Banora Point West, in the QLD scheme's file with Site_State NSW, Site_Post_Code 2486.
  assert.equal(stationState('2486', 'qld'), 'nsw');
  assert.equal(stationState('4417', 'qld'), 'qld');
  assert.equal(stationState('', 'qld'), 'qld');
  assert.equal(stationState('4383', 'qld'), 'qld');
  assert.equal(stationState('4383', 'sa'), 'qld');
  assert.equal(stationState('0872', 'sa'), 'sa');
  assert.equal(stationState('2620', 'act'), 'act');
});

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
    for (const text of ['', '200', '20000', '2OOO', '0100', '0000', '6798']) assert.equal(stateFromPostcode(text), undefined, JSON.stringify(text));
  });
});
