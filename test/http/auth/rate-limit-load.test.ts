import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { type AppOptions, buildApp } from '../../../src/app.ts';
import { ConfigError, loadConfig, parseTrustProxy } from '../../../src/config.ts';
import { clientAddress, trustFunction } from '../../../src/http/server/client-address.ts';
import { RedisRateLimiter } from '../../../src/http/auth/redis-limiter.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { newToken } from '../../../src/tokens.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import { deleteRedisKeys, fixedClock, redisAdmin, redisServerUrl, redisTestPrefix, testBackends } from '../../helpers.ts';

const LIMIT = 20;
const CACHED = ['/v1/cities/sydney/spread', '/v1/stations/alpha-sydney', '/v1/cities?limit=2'];

interface Answer { status: number; code?: string; remaining: number; reset: number; policy: string | null; retryAfter: string | null }

async function answer(response: Response): Promise<Answer> {
  const body = await response.text();
  const fields = response.headers.get('ratelimit') ?? '';
  return {
    status: response.status,
    code: response.status >= 400 ? (JSON.parse(body) as { error: { code: string } }).error.code : undefined,
    remaining: Number(/;r=(\d+)/.exec(fields)?.[1] ?? Number.NaN),
    reset: Number(/;t=(\d+)/.exec(fields)?.[1] ?? Number.NaN),
    policy: response.headers.get('ratelimit-policy'),
    retryAfter: response.headers.get('retry-after'),
  };
}

/** All at once: one request per entry, on as many connections as the client opens. */
function burst(base: string, requests: ReadonlyArray<{ path: string; headers: Record<string, string> }>): Promise<Answer[]> {
  return Promise.all(requests.map(({ path, headers }) => fetch(`${base}${path}`, { headers }).then(answer)));
}

/** Exactly `limit` admitted (with `admitted` status), counting down once through every value, the rest 429 with truthful headers. */
function assertExactlyLimit(answers: readonly Answer[], limit: number, admitted: number, before = 0): void {
  const passed = answers.filter((a) => a.status === admitted);
  const refused = answers.filter((a) => a.status === 429);
  assert.equal(passed.length, limit - before, `exactly ${limit - before} answered ${admitted}`);
  assert.equal(refused.length, answers.length - passed.length, `the rest are 429: ${JSON.stringify(answers.map((a) => a.status))}`);
  assert.deepEqual(passed.map((a) => a.remaining).sort((x, y) => x - y), Array.from({ length: limit - before }, (_, i) => i), 'RateLimit r counts down once through every value');
  for (const a of answers) {
    assert.equal(a.policy, `"default";q=${limit};w=60`);
    assert.ok(a.reset >= 1 && a.reset <= 60, `t=${a.reset}`);
  }
  for (const a of refused) {
    assert.equal(a.code, 'rate_limited');
    assert.equal(a.remaining, 0);
    assert.equal(a.retryAfter, String(a.reset), 'Retry-After is the RateLimit reset');
  }
}

const mixed = (count: number, headers: (i: number) => Record<string, string>) =>
  Array.from({ length: count }, (_, i) => ({ path: i % 2 === 0 ? CACHED[i % CACHED.length] ?? '/v1/cities' : `/v1/cities?uncached=${i}`, headers: headers(i) }));

