import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { STATES } from '../../src/domain/states.ts';
import { TIMEFRAMES } from '../../src/domain/time.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { newToken } from '../../src/tokens.ts';
import { CITIES, NOW, loadFixture } from '../fixture.ts';
import { fixedClock, testBackends } from '../helpers.ts';

/** Every route the fixture's data can drive: lists (filtered and paged), each city and station, each timeframe. */
async function fixtureUrls(store: PriceStore): Promise<string[]> {
  const stationIds = (await store.listStations({ state: undefined, limit: 1000, offset: 0 })).items.map((s) => s.id);
  const lists = ['/v1/cities', '/v1/stations'].flatMap((list) => [
    list, `${list}?limit=2&page=2`, `${list}?limit=2&offset=1`, `${list}?page=9`, ...STATES.map((state) => `${list}?state=${state}`),
  ]);
  const history = (base: string): string[] => [`${base}/history`, ...TIMEFRAMES.map((t) => `${base}/history?timeframe=${t}`)];
  const cities = CITIES.flatMap(({ id }) => [`/v1/cities/${id}`, ...history(`/v1/cities/${id}`),
    `/v1/cities/${id}/spread`, `/v1/cities/${id}/average`, `/v1/cities/${id}/unavailable`]);
  const stations = stationIds.flatMap((id) => [`/v1/stations/${id}`, ...history(`/v1/stations/${id}`), `/v1/stations/${id}/prices`]);
  return [...lists, ...cities, ...stations, '/v1/cities/atlantis', '/v1/stations/nowhere/history', '/v1/stations/nowhere/prices'];
}

/** Status, ETag and body of every URL, answered by the app on this store. */
async function answers(store: PriceStore, urls: readonly string[]): Promise<string[]> {
  const created = newToken('agree', NOW);
  await store.createToken(created.record);
  const app = await buildApp({ store, clock: fixedClock(NOW) });
  try {
    const out: string[] = [];
    for (const url of urls) {
      const r = await app.inject({ url, headers: { authorization: `Bearer ${created.token}`, 'x-request-id': 'agree' } });
      out.push(`${url} ${r.statusCode} ${String(r.headers.etag)}\n${r.body}`);
    }
    return out;
  } finally {
    await app.close();
  }
}

describe('every backend answers the fixture byte for byte alike', () => {
  const backends = testBackends();
  const skip = backends.length < 2 ? 'only SQLite here: set FUELPRICE_TEST_POSTGRES to compare it with PostgreSQL' : false;
  for (const sealed of [true, false]) {
    test(`${backends.map((b) => b.name).join(' = ')} (${sealed ? 'days sealed' : 'nothing sealed yet'})`, { skip }, async () => {
      const created = await Promise.all(backends.map((b) => b.create()));
      try {
        for (const { store } of created) await loadFixture(store, { seal: sealed });
        const [reference, ...others] = created;
        assert.ok(reference);
        const urls = await fixtureUrls(reference.store);
        assert.ok(urls.length > 60, `${urls.length} URLs`);
        const expected = await answers(reference.store, urls);
        assert.ok(expected.filter((a) => / 200 /.test(a.split('\n')[0] ?? '')).length > 50, 'most URLs answer 200');
        for (const other of others) assert.deepEqual(await answers(other.store, urls), expected);
      } finally {
        for (const { drop } of created) await drop();
      }
    });
  }
});
