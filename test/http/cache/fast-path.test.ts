import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { scanHeaders } from '../../../src/http/cache/fast-path.ts';
import { TEXT_MAX_BYTES } from '../../../src/http/cache/answer-store.ts';
import { newToken } from '../../../src/tokens.ts';
import { NOW, STATIONS, loadFixture } from '../../fixture.ts';
import { fixedClock, servedStore, testBackends } from '../../helpers.ts';

/** Everything but the fields that differ on every request by design. */
function comparable(response: Response): Record<string, string> {
  const headers = Object.fromEntries(response.headers.entries());
  delete headers['x-request-id'];
  delete headers.ratelimit;
  delete headers.date;
  return headers;
}

/** One GET on a connection of its own, as the bytes that came back: the head's lines and the body. */
async function rawGet(baseUrl: string, path: string, authorization: string): Promise<{ head: string[]; body: Buffer }> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect(Number(port), hostname);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${authorization}\r\nConnection: close\r\n\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const all = Buffer.concat(chunks);
  const end = all.indexOf('\r\n\r\n');
  return { head: all.subarray(0, end).toString('latin1').split('\r\n'), body: all.subarray(end + 4) };
}

/** A head's lines but those that differ on every request by design, in order of name (the fast path writes its own fields first). */
const lasting = (head: string[]): string[] => head.filter((line) => !/^(x-request-id|ratelimit|date):/i.test(line)).sort();

describe('the headers the fast path reads', () => {
  test('one pass over the raw list: names in any case, one Authorization, no condition, X-Request-Id unless repeated', () => {
    assert.deepEqual(scanHeaders(['Host', 'x', 'AUTHORIZATION', 'Bearer a', 'X-Request-ID', 'r-1']), { authorization: 'Bearer a', requestId: 'r-1' });
    assert.deepEqual(scanHeaders(['authorization', 'Bearer a']), { authorization: 'Bearer a', requestId: undefined });
    assert.deepEqual(scanHeaders(['authorization', 'Bearer a', 'x-request-id', 'r-1', 'X-Request-Id', 'r-2']), { authorization: 'Bearer a', requestId: undefined });
    assert.deepEqual(scanHeaders(['authorization', 'Bearer a', 'x-request-id', 'r-1', 'x-request-id', 'r-2', 'x-request-id', 'r-3']), { authorization: 'Bearer a', requestId: undefined });
    assert.equal(scanHeaders(['Host', 'x']), undefined);
    assert.equal(scanHeaders(['authorization', 'Bearer a', 'Authorization', 'Bearer b']), undefined);
    assert.equal(scanHeaders(['authorization', 'Bearer a', 'If-None-Match', '"x"']), undefined);
    assert.equal(scanHeaders(['if-none-match', '', 'authorization', 'Bearer a']), undefined);
    // A declared body: within 1 KiB it is read and dropped, as on the full path; past it, or chunked, the full path refuses it.
    assert.deepEqual(scanHeaders(['authorization', 'Bearer a', 'Content-Length', '1024']), { authorization: 'Bearer a', requestId: undefined });
    assert.equal(scanHeaders(['authorization', 'Bearer a', 'Content-Length', '1025']), undefined);
    assert.equal(scanHeaders(['authorization', 'Bearer a', 'content-length', 'x']), undefined);
    assert.equal(scanHeaders(['Transfer-Encoding', 'chunked', 'authorization', 'Bearer a']), undefined);
    // Same lengths, other names.
    assert.deepEqual(scanHeaders(['authorization', 'Bearer a', 'content-range', 'x', 'x-request-ix', 'y']), { authorization: 'Bearer a', requestId: undefined });
  });
});

