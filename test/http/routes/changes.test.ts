/**
 * GET /v1/prices/changes (issue 31, part 5): the feed of current-price changes after a cursor,
 * long polling and server-sent events, on a real server over a real store, with a second store
 * on the same database (another connection, as `fuelprice ingest` is another process) writing
 * through the ingest API.
 *
 * Worked by hand from test/fixture.ts: loadFixture stores one batch; the writer numbers the
 * changed current prices in its order, station key then fuel index (keys 1 alpha-sydney,
 * 2 beta-sydney, 3 gamma-perth, 4 alpha-sydney-2, 5 delta-country; fuels e10 0, ulp91 1,
 * diesel 4), each new price a change:
 *
 *   1 alpha-sydney  e10    out of stock at 1795381200, last in stock 177.0
 *   2 alpha-sydney  ulp91  185.0 at 1795244400
 *   3 beta-sydney   ulp91  175.0 at 1795384800
 *   4 beta-sydney   diesel 199.0 at 1795302000
 *   5 gamma-perth   ulp91  165.0 at 1795384800
 *   6 delta-country diesel 210.0 at 1795266000
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { NOW, STATIONS, loadFixture } from '../../fixture.ts';
import { type RunningServer, createPostgresDatabase, fixedClock, get, postgresServerUrl, startServer, waitFor } from '../../helpers.ts';
import { PostgresStore } from '../../../src/storage/postgres/postgres-store.ts';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.ts';
import type { PriceEvent, PriceStore } from '../../../src/storage/store.ts';

const change = (cursor: number, station: string, fuel: string, price: string, available: boolean, at: number) =>
  ({ cursor: String(cursor), station_id: station, fuel, price, available, updated_at: at });
const FIXTURE = [
  change(1, 'alpha-sydney', 'e10', '177.0', false, 1_795_381_200),
  change(2, 'alpha-sydney', 'ulp91', '185.0', true, 1_795_244_400),
  change(3, 'beta-sydney', 'ulp91', '175.0', true, 1_795_384_800),
  change(4, 'beta-sydney', 'diesel', '199.0', true, 1_795_302_000),
  change(5, 'gamma-perth', 'ulp91', '165.0', true, 1_795_384_800),
  change(6, 'delta-country', 'diesel', '210.0', true, 1_795_266_000),
];
type Change = (typeof FIXTURE)[number];
const price = (feedCode: string, fuel: PriceEvent['fuel'], at: number, priceTenths: number, available = true): PriceEvent =>
  ({ feed: 'test', feedCode, fuel, at, priceTenths, available });

/** Two stores on one fresh database: one served, one for the test to ingest through (another connection). */
interface Pair { served: PriceStore; ingest: PriceStore; drop: () => Promise<void> }
const BACKENDS: Array<{ name: string; open: () => Promise<Pair> }> = [{
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-changes-'));
    const served = new SqliteStore(join(dir, 'test.db'));
    await served.migrate();
    const ingest = new SqliteStore(join(dir, 'test.db'));
    await ingest.migrate();
    return { served, ingest, drop: async () => { await served.close(); await ingest.close(); rmSync(dir, { recursive: true, force: true }); } };
  },
}];
const postgres = postgresServerUrl();
if (postgres) {
  BACKENDS.push({
    name: 'postgres',
    async open() {
      const database = await createPostgresDatabase(postgres);
      const served = new PostgresStore({ connectionString: database.url, max: 4 });
      await served.migrate();
      const ingest = new PostgresStore({ connectionString: database.url, max: 2 });
      return { served, ingest, drop: async () => { await served.close(); await ingest.close(); await database.drop(); } };
    },
  });
}

