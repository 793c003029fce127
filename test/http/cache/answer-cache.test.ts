import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CLOCK_BUCKET_SEC, AnswerStore, TEXT_MAX_BYTES, UNCLOCKED, clockSlice } from '../../../src/http/cache/answer-store.ts';
import { SingleFlight } from '../../../src/http/cache/single-flight.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends } from '../../helpers.ts';

describe('AnswerStore (pure)', () => {
  test('an entry serves its own data version and clock slice only', () => {
    const cache = new AnswerStore();
    cache.set('/a', 3, 0, { body: 'x', etag: '"e"' });
    assert.deepEqual(cache.get('/a', 3, 0), { body: Buffer.from('x'), etag: '"e"', length: '1', version: 3, bucket: 0, text: 'x', textable: true });
    assert.equal(cache.get('/a', 4, 0), undefined);
    assert.equal(cache.get('/a', 3, CLOCK_BUCKET_SEC), undefined);
    assert.equal(cache.get('/b', 3, 0), undefined);
    assert.deepEqual([cache.hits, cache.misses], [1, 3]);
  });

  test('bounded by entries and bytes, least recently used first out', () => {
    const cache = new AnswerStore({ maxEntries: 2, maxBytes: 100 });
    cache.set('/a', 1, 0, { body: 'a', etag: '1' });
    cache.set('/b', 1, 0, { body: 'b', etag: '2' });
    cache.get('/a', 1, 0);
    cache.set('/c', 1, 0, { body: 'c', etag: '3' });
    assert.equal(cache.get('/b', 1, 0), undefined);
    assert.ok(cache.get('/a', 1, 0));
    assert.ok(cache.get('/c', 1, 0));
    cache.set('/big', 1, 0, { body: 'x'.repeat(26), etag: '4' }); // over a quarter of the bytes: not kept
    assert.equal(cache.get('/big', 1, 0), undefined);
    cache.set('/d', 1, 0, { body: 'd'.repeat(24), etag: '5' });
    cache.set('/e', 1, 0, { body: 'e'.repeat(24), etag: '6' });
    assert.equal(cache.size, 2);
  });

  test('a body of at most TEXT_MAX_BYTES is kept as latin1 text too (the very bytes), and counted twice; a longer one is not', () => {
    const cache = new AnswerStore({ maxEntries: 10, maxBytes: 4 * (TEXT_MAX_BYTES + 1) });
    const ascii = `{"a":"${'x'.repeat(TEXT_MAX_BYTES - 8)}"}`;
    cache.set('/ascii', 1, 0, { body: ascii, etag: '1' });
    cache.set('/bytes', 1, 0, { body: Buffer.from('{"b":1}'), etag: '2' });
    cache.set('/accented', 1, 0, { body: '{"name":"Café"}', etag: '3' });
    cache.set('/long', 1, 0, { body: `${ascii} `, etag: '4' });
    assert.equal(ascii.length, TEXT_MAX_BYTES);
    assert.equal(cache.get('/ascii', 1, 0)?.text, ascii);
    assert.equal(cache.get('/bytes', 1, 0)?.text, '{"b":1}');
    // é is two bytes of UTF-8, so two characters of latin1 text, which Node writes back as those two bytes.
    const accented = cache.get('/accented', 1, 0);
    assert.equal(accented?.text, '{"name":"Caf\u00c3\u00a9"}');
    assert.deepEqual(Buffer.from(accented?.text ?? '', 'latin1'), Buffer.from('{"name":"Café"}'));
    assert.equal(cache.get('/long', 1, 0)?.text, undefined);
    // Held: 2 × 16384 + 2 × 7 + 2 × 16 + 16385 = 49,199 of 65,540 bytes; one more body of 16 KiB kept as text (32,768) is over, so the oldest goes.
    cache.set('/more', 1, 0, { body: ascii.replace('a', 'm'), etag: '5' });
    assert.equal(cache.get('/ascii', 1, 0), undefined);
    assert.deepEqual(['/bytes', '/accented', '/long', '/more'].map((key) => cache.get(key, 1, 0)?.etag), ['2', '3', '4', '5']);
    // Without the fast path (a shared limiter) nothing sends the text: not kept, the body counted once.
    // Four bodies of 16 KiB fit its 65,540 bytes (with their text they would take 131,072).
    const shared = new AnswerStore({ maxEntries: 10, maxBytes: 4 * (TEXT_MAX_BYTES + 1) }, false);
    const keys = ['/1', '/2', '/3', '/4'];
    for (const key of keys) shared.set(key, 1, 0, { body: ascii.replace('a', key[1] as string), etag: key });
    assert.deepEqual(keys.map((key) => shared.get(key, 1, 0)?.etag), keys);
    assert.deepEqual(keys.map((key) => shared.get(key, 1, 0)?.text), [undefined, undefined, undefined, undefined]);
    assert.deepEqual(shared.get('/1', 1, 0)?.body, Buffer.from(ascii.replace('a', '1')));
  });

  test('a hit on the newest entry leaves the order as it is; a hit on any other moves it to the end', () => {
    const cache = new AnswerStore({ maxEntries: 3, maxBytes: 100 });
    for (const key of ['/a', '/b', '/c']) cache.set(key, 1, 0, { body: key, etag: key });
    cache.get('/c', 1, 0);
    cache.get('/a', 1, 0);
    cache.get('/a', 1, 0); // oldest first: /b, /c, /a
    cache.set('/d', 1, 0, { body: 'd', etag: 'd' });
    assert.equal(cache.get('/b', 1, 0), undefined);
    cache.set('/e', 1, 0, { body: 'e', etag: 'e' });
    assert.deepEqual(['/a', '/c', '/d', '/e'].map((key) => cache.get(key, 1, 0)?.etag), ['/a', undefined, 'd', 'e']);
  });

  test('an answer kept for a clock slice holds in that slice only; one kept UNCLOCKED for its whole data version', () => {
    const cache = new AnswerStore();
    const now = 1_000;
    cache.set('/clocked', 1, clockSlice(now), { body: 'c', etag: 'c' });
    cache.set('/unclocked', 1, UNCLOCKED, { body: 'u', etag: 'u' });
    assert.equal(clockSlice(now), Math.floor(now / CLOCK_BUCKET_SEC));
    const lastOfSlice = (clockSlice(now) + 1) * CLOCK_BUCKET_SEC - 1;
    assert.deepEqual([now, lastOfSlice, lastOfSlice + 1].map((at) => cache.get('/clocked', 1, at)?.etag), ['c', 'c', undefined]);
    assert.deepEqual([now, lastOfSlice + 1, now + 86_400].map((at) => cache.get('/unclocked', 1, at)?.etag), ['u', 'u', 'u']);
    // Another data version: neither.
    assert.deepEqual(['/clocked', '/unclocked'].map((key) => cache.get(key, 2, now)), [undefined, undefined]);
  });
});

