import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ATTRIBUTION, attributionNote } from '../../src/ingest/attribution.ts';
import { FEED_IDS } from '../../src/ingest/feeds/index.ts';

test('every live feed has an attribution line; the docs note lists those of the feeds that ran, in order, and nothing for the demo', () => {
  assert.deepEqual(Object.keys(ATTRIBUTION).sort(), [...FEED_IDS].sort());
  assert.equal(attributionNote([]), '');
  assert.equal(attributionNote(['demo']), '');
  assert.equal(attributionNote(['vic', 'demo', 'wa']),
    '**Data sources.** VIC prices: © State of Victoria accessed via the Victorian Government Service Victoria Platform (CC BY 4.0). '
    + 'WA prices: FuelWatch, Government of Western Australia.');
});
