/**
 * POST /v1/stations/prices and POST /v1/prices/along (http/routes/post-body.ts), on both
 * backends over a real server: the GET's answer byte for byte for the same parameters, 100 real
 * ids (the real Fair Fuel answers of 1 and 2 May 2026, test/fixtures/feeds/vic/real/, ingested by
 * the VIC adapter) that a URL cannot carry, the longest path, the 400s of bad bodies, the rate
 * limit counting a POST as one request, and bad URL encoding answered 400 on every route.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodePolyline } from '../../../src/domain/route.ts';
import { VIC_REAL_MAY_3_NOON, ingestRealVic } from '../../fakes/vic.ts';
import { type RunningServer, fixedClock, get, servedStore, testBackends } from '../../helpers.ts';

const MAY_3_NOON_MELBOURNE = VIC_REAL_MAY_3_NOON;

interface Answer { status: number; headers: Headers; text: string; body: unknown }

/** A POST with a body as given (a string is sent as it is), JSON's content type unless one is given. */
async function post(server: RunningServer, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...headers },
  });
  const text = await response.text();
  let parsed: unknown;
  try { parsed = JSON.parse(text); } catch { parsed = undefined; }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** The error body, as the catalogue writes it. */
function assertError(r: Answer, message: string, what: string): void {
  assert.equal(r.status, 400, `${what}: ${r.text}`);
  assert.deepEqual(r.body, { error: { code: 'invalid_parameter', message, request_id: r.headers.get('x-request-id') } }, what);
}

/**
 * A route of n points zigzagging over Melbourne: its first point 10 characters of polyline, then
 * each step 0.0052 degree of latitude up or down (3 characters) and 0.16385 of longitude east or
 * west (4 characters; the last three steps 0.0052, 3). At 1,000 points: 10 + 999 × 3 + 996 × 4 + 3 × 3
 * = 7,000 characters, the longest path taken, sweeping 163 degrees (under the 180 allowed).
 */
function longPath(points: number): string {
  return encodePolyline(Array.from({ length: points }, (_, i) => ({
    latitude: -37.8 + (i % 2) * 0.0052,
    longitude: 144.9 + (i % 2) * (i < 997 ? 0.16385 : 0.0052),
  })));
}

