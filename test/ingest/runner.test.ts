import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FeedError } from '../../src/ingest/feed-error.ts';
import type { FeedAdapter, PullContext, Pulled } from '../../src/ingest/feed.ts';
import { feedStatus, staleAfterSec } from '../../src/ingest/health.ts';
import { runFeed } from '../../src/ingest/runner.ts';
import { FIRST_RETRY_SEC, firstPollDelay, nextPollDelay, watch } from '../../src/ingest/scheduler.ts';
import type { PriceStore, StationInput } from '../../src/storage/store.ts';
import { CITIES, NOW } from '../fixture.ts';
import { MemoryLog } from '../fakes/context.ts';
import { fixedClock, get, startServer, testBackends, waitFor } from '../helpers.ts';

const HOUR = 3_600;

const SYDNEY: StationInput = {
  feed: 'toy', feedCode: 'S1', slug: 'Toy Sydney', name: 'Toy Sydney', brand: 'Ampol', address: '1 George Street, Sydney NSW 2000',
  street: '1 George Street', suburb: 'Sydney', postcode: '2000', state: 'nsw', phone: '', website: '', latitude: -33.87, longitude: 151.21,
};

type Script = (ctx: PullContext) => Pulled[] | Promise<Pulled[]>;

/** A feed whose polls the test scripts: each poll answers with the next script, the last one repeating. */
function toyAdapter(...scripts: Script[]): FeedAdapter & { polls: number; cursors: Array<string | undefined> } {
  const adapter = {
    id: 'toy', name: 'toy feed', states: ['nsw' as const], intervalSec: 600, requires: [], fuels: { U91: 'ulp91', DL: 'diesel', ADB: null } as const,
    polls: 0, cursors: [] as Array<string | undefined>,
    async pull(ctx: PullContext): Promise<Pulled[]> {
      adapter.cursors.push(ctx.cursor);
      const script = scripts[Math.min(adapter.polls++, scripts.length - 1)];
      if (!script) throw new Error('no script');
      return script(ctx);
    },
  };
  return adapter;
}

/** One batch: the Sydney station and these prices (code, fuel code, at, tenths, available). */
function batch(ctx: PullContext, cursor: string | undefined, ...prices: Array<[string, string, number, number, boolean?]>): Pulled {
  const normaliser = ctx.normaliser();
  normaliser.station({ code: SYDNEY.feedCode, name: SYDNEY.name, brand: SYDNEY.brand, address: SYDNEY.address, street: SYDNEY.street,
    suburb: SYDNEY.suburb, postcode: SYDNEY.postcode, state: 'NSW', latitude: SYDNEY.latitude, longitude: SYDNEY.longitude });
  for (const [code, fuelCode, at, priceTenths, available] of prices) normaliser.price({ code, fuelCode, at, priceTenths, available: available ?? true });
  return { normaliser, cursor };
}

const config = { url: 'http://127.0.0.1:1', credentials: {} };

