import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADAPTERS, FEED_IDS, feedConfigs, feedVariables, isFeedId } from '../../../src/ingest/feeds/index.ts';

test('every live feed is registered under its own id, and the ids are the table\'s', () => {
  assert.deepEqual(FEED_IDS, ['nsw', 'qld', 'sa', 'wa', 'vic', 'nt']);
  for (const id of FEED_IDS) assert.equal(ADAPTERS[id].id, id);
  assert.equal(isFeedId('wa'), true);
  assert.equal(isFeedId('demo'), false);
  assert.equal(isFeedId('toString'), false);
});

test('each feed declares every credential it requires, with what it is', () => {
  for (const id of FEED_IDS) {
    const declared = Object.keys(ADAPTERS[id].env.credentials ?? {});
    assert.deepEqual(ADAPTERS[id].requires.filter((name) => !declared.includes(name)), [], id);
  }
});

test('a feed\'s configuration is what its declared variables say: the address (default without it), trimmed credentials, the interface', () => {
  const env = {
    NT_MYFUEL_URL: 'http://127.0.0.1:9/nt/', NSW_FUELCHECK_API_KEY: ' key ', NSW_FUELCHECK_API_SECRET: '',
    WA_FUELWATCH_SOURCE: 'RSS', QLD_FPD_TOKEN: 'token-q', OTHER: 'x',
  };
  const feeds = feedConfigs(env);
  assert.deepEqual(feeds.nt, { url: 'http://127.0.0.1:9/nt', credentials: {} });
  assert.deepEqual(feeds.nsw, { url: 'https://api.onegov.nsw.gov.au', credentials: { NSW_FUELCHECK_API_KEY: 'key', NSW_FUELCHECK_API_SECRET: undefined } });
  assert.deepEqual(feeds.wa, { url: 'https://www.fuelwatch.wa.gov.au', credentials: {}, source: 'rss' });
  assert.deepEqual(feeds.qld, { url: 'https://fppdirectapi-prod.fuelpricesqld.com.au', credentials: { QLD_FPD_TOKEN: 'token-q' } });
  assert.throws(() => feedConfigs({ WA_FUELWATCH_SOURCE: 'ftp' }), { message: "WA_FUELWATCH_SOURCE: must be one of auto, api, rss, got 'ftp'" });
  assert.throws(() => feedConfigs({ VIC_FAIRFUEL_URL: 'not a url' }), { message: "VIC_FAIRFUEL_URL: must be an http(s) URL, got 'not a url'" });
});

test('the variables --help lists, feed by feed: the address with its default, the credentials, the interface', () => {
  assert.deepEqual(feedVariables().map(([name]) => name), [
    'NSW_FUELCHECK_URL', 'NSW_FUELCHECK_API_KEY', 'NSW_FUELCHECK_API_SECRET', 'QLD_FPD_URL', 'QLD_FPD_TOKEN', 'SA_FPD_URL', 'SA_FPD_TOKEN',
    'WA_FUELWATCH_URL', 'WA_FUELWATCH_SOURCE', 'VIC_FAIRFUEL_URL', 'VIC_FAIRFUEL_CONSUMER_ID', 'NT_MYFUEL_URL',
  ]);
  const lines = new Map(feedVariables());
  assert.deepEqual(lines.get('NT_MYFUEL_URL'), { shown: 'https://myfuelnt.nt.gov.au', about: 'nt feed address (no credentials)' });
  assert.deepEqual(lines.get('NSW_FUELCHECK_URL'), { shown: 'https://api.onegov.nsw.gov.au', about: 'nsw feed address' });
  assert.deepEqual(lines.get('QLD_FPD_TOKEN'), { about: 'qld: Fuel Price Reporting subscriber token' });
  assert.deepEqual(lines.get('WA_FUELWATCH_SOURCE'), { shown: 'auto', about: 'wa: api (the JSON site API), rss, or auto (the site API, the RSS when it fails)' });
});