describe('SingleFlight (pure)', () => {
  test('waiters wait for the leader to land; with no flight, or after it landed, nobody waits', async () => {
    const flights = new SingleFlight();
    assert.equal(await flights.wait('a'), false);
    const leader = {};
    flights.lead('a', leader);
    flights.lead('a', {}); // one flight per key: this one leads nothing
    const order: string[] = [];
    const waiters = [1, 2, 3].map((n) => flights.wait('a').then((waited) => order.push(`waiter ${n} ${waited}`)));
    await new Promise((resolve) => setImmediate(resolve));
    order.push('landed');
    flights.land(leader);
    await Promise.all(waiters);
    assert.deepEqual(order, ['landed', 'waiter 1 true', 'waiter 2 true', 'waiter 3 true']);
    assert.deepEqual([flights.size, await flights.wait('a')], [0, false]);
    flights.land(leader); // landing twice does nothing
  });

  test('a waiter gives up after maxWaitMs when its leader never lands', async () => {
    const flights = new SingleFlight(30);
    flights.lead('a', {});
    const started = performance.now();
    assert.equal(await flights.wait('a'), true);
    assert.ok(performance.now() - started >= 25);
  });
});

/**
 * The store with its reads of city history counted and each made 50 ms slow (the real reads, not
 * a stand-in): SQLite answers at once, so without the wait every request would be over before the
 * next one is read from its socket, and none would ever miss at the same time as another.
 */
/** Counts the calls of one read (a city's history by default) and slows each by 50 ms, so that requests overlap. */
function countingHistoryReads(store: PriceStore, read: keyof PriceStore = 'cityHistoryParts'): { store: PriceStore; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      const method = value as (...a: unknown[]) => unknown;
      if (name !== read) return method.bind(target);
      return async (...args: unknown[]) => {
        reads++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        return method.apply(target, args);
      };
    },
  });
  return { store: counted, reads: () => reads };
}

