import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import { TokenCache } from '../../../src/http/auth/token-cache.ts';
import { MemoryRateLimiter, type RateDecision, type RateLimiter, rateLimitHeaders } from '../../../src/http/auth/rate-limits.ts';
import { RequestRules, admission, requestIdOf } from '../../../src/http/request/rules.ts';
import { isClocked, isPublic } from '../../../src/http/request/policy.ts';
import type { TokenRecord } from '../../../src/storage/store.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A store that counts its version reads: `now` is what versionsNow gives (undefined: a PostgreSQL reading too old to reuse). */
function countingStore(now: { data: number; tokens: number } | undefined) {
  const reads = { now: 0, waited: 0 };
  return {
    reads,
    store: {
      versionsNow: () => { reads.now++; return now; },
      versions: async () => { reads.waited++; return { data: 7, tokens: 3 }; },
      tokenById: async () => undefined,
    },
  };
}

function rules(store: ReturnType<typeof countingStore>['store'], limiter: RateLimiter = new MemoryRateLimiter()): RequestRules {
  return new RequestRules({ store, clock: { now: () => 1_000 }, tokens: new TokenCache(store), limiter, defaultLimit: 600 });
}

const record: TokenRecord = { id: 'abcdefgh', name: 't', hash: Buffer.alloc(32), createdAt: 0, expiresAt: null, revokedAt: null, rateLimit: 5 };