/** Every page from `since` to the end, following next while more. */
async function allAfter(server: RunningServer, since: number, query = '', limit = 2): Promise<{ changes: Change[]; next: string }> {
  const changes: Change[] = [];
  let cursor = String(since);
  for (let pages = 0; pages < 50; pages++) {
    const r = await get(server, `/v1/prices/changes?since=${cursor}&limit=${limit}${query}`);
    assert.equal(r.status, 200, r.text);
    const body = r.body as { data: Change[]; next: string; more: boolean };
    changes.push(...body.data);
    cursor = body.next;
    if (!body.more) return { changes, next: cursor };
  }
  assert.fail('more than 50 pages');
}

type StreamEvent = { id: string; event: string; data: unknown };

/** The server-sent events of a response, read as they come: take(n) gives the next n (fewer when the stream ends). */
function eventsOf(response: Response): { take: (count: number) => Promise<StreamEvent[]>; release: () => void } {
  const reader = (response.body ?? assert.fail('no body')).getReader();
  const decoder = new TextDecoder();
  const queued: StreamEvent[] = [];
  let text = '';
  let ended = false;
  return {
    async take(count) {
      while (queued.length < count && !ended) {
        const { value, done } = await reader.read();
        if (done) { ended = true; break; }
        text += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          if (block.startsWith(':')) continue;
          const field = (name: string) => block.split('\n').find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? '';
          queued.push({ id: field('id'), event: field('event'), data: JSON.parse(field('data')) });
        }
      }
      return queued.splice(0, count);
    },
    release: () => reader.releaseLock(),
  };
}

/** Every event of a response until it has `count` (or the stream ends). */
const readEvents = (response: Response, count: number) => eventsOf(response).take(count);

