import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { historyEntries } from '../../src/domain/api-entries.ts';
import { cityHistory, stationHistory } from '../../src/domain/history.ts';
import { formatCents, formatDollars } from '../../src/domain/rounding.ts';
import { type Timeframe, dayStart, localDayOf, timeframeWindow } from '../../src/domain/time.ts';
import { DerivedAnswers } from '../../src/derived/derived-answers.ts';
import type { HistoryArgs } from '../../src/derived/history-answer.ts';
import type { Batch, PriceStore } from '../../src/storage/store.ts';
import { CITIES, NOW } from '../fixture.ts';
import { STATIONS } from '../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends, waitFor } from '../helpers.ts';

// Sydney's stations 1 and 2 and Perth's 3 report ulp91 (and Sydney's 1 diesel) every day at local midnight for 400 days:
// sealed days in four blocks of 128, and today's live.
const PRICES: Batch['prices'] = [];
for (const [code, state] of [['1', 'nsw'], ['2', 'nsw'], ['3', 'wa']] as const) {
  const today = localDayOf(state, NOW);
  for (let day = today - 400; day <= today; day++) {
    PRICES.push({ feed: 'test', feedCode: code, fuel: 'ulp91', at: dayStart(state, day), priceTenths: 1700 + ((day * 37 + Number(code) * 11) % 300), available: true });
    if (code === '1') PRICES.push({ feed: 'test', feedCode: code, fuel: 'diesel', at: dayStart(state, day) + 3600, priceTenths: 1900 + (day % 50), available: true });
  }
}

type Series = ReturnType<typeof cityHistory>;

/** The answer as JSON, as the route's schema has it ({ data: { id, name, history } }), and as CSV (date,fuel,average rows, fuel by fuel). */
function texts(id: string, name: string, series: Series, state: 'nsw' | 'wa', format: (tenths: number) => string): { json: string; csv: string } {
  const history = historyEntries(series, state, format);
  let csv = 'date,fuel,average\r\n';
  for (const { fuel, records } of history) if (records) for (const r of records) csv += `${r.date},${fuel},${r.average}\r\n`;
  return { json: JSON.stringify({ data: { id, name, history } }), csv };
}

/** A city's history worked out here from every stored row (no blocks held). */
async function cityReference(store: PriceStore, cityId: string, timeframe: Timeframe): Promise<{ json: string; csv: string }> {
  const city = CITIES.find((c) => c.id === cityId) ?? assert.fail(cityId);
  const range = timeframeWindow(timeframe, localDayOf(city.state, NOW));
  const series = cityHistory(city.state, await store.cityHistoryParts(city.id, range, NOW), range, NOW);
  return texts(city.id, city.name, series, city.state as 'nsw' | 'wa', formatDollars);
}

async function stationReference(store: PriceStore, stationId: string, timeframe: Timeframe): Promise<{ json: string; csv: string }> {
  const station = await store.station(stationId) ?? assert.fail(stationId);
  const range = timeframeWindow(timeframe, localDayOf(station.state, NOW));
  const series = stationHistory(station.state, await store.stationDays(station.id, range), await store.currentForStation(station.id), range, NOW);
  return texts(station.id, station.name, series, station.state as 'nsw' | 'wa', formatCents);
}

/** The ETag of a body as every answer's is written: the first 27 characters of its base64url SHA-256, quoted. */
const etag = (body: string): string => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

const cityArgs = (id: string, timeframe: Timeframe, format: 'json' | 'csv'): HistoryArgs => ({ of: { id, name: '', state: 'nsw' }, timeframe, format });

