import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HISTORY_BLOCK_DAYS, blockOf, firstDayOf, lastDayOf } from '../../../src/domain/history-json.ts';
import { cityHistory, stationHistory } from '../../../src/domain/history.ts';
import { historyEntries } from '../../../src/domain/api-entries.ts';
import { formatCents, formatDollars } from '../../../src/domain/rounding.ts';
import { TIMEFRAMES, localDayOf, timeframeWindow } from '../../../src/domain/time.ts';
import { etagOf } from '../../../src/http/cache/etag.ts';
import { JOIN_BELOW_BYTES } from '../../../src/http/representation/pieced-body.ts';
import { HistoryBlocks } from '../../../src/http/cache/history-blocks.ts';
import { planSealedRead } from '../../../src/storage/history-reads.ts';
import type { PriceEvent, PriceStore } from '../../../src/storage/store.ts';
import { CITIES, NOW, STATIONS } from '../../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends } from '../../helpers.ts';

describe('sealed blocks (pure)', () => {
  test('a block is HISTORY_BLOCK_DAYS days; the marks every complete block of the range, skipping those held at their mark', () => {
    assert.equal(HISTORY_BLOCK_DAYS, 128); // migration 7's triggers count in 128-day blocks too
    assert.deepEqual([blockOf(255), blockOf(256), firstDayOf(2), lastDayOf(2)], [1, 2, 256, 383]);
    const marks = new Map([[1, 4], [2, 1], [3, 7], [4, 2]]);
    // Days 200..600: block 1 (128..255) is only partly in the range, block 4 (512..639) partly sealed.
    assert.deepEqual(planSealedRead(200, 600, marks, new Map([[2, 1], [3, 6]])), {
      ranges: [[200, 255], [384, 600]],
      blocks: { marks: new Map([[2, 1], [3, 7]]), skipped: new Set([2]) },
    });
    assert.deepEqual(planSealedRead(-1_000_000, 600, marks, new Map([[1, 4], [2, 1], [3, 7]])), {
      ranges: [[-1_000_000, 127], [512, 600]],
      blocks: { marks: new Map([[1, 4], [2, 1], [3, 7]]), skipped: new Set([1, 2, 3]) },
    });
    assert.deepEqual(planSealedRead(200, 600, marks, undefined), { ranges: [[200, 600]] });
    assert.deepEqual(planSealedRead(601, 600, marks, new Map()), { ranges: [], blocks: { marks: new Map(), skipped: new Set() } });
  });

  test('held blocks are bounded in bytes, least recently used out first', () => {
    const blocks = new HistoryBlocks(400);
    blocks.set('a', 1, 1, new Map([['e10', Buffer.alloc(100)]]));
    blocks.set('a', 2, 1, new Map([['e10', Buffer.alloc(100)]]));
    blocks.set('b', 1, 1, new Map([['e10', Buffer.alloc(100)]]));
    assert.deepEqual([...blocks.held('a').keys()], [1, 2]); // 'a' used last: 'b' is the oldest now
    blocks.set('c', 1, 1, new Map([['e10', Buffer.alloc(100)]]));
    blocks.set('c', 2, 1, new Map([['e10', Buffer.alloc(100)]]));
    assert.equal(blocks.held('b').size, 0);
    assert.equal(blocks.heldBytes, 400);
    blocks.set('d', 1, 1, new Map([['e10', Buffer.alloc(101)]])); // over a quarter: not kept
    assert.equal(blocks.held('d').size, 0);
    assert.equal(blocks.held('a').get(2)?.mark, 1);
  });
});

const DAY = 86_400;
const DAYS = 400; // more than three blocks of sealed days before NOW

