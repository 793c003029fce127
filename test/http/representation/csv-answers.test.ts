import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CityInput, StationInput } from '../../../src/storage/store.ts';
import { newToken } from '../../../src/tokens.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import { fixedClock, servedStore, testBackends } from '../../helpers.ts';

/*
 * CSV answers against a real server: the fixture (test/fixture.ts) and, in the ACT, two cities
 * and two stations whose names and details are awkward for CSV (commas, quotes, a newline, text
 * a spreadsheet would run as a formula). Expected CSV is either written out by hand or made here,
 * row for row, from the JSON answer to the same request with this file's own field writer.
 */

const AWKWARD_CITIES: CityInput[] = [
  { id: 'comma-town', name: 'Comma, "Quoted" Town', state: 'act', latitude: -35.2809, longitude: 149.13 },
  { id: 'formula-town', name: '=SUM(1+1)', state: 'act', latitude: -35.35, longitude: 149 },
];
const AWKWARD_STATIONS: StationInput[] = [
  {
    feed: 'csv', feedCode: '1', slug: 'Comma Quoted Fuel', name: 'Comma, "Quoted" Fuel', brand: 'Ampol', address: 'Unit 1, 2 Long Road\nCanberra ACT 2600',
    street: '2 Long Road', suburb: 'Canberra', postcode: '2600', state: 'act', phone: '+61 2 6000 0000', website: '=HYPERLINK("http://evil.example")',
    latitude: -35.2809, longitude: 149.13,
  },
  {
    feed: 'csv', feedCode: '2', slug: 'Evil Fuel', name: '@Evil Fuel', brand: '-Dash', address: '', street: '', suburb: '', postcode: '2600', state: 'act',
    phone: '', website: '', latitude: -35.29, longitude: 149.14,
  },
];

type Item = Record<string, string | number | boolean | string[] | undefined>;