describe('the request rules', () => {
  test('a sane X-Request-Id is kept; a missing, repeated (joined) or odd one gets a fresh UUID', () => {
    assert.equal(requestIdOf('r-1.a:B_2'), 'r-1.a:B_2');
    for (const given of [undefined, '', 'r-1, r-2', ['r-1', 'r-2'], 'x'.repeat(129), 'a b', 'é']) assert.match(requestIdOf(given), UUID);
  });

  test('admission: a URL past the limit and a declared body past 1 KiB (or chunked) are 400s, the body one closing the connection', () => {
    assert.equal(admission({ url: '/v1/cities', headers: {} }, 20, {}), undefined);
    assert.equal(admission({ url: '/v1/cities', headers: { 'content-length': '1024' } }, 20, {}), undefined);
    assert.equal(admission({ url: '/v1/cities?x=123456789', headers: {} }, 20, {})?.code, 'invalid_parameter');
    assert.deepEqual(admission({ url: '/', headers: { 'content-length': '1025' } }, 20, {})?.headers, { connection: 'close' });
    assert.deepEqual(admission({ url: '/', headers: { 'transfer-encoding': 'chunked' } }, 20, {})?.headers, { connection: 'close' });
  });

  test('admission: a route declaring maxUrl (along: a route in its URL) may be that long; any other, the limit', () => {
    const along = (n: number) => `/v1/prices/along?path=${'A'.repeat(n - 22)}`;
    assert.equal(along(8_192).length, 8_192);
    assert.equal(admission({ url: along(8_192), headers: {} }, 2_048, { maxUrl: 8_192 }), undefined);
    assert.equal(admission({ url: along(8_193), headers: {} }, 2_048, { maxUrl: 8_192 })?.message, 'The URL is too long (8192 characters at most).');
    // The route decides, not the URL's text: the same URL on a route that declares nothing keeps the limit.
    assert.equal(admission({ url: along(3_000), headers: {} }, 2_048, {})?.message, 'The URL is too long (2048 characters at most).');
    // A declared maxUrl below the server's limit does not lower it.
    assert.equal(admission({ url: along(2_048), headers: {} }, 2_048, { maxUrl: 100 }), undefined);
  });

  test("admission: a POST to a route declaring maxBody may state a body up to it; chunked or past it is a 400 closing the connection; any other request, 1 KiB", () => {
    const post = (headers: Record<string, string>, method = 'POST') => admission({ method, url: '/v1/stations/prices', headers }, 2_048, { maxBody: 32_768 });
    assert.equal(post({ 'content-length': '32768' }), undefined);
    assert.deepEqual(post({ 'content-length': '32769' })?.headers, { connection: 'close' });
    assert.equal(post({ 'content-length': '32769' })?.message, 'The body must state its length (Content-Length) and be at most 32768 bytes.');
    assert.deepEqual(post({ 'transfer-encoding': 'chunked' })?.headers, { connection: 'close' });
    // A GET of the same route, or a POST to a route without maxBody: no body past 1 KiB.
    assert.equal(post({ 'content-length': '1025' }, 'GET')?.message, 'This API takes no request body.');
    assert.equal(admission({ method: 'POST', url: '/v1/cities', headers: { 'content-length': '1025' } }, 2_048, {})?.message, 'This API takes no request body.');
  });

  test('public: every route outside /v1/ (probes, the docs, the dashboard); under /v1/ only a route declaring it', () => {
    assert.deepEqual(['/health', '/docs', '/', '/v1/cities', '/v1/openapi.json'].map((url) => isPublic({}, url)), [true, true, true, false, false]);
    assert.equal(isPublic({ public: true }, '/v1/openapi.json'), true);
    assert.equal(isPublic({ public: false }, '/health'), false);
  });

  test('clocked: a route declaring cache clock, or any answer asked with max_age (the validated query)', () => {
    assert.equal(isClocked({ cache: 'clock' }, {}), true);
    assert.equal(isClocked({}, { fuel: 'e10', city: 'perth' }), false);
    assert.equal(isClocked({ cache: 'data' }, { max_age: 24 }), true);
    assert.equal(isClocked({}, { xmax_age: '24' }), false);
    assert.equal(isClocked({}, undefined), false);
  });

  test("the versions are read once a request: the fast path's reading goes with a request it hands on", async () => {
    const sqlite = countingStore({ data: 1, tokens: 2 });
    const handedOn = {} as IncomingMessage;
    const rulesOf = rules(sqlite.store);
    rulesOf.handOn(handedOn, { data: 9, tokens: 8 });
    assert.deepEqual(await rulesOf.versions(handedOn), { data: 9, tokens: 8 });
    assert.deepEqual(sqlite.reads, { now: 0, waited: 0 });
    assert.deepEqual(await rulesOf.versions({} as IncomingMessage), { data: 1, tokens: 2 });
    assert.deepEqual(sqlite.reads, { now: 1, waited: 0 });
    // No reading to reuse (PostgreSQL): one read, waited for.
    const postgres = countingStore(undefined);
    assert.deepEqual(await rules(postgres.store).versions({} as IncomingMessage), { data: 7, tokens: 3 });
    assert.deepEqual(postgres.reads, { now: 1, waited: 1 });
  });

  test("a request is counted against its token's limit, or its address's default without one", () => {
    const rulesOf = rules(countingStore({ data: 1, tokens: 1 }).store);
    assert.deepEqual(rulesOf.limitKey(record, '10.0.0.1'), { key: 'token:abcdefgh', limit: 5 });
    assert.deepEqual(rulesOf.limitKey({ ...record, rateLimit: null }, '10.0.0.1'), { key: 'token:abcdefgh', limit: 600 });
    assert.deepEqual(rulesOf.limitKey(undefined, '10.0.0.1'), { key: 'ip:10.0.0.1', limit: 600 });
  });

  test("a token's key is made once per record: the same record gets the same key, another record (a new tokens version) its own", () => {
    const rulesOf = rules(countingStore({ data: 1, tokens: 1 }).store);
    const first = rulesOf.limitKey(record, '10.0.0.1');
    assert.equal(rulesOf.limitKey(record, '10.0.0.2'), first, 'the very object again, whatever the address');
    // The record read again after a tokens version moved, now with another limit: its own key, with that limit.
    const reread = { ...record, rateLimit: 9 };
    assert.deepEqual(rulesOf.limitKey(reread, '10.0.0.1'), { key: 'token:abcdefgh', limit: 9 });
    assert.deepEqual(rulesOf.limitKey(record, '10.0.0.1'), { key: 'token:abcdefgh', limit: 5 });
    // Both count against one window: the key is the token's, not the record's.
    const limiter = new MemoryRateLimiter();
    const counted = rules(countingStore({ data: 1, tokens: 1 }).store, limiter);
    const remaining = [record, reread, record].map((r) => counted.consumeNow(counted.limitKey(r, ''))?.remaining);
    assert.deepEqual(remaining, [4, 7, 2]);
  });

  test('RateLimit-Policy and RateLimit for any limit and window, the same text when asked again', () => {
    for (const limit of [600, 5, 1_000_000, 600, 5]) {
      for (const window of [60, 60, 3600]) {
        const decision: RateDecision = { allowed: true, limit, remaining: limit - 1, resetSec: 17 };
        assert.deepEqual(rateLimitHeaders(decision, window), {
          'ratelimit-policy': '"default";q=' + String(limit) + ';w=' + String(window), ratelimit: '"default";r=' + String(limit - 1) + ';t=17',
        });
      }
    }
  });

  test('a limiter that counts in this process answers at once; a shared one only through consume', async () => {
    const local = rules(countingStore({ data: 1, tokens: 1 }).store);
    const decisions = [1, 2, 3, 4, 5, 6].map(() => local.consumeNow({ key: 'token:a', limit: 5 })?.allowed);
    assert.deepEqual(decisions, [true, true, true, true, true, false]);
    const shared: RateLimiter = { consume: async (_key, limit): Promise<RateDecision> => ({ allowed: true, limit, remaining: limit - 1, resetSec: 60 }) };
    const remote = rules(countingStore({ data: 1, tokens: 1 }).store, shared);
    assert.equal(remote.consumeNow({ key: 'ip:x', limit: 5 }), undefined);
    assert.deepEqual(await remote.consume({ key: 'ip:x', limit: 5 }), { allowed: true, limit: 5, remaining: 4, resetSec: 60 });
  });
});
