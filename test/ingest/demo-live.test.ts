import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { writeDemo } from '../../src/ingest/demo.ts';
import { DEMO_LIVE_INTERVAL_SEC, demoLiveAdapter } from '../../src/ingest/demo/live.ts';
import { applyNormalised, runFeed } from '../../src/ingest/runner.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { MemoryLog, testPullContext } from '../fakes/context.ts';
import { fixedClock, get, startServer, testBackends } from '../helpers.ts';

// 2026-11-23 10:00 Sydney: a Monday morning, so Victorian stations may rise.
const NOW = 1_795_388_400;

describe('the demo live feed', () => {
  const [sqlite] = testBackends();
  let store: PriceStore;
  let drop: () => Promise<void>;
  before(async () => {
    if (!sqlite) throw new Error('no sqlite backend');
    ({ store, drop } = await sqlite.create());
    await writeDemo(store, { seed: 1, years: 0, scale: 'small', nowSec: NOW });
  });
  after(async () => drop());

  test('each poll moves a few stations through the ingest path, and the store then holds exactly the reported prices', async () => {
    const adapter = demoLiveAdapter(store, 1);
    const now = NOW + DEMO_LIVE_INTERVAL_SEC;
    const [pulled] = await adapter.pull(testPullContext(adapter, { url: 'http://unused', now }));
    assert.ok(pulled);
    const { prices } = pulled.normaliser.batch();
    assert.ok(prices.length >= 10, `only ${prices.length} price changes in a poll`);
    assert.deepEqual(pulled.normaliser.rejected(), []);
    assert.ok(prices.every((p) => p.feed === 'demo' && p.at === now));
    // Deterministic: the same poll time on the same data gives the same reports.
    const [again] = await demoLiveAdapter(store, 1).pull(testPullContext(adapter, { url: 'http://unused', now }));
    assert.deepEqual(again?.normaliser.batch(), pulled.normaliser.batch());

    const outcome = await applyNormalised(store, pulled.normaliser, { now, cursor: { key: 'demo', value: pulled.cursor ?? '' } });
    assert.equal(outcome.pricesAccepted, prices.length);
    const ids = new Map((await store.feedStations('demo')).map((s) => [s.feedCode, s.id]));
    for (const p of prices) {
      const current = (await store.currentForStation(ids.get(p.feedCode) ?? '')).find((c) => c.fuel === p.fuel);
      assert.deepEqual([current?.priceTenths, current?.available, current?.reportedAt], [p.priceTenths, p.available, now]);
    }
  });

  test('through runFeed, a poll a minute later changes what the API answers for today', async () => {
    const clock = fixedClock(NOW + 2 * DEMO_LIVE_INTERVAL_SEC);
    const server = await startServer(store, clock);
    try {
      const paths = ['sydney', 'melbourne', 'brisbane', 'adelaide', 'perth', 'canberra', 'hobart', 'darwin'].map((c) => `/v1/cities/${c}/spread`);
      const before = await Promise.all(paths.map(async (p) => (await get(server, p)).text));
      const run = await runFeed({ store, adapter: demoLiveAdapter(store, 1), config: { url: '', credentials: {} }, clock, log: new MemoryLog() });
      assert.equal(run.error, undefined);
      assert.ok(run.pricesAccepted > 0);
      const afterwards = await Promise.all(paths.map(async (p) => (await get(server, p)).text));
      assert.notDeepEqual(afterwards, before);
    } finally {
      await server.close();
    }
  });
});