for (const backend of testBackends()) {
  describe(`rate limits under concurrent load, per process, on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let shared: Awaited<ReturnType<typeof server>>;
    const warm = newToken('warm', NOW, { rateLimit: 1000 });

    before(async () => {
      ({ store, drop } = await backend.create());
      await loadFixture(store);
      await store.createToken(warm.record);
      store.setVersionReuseMs(60_000); // repeated requests are answered by the fast path
      // Tokens and addresses have counters of their own, so these tests can share one server.
      shared = await server({ defaultRateLimit: LIMIT });
    });
    after(async () => {
      await shared.app.close();
      await drop();
    });

    async function server(options: Partial<AppOptions> = {}): Promise<{ app: FastifyInstance; base: string; throughFastify: () => number }> {
      let throughFastify = 0;
      const app = await buildApp({ store, clock: fixedClock(NOW), ...options });
      app.addHook('onSend', async () => { throughFastify++; });
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      for (const path of CACHED) assert.equal((await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${warm.token}` } })).status, 200);
      return { app, base, throughFastify: () => throughFastify };
    }

    test(`one token, ${3 * LIMIT} requests at once, cached and uncached: exactly ${LIMIT} admitted between the fast path and Fastify`, async () => {
      const { base, throughFastify } = shared;
      {
        const limited = newToken('limited', NOW, { rateLimit: LIMIT });
        await store.createToken(limited.record);
        const headers = { authorization: `Bearer ${limited.token}` };
        const first = await answer(await fetch(`${base}${CACHED[0]}`, { headers })); // the token's first sight: Fastify
        assert.deepEqual([first.status, first.remaining], [200, LIMIT - 1]);
        const counted = throughFastify();
        const answers = await burst(base, mixed(3 * LIMIT - 1, () => headers));
        assertExactlyLimit(answers, LIMIT, 200, 1);
        const viaFastify = throughFastify() - counted;
        assert.ok(viaFastify > 0 && viaFastify < answers.length, `both paths counted: ${answers.length - viaFastify} fast, ${viaFastify} through Fastify`);
        assert.equal((await answer(await fetch(`${base}${CACHED[0]}`, { headers }))).status, 429, 'still refused afterwards');
      }
    });

    test(`requests without a valid token are limited per client address: exactly ${LIMIT} answered 401, a spoofed X-Forwarded-For changes nothing`, async () => {
      {
        const answers = await burst(shared.base, mixed(3 * LIMIT, (i) => ({
          'x-forwarded-for': `198.51.100.${i}`,
          ...(i % 3 === 0 ? {} : { authorization: i % 3 === 1 ? 'Bearer nope' : `Bearer fp_abcdefgh_${'A'.repeat(43)}` }),
        })));
        assertExactlyLimit(answers, LIMIT, 401);
      }
    });

    // Storage plays no part in this one: once, on SQLite.
    if (backend.name === 'sqlite') test('behind a trusted proxy (TRUST_PROXY) each forwarded address has its own counter; the same address shares one', async () => {
      const { app, base } = await server({ defaultRateLimit: LIMIT, trustProxy: ['127.0.0.1'] });
      try {
        const spread = await burst(base, mixed(3 * LIMIT, (i) => ({ 'x-forwarded-for': `198.51.100.${i}` })));
        assert.deepEqual(spread.map((a) => [a.status, a.remaining]), spread.map(() => [401, LIMIT - 1]), 'one request per address');
        const one = await burst(base, mixed(3 * LIMIT, () => ({ 'x-forwarded-for': '198.51.100.250, 127.0.0.1' })));
        assertExactlyLimit(one, LIMIT, 401);
      } finally {
        await app.close();
      }
    });
  });
}

