import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FeedError } from '../../src/ingest/feed-error.ts';
import { FeedHttp, retryAfter } from '../../src/ingest/feed-fetch.ts';
import { FakeFeedServer } from '../fakes/server.ts';

describe('FeedHttp', () => {
  const fake = new FakeFeedServer((request) => ({ body: JSON.stringify({ path: request.path, q: request.query.get('q') }) }));
  before(async () => { await fake.start(); });
  after(async () => fake.close());

  function client(extra: ConstructorParameters<typeof FeedHttp>[0] = {}): { http: FeedHttp; waits: number[] } {
    const waits: number[] = [];
    return { http: new FeedHttp({ sleep: async (ms) => { waits.push(ms); }, random: () => 0.5, timeoutMs: 1_000, ...extra }), waits };
  }

  test('a 2xx answer comes back with its body, query parameters appended', async () => {
    const { http } = client();
    const response = await http.request(`${fake.url}/a`, { query: { q: 'x y' } });
    assert.equal(response.status, 200);
    assert.equal(response.text, '{"path":"/a","q":"x y"}');
    assert.equal(http.calls, 1);
  });

  test('429 with Retry-After waits what the feed asked, then succeeds', async () => {
    fake.failNext({ status: 429, retryAfter: '7' });
    const { http, waits } = client();
    const response = await http.request(`${fake.url}/b`);
    assert.equal(response.status, 200);
    assert.deepEqual(waits, [7_000]);
    assert.equal(http.calls, 2);
  });

  test('5xx and network failures back off exponentially with full jitter, capped', async () => {
    fake.failNext({ status: 503 }, { status: 500 }, { status: 502 });
    const { http, waits } = client({ baseDelayMs: 1_000, maxDelayMs: 1_500 });
    const response = await http.request(`${fake.url}/c`);
    assert.equal(response.status, 200);
    // random() = 0.5: half of 1 s, 2 s, 4 s; the cap stops the third at 1.5 s.
    assert.deepEqual(waits, [500, 1_000, 1_500]);
  });

  test('retries are bounded: the last failure is thrown as a FeedError', async () => {
    fake.failNext({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    const { http, waits } = client();
    await assert.rejects(http.request(`${fake.url}/d`), (error: unknown) => error instanceof FeedError && error.kind === 'http' && error.status === 503);
    assert.equal(waits.length, 3);
    assert.equal(http.calls, 4);
  });

  test('401 and 403 are not retried: the credentials are wrong', async () => {
    fake.failNext({ status: 401 });
    const { http, waits } = client();
    await assert.rejects(http.request(`${fake.url}/e`), (error: unknown) => error instanceof FeedError && error.kind === 'auth' && error.status === 401);
    assert.deepEqual(waits, []);
  });

  test('404 is not retried', async () => {
    fake.failNext({ status: 404 });
    const { http } = client();
    await assert.rejects(http.request(`${fake.url}/f`), (error: unknown) => error instanceof FeedError && error.kind === 'http' && error.status === 404);
    assert.equal(http.calls, 1);
  });

  test('a slow answer times out and is retried', async () => {
    fake.failNext({ delayMs: 400 });
    const { http, waits } = client({ timeoutMs: 100 });
    const response = await http.request(`${fake.url}/g`);
    assert.equal(response.status, 200);
    assert.equal(waits.length, 1);
  });

  test('a body cut off mid-way is a failure, retried; the byte-order mark is kept for the adapter to strip', async () => {
    fake.failNext({ truncate: true }, { bom: true });
    const { http, waits } = client();
    const response = await http.request(`${fake.url}/h`);
    assert.equal(waits.length, 1);
    assert.equal(response.text, '\ufeff{"path":"/h","q":null}');
  });

  test('a body over the size limit is refused without retrying', async () => {
    const { http } = client({ maxBodyBytes: 10 });
    await assert.rejects(http.request(`${fake.url}/i`), (error: unknown) => error instanceof FeedError && error.kind === 'too_large');
    assert.equal(http.calls, 1);
  });

  test('nothing listening: a network error after the retries', async () => {
    const { http } = client({ attempts: 2 });
    await assert.rejects(http.request('http://127.0.0.1:1/x'), (error: unknown) => error instanceof FeedError && error.kind === 'network');
  });

  test('Retry-After in seconds or as an HTTP date', () => {
    assert.equal(retryAfter('120'), 120_000);
    assert.equal(retryAfter('Thu, 01 Jan 2026 00:00:30 GMT', Date.parse('2026-01-01T00:00:00Z')), 30_000);
    assert.equal(retryAfter('soon'), undefined);
    assert.equal(retryAfter(null), undefined);
  });
});