for (const backend of testBackends()) {
  describe(`ingest runner on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    before(async () => {
      ({ store, drop } = await backend.create());
      await store.upsertCities(CITIES);
    });
    after(async () => drop());

    test('a run applies its batch, stores the cursor with it, counts rejections by reason and logs an unknown fuel once', async () => {
      const log = new MemoryLog();
      const adapter = toyAdapter((ctx) => [batch(ctx, 'c1',
        ['S1', 'U91', NOW - 2 * HOUR, 1859],
        ['S1', 'DL', NOW - 2 * HOUR, 1899],
        ['S1', 'ADB', NOW - 2 * HOUR, 1500], // known, deliberately not kept: counted by that reason
        ['S1', 'XYZ', NOW - 2 * HOUR, 1800], // unknown fuel code
        ['S1', 'XYZ', NOW - HOUR, 1800], // the same code again: counted, logged once
        ['S1', 'U91', NOW - HOUR, 18], // 1.8 c/L: a unit slip
        ['S9', 'U91', NOW - HOUR, 1850], // a station neither in the batch nor stored
      )]);
      const run = await runFeed({ store, adapter, config, clock: fixedClock(NOW), log });
      assert.deepEqual(run, {
        feed: 'toy', startedAt: NOW, finishedAt: NOW, stationsAdded: 1, stationsUpdated: 0, pricesAccepted: 2, pricesIgnored: 0, pricesHeld: 0,
        // 7 rows read = 2 stored + 5 rejected by reason.
        pricesRead: 7, pricesReleased: 0, pricesCorrected: 0,
        rejected: 5, intervalSec: 600, error: undefined,
        rejections: [
          { reason: 'fuel deliberately not kept', count: 1, example: `{"code":"S1","fuelCode":"ADB","at":${NOW - 2 * HOUR},"priceTenths":1500,"available":true}` },
          { reason: 'unknown fuel code', count: 2, example: `{"code":"S1","fuelCode":"XYZ","at":${NOW - 2 * HOUR},"priceTenths":1800,"available":true}` },
          { reason: 'price outside 50-500 c/L for ulp91', count: 1, example: `{"code":"S1","fuelCode":"U91","at":${NOW - HOUR},"priceTenths":18,"available":true}` },
          { reason: 'unknown station', count: 1, example: 'toy/S9' },
        ],
      });
      assert.equal(await store.feedCursor('toy'), 'c1');
      assert.equal(log.lines.filter((l) => l.msg === 'unknown fuel code: its prices are skipped').length, 1);
      assert.deepEqual((await store.currentForStation('toy-sydney')).map((c) => [c.fuel, c.priceTenths, c.available, c.reportedAt]),
        [['ulp91', 1859, true, NOW - 2 * HOUR], ['diesel', 1899, true, NOW - 2 * HOUR]]);
      const [recorded] = await store.feedRuns({ feed: 'toy', limit: 1 });
      assert.deepEqual(recorded, run);

      // The same poll again: nothing new, the cursor stays.
      const again = await runFeed({ store, adapter, config, clock: fixedClock(NOW + 60), log });
      assert.equal(again.pricesAccepted, 0);
      assert.equal(again.pricesIgnored, 2);
      assert.equal(again.stationsAdded + again.stationsUpdated, 0);
      assert.deepEqual(adapter.cursors, [undefined, 'c1']);
    });

    test('a failed poll applies nothing, keeps the cursor and is recorded with its error', async () => {
      const version = await store.dataVersion();
      const adapter = toyAdapter(() => { throw new FeedError('malformed', 'toy: body is not JSON'); });
      const run = await runFeed({ store, adapter, config, clock: fixedClock(NOW + 120), log: new MemoryLog() });
      assert.equal(run.error, 'toy: body is not JSON');
      assert.equal(run.pricesAccepted, 0);
      assert.equal(await store.dataVersion(), version);
      assert.equal(await store.feedCursor('toy'), 'c1');
      const health = await store.feedHealth();
      assert.deepEqual(health, [{ feed: 'toy', lastRun: NOW + 120, lastSuccess: NOW + 60, intervalSec: 600 }]);
    });

    test('prices dated ahead of the clock are held, then applied once due', async () => {
      const sixTomorrow = NOW + 5 * HOUR;
      // The third poll publishes tomorrow's price anew: 178.9 instead of 179.9.
      const adapter = toyAdapter(
        (ctx) => [batch(ctx, 'c2', ['S1', 'U91', sixTomorrow, 1799])],
        (ctx) => [batch(ctx, 'c2', ['S1', 'U91', sixTomorrow, 1799])],
        (ctx) => [batch(ctx, 'c2', ['S1', 'U91', sixTomorrow, 1789])],
      );
      const run = await runFeed({ store, adapter, config, clock: fixedClock(NOW + 180), log: new MemoryLog() });
      assert.deepEqual([run.pricesRead, run.pricesHeld, run.pricesAccepted, run.pricesIgnored, run.pricesCorrected], [1, 1, 0, 0, 0]);
      const priceNow = async () => (await store.currentForStation('toy-sydney')).find((c) => c.fuel === 'ulp91')?.priceTenths;
      assert.equal(await priceNow(), 1859);
      // The same poll again holds nothing new: the row is already known.
      const same = await runFeed({ store, adapter, config, clock: fixedClock(NOW + 210), log: new MemoryLog() });
      assert.deepEqual([same.pricesRead, same.pricesHeld, same.pricesIgnored, same.pricesCorrected], [1, 0, 1, 0]);
      // Published anew with another price: corrected, and that is what is applied when due.
      const anew = await runFeed({ store, adapter, config, clock: fixedClock(NOW + 240), log: new MemoryLog() });
      assert.deepEqual([anew.pricesRead, anew.pricesHeld, anew.pricesIgnored, anew.pricesCorrected], [1, 0, 0, 1]);
      // Not yet due: a release releases nothing.
      const early = await store.releaseDue(sixTomorrow - 1);
      assert.equal(early.pricesReleased, 0);
      assert.equal(await priceNow(), 1859);
      const due = await store.releaseDue(sixTomorrow);
      assert.deepEqual([due.pricesReleased, due.pricesAccepted], [1, 1]);
      assert.equal(await priceNow(), 1789);
      const later = await store.releaseDue(sixTomorrow + 60);
      assert.equal(later.pricesReleased, 0);
    });

    test('/ready reports each feed that has run, and a stale one makes it degraded (still 200)', async () => {
      const clock = fixedClock(NOW + 240);
      const server = await startServer(store, clock);
      try {
        let ready = await get(server, '/ready', { token: null });
        assert.equal(ready.status, 200);
        assert.deepEqual(ready.body, {
          status: 'ready', backend: backend.name, feeds: [{ feed: 'toy', status: 'ok', last_success: new Date((NOW + 240) * 1000).toISOString().replace('.000Z', 'Z') }],
        });
        await server.close();
        // An hour and a bit later with no success (the cache is per app: a new app reads afresh).
        const late = fixedClock(NOW + 240 + staleAfterSec(600) + 1);
        const stale = await startServer(store, late);
        try {
          ready = await get(stale, '/ready', { token: null });
          assert.equal(ready.status, 200);
          assert.equal((ready.body as { status: string }).status, 'degraded');
          assert.equal((ready.body as { feeds: Array<{ status: string }> }).feeds[0]?.status, 'stale');
        } finally {
          await stale.close();
        }
      } finally {
        await server.close().catch(() => undefined);
      }
    });

    test('watch polls at once when a feed never ran, and stops cleanly when aborted', async () => {
      const adapter = { ...toyAdapter((ctx) => [batch(ctx, 'w1')]), id: 'fresh' };
      const controller = new AbortController();
      const log = new MemoryLog();
      const done = watch({ store, clock: fixedClock(NOW + 300), log, feeds: [{ adapter, config }] }, controller.signal);
      await waitFor('the first poll to be recorded', async () => (await store.feedRuns({ feed: 'fresh', limit: 5 })).length === 1);
      controller.abort();
      await done;
      assert.equal(await store.feedCursor('fresh'), 'w1');
    });
  });
}

describe('poll timing (pure)', () => {
  test('after a success the next poll waits the interval; failures back off from a minute, jittered, never past the interval', () => {
    assert.equal(nextPollDelay(1800, 0, () => 0.5), 1800);
    assert.equal(nextPollDelay(1800, 1, () => 1), FIRST_RETRY_SEC);
    assert.equal(nextPollDelay(1800, 1, () => 0), FIRST_RETRY_SEC / 2);
    assert.equal(nextPollDelay(1800, 3, () => 1), 240);
    assert.equal(nextPollDelay(1800, 10, () => 1), 1800);
    assert.equal(nextPollDelay(1800, 10, () => 0), 900);
    assert.equal(nextPollDelay(1800, 5000, () => 1), 1800);
  });

  test('a restart waits out what is left of the interval since the last run', () => {
    assert.equal(firstPollDelay(1800, undefined, 10_000), 0);
    assert.equal(firstPollDelay(1800, 10_000 - 600, 10_000), 1200);
    assert.equal(firstPollDelay(1800, 10_000 - 5000, 10_000), 0);
    assert.equal(firstPollDelay(1800, 10_000 + 600, 10_000), 1800); // a clock behind the log: never more than one interval
  });

  test('stale after three intervals, and never before an hour', () => {
    assert.equal(staleAfterSec(60), 3600);
    assert.equal(staleAfterSec(1800), 5400);
    assert.equal(feedStatus({ feed: 'x', lastRun: 0, lastSuccess: undefined, intervalSec: 60 }, 10), 'stale');
    assert.equal(feedStatus({ feed: 'x', lastRun: 0, lastSuccess: 0, intervalSec: 60 }, 3600), 'ok');
    assert.equal(feedStatus({ feed: 'x', lastRun: 0, lastSuccess: 0, intervalSec: 60 }, 3601), 'stale');
  });
});
