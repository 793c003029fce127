/**
 * The scheduler's start (`ingest --watch`, and the demo feed of `serve --demo`) against the WA
 * FuelWatch fake and a real store: what is due at start is applied at start.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ensureCities } from '../../src/ingest/cities.ts';
import { FeedHttp } from '../../src/ingest/feed-fetch.ts';
import { waAdapter } from '../../src/ingest/feeds/wa.ts';
import { runFeed } from '../../src/ingest/runner.ts';
import { watch } from '../../src/ingest/scheduler.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { MemoryLog } from '../fakes/context.ts';
import { type WaFake, WA_ROUND_1_NOW, startWaFake } from '../fakes/wa.ts';
import { fixedClock, testBackends } from '../helpers.ts';

// WA is UTC+8. WA_ROUND_1_NOW = 2026-05-12 15:00 WA; the fake's "tomorrow" lists are for the 13th, in force from 06:00.
const BEFORE_SIX_13 = WA_ROUND_1_NOW + 53_940; // 2026-05-13 05:59 WA
const SIX_01_13 = WA_ROUND_1_NOW + 54_060; //     2026-05-13 06:01 WA

/** A log that stops the watch once every feed is scheduled: by then its start is behind it. */
class StopWhenScheduled extends MemoryLog {
  constructor(private readonly stop: AbortController) { super(); }
  override info(obj: object, msg?: string): void {
    super.info(obj, msg);
    if (msg === 'feed scheduled') this.stop.abort();
  }
}

for (const backend of testBackends()) {
  describe(`scheduler start on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let fake: WaFake;
    before(async () => {
      ({ store, drop } = await backend.create());
      await ensureCities(store);
      fake = await startWaFake();
    });
    after(async () => {
      await fake.close();
      await drop();
    });

    test('held prices already due when the watch starts are applied at start, not at the first minute\'s housekeeping', async () => {
      const config = { url: fake.url, credentials: {}, source: 'rss' as const };
      const http = new FeedHttp({ sleep: async () => {}, random: () => 0.5, timeoutMs: 2_000 });
      const polled = await runFeed({ store, adapter: waAdapter, config, clock: fixedClock(BEFORE_SIX_13), log: new MemoryLog(), http });
      // The 12th's 6 prices applied; the 13th's 6 held until 06:00 on the 13th.
      assert.deepEqual([polled.error, polled.pricesAccepted, polled.pricesHeld], [undefined, 6, 6]);
      const ulp91 = async () => (await store.currentForStation('ampol-victoria-park')).find((c) => c.fuel === 'ulp91')?.priceTenths;
      assert.equal(await ulp91(), 1899);

      // Two minutes later the feed polled 2 minutes ago: its next poll is 58 minutes away, so only the start can release.
      const stop = new AbortController();
      const log = new StopWhenScheduled(stop);
      await watch({ store, clock: fixedClock(SIX_01_13), log, feeds: [{ adapter: waAdapter, config }] }, stop.signal);
      assert.deepEqual(log.lines.map((l) => [l.msg, l.obj]), [
        ['held prices now due applied', { released: 6 }],
        ['feed scheduled', { feed: 'wa', firstPollInSec: 3_480, everySec: 3_600 }],
      ]);
      assert.equal(await ulp91(), 1999);
      assert.equal(fake.server.requests.length, 14); // the one poll before: 7 products, today and tomorrow
    });

    test('a watch aborted before it starts releases nothing', async () => {
      const stop = new AbortController();
      stop.abort();
      const log = new MemoryLog();
      await watch({ store, clock: fixedClock(SIX_01_13 + 86_400), log, feeds: [] }, stop.signal);
      assert.deepEqual(log.lines, []);
    });
  });
}
