import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FeedError } from '../../src/ingest/feed-error.ts';
import { FeedHttp, describeNetworkError, errorBodyLine, retryAfter, secretsOf } from '../../src/ingest/feed-fetch.ts';
import { FakeFeedServer } from '../fakes/server.ts';
import { freePort } from '../helpers.ts';

describe('FeedHttp', () => {
  const fake = new FakeFeedServer((request) => ({ body: JSON.stringify({ path: request.path, q: request.query.get('q') }) }));
  before(async () => { await fake.start(); });
  after(async () => fake.close());
  const host = (): string => fake.url.replace('http://', '');

  // A timeout far past any answer of the fake, even on a loaded machine (a first request there took 1.7 s in a CI run):
  // only the test of timeouts sets a short one.
  function client(extra: ConstructorParameters<typeof FeedHttp>[0] = {}): { http: FeedHttp; waits: number[] } {
    const waits: number[] = [];
    return { http: new FeedHttp({ sleep: async (ms) => { waits.push(ms); }, random: () => 0.5, timeoutMs: 30_000, ...extra }), waits };
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

  test('401 and 403 to a request with credentials are not retried: the credentials are wrong', async () => {
    fake.failNext({ status: 401 });
    const { http, waits } = client();
    await assert.rejects(http.request(`${fake.url}/e`, { headers: { authorization: 'Bearer Zq81kT0pLm2Xv7Rw' } }), (error: unknown) => error instanceof FeedError && error.kind === 'auth' && error.status === 401);
    assert.deepEqual(waits, []);
  });

  test('404 is not retried', async () => {
    fake.failNext({ status: 404 });
    const { http } = client();
    await assert.rejects(http.request(`${fake.url}/f`), (error: unknown) => error instanceof FeedError && error.kind === 'http' && error.status === 404);
    assert.equal(http.calls, 1);
  });

  test('a slow answer times out and is retried', async () => {
    fake.failNext({ delayMs: 4_000 });
    const { http, waits } = client({ timeoutMs: 1_000 });
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

  test('a refused connection is one line: where, the code and what it means', async () => {
    const port = await freePort();
    const { http } = client({ attempts: 2 });
    await assert.rejects(http.request(`http://127.0.0.1:${port}/Home/Results`, { query: { RegionId: '3' } }), {
      name: 'FeedError', kind: 'network', message: `127.0.0.1:${port}/Home/Results: ECONNREFUSED (connection refused: nothing listens there)`,
    });
  });

  test('an error answer is quoted in one line after the status; 401 with credentials points at them, secrets blanked', async () => {
    const token = 'Zq81kT0pLm2Xv7Rw';
    fake.failNext({ status: 401, body: `{\n  "error": "invalid token",\n  "token": "${token}"\n}` });
    const { http } = client();
    await assert.rejects(http.request(`${fake.url}/Subscriber/GetCountryBrands`, { headers: { Authorization: `FPDAPI SubscriberToken=${token}` } }), {
      kind: 'auth', status: 401,
      message: `${host()}/Subscriber/GetCountryBrands: HTTP 401, credentials refused (check the feed's credentials): { "error": "invalid token", "token": "[redacted]" }`,
    });
  });

  test('403 to a request without credentials is a block, not a credentials problem; an HTML page is reduced to its text', async () => {
    fake.failNext({ status: 403, body: '<!DOCTYPE html>\n<html><head><title>403 Forbidden</title><style>h1 {color: red}</style></head>\n<body><h1>Access denied</h1></body></html>' });
    const { http, waits } = client();
    await assert.rejects(http.request(`${fake.url}/Home/Results`), {
      kind: 'http', status: 403,
      message: `${host()}/Home/Results: HTTP 403, refused (the site may block this address or client): 403 Forbidden Access denied`,
    });
    assert.deepEqual(waits, []);
  });

  test('other statuses quote the answer without a credentials hint; an empty answer quotes nothing', async () => {
    fake.failNext({ status: 404, body: '{"message":"Resource not found"}' }, { status: 400, body: '' });
    const { http } = client();
    await assert.rejects(http.request(`${fake.url}/FuelPriceCheck/v2/oauth/client_credential/accesstoken`, { headers: { authorization: 'Basic a2V5LTEyMzQ1Njc4OnNlY3JldC05ODc2NTQzMg==' } }), {
      kind: 'http', status: 404, message: `${host()}/FuelPriceCheck/v2/oauth/client_credential/accesstoken: HTTP 404: {"message":"Resource not found"}`,
    });
    await assert.rejects(http.request(`${fake.url}/j`), { kind: 'http', status: 400, message: `${host()}/j: HTTP 400` });
  });

  test('a long answer is cut to 200 characters and ends with an ellipsis', () => {
    const line = errorBodyLine(`${'x'.repeat(150)}\n\n${'y'.repeat(150)}`, []);
    assert.equal(line, `${'x'.repeat(150)} ${'y'.repeat(48)}…`);
    assert.equal(line.length, 200);
  });

  test('the secrets of a request: credential headers\' values, their parts and HTTP Basic\'s key and secret; nothing short, nothing else', () => {
    const basic = Buffer.from('key-12345678:secret-98765432').toString('base64');
    assert.deepEqual(secretsOf({
      authorization: `Basic ${basic}`, apikey: 'Qm7xK2pL9vR4', 'x-consumer-id': 'c0ffee-1234', 'content-type': 'application/json; charset=utf-8', accept: 'application/json',
    }), [`Basic ${basic}`, basic, 'key-12345678:secret-98765432', 'secret-98765432', 'key-12345678', 'Qm7xK2pL9vR4', 'c0ffee-1234']);
    assert.deepEqual(secretsOf({ Authorization: 'FPDAPI SubscriberToken=Zq81kT0pLm2Xv7Rw' }), ['FPDAPI SubscriberToken=Zq81kT0pLm2Xv7Rw', 'Zq81kT0pLm2Xv7Rw']);
    assert.deepEqual(secretsOf({ 'user-agent': 'fuelprice-ingest/1.0' }), []);
    assert.deepEqual(secretsOf(undefined), []);
  });

  test('network errors as fetch reports them: the cause\'s code, or the first of an AggregateError\'s, or its message in one line', () => {
    const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
    assert.equal(describeNetworkError(new TypeError('fetch failed', { cause: withCode('getaddrinfo ENOTFOUND myfuelnt.nt.gov.au', 'ENOTFOUND') })),
      'ENOTFOUND (host not found: offline, or a wrong URL?)');
    assert.equal(describeNetworkError(new TypeError('fetch failed', { cause: new AggregateError([withCode('a', 'ETIMEDOUT'), withCode('b', 'ENETUNREACH')], '') })),
      'ETIMEDOUT (connection timed out)');
    assert.equal(describeNetworkError(new TypeError('fetch failed', { cause: withCode('unable to verify\nthe first certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') })),
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE (unable to verify the first certificate)');
    assert.equal(describeNetworkError(new TypeError('fetch failed', { cause: new Error('bad port') })), 'bad port');
    assert.equal(describeNetworkError('down'), 'down');
  });

  test('Retry-After in seconds or as an HTTP date', () => {
    assert.equal(retryAfter('120'), 120_000);
    assert.equal(retryAfter('Thu, 01 Jan 2026 00:00:30 GMT', Date.parse('2026-01-01T00:00:00Z')), 30_000);
    assert.equal(retryAfter('soon'), undefined);
    assert.equal(retryAfter(null), undefined);
  });
});
