/**
 * `fuelprice ingest all` with no network: every live feed's run fails with one line saying what
 * was called and why it failed, never a stack or a chain of causes. The feeds are pointed at a
 * loopback port nothing listens on, with a real store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FeedHttp } from '../../src/ingest/feed-fetch.ts';
import { ADAPTERS, FEED_IDS } from '../../src/ingest/feeds/index.ts';
import { forgetNswSessions } from '../../src/ingest/feeds/nsw.ts';
import { runFeed } from '../../src/ingest/runner.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { MemoryLog } from '../fakes/context.ts';
import { fixedClock, freePort, testBackends } from '../helpers.ts';

const NOW = 1_778_569_200;
/** What each feed asks for first. */
const FIRST_PATH = {
  nsw: '/oauth/client_credential/accesstoken', qld: '/Subscriber/GetCountryBrands', sa: '/Subscriber/GetCountryBrands',
  wa: '/fuelwatch/fuelWatchRSS', vic: '/open-data/v1/fuel/reference-data/brands', nt: '/Home/Results',
} as const;
const CREDENTIALS = {
  NSW_FUELCHECK_API_KEY: 'Qm7xK2pL9vR4tY8w', NSW_FUELCHECK_API_SECRET: 'uE4rT7yI2oP5', QLD_FPD_TOKEN: 'FFFFFFFF-0000-4000-8000-000000000000',
  SA_FPD_TOKEN: 'FFFFFFFF-0000-4000-8000-000000000001', VIC_FAIRFUEL_CONSUMER_ID: 'c0ffee-1234-5678',
};

const [sqlite] = testBackends();

describe('every feed offline', () => {
  let store: PriceStore;
  let drop: () => Promise<void>;
  let port = 0;
  before(async () => {
    if (!sqlite) throw new Error('no sqlite backend');
    ({ store, drop } = await sqlite.create());
    port = await freePort();
    forgetNswSessions();
  });
  after(async () => drop());

  test('each run fails with one line: where, the network error\'s code and what it means; each retry said in one line too', async () => {
    for (const id of FEED_IDS) {
      const log = new MemoryLog();
      const http = new FeedHttp({
        sleep: async () => {}, random: () => 0.5, timeoutMs: 2_000,
        onRetry: ({ attempt, reason }) => log.warn({ feed: id, attempt, reason }, 'feed request failed: retrying'),
      });
      const run = await runFeed({
        store, adapter: ADAPTERS[id], config: { url: `http://127.0.0.1:${port}`, credentials: CREDENTIALS }, clock: fixedClock(NOW), log, http,
      });
      const error = `127.0.0.1:${port}${FIRST_PATH[id]}: ECONNREFUSED (connection refused: nothing listens there)`;
      const lines = log.lines.map((l) => [l.level, l.msg, (l.obj as { reason?: string; error?: string }).reason ?? (l.obj as { error?: string }).error]);
      const retried = (why: string) => [['warn', 'feed request failed: retrying', why], ['warn', 'feed request failed: retrying', why], ['warn', 'feed request failed: retrying', why]];
      if (id === 'wa') {
        // WA_FUELWATCH_SOURCE unset is auto: FuelWatch's site API first, retried, then the RSS for this poll; the one
        // error line names both.
        const api = `127.0.0.1:${port}/api/sites: ECONNREFUSED (connection refused: nothing listens there)`;
        const both = `${error} (the site API failed first: ${api})`;
        assert.equal(run.error, both, id);
        assert.deepEqual(lines, [...retried(api), ['warn', 'FuelWatch site API failed: this poll reads the RSS', api], ...retried(error), ['error', 'feed run failed', both]], id);
        continue;
      }
      assert.equal(run.error, error, id);
      assert.deepEqual(lines, [...retried(error), ['error', 'feed run failed', error]], id);
    }
    const [recorded] = await store.feedRuns({ feed: 'nt', limit: 1 });
    assert.equal(recorded?.error, `127.0.0.1:${port}/Home/Results: ECONNREFUSED (connection refused: nothing listens there)`);
  });
});