for (const backend of testBackends()) {
  describe(`the fast path for cached answers on ${backend.name}`, () => {
    const token = newToken('fast', NOW);
    const limited = newToken('limited', NOW, { rateLimit: 3 });
    const { server, store, throughFastify } = servedStore(backend, fixedClock(NOW), async (filled) => {
      await loadFixture(filled);
      await filled.createToken(token.record);
      await filled.createToken(limited.record);
    }, { versionReuseMs: 60_000 });
    const call = (path: string, headers: Record<string, string> = {}, bearer = token.token): Promise<Response> =>
      fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${bearer}`, ...headers } });

    test('the second request is answered in front of Fastify with the same status, body and headers', async () => {
      for (const path of ['/v1/cities/sydney/spread', '/v1/stations?limit=2', '/v1/cities/sydney/history?timeframe=all-time']) {
        const first = await call(path);
        const firstBody = await first.text();
        const counted = throughFastify();
        const second = await call(path, { 'x-request-id': 'trace-1' });
        assert.equal(throughFastify(), counted, `${path}: not through Fastify`);
        assert.equal(second.status, 200);
        assert.equal(await second.text(), firstBody);
        assert.deepEqual(comparable(second), comparable(first));
        assert.equal(second.headers.get('x-request-id'), 'trace-1');
        // fetch joins two X-Request-Id headers into one, 'a, b': refused, so a fresh id (scanHeaders above covers two on the wire).
        const twice = await fetch(`${server.baseUrl}${path}`, { headers: [['authorization', `Bearer ${token.token}`], ['x-request-id', 'a'], ['x-request-id', 'b']] });
        assert.equal(throughFastify(), counted);
        assert.match(String(twice.headers.get('x-request-id')), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        await twice.arrayBuffer();
        const left = (r: Response) => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]);
        assert.equal(left(second), left(first) - 1);
      }
    });

    test('whatever the fast path cannot answer goes to Fastify: conditional, HEAD, unknown or revoked tokens, new data', async () => {
      const path = '/v1/cities/sydney/spread';
      const warm = await call(path);
      const etag = String(warm.headers.get('etag'));
      let counted = throughFastify();
      assert.equal((await call(path, { 'if-none-match': etag })).status, 304);
      assert.equal(throughFastify(), ++counted);
      assert.equal((await fetch(`${server.baseUrl}${path}`, { method: 'HEAD', headers: { authorization: `Bearer ${token.token}` } })).status, 200);
      assert.equal(throughFastify(), ++counted);
      const wrong = await call(path, {}, `${token.token.slice(0, -1)}${token.token.endsWith('A') ? 'B' : 'A'}`);
      assert.equal(wrong.status, 401);
      assert.equal(throughFastify(), counted + 1);
      assert.equal((await call(path, {}, '')).status, 401);
      // The fast path takes only the exact header a token passed with: another spelling of it goes through Fastify once.
      counted = throughFastify();
      const upper = { authorization: `BEARER ${token.token}` };
      assert.equal((await fetch(`${server.baseUrl}${path}`, { headers: upper })).status, 200);
      assert.equal(throughFastify(), ++counted);
      assert.equal((await fetch(`${server.baseUrl}${path}`, { headers: upper })).status, 200);
      assert.equal(throughFastify(), counted);

      await store().applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'ulp91', at: NOW - 30, priceTenths: 1555, available: true }] });
      const fresh = await call(path);
      assert.equal(fresh.status, 200);
      assert.notEqual(fresh.headers.get('etag'), etag);

      const other = newToken('revoked', NOW);
      await store().createToken(other.record);
      assert.equal((await call(path, {}, other.token)).status, 200);
      assert.equal((await call(path, {}, other.token)).status, 200);
      await store().revokeToken(other.record.id, NOW);
      const revoked = await call(path, {}, other.token);
      assert.equal(revoked.status, 401);
      assert.equal((await revoked.json() as { error: { code: string } }).error.code, 'invalid_token');
    });

    test('on the wire, the very bytes of the full path: a body up to 16 KiB sent as latin1 text, a longer one as bytes', async () => {
      // Stations whose names are not ASCII, enough of them for a list over 16 KiB (sent from the cached bytes: answer-store.ts).
      const base = STATIONS[1] as (typeof STATIONS)[number];
      const cafes = Array.from({ length: 100 }, (_, i) => ({ ...base, feedCode: `cafe-${i}`, slug: `Café Épsilon ${i}`, name: `Café Épsilon ${i}` }));
      await store().applyBatch({ stations: cafes, prices: [] });
      const listed = await call('/v1/stations?limit=100');
      const cafe = ((await listed.json()) as { data: { id: string; name: string }[] }).data.find((s) => s.name === 'Café Épsilon 0');
      assert.ok(cafe, 'the new station is listed');
      const sizes: number[] = [];
      for (const path of ['/v1/cities/sydney/spread', `/v1/stations/${cafe.id}`, '/v1/stations?limit=100']) {
        const first = await rawGet(server.baseUrl, path, `Bearer ${token.token}`);
        const counted = throughFastify();
        const second = await rawGet(server.baseUrl, path, `Bearer ${token.token}`);
        assert.equal(throughFastify(), counted, `${path}: answered in front of Fastify`);
        assert.deepEqual([first.head[0], second.head[0]], ['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK'], path);
        assert.deepEqual(lasting(second.head), lasting(first.head), path);
        assert.deepEqual(second.body, first.body, path);
        assert.ok(second.head.includes(`content-length: ${first.body.length}`), path);
        sizes.push(first.body.length);
      }
      assert.ok(sizes.slice(0, 2).every((size) => size <= TEXT_MAX_BYTES) && (sizes[2] as number) > TEXT_MAX_BYTES, `both ways taken: ${sizes.join(', ')} bytes`);
      assert.ok((await rawGet(server.baseUrl, `/v1/stations/${cafe.id}`, `Bearer ${token.token}`)).body.toString('utf8').includes('"Café Épsilon 0"'), 'UTF-8 on the wire');
    });

    test('a token over its limit gets the full path\'s 429', async () => {
      const path = '/v1/stations/alpha-sydney';
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 5; i++) {
        last = await call(path, {}, limited.token);
        statuses.push(last.status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      assert.equal((await last?.json() as { error: { code: string } }).error.code, 'rate_limited');
      assert.ok(Number(last?.headers.get('retry-after')) >= 1);
    });
  });
}