/** Prices for Sydney's and Perth's stations over DAYS days, a few reports a day, one fuel out of stock now and then. */
function history(): PriceEvent[] {
  const events: PriceEvent[] = [];
  for (let d = DAYS; d >= 1; d--) {
    for (const [i, code] of ['1', '2', '3', '4'].entries()) {
      for (const [j, fuel] of (['ulp91', 'diesel', 'e10', 'ulp95'] as const).entries()) {
        if (code === '3' && fuel === 'e10') continue;
        const at = NOW - d * DAY + ((i * 7 + j * 5 + d * 3) % 20) * 3600;
        events.push({ feed: 'test', feedCode: code, fuel, at, priceTenths: 1700 + ((d * 37 + i * 11 + j * 53) % 400), available: (d + i + j) % 23 !== 0 });
      }
    }
  }
  return events;
}

/** The answer as the route's schema serialiser would make it from historyEntries over every stored row (nothing held). */
async function expected(store: PriceStore, cityId: string, timeframe: (typeof TIMEFRAMES)[number], now: number): Promise<string> {
  const city = CITIES.find((c) => c.id === cityId);
  assert.ok(city);
  const range = timeframeWindow(timeframe, localDayOf(city.state, now));
  const series = cityHistory(city.state, await store.cityHistoryParts(city.id, range, now), range, now);
  return JSON.stringify({ data: { id: city.id, name: city.name, history: historyEntries(series, city.state, formatDollars) } });
}

/** A station's history as the route's schema serialiser would make it from historyEntries. */
async function expectedStation(store: PriceStore, stationId: string, timeframe: (typeof TIMEFRAMES)[number], now: number): Promise<string> {
  const station = await store.station(stationId);
  assert.ok(station);
  const range = timeframeWindow(timeframe, localDayOf(station.state, now));
  const series = stationHistory(station.state, await store.stationDays(station.id, range), await store.currentForStation(station.id), range, now);
  return JSON.stringify({ data: { id: station.id, name: station.name, history: historyEntries(series, station.state, formatCents) } });
}