/** The expected field, written independently of src/http/representation/csv.ts: formula text marked, then RFC 4180 quoting. */
function field(value: Item[string]): string {
  if (value === false || value === undefined) return '';
  let text = typeof value === 'object' ? value.join(' ') : String(value);
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
const table = (columns: string[], rows: Item[]): string =>
  [columns.join(','), ...rows.map((row) => columns.map((c) => field(row[c])).join(','))].map((line) => `${line}\r\n`).join('');

interface Page { data: Item[]; total_items: number; total_pages: number; current_page: number }
interface History { data: { history: Array<{ fuel: string; records: Array<{ date: string; average: string }> | false }> } }

/** Everything but the fields that differ on every request by design. */
function comparable(response: Response): Record<string, string> {
  const headers = Object.fromEntries(response.headers.entries());
  delete headers['x-request-id'];
  delete headers.ratelimit;
  delete headers.date;
  return headers;
}

const CSV_TYPE = 'text/csv; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

for (const backend of testBackends()) {
  describe(`CSV answers on ${backend.name}`, () => {
    const token = newToken('csv', NOW);
    const limited = newToken('csv-limited', NOW, { rateLimit: 1 });
    const { server, throughFastify } = servedStore(backend, fixedClock(NOW), async (filled) => {
      await loadFixture(filled);
      await filled.upsertCities(AWKWARD_CITIES);
      await filled.applyBatch({ stations: AWKWARD_STATIONS, prices: [] });
      await filled.createToken(token.record);
      await filled.createToken(limited.record);
    }, { versionReuseMs: 60_000 });
    const call = (path: string, headers: Record<string, string> = {}, bearer: string | null = token.token): Promise<Response> =>
      fetch(`${server.baseUrl}${path}`, { headers: { ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }), ...headers } });
    async function csv(path: string, headers: Record<string, string> = {}): Promise<{ response: Response; text: string }> {
      const response = await call(path, headers);
      const text = await response.text();
      assert.equal(response.status, 200, `${path}: ${text}`);
      assert.equal(response.headers.get('content-type'), CSV_TYPE, path);
      return { response, text };
    }
    async function json<T>(path: string): Promise<T> {
      const response = await call(path);
      assert.equal(response.status, 200, path);
      assert.equal(response.headers.get('content-type'), JSON_TYPE, path);
      return await response.json() as T;
    }
    async function error(path: string, headers: Record<string, string>, status: number, code: string, bearer: string | null = token.token): Promise<Response> {
      const response = await call(path, headers, bearer);
      assert.equal(response.status, status, path);
      assert.equal(response.headers.get('content-type'), JSON_TYPE, path);
      const body = await response.json() as { error: { code: string; request_id: string } };
      assert.equal(body.error.code, code, path);
      assert.equal(body.error.request_id, response.headers.get('x-request-id'), path);
      return response;
    }

    test('awkward names: quoted, quotes doubled, the newline kept, formulas marked (written out by hand)', async () => {
      assert.equal((await csv('/v1/stations?state=act&format=csv')).text, [
        'id,name,brand,address,street,suburb,postcode,state,phone,website,latitude,longitude\r\n',
        'comma-quoted-fuel,"Comma, ""Quoted"" Fuel",Ampol,"Unit 1, 2 Long Road\nCanberra ACT 2600",2 Long Road,Canberra,2600,act,',
        '\'+61 2 6000 0000,"\'=HYPERLINK(""http://evil.example"")",-35.2809,149.1300\r\n',
        'evil-fuel,\'@Evil Fuel,\'-Dash,,,,2600,act,,,-35.2900,149.1400\r\n',
      ].join(''));
      assert.equal((await csv('/v1/cities?state=act', { accept: 'text/csv' })).text, [
        'id,name,state,latitude,longitude\r\n',
        'comma-town,"Comma, ""Quoted"" Town",act,-35.2809,149.1300\r\n',
        'formula-town,\'=SUM(1+1),act,-35.3500,149.0000\r\n',
      ].join(''));
      assert.equal((await csv('/v1/brands?state=act&format=csv')).text, 'id,name,station_count\r\nampol,Ampol,1\r\ndash,\'-Dash,1\r\n');
    });

    test('a fixture history, written out by hand: date,fuel,average in the JSON\'s units and order', async () => {
      // Alpha Sydney (test/fixture.ts): ulp91 180.0 from 20-11, 190.0 from 21-11 06:00, 185.0 from 18:00; e10 177.0 from 22-11, out of stock from 23-11 08:00.
      // 21-11: (6 h * 1800 + 12 h * 1900 + 6 h * 1850) / 24 h = 1862.5 -> 186.3. 23-11 e10: in stock until 08:00, so 177.0. ulp-combined pools both.
      assert.equal((await csv('/v1/stations/alpha-sydney/history?timeframe=last-week&format=csv')).text, [
        'date,fuel,average',
        '23-11-2026,e10,177.0', '22-11-2026,e10,177.0',
        '23-11-2026,ulp91,185.0', '22-11-2026,ulp91,185.0', '21-11-2026,ulp91,186.3', '20-11-2026,ulp91,180.0',
        '23-11-2026,ulp-combined,181.0', '22-11-2026,ulp-combined,181.0', '21-11-2026,ulp-combined,186.3', '20-11-2026,ulp-combined,180.0',
      ].map((line) => `${line}\r\n`).join(''));
    });

    test('every list, row for row the JSON answer to the same request', async () => {
      const lists: Array<[string, string[]]> = [
        ['/v1/cities?limit=100', ['id', 'name', 'state', 'latitude', 'longitude']],
        ['/v1/cities?state=nsw', ['id', 'name', 'state', 'latitude', 'longitude']],
        ['/v1/stations?limit=100', ['id', 'name', 'brand', 'address', 'street', 'suburb', 'postcode', 'state', 'phone', 'website', 'latitude', 'longitude']],
        ['/v1/stations?limit=2&page=2', ['id', 'name', 'brand', 'address', 'street', 'suburb', 'postcode', 'state', 'phone', 'website', 'latitude', 'longitude']],
        ['/v1/stations?near=-33.87,151.2&radius=10', ['id', 'name', 'brand', 'address', 'street', 'suburb', 'postcode', 'state', 'phone', 'website', 'latitude', 'longitude', 'distance_km']],
        ['/v1/brands?limit=100', ['id', 'name', 'station_count']],
        ['/v1/prices/cheapest?fuel=ulp91&state=nsw', ['station_id', 'name', 'brand', 'address', 'latitude', 'longitude', 'price', 'updated_at']],
        ['/v1/prices/cheapest?fuel=ulp-combined&near=-33.87,151.2&order=desc', ['station_id', 'name', 'brand', 'address', 'latitude', 'longitude', 'price', 'updated_at', 'distance_km']],
        ['/v1/prices/cheapest?fuel=lpg&state=nsw', ['station_id', 'name', 'brand', 'address', 'latitude', 'longitude', 'price', 'updated_at']],
      ];
      for (const [path, columns] of lists) {
        const page = await json<Page>(path);
        const byFormat = await csv(`${path}&format=csv`);
        const byAccept = await csv(path, { accept: 'text/csv' });
        assert.equal(byFormat.text, table(columns, page.data), path);
        assert.equal(byAccept.text, byFormat.text, path);
        assert.equal(byAccept.response.headers.get('x-total-count'), String(page.total_items), path);
        assert.equal(byAccept.response.headers.get('x-total-pages'), String(page.total_pages), path);
        assert.equal(byAccept.response.headers.get('x-current-page'), String(page.current_page), path);
      }
      const fuelTypes = await json<{ data: Item[] }>('/v1/fuel-types');
      const fuelCsv = (await csv('/v1/fuel-types?format=csv')).text;
      assert.equal(fuelCsv, table(['id', 'name', 'unit', 'combined_of'], fuelTypes.data));
      assert.ok(fuelCsv.includes('\r\nulp-combined,Unleaded 91 and E10,c/L,ulp91 e10\r\n'));
    });

    test('both histories, row for row the JSON records: fuel by fuel, newest first, dollars for a city and cents for a station', async () => {
      for (const path of [
        '/v1/cities/sydney/history', '/v1/cities/sydney/history?timeframe=all-time', '/v1/cities/perth/history?timeframe=last-week',
        '/v1/cities/hobart/history', '/v1/stations/alpha-sydney/history?timeframe=all-time', '/v1/stations/beta-sydney/history?timeframe=last-week',
      ]) {
        const history = await json<History>(path);
        const rows = history.data.history.flatMap(({ fuel, records }) => (records || []).map((r) => ({ date: r.date, fuel, average: r.average })));
        const withFormat = `${path}${path.includes('?') ? '&' : '?'}format=csv`;
        assert.equal((await csv(withFormat)).text, table(['date', 'fuel', 'average'], rows), path);
        assert.equal((await csv(path, { accept: 'text/csv' })).text, table(['date', 'fuel', 'average'], rows), path);
      }
      assert.match((await csv('/v1/cities/sydney/history?format=csv')).text, /^date,fuel,average\r\n\d\d-11-2026,e10,\d\.\d\d\r\n/);
      assert.equal((await csv('/v1/cities/hobart/history?format=csv')).text, 'date,fuel,average\r\n');
    });

    test('headers: Content-Type, a file name per route, Vary: Accept, an ETag of its own, and 304 for it', async () => {
      const files: Array<[string, string]> = [
        ['/v1/cities?format=csv', 'cities-page-1.csv'],
        ['/v1/stations?limit=2&page=3&format=csv', 'stations-page-3.csv'],
        ['/v1/stations?limit=2&offset=2&format=csv', 'stations-page-2.csv'],
        ['/v1/brands?format=csv', 'brands-page-1.csv'],
        ['/v1/fuel-types?format=csv', 'fuel-types.csv'],
        ['/v1/prices/cheapest?fuel=ULP91&state=nsw&format=csv', 'cheapest-ulp91-page-1.csv'],
        ['/v1/cities/sydney/history?format=csv', 'sydney-history-last-month.csv'],
        ['/v1/stations/alpha-sydney/history?timeframe=all-time&format=csv', 'alpha-sydney-history-all-time.csv'],
      ];
      for (const [path, filename] of files) {
        const { response } = await csv(path);
        assert.equal(response.headers.get('content-disposition'), `attachment; filename="${filename}"`, path);
        assert.equal(response.headers.get('vary'), 'Accept', path);
        const jsonAnswer = await call(path.replace('format=csv', 'format=json'));
        assert.equal(jsonAnswer.headers.get('vary'), 'Accept', path);
        assert.equal(jsonAnswer.headers.get('content-disposition'), null, path);
        const etag = response.headers.get('etag') ?? assert.fail(path);
        assert.notEqual(jsonAnswer.headers.get('etag'), etag, path);
        await jsonAnswer.arrayBuffer();
        const again = await call(path, { 'if-none-match': etag });
        assert.equal(again.status, 304, path);
        assert.equal(await again.text(), '', path);
        assert.equal(again.headers.get('vary'), 'Accept', path);
      }
      // By Accept: the same CSV, the same ETag, and a 304 for it; the JSON's ETag is not the CSV's.
      const byAccept = await csv('/v1/cities/sydney/history', { accept: 'text/csv' });
      const byFormat = await csv('/v1/cities/sydney/history?format=csv');
      assert.equal(byAccept.response.headers.get('etag'), byFormat.response.headers.get('etag'));
      const jsonEtag = (await call('/v1/cities/sydney/history')).headers.get('etag') ?? assert.fail('no etag');
      assert.equal((await call('/v1/cities/sydney/history', { accept: 'text/csv', 'if-none-match': String(byAccept.response.headers.get('etag')) })).status, 304);
      const notMatched = await call('/v1/cities/sydney/history', { accept: 'text/csv', 'if-none-match': jsonEtag });
      assert.equal(notMatched.status, 200);
      assert.equal(await notMatched.text(), byAccept.text);
      // A route without CSV has no Vary and answers JSON whatever is asked: format is an unknown parameter there.
      const city = await call('/v1/cities/sydney?format=csv', { accept: 'text/csv' });
      assert.equal(city.status, 200);
      assert.equal(city.headers.get('content-type'), JSON_TYPE);
      assert.equal(city.headers.get('vary'), null);
      await city.arrayBuffer();
    });

    test('HEAD: the CSV answer\'s headers without its body', async () => {
      const got = await csv('/v1/brands?format=csv');
      const head = await fetch(`${server.baseUrl}/v1/brands?format=csv`, { method: 'HEAD', headers: { authorization: `Bearer ${token.token}` } });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), '');
      assert.equal(head.headers.get('content-type'), CSV_TYPE);
      assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(got.text)));
      assert.equal(head.headers.get('etag'), got.response.headers.get('etag'));
      assert.equal(head.headers.get('content-disposition'), 'attachment; filename="brands-page-1.csv"');
    });

    test('the OpenAPI document: text/csv beside application/json on each CSV route\'s 200, the format parameter, the 406', async () => {
      type Operation = { parameters: Array<{ name: string; in: string; schema: { enum?: string[] } }>; responses: Record<string, { content?: Record<string, { schema: { type?: string } }> }> };
      const doc = await (await fetch(`${server.baseUrl}/v1/openapi.json`)).json() as { paths: Record<string, { get: Operation }> };
      const withCsv = ['/v1/cities', '/v1/stations', '/v1/brands', '/v1/fuel-types', '/v1/prices/cheapest', '/v1/cities/{id}/history', '/v1/stations/{id}/history'];
      for (const [path, item] of Object.entries(doc.paths)) {
        if (!path.startsWith('/v1/') || path === '/v1/openapi.json') continue;
        const ok = item.get.responses['200']?.content ?? assert.fail(path);
        const format = item.get.parameters.find((p) => p.name === 'format');
        if (withCsv.includes(path)) {
          assert.deepEqual(Object.keys(ok), ['application/json', 'text/csv'], path);
          assert.equal(ok['text/csv']?.schema.type, 'string', path);
          assert.deepEqual([format?.in, format?.schema.enum], ['query', ['csv', 'json']], path);
          assert.ok(item.get.responses['406'], path);
        } else {
          // The changes feed answers JSON, or the same feed as server-sent events (docs/CHANGES.md); never CSV.
          assert.deepEqual(Object.keys(ok), path === '/v1/prices/changes' ? ['application/json', 'text/event-stream'] : ['application/json'], path);
          assert.equal(format, undefined, path);
          assert.equal(item.get.responses['406'], undefined, path);
        }
      }
    });

    test('page headers: the envelope\'s numbers and links to the pages either side, with the request\'s own parameters', async () => {
      const { response } = await csv('/v1/stations?state=nsw&limit=1&page=2&format=csv');
      assert.equal(response.headers.get('link'), '</v1/stations?state=nsw&limit=1&page=1&format=csv>; rel="prev", </v1/stations?state=nsw&limit=1&page=3&format=csv>; rel="next"');
      assert.deepEqual([response.headers.get('x-total-count'), response.headers.get('x-total-pages'), response.headers.get('x-current-page')], ['4', '4', '2']);
      // A script of another origin may read them (CORS).
      assert.match(response.headers.get('access-control-expose-headers') ?? '', /Content-Disposition, Link, X-Total-Count, X-Total-Pages, X-Current-Page/);
      const last = (await csv('/v1/stations?state=nsw&limit=3&offset=3', { accept: 'text/csv' })).response;
      assert.equal(last.headers.get('link'), '</v1/stations?state=nsw&limit=3&offset=0>; rel="prev"');
      const past = await csv('/v1/cities?page=9&format=csv');
      assert.equal(past.text, 'id,name,state,latitude,longitude\r\n');
      assert.deepEqual([past.response.headers.get('x-total-count'), past.response.headers.get('x-current-page')], ['5', '9']);
      // JSON keeps its envelope and has no page headers.
      const jsonPage = await call('/v1/stations?state=nsw&limit=1&page=2');
      assert.equal(jsonPage.headers.get('link'), null);
      assert.equal(jsonPage.headers.get('x-total-count'), null);
      await jsonPage.arrayBuffer();
    });

    test('format decides over Accept; without it Accept decides, JSON on a tie', async () => {
      const path = '/v1/brands';
      const jsonText = await (await call(path)).text();
      const csvText = (await csv(`${path}?format=csv`)).text;
      const as = async (target: string, accept?: string): Promise<string> => {
        const response = await call(target, accept === undefined ? {} : { accept });
        assert.equal(response.status, 200, `${target} ${String(accept)}`);
        return response.text();
      };
      assert.equal(await as(`${path}?format=json`, 'text/csv'), jsonText);
      assert.equal(await as(`${path}?format=JSON`, 'text/csv'), jsonText);
      assert.equal(await as(`${path}?format=csv`, 'application/json'), csvText);
      assert.equal(await as(`${path}?format=CSV`, 'text/html'), csvText);
      assert.equal(await as(path, 'application/json, text/csv'), jsonText);
      assert.equal(await as(path, 'application/json;q=0.9, text/csv'), csvText);
      assert.equal(await as(path, 'text/*'), csvText);
      assert.equal(await as(path, 'text/html,application/xhtml+xml,*/*;q=0.8'), jsonText);
      assert.equal(await as(path), jsonText);
    });

    test('an Accept that allows neither JSON nor CSV: 406 in the JSON error shape; a bad format: 400', async () => {
      for (const path of ['/v1/cities', '/v1/stations', '/v1/brands', '/v1/fuel-types', '/v1/prices/cheapest?fuel=ulp91&state=nsw', '/v1/cities/sydney/history', '/v1/stations/alpha-sydney/history']) {
        const refused = await error(path, { accept: 'text/html' }, 406, 'not_acceptable');
        assert.equal(refused.headers.get('vary'), 'Accept');
        assert.equal(refused.headers.get('cache-control'), 'no-store');
        await error(path, { accept: 'application/json;q=0' }, 406, 'not_acceptable');
      }
      const bad = await call('/v1/cities?format=xml');
      assert.equal(bad.status, 400);
      assert.deepEqual(await bad.json(), { error: { code: 'invalid_parameter', message: "Parameter 'format' must be csv or json.", request_id: bad.headers.get('x-request-id') } });
      await error('/v1/cities?format=csv&format=json', {}, 400, 'invalid_parameter');
      await error('/v1/fuel-types?format=', { accept: 'text/csv' }, 400, 'invalid_parameter');
      // The route's own message is about the Accept header.
      const body = await (await call('/v1/cities', { accept: 'image/png' })).json() as { error: { message: string } };
      assert.equal(body.error.message, 'This answer is application/json or text/csv (or ?format=csv or json); the Accept header allows neither. Errors are always JSON.');
    });

    test('errors stay JSON when CSV was asked for: 400, 401, 404 and 429', async () => {
      for (const headers of [{ accept: 'text/csv' }, {}] as Array<Record<string, string>>) {
        const csvQuery = 'accept' in headers ? '' : 'format=csv';
        await error(`/v1/cities?limit=0&${csvQuery}`, headers, 400, 'invalid_parameter');
        await error(`/v1/prices/cheapest?fuel=ulp91&${csvQuery}`, headers, 400, 'invalid_parameter');
        await error(`/v1/cities/atlantis/history?${csvQuery}`, headers, 404, 'not_found');
        await error(`/v1/stations/nowhere/history?${csvQuery}`, headers, 404, 'not_found');
        await error(`/v1/prices/cheapest?fuel=ulp91&city=atlantis&${csvQuery}`, headers, 404, 'not_found');
        const unauthorized = await error(`/v1/stations?${csvQuery}`, headers, 401, 'unauthorized', null);
        assert.match(unauthorized.headers.get('www-authenticate') ?? '', /^Bearer realm="fuelprice"/);
      }
      // A token of one request a minute: its second is over the limit.
      assert.equal((await call('/v1/fuel-types?format=csv', {}, limited.token)).status, 200);
      const over = await error('/v1/fuel-types?format=csv', { accept: 'text/csv' }, 429, 'rate_limited', limited.token);
      assert.match(over.headers.get('retry-after') ?? '', /^[0-9]+$/);
    });

    test('a cached JSON answer is never sent for CSV, nor CSV for JSON, on the fast path or the full path, in either order', async () => {
      const sendsJson = async (path: string, headers: Record<string, string>, expected: string, viaFastPath: boolean) => {
        const counted = throughFastify();
        const response = await call(path, headers);
        assert.equal(response.headers.get('content-type'), JSON_TYPE, `${path} ${JSON.stringify(headers)}`);
        assert.equal(await response.text(), expected, path);
        assert.equal(throughFastify(), viaFastPath ? counted : counted + 1, `${path} ${JSON.stringify(headers)}: fast path ${String(viaFastPath)}`);
        return response;
      };
      const sendsCsv = async (path: string, headers: Record<string, string>, expected: string, viaFastPath: boolean) => {
        const counted = throughFastify();
        const { response, text } = await csv(path, headers);
        assert.equal(text, expected, path);
        assert.equal(throughFastify(), viaFastPath ? counted : counted + 1, `${path} ${JSON.stringify(headers)}: fast path ${String(viaFastPath)}`);
        return response;
      };
      // What each answer is, worked out once on URLs of their own (a parameter's default given).
      const jsonOf = async (path: string) => (await call(`${path}&limit=10`)).text();
      const csvOf = async (path: string) => (await csv(`${path}&limit=10&format=csv`)).text;

      // JSON first: kept under the URL and sent by the fast path; CSV by Accept then goes to the full path, twice
      // (the second from the cache, with the same headers), and JSON is still sent by the fast path after it.
      const first = '/v1/stations?state=nsw';
      const [firstJson, firstCsv] = [await jsonOf(first), await csvOf(first)];
      const jsonMiss = await sendsJson(first, {}, firstJson, false);
      const jsonHit = await sendsJson(first, {}, firstJson, true);
      assert.deepEqual(comparable(jsonHit), comparable(jsonMiss));
      const csvMiss = await sendsCsv(first, { accept: 'text/csv' }, firstCsv, false);
      const csvHit = await sendsCsv(first, { accept: 'text/csv' }, firstCsv, false);
      assert.deepEqual(comparable(csvHit), comparable(csvMiss));
      assert.equal(csvHit.headers.get('content-disposition'), 'attachment; filename="stations-page-1.csv"');
      await sendsJson(first, { accept: '*/*' }, firstJson, true);
      // The full path's cache (a conditional request never takes the fast path) keeps them apart too.
      await sendsJson(first, { 'if-none-match': '"other"' }, firstJson, false);
      await sendsCsv(first, { accept: 'text/csv', 'if-none-match': '"other"' }, firstCsv, false);

      // CSV first, then JSON, on another URL.
      const second = '/v1/cities/sydney/history?timeframe=last-year';
      const history = await (await call(`${second}&format=json`)).text();
      const historyCsv = (await csv(`${second}&format=csv`)).text;
      await sendsCsv(second, { accept: 'text/csv' }, historyCsv, false);
      await sendsCsv(second, { accept: 'text/csv' }, historyCsv, false);
      await sendsJson(second, { 'if-none-match': '"other"' }, history, false);
      await sendsJson(second, {}, history, true);
      await sendsJson(second, { accept: 'application/json' }, history, true);
      await sendsCsv(second, { accept: 'text/csv' }, historyCsv, false);
      await sendsCsv(second, { accept: 'text/html, text/csv;q=0.5' }, historyCsv, false);

      // format=csv is in the URL: its CSV is kept under it and sent by the fast path, whatever Accept says (format decides).
      const byUrl = '/v1/prices/cheapest?fuel=ulp91&state=nsw&order=asc&format=csv';
      const cheapestCsv = (await csv(byUrl.replace('format=csv', 'limit=10&format=csv'))).text;
      const urlMiss = await sendsCsv(byUrl, {}, cheapestCsv, false);
      const urlHit = await sendsCsv(byUrl, {}, cheapestCsv, true);
      assert.deepEqual(comparable(urlHit), comparable(urlMiss));
      await sendsCsv(byUrl, { accept: 'application/json' }, cheapestCsv, true);
      await sendsJson(byUrl.replace('format=csv', 'format=json'), {}, await jsonOf('/v1/prices/cheapest?fuel=ulp91&state=nsw'), false);
      // An Accept the fast path does not take to be JSON's goes to the full path, which answers it (here a 406).
      const counted = throughFastify();
      await error(first, { accept: 'text/html' }, 406, 'not_acceptable');
      assert.equal(throughFastify(), counted + 1);
    });
  });
}
