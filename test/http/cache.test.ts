import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CLOCK_BUCKET_SEC, ResponseCache, clockBucket } from '../../src/http/cache.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { NOW, loadFixture } from '../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends } from '../helpers.ts';

describe('ResponseCache (pure)', () => {
  test('an entry serves its own data version and clock slice only', () => {
    const cache = new ResponseCache();
    cache.set('/a', 3, 0, { body: 'x', etag: '"e"' });
    assert.deepEqual(cache.get('/a', 3, 0), { body: Buffer.from('x'), etag: '"e"', length: '1', version: 3, bucket: 0 });
    assert.equal(cache.get('/a', 4, 0), undefined);
    assert.equal(cache.get('/a', 3, 1), undefined);
    assert.equal(cache.get('/b', 3, 0), undefined);
    assert.deepEqual([cache.hits, cache.misses], [1, 3]);
  });

  test('bounded by entries and bytes, least recently used first out', () => {
    const cache = new ResponseCache({ maxEntries: 2, maxBytes: 100 });
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

  test('a hit on the newest entry leaves the order as it is; a hit on any other moves it to the end', () => {
    const cache = new ResponseCache({ maxEntries: 3, maxBytes: 100 });
    for (const key of ['/a', '/b', '/c']) cache.set(key, 1, 0, { body: key, etag: key });
    cache.get('/c', 1, 0);
    cache.get('/a', 1, 0);
    cache.get('/a', 1, 0); // oldest first: /b, /c, /a
    cache.set('/d', 1, 0, { body: 'd', etag: 'd' });
    assert.equal(cache.get('/b', 1, 0), undefined);
    cache.set('/e', 1, 0, { body: 'e', etag: 'e' });
    assert.deepEqual(['/a', '/c', '/d', '/e'].map((key) => cache.get(key, 1, 0)?.etag), ['/a', undefined, 'd', 'e']);
  });

  test('only histories depend on the clock', () => {
    assert.equal(clockBucket('/v1/cities/sydney/history?timeframe=last-week', 1000), Math.floor(1000 / CLOCK_BUCKET_SEC));
    assert.equal(clockBucket('/v1/stations/x/history', 1000), Math.floor(1000 / CLOCK_BUCKET_SEC));
    assert.equal(clockBucket('/v1/cities/sydney/spread', 1000), 0);
    assert.equal(clockBucket('/v1/stations?offset=10', 1000), 0);
  });
});

for (const backend of testBackends()) {
  describe(`response cache on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    let uncached: RunningServer;
    const clock = fixedClock(NOW);
    before(async () => {
      ({ store, drop } = await backend.create());
      await loadFixture(store);
      server = await startServer(store, clock);
      uncached = await startServer(store, clock, { responseCache: false });
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

    test('errors are never cached, and auth still runs on a cached path', async () => {
      assert.equal((await get(server, '/v1/cities/nowhere/spread')).status, 404);
      assert.equal((await get(server, '/v1/cities/nowhere/spread')).status, 404);
      assert.equal((await get(server, '/v1/cities/sydney/spread', { token: null })).status, 401);
      assert.equal((await get(server, '/v1/cities/sydney/spread', { token: 'fp_aaaaaaaa_bbbb' })).status, 401);
      assert.equal((await get(server, '/v1/cities?limit=0')).status, 400);
    });
  });
}