describe('the TRUST_PROXY setting', () => {
  test('unset or false: nobody; a hop count; or a list of addresses, ranges and named ranges; anything else stops the start', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    for (const off of ['', ' ', 'false', '0']) assert.equal(parseTrustProxy(off), false, JSON.stringify(off));
    assert.equal(parseTrustProxy('2'), 2);
    assert.deepEqual(parseTrustProxy('10.0.0.1, 192.168.0.0/16,::1,fd00::/8,loopback'), ['10.0.0.1', '192.168.0.0/16', '::1', 'fd00::/8', 'loopback']);
    for (const bad of ['true', 'yes', '10.0.0.300', '10.0.0.0/33', '::1/129', '10.0.0.1,', 'example.com', '10.0.0.0/8/1', '-1', '100']) {
      assert.throws(() => loadConfig({ TRUST_PROXY: bad }), (error: unknown) => error instanceof ConfigError && error.variable === 'TRUST_PROXY', bad);
    }
  });

  test('the client address walks back from the TCP peer through trusted hops only', () => {
    const xff = '203.0.113.9, 198.51.100.1, 10.0.0.2';
    assert.equal(clientAddress('10.0.0.1', xff, trustFunction(false)), '10.0.0.1');
    assert.equal(clientAddress('10.0.0.1', xff, trustFunction(1)), '10.0.0.2');
    assert.equal(clientAddress('10.0.0.1', xff, trustFunction(2)), '198.51.100.1');
    assert.equal(clientAddress('10.0.0.1', xff, trustFunction(9)), '203.0.113.9');
    assert.equal(clientAddress('10.0.0.1', xff, trustFunction(['10.0.0.0/8'])), '198.51.100.1', 'a hop from outside the list ends the walk');
    assert.equal(clientAddress('10.0.0.1', xff, trustFunction(['10.0.0.0/8', '198.51.100.1'])), '203.0.113.9');
    assert.equal(clientAddress('192.0.2.1', xff, trustFunction(['10.0.0.0/8'])), '192.0.2.1', 'an untrusted peer is the client, whatever it forwards');
    assert.equal(clientAddress('::ffff:10.0.0.1', '203.0.113.9', trustFunction(['10.0.0.0/8'])), '203.0.113.9', 'IPv4-mapped peers match IPv4 ranges');
    assert.equal(clientAddress('::1', '203.0.113.9', trustFunction(['loopback'])), '203.0.113.9');
    assert.equal(clientAddress('10.0.0.1', ' , 203.0.113.9 ,\t', trustFunction(['10.0.0.0/8'])), '203.0.113.9', 'empty entries skipped, as proxy-addr does');
    assert.equal(clientAddress('10.0.0.1', undefined, trustFunction(['10.0.0.0/8'])), '10.0.0.1');
  });
});

const redisUrl = redisServerUrl();
const skip = redisUrl ? false : 'no Redis server given: set FUELPRICE_TEST_REDIS=redis://127.0.0.1:6379 to run these (see CONTRIBUTING.md, Test)';

describe('rate limits under concurrent load, shared through Redis', { skip }, () => {
  let admin: Redis;
  let store: PriceStore;
  let drop: () => Promise<void>;
  let limiter: RedisRateLimiter;
  let app: FastifyInstance;
  let base: string;
  const prefix = redisTestPrefix();

  before(async () => {
    admin = await redisAdmin(redisUrl ?? '');
    const sqlite = testBackends()[0];
    if (!sqlite) throw new Error('no SQLite backend');
    ({ store, drop } = await sqlite.create());
    await loadFixture(store);
    limiter = new RedisRateLimiter({ url: redisUrl ?? '', prefix });
    assert.equal(await limiter.connect({ timeoutMs: 3_000 }), true);
    app = await buildApp({ store, clock: fixedClock(NOW), rateLimiter: limiter, defaultRateLimit: LIMIT });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await app?.close();
    await limiter?.close();
    await drop?.();
    if (admin) {
      await deleteRedisKeys(admin, prefix);
      admin.disconnect();
    }
  });

  test(`one token, ${3 * LIMIT} requests at once: exactly ${LIMIT} admitted, counted once in Redis`, async () => {
    const limited = newToken('limited', NOW, { rateLimit: LIMIT });
    await store.createToken(limited.record);
    const answers = await burst(base, mixed(3 * LIMIT, () => ({ authorization: `Bearer ${limited.token}` })));
    assertExactlyLimit(answers, LIMIT, 200);
    assert.equal(await admin.get(`${prefix}rl:token:${limited.record.id}`), String(LIMIT));
  });

  test(`without a valid token, per address: exactly ${LIMIT} answered 401 whatever X-Forwarded-For says`, async () => {
    const answers = await burst(base, mixed(3 * LIMIT, (i) => ({ 'x-forwarded-for': `198.51.100.${i}`, authorization: 'Bearer nope' })));
    assertExactlyLimit(answers, LIMIT, 401);
    assert.deepEqual(await admin.keys(`${prefix}rl:ip:*`), [`${prefix}rl:ip:127.0.0.1`]);
  });
});
