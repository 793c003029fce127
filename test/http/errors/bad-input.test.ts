import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NOW, loadFixture } from '../../fixture.ts';
import { type RunningServer, fixedClock, get, snapshot, startServer, testBackends } from '../../helpers.ts';
import type { PriceStore } from '../../../src/storage/store.ts';

const LIMIT = "Parameter 'limit' must be a whole number from 1 to 100.";
const PAGE = "Parameter 'page' must be a whole number from 1 to 1000000000.";
const OFFSET = "Parameter 'offset' must be a whole number from 0 to 1000000000.";
const STATE = "Parameter 'state' must be one of nsw, vic, qld, wa, sa, tas, nt, act.";
const TIMEFRAME = "Parameter 'timeframe' must be one of last-week, last-month, last-year, last-financial-year, all-time.";

const CASES: Array<[string, string]> = [
  ['/v1/cities?limit=0', LIMIT],
  ['/v1/cities?limit=101', LIMIT],
  ['/v1/cities?limit=1.5', LIMIT],
  ['/v1/cities?limit=-1', LIMIT],
  ['/v1/cities?limit=10abc', LIMIT],
  ['/v1/cities?limit=1e3', LIMIT],
  ['/v1/cities?limit=', LIMIT],
  ['/v1/cities?limit=%2010', LIMIT],
  ['/v1/cities?limit=0x10', LIMIT],
  ['/v1/stations?limit=99999999999999999999', LIMIT],
  ['/v1/stations?page=0', PAGE],
  ['/v1/stations?page=-2', PAGE],
  ['/v1/stations?page=abc', PAGE],
  ['/v1/stations?page=1000000001', PAGE],
  ['/v1/stations?offset=-1', OFFSET],
  ['/v1/stations?offset=1.0', OFFSET],
  ['/v1/cities?state=', STATE],
  ['/v1/cities?state=nz', STATE],
  ['/v1/stations?state=new%20south%20wales', STATE],
  ['/v1/cities/sydney/history?timeframe=', TIMEFRAME],
  ['/v1/cities/sydney/history?timeframe=LAST-WEEK', TIMEFRAME],
  ['/v1/stations/alpha-sydney/history?timeframe=yesterday', TIMEFRAME],
  ['/v1/cities?page=1&offset=0', "Parameters 'page' and 'offset' cannot be used together; give one of them."],
  ['/v1/cities?limit=1&limit=2', "Parameter 'limit' must be given once; must be a whole number from 1 to 100."],
];

for (const backend of testBackends()) {
  describe(`bad input on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    before(async () => {
      ({ store, drop } = await backend.create());
      await loadFixture(store);
      server = await startServer(store, fixedClock(NOW));
    });
    after(async () => { await server.close(); await drop(); });

    for (const [path, message] of CASES) {
      test(`${path} answers 400 invalid_parameter`, async () => {
        const r = await get(server, path);
        assert.equal(r.status, 400);
        assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
        const body = r.body as { error: { code: string; message: string; request_id: string } };
        assert.deepEqual(body, { error: { code: 'invalid_parameter', message, request_id: r.headers.get('x-request-id') } });
      });
    }

    test('unknown query parameters are ignored', async () => {
      const plain = await get(server, '/v1/cities');
      const extra = await get(server, '/v1/cities?colour=blue&sort=name');
      assert.equal(extra.status, 200);
      assert.equal(extra.text, plain.text);
    });

    test('a body is refused but changes nothing, and other methods answer 405 with Allow', async () => {
      const before = await snapshot(store);
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const r = await get(server, '/v1/cities/sydney', { method });
        assert.equal(r.status, 405, method);
        assert.equal(r.headers.get('allow'), 'GET, HEAD, OPTIONS');
        assert.equal((r.body as { error: { code: string } }).error.code, 'method_not_allowed');
      }
      const posted = await fetch(`${server.baseUrl}/v1/cities`, {
        method: 'POST', headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' }, body: '{"id":"x"}',
      });
      assert.equal(posted.status, 405);
      assert.equal(await snapshot(store), before);
    });

    test('unknown paths answer 404 in the error shape (after auth under /v1)', async () => {
      const r = await get(server, '/v1/petrol');
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { error: { code: 'not_found', message: 'No route GET /v1/petrol.', request_id: r.headers.get('x-request-id') } });
      const anonymous = await get(server, '/v1/petrol', { token: null });
      assert.equal(anonymous.status, 401);
    });

    test('over-long and odd ids answer 404, never 5xx', async () => {
      for (const id of ['x'.repeat(150), '%00', '..%2F..%2Fetc', 'SYDNEY', "sydney'%20OR%201=1--", '%F0%9F%92%A9']) {
        const r = await get(server, `/v1/cities/${id}`);
        assert.equal(r.status, 404, id);
      }
      const tooLong = await get(server, `/v1/cities/${'x'.repeat(300)}`);
      assert.equal(tooLong.status, 404);
      assert.deepEqual(tooLong.body, {
        error: { code: 'not_found', message: 'No city or station has an id that long (200 characters at most).', request_id: tooLong.headers.get('x-request-id') },
      });
    });

    test('a malformed percent-encoding answers 400', async () => {
      const r = await get(server, '/v1/cities/%E0%A4%A');
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, {
        error: { code: 'invalid_parameter', message: 'The URL is not valid: check its percent-encoding.', request_id: r.headers.get('x-request-id') },
      });
    });
  });
}
