/**
 * Whether a feed's last run failed, as the runner tells the adapter: against the FuelCheck fake
 * and a real store, a failure in the same second as a success.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ensureCities } from '../../src/ingest/cities.ts';
import { FeedHttp } from '../../src/ingest/feed-fetch.ts';
import { forgetNswSessions, nswAdapter } from '../../src/ingest/feeds/nsw.ts';
import { lastRunFailed } from '../../src/ingest/health.ts';
import { runFeed } from '../../src/ingest/runner.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { MemoryLog } from '../fakes/context.ts';
import { type NswFake, NSW_ROUND_1_NOW, NSW_TEST_KEY, NSW_TEST_SECRET, startNswFake } from '../fakes/nsw.ts';
import { fixedClock, testBackends } from '../helpers.ts';

const R1 = NSW_ROUND_1_NOW;

for (const backend of testBackends()) {
  describe(`last run failed on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let fake: NswFake;
    before(async () => {
      ({ store, drop } = await backend.create());
      await ensureCities(store);
      fake = await startNswFake();
      forgetNswSessions();
    });
    after(async () => {
      await fake.close();
      await drop();
    });

    test('a failure in the same second as a success still counts as failed: the next FuelCheck poll is a snapshot, not /new', async () => {
      const config = { url: fake.url, credentials: { NSW_FUELCHECK_API_KEY: NSW_TEST_KEY, NSW_FUELCHECK_API_SECRET: NSW_TEST_SECRET } };
      const run = (now: number) => runFeed({
        store, adapter: nswAdapter, config, clock: fixedClock(now), log: new MemoryLog(),
        http: new FeedHttp({ sleep: async () => {}, random: () => 0.5, timeoutMs: 2_000 }),
      });
      assert.equal((await run(R1)).error, undefined);
      assert.equal(await lastRunFailed(store, 'nsw'), false);
      const fault = { pathIncludes: '/fuel/prices', status: 500 };
      fake.server.failNext(fault, fault, fault, fault);
      assert.match((await run(R1)).error ?? '', /HTTP 500/);
      // By the second, the last run and the last success are the same instant.
      assert.deepEqual(await store.feedHealth(), [{ feed: 'nsw', lastRun: R1, lastSuccess: R1, intervalSec: 1_800 }]);
      assert.equal(await lastRunFailed(store, 'nsw'), true);

      fake.server.requests.length = 0;
      assert.equal((await run(R1 + 60)).error, undefined);
      assert.deepEqual(fake.server.requests.map((r) => r.path), ['/FuelPriceCheck/v2/fuel/prices']);
      assert.equal(await lastRunFailed(store, 'nsw'), false);
    });

    test('a feed that never ran has not failed', async () => {
      assert.equal(await lastRunFailed(store, 'qld'), false);
    });
  });
}