for (const backend of testBackends()) {
  describe(`answer cache on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    let uncached: RunningServer;
    const clock = fixedClock(NOW);
    before(async () => {
      ({ store, drop } = await backend.create());
      await loadFixture(store);
      server = await startServer(store, clock);
      uncached = await startServer(store, clock, { answerCache: false });
    });
    after(async () => {
      await server.close();
      await uncached.close();
      await drop();
    });

    const paths = ['/v1/cities/sydney/spread', '/v1/cities/sydney/history?timeframe=all-time', '/v1/stations/alpha-sydney/history', '/v1/stations'];

    test('a hit answers the same bytes and ETag as the uncached path, and If-None-Match gives 304', async () => {
      for (const path of paths) {
        const first = await get(server, path);
        const second = await get(server, path);
        const plain = await get(uncached, path);
        assert.equal(second.text, first.text, path);
        assert.equal(plain.text, first.text, path);
        assert.equal(second.headers.get('etag'), plain.headers.get('etag'), path);
        assert.equal(second.headers.get('cache-control'), 'private, max-age=60');
        const revalidated = await get(server, path, { headers: { 'if-none-match': String(second.headers.get('etag')) } });
        assert.equal(revalidated.status, 304, path);
        assert.equal(revalidated.text, '');
      }
    });

    test('a write that changes the data is seen by the next request', async () => {
      const before = await get(server, '/v1/cities/sydney/spread');
      await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'ulp91', at: NOW - 60, priceTenths: 1500, available: true }] });
      const afterWrite = await get(server, '/v1/cities/sydney/spread');
      assert.notEqual(afterWrite.text, before.text);
      assert.equal(afterWrite.text, (await get(uncached, '/v1/cities/sydney/spread')).text);
    });

    test('a history follows the clock: the next clock slice recomputes today', async () => {
      // Diesel at Beta Sydney since an hour ago, dearer since half an hour ago: today's mean moves with the clock.
      await store.applyBatch({ stations: [], prices: [
        { feed: 'test', feedCode: '2', fuel: 'diesel', at: NOW - 3600, priceTenths: 1900, available: true },
        { feed: 'test', feedCode: '2', fuel: 'diesel', at: NOW - 1800, priceTenths: 2000, available: true },
      ] });
      const path = '/v1/stations/beta-sydney/history';
      const now = await get(server, path);
      assert.equal(now.text, (await get(uncached, path)).text);
      clock.set(NOW + CLOCK_BUCKET_SEC * 360); // an hour later: today's time-weighted means have moved
      try {
        const later = await get(server, path);
        assert.equal(later.text, (await get(uncached, path)).text);
        assert.notEqual(later.text, now.text);
      } finally {
        clock.set(NOW);
      }
    });

    test('twenty requests that miss at once read storage once and get the same answer; uncached, twenty reads', async () => {
      // A route that reads in the serving thread: a city's history is a derived answer, read once on the worker
      // whatever the answer cache does (test/derived/derived-answers.test.ts).
      const path = '/v1/cities/sydney/spread';
      for (const [label, options, expectedReads] of [['cache on', {}, 1], ['cache off', { answerCache: false }, 20]] as const) {
        const { store: counted, reads } = countingHistoryReads(store, 'cityTotals');
        const own = await startServer(counted, clock, options);
        try {
          const answers = await Promise.all(Array.from({ length: 20 }, () => get(own, path)));
          assert.deepEqual(answers.map((a) => a.status), Array.from({ length: 20 }, () => 200), label);
          assert.equal(new Set(answers.map((a) => a.text)).size, 1, label);
          assert.equal(new Set(answers.map((a) => a.headers.get('etag'))).size, 1, label);
          assert.equal(answers[0]?.text, (await get(uncached, path)).text, label);
          assert.equal(reads(), expectedReads, label);
        } finally {
          await own.close();
        }
      }
    });

    test('requests that miss at once behind an error each get their own answer', async () => {
      const { store: counted } = countingHistoryReads(store);
      const own = await startServer(counted, clock);
      try {
        const answers = await Promise.all(Array.from({ length: 10 }, () => get(own, '/v1/cities/nowhere/history')));
        assert.deepEqual(answers.map((a) => a.status), Array.from({ length: 10 }, () => 404));
        const heads = await Promise.all(Array.from({ length: 5 }, () => get(own, '/v1/cities/sydney/history', { method: 'HEAD' })));
        assert.deepEqual(heads.map((a) => a.status), Array.from({ length: 5 }, () => 200));
      } finally {
        await own.close();
      }
    });

    test('errors are never cached, and auth still runs on a cached path', async () => {
      assert.equal((await get(server, '/v1/cities/nowhere/spread')).status, 404);
      assert.equal((await get(server, '/v1/cities/nowhere/spread')).status, 404);
      assert.equal((await get(server, '/v1/cities/sydney/spread', { token: null })).status, 401);
      assert.equal((await get(server, '/v1/cities/sydney/spread', { token: 'fp_aaaaaaaa_bbbb' })).status, 401);
      assert.equal((await get(server, '/v1/cities?limit=0')).status, 400);
    });
  });
}