for (const backend of testBackends()) {
  describe(`city history from held blocks on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    const clock = fixedClock(NOW);
    before(async () => {
      ({ store, drop } = await backend.create());
      await store.upsertCities(CITIES);
      await store.applyBatch({ stations: STATIONS, prices: history() });
      await store.seal(NOW);
      server = await startServer(store, clock, { answerCache: false });
    });
    after(async () => {
      await server.close();
      await drop();
    });

    test('every timeframe answers the very bytes of the plain path, first from rows and then from held blocks', async () => {
      for (const round of ['rows', 'held']) {
        for (const cityId of ['sydney', 'perth', 'hobart']) {
          for (const timeframe of TIMEFRAMES) {
            const answer = await get(server, `/v1/cities/${cityId}/history?timeframe=${timeframe}`);
            assert.equal(answer.status, 200);
            assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
            assert.equal(answer.text, await expected(store, cityId, timeframe, NOW), `${round} ${cityId} ${timeframe}`);
          }
        }
      }
      const all = JSON.parse(await expected(store, 'sydney', 'all-time', NOW)) as { data: { history: Array<{ records: unknown[] | false }> } };
      assert.ok(all.data.history.some((h) => Array.isArray(h.records) && h.records.length > 3 * HISTORY_BLOCK_DAYS));
    });

    test('station history, sent as bytes too, is what the schema serialiser made of historyEntries, for every station and timeframe', async () => {
      const ids = (await store.listStations({ state: undefined, limit: 100, offset: 0 })).items.map((s) => s.id);
      assert.ok(ids.length >= 3);
      for (const id of ids) {
        for (const timeframe of TIMEFRAMES) {
          const answer = await get(server, `/v1/stations/${id}/history?timeframe=${timeframe}`);
          assert.equal(answer.status, 200);
          assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
          assert.equal(answer.text, await expectedStation(store, id, timeframe, NOW), `${id} ${timeframe}`);
        }
      }
    });

    test('a large answer is sent as its pieces: exact Content-Length, the ETag of its bytes, 304 and HEAD as for any other', async () => {
      const path = '/v1/cities/sydney/history?timeframe=all-time';
      const text = await expected(store, 'sydney', 'all-time', NOW);
      const bytes = Buffer.byteLength(text);
      assert.ok(bytes >= JOIN_BELOW_BYTES, `${bytes} bytes: sent as pieces`);
      const answer = await get(server, path);
      assert.equal(answer.status, 200);
      assert.equal(answer.text, text);
      assert.equal(answer.headers.get('content-length'), String(bytes));
      assert.equal(answer.headers.get('transfer-encoding'), null);
      const etag = etagOf(Buffer.from(text));
      assert.equal(answer.headers.get('etag'), etag);
      assert.equal(answer.headers.get('cache-control'), 'private, max-age=60');
      const head = await get(server, path, { method: 'HEAD' });
      assert.deepEqual([head.status, head.text, head.headers.get('content-length'), head.headers.get('etag')], [200, '', String(bytes), etag]);
      const unchanged = await get(server, path, { headers: { 'if-none-match': etag } });
      assert.deepEqual([unchanged.status, unchanged.text, unchanged.headers.get('etag')], [304, '', etag]);
      // With the answer cache on, the pieces are kept joined: the first answer and the cached one are the same bytes.
      const cached = await startServer(store, clock);
      try {
        for (const round of ['stored', 'from the cache']) {
          const again = await get(cached, path);
          assert.deepEqual([again.status, again.text === text, again.headers.get('content-length'), again.headers.get('etag')],
            [200, true, String(bytes), etag], round);
        }
      } finally {
        await cached.close();
      }
    });

    test('storage leaves out the rows of blocks held at their mark, and reads a block again once a late report moves its mark', async () => {
      const range = { from: null, to: localDayOf('nsw', NOW) };
      const first = await store.cityHistoryParts('sydney', range, NOW, new Map());
      const marks = first.blocks?.marks ?? new Map<number, number>();
      assert.ok(marks.size >= 3);
      assert.equal(first.blocks?.skipped.size, 0);
      const held = await store.cityHistoryParts('sydney', range, NOW, marks);
      assert.deepEqual(held.blocks?.skipped, new Set(marks.keys()));
      assert.ok(!held.sealed.some((row) => marks.has(blockOf(row.day))));
      assert.ok(held.sealed.length < first.sealed.length);

      // Beta Sydney reports ulp91 at 150.0 some 300 days ago, in a sealed block: the writer recomputes
      // the days from then on that the report changes, so that block's mark moves (and maybe the
      // next one's), and no earlier block's.
      const lateAt = NOW - 300 * DAY + 1800;
      await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'ulp91', at: lateAt, priceTenths: 1500, available: true }] });
      const after = await store.cityHistoryParts('sydney', range, NOW, marks);
      const lateBlock = blockOf(localDayOf('nsw', lateAt));
      const moved = [...(after.blocks?.marks ?? [])].filter(([block, mark]) => marks.get(block) !== mark).map(([block]) => block);
      assert.equal(Math.min(...moved), lateBlock);
      assert.ok(moved.every((block) => block >= lateBlock));
      assert.ok([...marks.keys()].some((block) => block < lateBlock && after.blocks?.skipped.has(block)));
      for (const block of moved) assert.ok(after.sealed.some((row) => blockOf(row.day) === block));
      // ...and the server, holding the old block, answers the new days.
      for (const timeframe of TIMEFRAMES) {
        const answer = await get(server, `/v1/cities/sydney/history?timeframe=${timeframe}`);
        assert.equal(answer.text, await expected(store, 'sydney', timeframe, NOW), timeframe);
      }
    });

    test('a bad timeframe or an unknown city still gets its 4xx', async () => {
      assert.equal((await get(server, '/v1/cities/sydney/history?timeframe=forever')).status, 400);
      assert.equal((await get(server, '/v1/cities/atlantis/history?timeframe=all-time')).status, 404);
    });
  });
}