for (const backend of testBackends()) {
  describe(`derived answers (city and station history, on a worker thread) on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    let derived: DerivedAnswers;
    const clock = fixedClock(NOW);
    before(async () => {
      ({ store, drop } = await backend.create());
      await store.upsertCities(CITIES);
      await store.applyBatch({ stations: STATIONS, prices: PRICES });
      await store.seal(NOW);
      derived = new DerivedAnswers(store, clock);
      // No answer cache: every request reaches the route, so what is counted is the derived answers' keeping.
      server = await startServer(store, clock, { derived, answerCache: false });
    });
    after(async () => { await server.close(); await drop(); });

    test('a city\'s history, JSON and CSV, equals one worked out from the stored rows, with its ETag; asked again, not computed again', async () => {
      for (const timeframe of ['all-time', 'last-month'] as const) {
        const expected = await cityReference(store, 'sydney', timeframe);
        const json = await get(server, `/v1/cities/sydney/history?timeframe=${timeframe}`);
        assert.equal(json.status, 200);
        assert.equal(json.text, expected.json, timeframe);
        assert.equal(json.headers.get('etag'), etag(expected.json));
        assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
        const csv = await get(server, `/v1/cities/sydney/history?timeframe=${timeframe}&format=csv`);
        assert.equal(csv.status, 200);
        assert.equal(csv.text, expected.csv, timeframe);
        assert.equal(csv.headers.get('content-disposition'), `attachment; filename="sydney-history-${timeframe}.csv"`);
        assert.equal(csv.headers.get('etag'), etag(expected.csv));
        assert.equal((await get(server, `/v1/cities/sydney/history?timeframe=${timeframe}`)).text, expected.json);
        assert.equal(derived.computations('cityHistory', cityArgs('sydney', timeframe, 'json')), 1, timeframe);
        assert.equal(derived.computations('cityHistory', cityArgs('sydney', timeframe, 'csv')), 1, timeframe);
      }
    });

    test('after a write to Sydney the answer is of the new data version (computed again, ahead or when asked), Perth\'s is not computed again', async () => {
      const before = await get(server, '/v1/cities/sydney/history?timeframe=all-time');
      await get(server, '/v1/cities/perth/history?timeframe=all-time');
      assert.equal(derived.computations('cityHistory', cityArgs('perth', 'all-time', 'json')), 1);
      // Beta Sydney's first diesel, three hours ago: today's diesel mean in Sydney moves.
      await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'diesel', at: NOW - 3 * 3600, priceTenths: 2490, available: true }] });
      const expected = await cityReference(store, 'sydney', 'all-time');
      assert.ok(expected.json !== before.text, 'the write changes the answer');
      const sydney = cityArgs('sydney', 'all-time', 'json');
      await waitFor('Sydney computed again ahead', () => derived.computations('cityHistory', sydney) === 2);
      const after = await get(server, '/v1/cities/sydney/history?timeframe=all-time');
      assert.equal(after.text, expected.json);
      assert.equal(derived.computations('cityHistory', sydney), 2, 'the request read what was computed ahead');
      assert.equal(derived.computations('cityHistory', cityArgs('perth', 'all-time', 'json')), 1, 'Perth was not touched');
      // Asked at once after a write, never the answer kept before it.
      await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '1', fuel: 'e10', at: NOW - 2 * 3600, priceTenths: 2590, available: true }] });
      const newer = await cityReference(store, 'sydney', 'all-time');
      assert.ok(newer.json !== expected.json, 'the second write changes the answer');
      assert.equal((await get(server, '/v1/cities/sydney/history?timeframe=all-time&format=csv')).text, newer.csv);
      assert.equal((await get(server, '/v1/cities/sydney/history?timeframe=all-time')).text, newer.json);
    });

    test('a station\'s history, JSON and CSV, equals one worked out from the stored rows, and follows a write at once', async () => {
      for (const format of ['json', 'csv'] as const) {
        const path = `/v1/stations/beta-sydney/history?timeframe=last-year${format === 'csv' ? '&format=csv' : ''}`;
        const first = await get(server, path);
        assert.equal(first.status, 200);
        assert.equal(first.text, (await stationReference(store, 'beta-sydney', 'last-year'))[format]);
        assert.equal(first.headers.get('etag'), etag(first.text));
      }
      const args: HistoryArgs = { of: { id: 'beta-sydney', name: '', state: 'nsw' }, timeframe: 'last-year', format: 'json' };
      assert.equal(derived.computations('stationHistory', args), 1);
      await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'e10', at: NOW - 3600, priceTenths: 2090, available: true }] });
      const expected = await stationReference(store, 'beta-sydney', 'last-year');
      for (const format of ['json', 'csv'] as const) {
        const r = await get(server, `/v1/stations/beta-sydney/history?timeframe=last-year${format === 'csv' ? '&format=csv' : ''}`);
        assert.equal(r.text, expected[format], format);
      }
      assert.ok(expected.json.includes('"fuel":"e10","records":[{'), 'the write is in the answer');
      assert.equal(derived.computations('stationHistory', args), 2);
      assert.equal((await get(server, '/v1/stations/nowhere/history')).status, 404);
    });
  });
}