for (const backend of testBackends()) {
  describe(`POST forms and URL encoding on ${backend.name}`, () => {
    const clock = fixedClock(MAY_3_NOON_MELBOURNE);
    const { server } = servedStore(backend, clock, (store) => ingestRealVic(store, clock));

    async function realIds(): Promise<string[]> {
      const ids: string[] = [];
      for (let page = 1; ids.length < 400; page++) {
        const r = await get(server, `/v1/stations?state=vic&limit=100&page=${page}`);
        assert.equal(r.status, 200, r.text);
        const data = (r.body as { data: Array<{ id: string }> }).data;
        if (data.length === 0) break;
        ids.push(...data.map((s) => s.id));
      }
      assert.ok(ids.length >= 200, `${ids.length} real ids`);
      return ids;
    }

    test('100 real ids: too long for a GET\'s URL, answered by POST; and the POST is the GET byte for byte where both fit', async () => {
      const ids = await realIds();
      // Every 3rd id from the sorted list (so from A to Z); real ids average about 20 characters.
      const hundred = ids.filter((_, i) => i % 2 === 0).slice(0, 100);
      const average = hundred.join('').length / hundred.length;
      assert.ok(average > 15, `${average} characters an id`);
      const url = `/v1/stations/prices?ids=${hundred.map(encodeURIComponent).join(',')}`;
      assertError(await get(server, url), 'The URL is too long (2048 characters at most).', 'a GET of 100 real ids');
      const byPost = await post(server, '/v1/stations/prices', { ids: hundred });
      assert.equal(byPost.status, 200, byPost.text);
      const answer = byPost.body as { data: Array<{ id: string }>; unknown: string[] };
      assert.deepEqual(answer.data.map((s) => s.id), hundred);
      assert.deepEqual(answer.unknown, []);
      // Each entry is what the one-station route answers.
      for (const id of [hundred[0], hundred[57], hundred[99]] as string[]) {
        assert.deepEqual(answer.data.find((s) => s.id === id), ((await get(server, `/v1/stations/${id}/prices`)).body as { data: unknown }).data);
      }
      // Where a GET fits (some 60 ids, unknowns, repeats and max_age among them): the same bytes, the ids as an array or as one string.
      const some = [...hundred.slice(0, 60), 'no-such-station', hundred[3] as string];
      for (const maxAge of [undefined, 48]) {
        const query = `ids=${some.join(',')}${maxAge === undefined ? '' : `&max_age=${maxAge}`}`;
        const byGet = await get(server, `/v1/stations/prices?${query}`);
        assert.equal(byGet.status, 200, byGet.text);
        for (const body of [{ ids: some, max_age: maxAge }, { ids: some.join(','), max_age: maxAge === undefined ? undefined : String(maxAge) }]) {
          const r = await post(server, '/v1/stations/prices', body);
          assert.equal(r.status, 200, r.text);
          assert.equal(r.text, byGet.text);
          assert.equal(r.headers.get('content-type'), byGet.headers.get('content-type'));
          assert.equal(r.headers.get('cache-control'), 'no-store');
        }
      }
    });

    test('the longest path (1,000 points, 7,000 characters): too long for a URL percent-encoded, answered by POST as a GET answers it', async () => {
      const path = longPath(1000);
      assert.equal(path.length, 7000);
      const encoded = encodeURIComponent(path);
      assert.ok(encoded.length > 8192, `${encoded.length} characters percent-encoded`);
      const byGet = await get(server, `/v1/prices/along?fuel=ulp91&path=${encoded}`);
      assert.equal(byGet.status, 431);
      assert.equal((byGet.body as { error: { message: string } }).error.message, 'The request line and headers are too large (8 KiB at most).');
      const r = await post(server, '/v1/prices/along', { fuel: 'ulp91', path, corridor: 2, order: 'along', limit: 100 });
      assert.equal(r.status, 200, r.text);
      assert.ok((r.body as { total_items: number }).total_items > 10);
      // A path a GET carries, every parameter given, numbers as numbers or as strings: the same bytes.
      const short = longPath(300);
      const query = `fuel=ULP91&path=${encodeURIComponent(short)}&corridor=1.5&order=net_cost&litres=40&consumption=8.5&max_age=48&limit=7&page=2`;
      const short200 = await get(server, `/v1/prices/along?${query}`);
      assert.equal(short200.status, 200, short200.text);
      for (const body of [
        { fuel: 'ULP91', path: short, corridor: 1.5, order: 'net_cost', litres: 40, consumption: 8.5, max_age: 48, limit: 7, page: 2 },
        { fuel: 'ULP91', path: short, corridor: '1.5', order: 'net_cost', litres: '40', consumption: '8.5', max_age: '48', limit: '7', page: '2', unknown: { x: 1 } },
      ]) {
        const byPost = await post(server, '/v1/prices/along', body);
        assert.equal(byPost.status, 200, byPost.text);
        assert.equal(byPost.text, short200.text);
      }
    });

    test('the same 400s as the GET, word for word, for the same bad parameter', async () => {
      const short = longPath(20);
      const cases: Array<[string, Record<string, unknown>]> = [
        [`fuel=petrol&path=${short}`, { fuel: 'petrol', path: short }],
        [`path=${short}`, { path: short }],
        ['fuel=ulp91', { fuel: 'ulp91' }],
        ['fuel=ulp91&path=_p~iF', { fuel: 'ulp91', path: '_p~iF' }],
        [`fuel=ulp91&path=${short}&corridor=21`, { fuel: 'ulp91', path: short, corridor: 21 }],
        [`fuel=ulp91&path=${short}&corridor=1e1`, { fuel: 'ulp91', path: short, corridor: 1e21 }],
        [`fuel=ulp91&path=${short}&limit=101`, { fuel: 'ulp91', path: short, limit: 101 }],
        [`fuel=ulp91&path=${short}&limit=1.5`, { fuel: 'ulp91', path: short, limit: 1.5 }],
        [`fuel=ulp91&path=${short}&litres=40`, { fuel: 'ulp91', path: short, litres: 40 }],
        [`fuel=ulp91&path=${short}&page=2&offset=1`, { fuel: 'ulp91', path: short, page: 2, offset: 1 }],
      ];
      for (const [query, body] of cases) {
        const byGet = await get(server, `/v1/prices/along?${query.replace(short, encodeURIComponent(short))}`);
        assert.equal(byGet.status, 400, query);
        const message = (byGet.body as { error: { message: string } }).error.message;
        assertError(await post(server, '/v1/prices/along', body), message, JSON.stringify(body).slice(0, 80));
      }
      const tooMany = Array.from({ length: 101 }, (_, i) => `s${i}`);
      const idsMessage = "Parameter 'ids' must be 1 to 100 station ids separated by commas.";
      for (const ids of [tooMany, [], ['a', ''], ['x'.repeat(201)], 'a,,b']) {
        assertError(await post(server, '/v1/stations/prices', { ids }), idsMessage, JSON.stringify(ids).slice(0, 40));
      }
      assertError(await post(server, '/v1/stations/prices', {}), `Parameter 'ids' is required; it must be 1 to 100 station ids separated by commas.`, 'no ids');
    });

    test('bad bodies: wrong types, not JSON, not an object, the wrong content type, too long, a query besides: 400, nothing else', async () => {
      const short = longPath(20);
      const idsType = "Parameter 'ids' must be 1 to 100 station ids separated by commas (in a body: an array of strings, or one string).";
      for (const ids of [7, true, null, [1, 2], { a: 'b' }, ['a', ['b']]]) assertError(await post(server, '/v1/stations/prices', { ids }), idsType, JSON.stringify(ids));
      assertError(await post(server, '/v1/prices/along', { fuel: 'ulp91', path: [short] }),
        "Parameter 'path' must be an encoded polyline (precision 5) of 2 to 1000 points, at most 7000 characters.", 'path as an array');
      assertError(await post(server, '/v1/prices/along', { fuel: 'ulp91', path: short, limit: true }), "Parameter 'limit' must be a whole number from 1 to 100.", 'limit true');
      assertError(await post(server, '/v1/prices/along', { fuel: 7, path: short }), "Parameter 'fuel' must be one of e10, ulp91, ulp95, ulp98, diesel, pdiesel, lpg, e85, e5, ev, b20, cng, lng, opal, lrp, ulsd, ulp-combined, pulp-combined, diesel-combined.", 'fuel 7');
      const notObject = 'The body must be a JSON object of the parameters, as the GET takes them in its query (e.g. {"fuel": "ulp91", "path": "…"}).';
      for (const body of ['["a"]', '"ids"', '12', 'null']) assertError(await post(server, '/v1/stations/prices', body), notObject, body);
      for (const body of ['{"ids": [', 'ids=a,b', '{"ids": ["a"]} x', '{"__proto__": {"ids": ["a"]}}']) {
        assertError(await post(server, '/v1/stations/prices', body), 'The body is not valid JSON.', body);
      }
      assertError(await post(server, '/v1/stations/prices', ''), 'The body is empty; it must be a JSON object of the parameters.', 'empty');
      const wrongType = 'The body must be JSON, sent as Content-Type: application/json.';
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
        assertError(await post(server, '/v1/stations/prices', { ids: ['a'] }, { 'content-type': type }), wrongType, type);
      }
      // application/json with a charset is JSON.
      assert.equal((await post(server, '/v1/stations/prices', { ids: ['a'] }, { 'content-type': 'application/json; charset=utf-8' })).status, 200);
      const tooLong = JSON.stringify({ ids: ['a'], pad: 'x'.repeat(32_768) });
      const r = await post(server, '/v1/stations/prices', tooLong);
      assertError(r, 'The body must state its length (Content-Length) and be at most 32768 bytes.', 'too long');
      assert.equal(r.headers.get('connection'), 'close');
      assertError(await post(server, '/v1/stations/prices?ids=a', { ids: ['a'] }), 'A POST takes its parameters in its JSON body; its URL has no query string.', 'a query');
      // PUT is still 405, with POST now in Allow.
      const put = await get(server, '/v1/stations/prices', { method: 'PUT' });
      assert.equal(put.status, 405);
      assert.equal(put.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
      assert.equal((await get(server, '/v1/stations/alpha/prices', { method: 'POST' })).status, 405);
    });

    test('a POST needs the token and counts once against the rate limit, as the GET does', async () => {
      const anonymous = await fetch(`${server.baseUrl}/v1/stations/prices`, { method: 'POST', body: '{"ids":["a"]}', headers: { 'content-type': 'application/json' } });
      assert.equal(anonymous.status, 401);
      const remaining = (r: { headers: Headers }): number => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]);
      const first = await post(server, '/v1/stations/prices', { ids: ['a'] });
      const second = await get(server, '/v1/stations/prices?ids=a');
      const third = await post(server, '/v1/prices/along', { fuel: 'ulp91', path: longPath(5) });
      assert.deepEqual([remaining(second), remaining(third)], [remaining(first) - 1, remaining(first) - 2]);
    });

    test('bad URL encoding (not UTF-8, not an escape) is a 400 naming the parameter on every route', async () => {
      const message = (name: string): string => `Parameter '${name}' is not valid URL encoding: each %XX escape must be two hex digits, and together they must make UTF-8.`;
      for (const [url, name] of [
        ['/v1/stations/prices?ids=%FF%FE', 'ids'], ['/v1/stations/prices?ids=ok,%C3', 'ids'], ['/v1/prices/along?fuel=ulp91&path=%zz', 'path'],
        ['/v1/prices/cheapest?fuel=ulp91&state=%E0%A4', 'state'], ['/v1/stations?limit=5&q=%', 'q'], ['/v1/cities?x=%ED%A0%80', 'x'],
        ['/v1/prices?%FF=1', '%FF'], ['/v1/fuel-types?a=1&b=%FF', 'b'],
      ] as const) {
        assertError(await get(server, url), message(name), url);
      }
      // In the path, the router's own check: 400 too.
      assertError(await get(server, '/v1/stations/%FF%FE/prices'), 'The URL is not valid: check its percent-encoding.', 'a path segment');
      // Valid escapes are as ever: %C3%A9 is é (an unknown id, answered 200).
      const ok = await get(server, '/v1/stations/prices?ids=caf%C3%A9');
      assert.deepEqual(ok.body, { data: [], unknown: ['café'] });
    });
  });
}