/** A stream request, given up after 20 s at most (so that a test cannot hang; no duration is asserted). */
const sse = (server: RunningServer, path: string, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${server.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${server.token}`, accept: 'text/event-stream', ...headers },
    signal: AbortSignal.any([AbortSignal.timeout(20_000), ...(signal ? [signal] : [])]),
  });

for (const backend of BACKENDS) {
  describe(`GET /v1/prices/changes on ${backend.name}`, () => {
    let pair: Pair;
    let server: RunningServer;
    before(async () => {
      pair = await backend.open();
      await loadFixture(pair.served);
      server = await startServer(pair.served, fixedClock(NOW));
    });
    after(async () => {
      await server.close();
      await pair.drop();
    });

    test('without since: no changes and the cursor of now; never cached', async () => {
      const r = await get(server, '/v1/prices/changes');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { data: [], next: '6', more: false });
      assert.equal(r.headers.get('cache-control'), 'no-store');
      assert.equal(r.headers.get('etag'), null);
    });

    test('pages of the feed from 0, each change once, oldest first', async () => {
      const first = await get(server, '/v1/prices/changes?since=0&limit=4');
      assert.deepEqual(first.body, { data: FIXTURE.slice(0, 4), next: '4', more: true });
      const second = await get(server, '/v1/prices/changes?since=4&limit=4');
      assert.deepEqual(second.body, { data: FIXTURE.slice(4), next: '6', more: false });
      assert.deepEqual((await get(server, '/v1/prices/changes?since=6')).body, { data: [], next: '6', more: false });
      assert.deepEqual((await get(server, '/v1/prices/changes?since=0')).body, { data: FIXTURE, next: '6', more: false });
    });

    test('filters: fuel (a combined id takes its members), state, city, near and radius', async () => {
      const cursors = async (query: string) => ((await get(server, `/v1/prices/changes?since=0${query}`)).body as { data: Change[] }).data.map((c) => Number(c.cursor));
      assert.deepEqual(await cursors('&fuel=diesel'), [4, 6]);
      assert.deepEqual(await cursors('&fuel=ULP-combined'), [1, 2, 3, 5]);
      assert.deepEqual(await cursors('&state=wa'), [5]);
      assert.deepEqual(await cursors('&city=sydney'), [1, 2, 3, 4]);
      assert.deepEqual(await cursors('&city=sydney&fuel=ulp91'), [2, 3]);
      // Beta (-33.88, 151.2) is 1.43 km from alpha (-33.87, 151.21); delta is 60 km away.
      assert.deepEqual(await cursors('&near=-33.87,151.21&radius=1'), [1, 2]);
      assert.deepEqual(await cursors('&near=-33.87,151.21&radius=2'), [1, 2, 3, 4]);
      assert.deepEqual(await cursors('&near=-33.87,151.21'), [1, 2, 3, 4]);
      // A near page narrowed after reading: a full page may hold fewer, and next moves on all the same.
      // The point 0.9 km north and 0.9 km west of alpha: alpha (1.27 km away) is within the 1 km box but not the radius.
      const narrowed = await get(server, '/v1/prices/changes?since=0&limit=1&near=-33.8619,151.2003&radius=1');
      assert.deepEqual(narrowed.body, { data: [], next: '1', more: true });
      assert.deepEqual(await cursors('&near=-33.8619,151.2003&radius=1'), []);
      assert.deepEqual(await cursors('&near=-31.95,115.86&radius=1'), [5]);
      assert.equal((await get(server, '/v1/prices/changes?since=0&city=nowhere')).status, 404);
    });

    test('changes committed while paging are served after, none lost or twice; the local copy ends exact', async () => {
      const first = await get(server, '/v1/prices/changes?since=0&limit=2');
      assert.deepEqual(first.body, { data: FIXTURE.slice(0, 2), next: '2', more: true });
      // From another connection: beta ulp91 changes (3 -> 7), alpha ulp91 (served already) changes (2 -> 8),
      // alpha e10 gets a report at the same price and availability (no change).
      await pair.ingest.applyBatch({ stations: [], prices: [
        price('2', 'ulp91', NOW + 60, 1760), price('1', 'ulp91', NOW + 60, 1820), price('1', 'e10', NOW + 60, 1770, false),
      ] });
      const rest = await allAfter(server, 2);
      assert.deepEqual(rest.changes, [
        FIXTURE[3], FIXTURE[4], FIXTURE[5],
        change(7, 'alpha-sydney', 'ulp91', '182.0', true, NOW + 60),
        change(8, 'beta-sydney', 'ulp91', '176.0', true, NOW + 60),
      ]);
      assert.equal(rest.next, '8');
      // The local copy: the first page, then the rest applied in order, keyed by station and fuel.
      const copy = new Map<string, Change>();
      for (const c of [...FIXTURE.slice(0, 2), ...rest.changes]) copy.set(`${c.station_id}/${c.fuel}`, c);
      assert.deepEqual([...copy.values()].map((c) => [c.station_id, c.fuel, c.price, c.available]).sort(), [
        ['alpha-sydney', 'e10', '177.0', false], ['alpha-sydney', 'ulp91', '182.0', true], ['beta-sydney', 'diesel', '199.0', true],
        ['beta-sydney', 'ulp91', '176.0', true], ['delta-country', 'diesel', '210.0', true], ['gamma-perth', 'ulp91', '165.0', true],
      ]);
    });

    test('wait: answered when a matching change is stored by another connection; an empty list when time runs out', async () => {
      const waiting = get(server, '/v1/prices/changes?since=8&wait=20&state=wa');
      // A change elsewhere (nsw) wakes the request, which finds nothing of wa and waits on.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await pair.ingest.applyBatch({ stations: [], prices: [price('2', 'diesel', NOW + 120, 1980)] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await pair.ingest.applyBatch({ stations: [], prices: [price('3', 'ulp91', NOW + 120, 1640)] });
      const r = await waiting;
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { data: [change(10, 'gamma-perth', 'ulp91', '164.0', true, NOW + 120)], next: '10', more: false });
      const timedOut = await get(server, '/v1/prices/changes?since=10&wait=1');
      assert.deepEqual(timedOut.body, { data: [], next: '10', more: false });
    });

    test('event stream: the cursor first, then each change as an event; Last-Event-ID resumes after it', async () => {
      const stop = new AbortController();
      const stream = await sse(server, '/v1/prices/changes?fuel=e10', {}, stop.signal);
      assert.equal(stream.status, 200);
      assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.equal(stream.headers.get('cache-control'), 'no-store');
      const events = eventsOf(stream);
      const seen = await events.take(1);
      await pair.ingest.applyBatch({ stations: [], prices: [price('1', 'e10', NOW + 180, 1790), price('1', 'ulp91', NOW + 180, 1830)] });
      // Read before the next change: a price changed twice before it is read is served once, as it is then.
      seen.push(...await events.take(1));
      await pair.ingest.applyBatch({ stations: [], prices: [price('1', 'e10', NOW + 240, 1800)] });
      seen.push(...await events.take(1));
      stop.abort();
      assert.deepEqual(seen, [
        { id: '10', event: 'cursor', data: { next: '10' } },
        { id: '11', event: 'change', data: change(11, 'alpha-sydney', 'e10', '179.0', true, NOW + 180) },
        { id: '13', event: 'change', data: change(13, 'alpha-sydney', 'e10', '180.0', true, NOW + 240) },
      ]);
      const resumed = new AbortController();
      const again = await sse(server, '/v1/prices/changes', { 'last-event-id': '11' }, resumed.signal);
      const replay = await readEvents(again, 3);
      resumed.abort();
      assert.deepEqual(replay, [
        { id: '11', event: 'cursor', data: { next: '11' } },
        { id: '12', event: 'change', data: change(12, 'alpha-sydney', 'ulp91', '183.0', true, NOW + 180) },
        { id: '13', event: 'change', data: change(13, 'alpha-sydney', 'e10', '180.0', true, NOW + 240) },
      ]);
    });

    test('every bad parameter is a 400 in the error shape, naming it', async () => {
      const cases: Array<[string, RegExp, Record<string, string>?]> = [
        ['since=abc', /'since' must be a cursor/],
        ['since=-1', /'since' must be a cursor/],
        ['since=1234567890123456', /'since' must be a cursor/],
        ['since=999', /'since' is ahead of this server's last change \(13\)/],
        ['since=1&wait=31', /'wait' must be a whole number of seconds from 0 to 30/],
        ['since=1&wait=1.5', /'wait' must be a whole number of seconds from 0 to 30/],
        ['since=1&limit=0', /'limit' must be a whole number from 1 to 1000/],
        ['since=1&limit=1001', /'limit' must be a whole number from 1 to 1000/],
        ['since=1&radius=2', /'radius' needs near=LAT,LNG/],
        ['since=1&state=nsw&city=sydney', /one of near=LAT,LNG, city or state at most/],
        ['since=1&near=-33.87,151.21&state=nsw', /one of near=LAT,LNG, city or state at most/],
        ['since=1&near=-95,151', /'near' must be LAT,LNG/],
        ['since=1&near=-33.87,151.21&radius=101', /'radius' must be a distance in km/],
        ['since=1&fuel=petrol', /'fuel' must be one of/],
        ['since=1&since=2', /'since' must be given once/],
        ['', /'Last-Event-ID' must be the id of an event/, { 'last-event-id': 'abc' }],
      ];
      for (const [query, message, headers] of cases) {
        const r = await get(server, `/v1/prices/changes?${query}`, { headers });
        assert.equal(r.status, 400, query);
        const error = (r.body as { error: { code: string; message: string; request_id: string } }).error;
        assert.equal(error.code, 'invalid_parameter', query);
        assert.match(error.message, message, query);
        assert.equal(error.request_id, r.headers.get('x-request-id'));
      }
      const badStream = await sse(server, '/v1/prices/changes?wait=31');
      assert.equal(badStream.status, 400);
      assert.equal((await get(server, '/v1/prices/changes', { token: null })).status, 401);
      assert.equal((await get(server, '/v1/prices/changes', { method: 'POST' })).status, 405);
    });
  });
}

describe('GET /v1/prices/changes: waiting is capped and ends with the server', () => {
  let pair: Pair;
  before(async () => { pair = await (BACKENDS[0] ?? assert.fail()).open(); await loadFixture(pair.served); });
  after(async () => { await pair.drop(); });

  test('past maxChangeWaiters a 503 unavailable with Retry-After; on close, a waiting request answers and a stream ends', async () => {
    const server = await startServer(pair.served, fixedClock(NOW), { maxChangeWaiters: 2 });
    let closed = false;
    try {
      const stop = new AbortController();
      const stream = await sse(server, '/v1/prices/changes', {}, stop.signal);
      const streamEvents = readEvents(stream, 10);
      const waiting = get(server, '/v1/prices/changes?since=6&wait=30');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const refused = await get(server, '/v1/prices/changes?since=6&wait=5');
      assert.equal(refused.status, 503, refused.text);
      assert.equal((refused.body as { error: { code: string } }).error.code, 'unavailable');
      assert.equal(refused.headers.get('retry-after'), '1');
      // wait=0 takes no place.
      assert.equal((await get(server, '/v1/prices/changes?since=6')).status, 200);
      await server.close();
      closed = true;
      assert.deepEqual((await waiting).body, { data: [], next: '6', more: false });
      // The stream ended (the read finished) with only its first event.
      assert.deepEqual(await streamEvents, [{ id: '6', event: 'cursor', data: { next: '6' } }]);
    } finally { if (!closed) await server.close(); }
  });
});

describe('GET /v1/prices/changes: a stream whose client does not read', () => {
  let pair: Pair;
  before(async () => { pair = await (BACKENDS[0] ?? assert.fail()).open(); await loadFixture(pair.served); });
  after(async () => { await pair.drop(); });

  test('a stream whose client stops reading holds at most a page; it resumes when read; a client gone or a server closing ends it, the place given back; the copy ends exact', async () => {
    // 1,000 more stations, and rounds (each read apart: the server looks every 200 ms) changing each
    // one's ulp91 and diesel: 20 rounds are some 6 MB of events, more than the sockets between server and client hold.
    const extra = Array.from({ length: 1000 }, (_, i) => ({ ...(STATIONS[1] ?? assert.fail()), feedCode: `x${i}`, slug: `Extra ${i}`, name: `Extra ${i}` }));
    await pair.ingest.applyBatch({ stations: extra, prices: [] });
    const fuels = ['ulp91', 'diesel'] as const;
    const tenths = (round: number, i: number, fuel: (typeof fuels)[number]) => 1500 + round * 3 + (i % 7) + (fuel === 'diesel' ? 200 : 0);
    const rounds = async (from: number, to: number) => {
      for (let round = from; round < to; round++) {
        await pair.ingest.applyBatch({ stations: [], prices: extra.flatMap((s, i) => fuels.map((fuel) => price(s.feedCode, fuel, NOW + 60 * (round + 1), tenths(round, i, fuel)))) });
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    // The client's copy, and what it lacks of every station and fuel at its price after `round`.
    const copy = new Map<string, string>();
    let last = 0;
    const missing = (round: number) => extra.flatMap((_, i) => fuels.map((fuel) => [`extra-${i}/${fuel}`, (tenths(round, i, fuel) / 10).toFixed(1)]))
      .filter(([key, value]) => copy.get(key ?? '') !== value);
    // One stream at most (maxChangeWaiters 1): a second is refused until the first gives its place back.
    let stream: ServerResponse | undefined;
    const server = await startServer(pair.served, fixedClock(NOW), { maxChangeWaiters: 1 }, (app) => app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/v1/prices/changes')) stream = res;
    }));
    const { port } = new URL(server.baseUrl);
    /** A stream from node:http's client, which stops reading its socket while the response is paused and its own buffer full. */
    const open = (headers: Record<string, string> = {}) => new Promise<IncomingMessage>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/v1/prices/changes', headers: { authorization: `Bearer ${server.token}`, accept: 'text/event-stream', ...headers } }, resolve)
        .on('error', reject).end();
    });
    /** Reads a stream's events into the copy from now on; `ended()` once the response is gone. */
    const follow = (response: IncomingMessage) => {
      let text = '';
      let ended = false;
      response.setEncoding('utf8');
      response.on('close', () => { ended = true; });
      response.on('data', (chunk: string) => {
        text += chunk;
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          if (!block.startsWith('id: ') || !block.includes('event: change')) continue;
          assert.ok(block.length + 2 < 200, `an event of ${block.length + 2} bytes`);
          const change = JSON.parse(block.slice(block.indexOf('data: ') + 6)) as Change;
          assert.ok(Number(change.cursor) > last, 'cursors rise');
          last = Number(change.cursor);
          copy.set(`${change.station_id}/${change.fuel}`, change.price);
        }
      });
      return { ended: () => ended };
    };
    /** Once the stream has written what it will (what it holds no longer grows): at most its buffer and the page being written when it filled. */
    const assertHoldsAPage = async () => {
      let held = -1;
      await waitFor('the stream to settle', async () => {
        const before = stream?.writableLength ?? -1;
        await new Promise((resolve) => setTimeout(resolve, 400));
        held = stream?.writableLength ?? -1;
        return held >= 0 && held === before;
      }, 20_000);
      // A page is 100 changes (the default limit); an event of these stations is under 200 bytes (checked as they are read).
      const bound = (stream?.writableHighWaterMark ?? 0) + 100 * 200;
      assert.ok(held <= bound, `the server holds ${held} bytes for a client that reads nothing (at most ${bound})`);
    };
    const responses: IncomingMessage[] = [];
    let closed = false;
    try {
      // 1. A client that reads nothing of the body.
      const first = await open();
      responses.push(first);
      assert.equal(first.statusCode, 200);
      await rounds(0, 20);
      await assertHoldsAPage();
      // 2. It reads: the stream goes on from where it stopped, and the copy it builds ends exact.
      follow(first);
      await waitFor('the stream to catch up', () => missing(19).length === 0, 20_000);
      // 3. It stops reading again, then goes away: the stream ends and gives its place back, so a new
      // stream is taken, and resumed from the last event read (Last-Event-ID) its copy ends exact.
      first.pause();
      await rounds(20, 40);
      await assertHoldsAPage();
      first.destroy();
      let second: IncomingMessage | undefined;
      await waitFor('the place to be given back', async () => {
        const tried = await open({ 'last-event-id': String(last) });
        if (tried.statusCode === 200) second = tried;
        else tried.resume();
        return second !== undefined;
      }, 20_000);
      const resumed = second ?? assert.fail('no second stream');
      responses.push(resumed);
      const reading = follow(resumed);
      await waitFor('the new stream to catch up', () => missing(39).length === 0, 20_000);
      // 4. It stops reading, and the server closes: the stream ends (what the socket still held may be
      // cut off with the connection, as for any answer to a client too slow to finish).
      resumed.pause();
      await rounds(40, 60);
      await assertHoldsAPage();
      const closing = server.close();
      closed = true;
      resumed.resume();
      await waitFor('the stream to end', () => reading.ended(), 20_000);
      await closing;
      // Resumed from the last cursor read, as a client does after any break (here by pages, on a server
      // started again): the copy ends exact.
      const again = await startServer(pair.served, fixedClock(NOW));
      try {
        for (const c of (await allAfter(again, last, '', 1000)).changes) copy.set(`${c.station_id}/${c.fuel}`, c.price);
      } finally { await again.close(); }
      assert.deepEqual(missing(59), [], 'every station and fuel at its last price');
    } finally {
      for (const response of responses) response.destroy();
      if (!closed) await server.close();
    }
  });
});
