import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { type LimiterLogger, RedisRateLimiter } from '../../../src/http/auth/redis-limiter.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { newToken } from '../../../src/tokens.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import {
  type JsonResponse, type RunningServer, deleteRedisKeys, fixedClock, freePort, get, redisAdmin, redisServerUrl, redisTestPrefix, startServer, tcpProxy,
  testBackends, waitFor,
} from '../../helpers.ts';

const redisUrl = redisServerUrl();
const skip = redisUrl ? false : 'no Redis server given: set FUELPRICE_TEST_REDIS=redis://127.0.0.1:6379 to run these (see CONTRIBUTING.md, Test)';

interface CapturedLogs extends LimiterLogger {
  warnings: string[];
  infos: string[];
}

function captureLogs(): CapturedLogs {
  const warnings: string[] = [];
  const infos: string[] = [];
  return { warnings, infos, warn: (_obj, msg) => { warnings.push(msg); }, info: (_obj, msg) => { infos.push(msg); } };
}

const remaining = (r: JsonResponse): number => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1] ?? NaN);
const resetSec = (r: JsonResponse): number => Number(/t=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1] ?? NaN);

describe('rate limits shared through Redis', { skip }, () => {
  const serverUrl = redisUrl ?? '';
  let admin: Redis;
  let store: PriceStore;
  let drop: () => Promise<void>;
  const clock = fixedClock(NOW);
  const cleanups: Array<() => Promise<unknown>> = [];

  before(async () => {
    admin = await redisAdmin(serverUrl);
    const sqlite = testBackends()[0];
    if (!sqlite) throw new Error('no SQLite backend');
    ({ store, drop } = await sqlite.create());
    await loadFixture(store);
  });
  after(async () => {
    await drop?.();
    admin?.disconnect();
  });

  /** A limiter as one API process would have it; closed, with its keys deleted, after the test. */
  function limiter(prefix: string, options: { url?: string; logs?: CapturedLogs } = {}): RedisRateLimiter {
    const created = new RedisRateLimiter({ url: options.url ?? serverUrl, prefix, maxRetryDelayMs: 100, retryCommandsAfterMs: 100, ...(options.logs ? { logger: options.logs } : {}) });
    cleanups.push(() => created.close());
    return created;
  }
  async function server(rateLimiter: RedisRateLimiter): Promise<RunningServer> {
    const running = await startServer(store, clock, { rateLimiter });
    cleanups.unshift(() => running.close());
    return running;
  }
  async function token(rateLimit: number): Promise<{ token: string; id: string }> {
    const created = newToken('limited', NOW, { rateLimit });
    await store.createToken(created.record);
    return { token: created.token, id: created.record.id };
  }
  async function cleanUp(prefix: string): Promise<void> {
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await deleteRedisKeys(admin, prefix);
    assert.deepEqual(await admin.keys(`${prefix}*`), []);
  }

  test('two processes admit exactly the limit for one token between them under concurrent load, then 429 on both', async () => {
    const prefix = redisTestPrefix();
    try {
      const limiters = [limiter(prefix), limiter(prefix)] as const;
      for (const l of limiters) assert.equal(await l.connect({ timeoutMs: 3_000 }), true);
      const servers = [await server(limiters[0]), await server(limiters[1])] as const;
      const byTurn = (i: number): RunningServer => servers[i % 2 === 0 ? 0 : 1];
      assert.notEqual(servers[0].baseUrl, servers[1].baseUrl);

      const limit = 10;
      const shared = await token(limit);
      const results = await Promise.all(Array.from({ length: 3 * limit }, (_, i) => get(byTurn(i), '/v1/cities', { token: shared.token })));
      const admitted = results.filter((r) => r.status === 200);
      const denied = results.filter((r) => r.status === 429);
      assert.equal(admitted.length, limit, `exactly ${limit} admitted across both processes`);
      assert.equal(denied.length, 2 * limit);
      // Each admitted request saw a different count: the headers tell the truth across processes.
      assert.deepEqual(admitted.map(remaining).sort((a, b) => a - b), Array.from({ length: limit }, (_, i) => i));
      for (const r of results) {
        assert.equal(r.headers.get('ratelimit-policy'), `"default";q=${limit};w=60`);
        assert.ok(resetSec(r) >= 1 && resetSec(r) <= 60, r.headers.get('ratelimit') ?? '');
      }
      for (const r of denied) {
        assert.equal(remaining(r), 0);
        assert.match(r.headers.get('retry-after') ?? '', /^[1-9][0-9]?$/);
        assert.equal((r.body as { error: { code: string } }).error.code, 'rate_limited');
      }
      for (const s of servers) assert.equal((await get(s, '/v1/cities', { token: shared.token })).status, 429);
      assert.equal(await admin.get(`${prefix}rl:token:${shared.id}`), String(limit), 'denied requests are not counted');
      const pttl = await admin.pttl(`${prefix}rl:token:${shared.id}`);
      assert.ok(pttl > 0 && pttl <= 60_000, `window expiry ${pttl} ms`);

      // Taking turns between the processes, RateLimit counts down as one.
      const turns = await token(4);
      const seen: Array<[number, number]> = [];
      for (let i = 0; i < 6; i++) {
        const r = await get(byTurn(i), '/v1/stations', { token: turns.token });
        seen.push([r.status, remaining(r)]);
      }
      assert.deepEqual(seen, [[200, 3], [200, 2], [200, 1], [200, 0], [429, 0], [429, 0]]);

      for (const s of servers) assert.deepEqual((await get(s, '/ready', { token: null })).body, { status: 'ready', backend: 'sqlite', redis: 'ok' });
    } finally {
      await cleanUp(prefix);
    }
  });

  test('each token has its own counter', async () => {
    const prefix = redisTestPrefix();
    try {
      const limiters = [limiter(prefix), limiter(prefix)] as const;
      for (const l of limiters) assert.equal(await l.connect({ timeoutMs: 3_000 }), true);
      const servers = [await server(limiters[0]), await server(limiters[1])] as const;
      const a = await token(2);
      const b = await token(2);
      assert.equal((await get(servers[0], '/v1/cities', { token: a.token })).status, 200);
      assert.equal((await get(servers[1], '/v1/cities', { token: a.token })).status, 200);
      assert.equal((await get(servers[0], '/v1/cities', { token: a.token })).status, 429);
      const other = await get(servers[1], '/v1/cities', { token: b.token });
      assert.equal(other.status, 200);
      assert.equal(remaining(other), 1);
      assert.deepEqual((await admin.keys(`${prefix}*`)).sort(), [`${prefix}rl:token:${a.id}`, `${prefix}rl:token:${b.id}`].sort());
      assert.equal(await admin.get(`${prefix}rl:token:${a.id}`), '2');
      assert.equal(await admin.get(`${prefix}rl:token:${b.id}`), '1');
    } finally {
      await cleanUp(prefix);
    }
  });

  test('Redis out of reach: requests are served with per-process limits, /ready says degraded, one warning', async () => {
    const prefix = redisTestPrefix();
    try {
      const logs = captureLogs();
      const nobody = `redis://127.0.0.1:${await freePort()}`;
      const unreachable = limiter(prefix, { url: nobody, logs });
      assert.equal(await unreachable.connect({ timeoutMs: 500 }), false);
      assert.equal(unreachable.status(), 'degraded');
      const s = await server(unreachable);

      const limited = await token(3);
      const seen: Array<[number, number]> = [];
      for (let i = 0; i < 5; i++) {
        const r = await get(s, '/v1/cities', { token: limited.token });
        seen.push([r.status, remaining(r)]);
        if (r.status === 429) assert.match(r.headers.get('retry-after') ?? '', /^[1-9][0-9]?$/);
      }
      assert.deepEqual(seen, [[200, 2], [200, 1], [200, 0], [429, 0], [429, 0]]);
      const many = await Promise.all(Array.from({ length: 30 }, () => get(s, '/v1/cities/sydney')));
      assert.ok(many.every((r) => r.status === 200));
      await new Promise((resolve) => setTimeout(resolve, 400)); // several reconnection attempts fail meanwhile
      assert.equal((await get(s, '/v1/cities')).status, 200);

      const ready = await get(s, '/ready', { token: null });
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.body, { status: 'degraded', backend: 'sqlite', redis: 'unreachable' });
      assert.equal(logs.warnings.length, 1, `one warning, got ${JSON.stringify(logs.warnings)}`);
      assert.match(logs.warnings[0] ?? '', /per process/);
      assert.deepEqual(logs.infos, []);
    } finally {
      await cleanUp(prefix);
    }
  });

  test('Redis going away and coming back: degraded, then shared again by itself, without a restart', async () => {
    const prefix = redisTestPrefix();
    const proxy = await tcpProxy(new URL(serverUrl), 6379);
    try {
      const logs = captureLogs();
      const viaProxy = limiter(prefix, { url: proxy.url, logs });
      assert.equal(await viaProxy.connect({ timeoutMs: 3_000 }), true);
      const s = await server(viaProxy);
      const limited = await token(100);
      const key = `${prefix}rl:token:${limited.id}`;

      const first = await get(s, '/v1/cities', { token: limited.token });
      assert.equal(first.status, 200);
      assert.equal(remaining(first), 99);
      assert.equal(await admin.get(key), '1');
      assert.deepEqual((await get(s, '/ready', { token: null })).body, { status: 'ready', backend: 'sqlite', redis: 'ok' });

      await proxy.down();
      await waitFor('the limiter to notice Redis is gone', () => viaProxy.status() === 'degraded');
      for (let i = 0; i < 10; i++) assert.equal((await get(s, '/v1/cities', { token: limited.token })).status, 200);
      const degraded = await get(s, '/ready', { token: null });
      assert.equal(degraded.status, 200);
      assert.deepEqual(degraded.body, { status: 'degraded', backend: 'sqlite', redis: 'unreachable' });
      assert.equal(await admin.get(key), '1', 'nothing reached Redis meanwhile');
      assert.equal(logs.warnings.length, 1);

      await proxy.up();
      await waitFor('the limiter to reconnect by itself', () => viaProxy.status() === 'ok');
      const again = await get(s, '/v1/cities', { token: limited.token });
      assert.equal(again.status, 200);
      assert.equal(remaining(again), 98, 'shared counting resumes where Redis left it');
      assert.equal(await admin.get(key), '2');
      assert.deepEqual((await get(s, '/ready', { token: null })).body, { status: 'ready', backend: 'sqlite', redis: 'ok' });
      assert.equal(logs.warnings.length, 1);
      assert.equal(logs.infos.filter((m) => /again/.test(m)).length, 1, JSON.stringify(logs.infos));
    } finally {
      await cleanUp(prefix);
      await proxy.down();
    }
  });
});
