/**
 * Real data, late reports (issue 28): the VIC Fair Fuel answers of 1 and 2 May 2026, 40 of their
 * stations (test/fixtures/real/vic-late/README.md), through `fuelprice ingest vic` in its own
 * process as a user runs it. The answer published on 1 May is ingested at noon; a running server
 * closes 1 May at midnight; the answer of 2 May, which carries 1 May's reports a day late, is
 * ingested at noon on 2 May. Each station's daily history must then equal the one worked out
 * here, from the raw answers, with every report at once.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../../src/storage/open.ts';
import { FakeFeedServer, type FakeReply, type FakeRequest } from '../../fakes/server.ts';
import { type E2eDatabase, apiAnswers, e2eBackends, ingest } from '../e2e/harness.ts';

const FIXTURES = new URL('../../fixtures/real/vic-late/', import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');
const ANSWERS = { 1: read('prices-2026-05-01.json'), 2: read('prices-2026-05-02.json') } as const;
const BRANDS = read('brands-2026-05-03.json');
const CONSUMER = 'c0ffee00c0ffee00c0ffee00c0ffee00';

// Melbourne is UTC+10 in May (daylight saving ended on 5 April).
const MELBOURNE = 10 * 3600;
const midnight = (day: number): number => Date.UTC(2026, 4, day) / 1000 - MELBOURNE;
const NOON_1 = midnight(1) + 12 * 3600;
const NOON_2 = midnight(2) + 12 * 3600;
const NOON_3 = midnight(3) + 12 * 3600;

/** The fuel ids of the codes these answers carry, as the Fair Fuel documentation names them. */
const FUEL_OF: Record<string, string> = { U91: 'ulp91', P95: 'ulp95', P98: 'ulp98', E10: 'e10', E85: 'e85', DSL: 'diesel', PDSL: 'pdiesel', LPG: 'lpg', LNG: 'lng' };

interface Detail { fuelStation: { id: string; name: string }; fuelPrices: Array<{ fuelType: string; isAvailable: boolean; price: number; updatedAt: string }> }
const details = (answer: string): Detail[] => (JSON.parse(answer) as { fuelPriceDetails: Detail[] }).fuelPriceDetails;

/** Per station name and fuel: the day records of 27 April to 2 May, newest first, from all the reports of both answers at once. */
function reference(): Map<string, Map<string, Array<{ timestamp: number; date: string; average: string }>>> {
  const reports = new Map<string, Map<string, Map<number, number>>>();
  for (const answer of [ANSWERS[1], ANSWERS[2]]) {
    for (const d of details(answer)) {
      const id = d.fuelStation.name;
      let fuels = reports.get(id);
      if (!fuels) reports.set(id, (fuels = new Map<string, Map<number, number>>()));
      for (const p of d.fuelPrices) {
        const fuel = FUEL_OF[p.fuelType];
        assert.ok(fuel, p.fuelType);
        let byTime = fuels.get(fuel);
        if (!byTime) fuels.set(fuel, (byTime = new Map<number, number>()));
        // Every price of these 40 stations is available and above zero (the fixture was cut so).
        byTime.set(Date.parse(p.updatedAt) / 1000, Math.round(p.price * 10));
      }
    }
  }
  const out = new Map<string, Map<string, Array<{ timestamp: number; date: string; average: string }>>>();
  for (const [id, fuels] of reports) {
    const station = new Map<string, Array<{ timestamp: number; date: string; average: string }>>();
    for (const [fuel, byTime] of fuels) {
      const times = [...byTime.keys()].sort((a, b) => a - b);
      const records = [];
      for (let day = 2; day >= -3; day--) {
        const start = midnight(day);
        const end = midnight(day + 1);
        let weighted = 0;
        let seconds = 0;
        for (const [i, at] of times.entries()) {
          const to = Math.min(times[i + 1] ?? midnight(3), end);
          const span = to - Math.max(at, start);
          if (span <= 0) continue;
          weighted += (byTime.get(at) ?? 0) * span;
          seconds += span;
        }
        if (seconds === 0) continue;
        // Tenths of a cent, half away from zero, once: floor((2w + s) / 2s) for a positive mean.
        const tenths = Math.floor((2 * weighted + seconds) / (2 * seconds));
        const date = new Date((start + MELBOURNE) * 1000);
        const ddmmyyyy = `${String(date.getUTCDate()).padStart(2, '0')}-${String(date.getUTCMonth() + 1).padStart(2, '0')}-${date.getUTCFullYear()}`;
        records.push({ timestamp: start, date: ddmmyyyy, average: `${Math.floor(tenths / 10)}.${tenths % 10}` });
      }
      station.set(fuel, records);
    }
    out.set(id, station);
  }
  return out;
}

for (const backend of e2eBackends()) {
  describe(`VIC answers published a day late, on ${backend.name}`, () => {
    let db: E2eDatabase;
    let fake: FakeFeedServer;
    let day: 1 | 2 = 1;
    before(async () => {
      db = await backend.create();
      fake = new FakeFeedServer((request: FakeRequest): FakeReply => {
        if (request.headers['x-consumer-id'] !== CONSUMER) return { status: 403, body: '{}' };
        if (request.path === '/open-data/v1/fuel/prices') return { body: ANSWERS[day] };
        if (request.path === '/open-data/v1/fuel/reference-data/brands') return { body: BRANDS };
        return { status: 404, body: '{}' };
      });
      await fake.start();
    });
    after(async () => { await fake.close(); await db.drop(); });

    test('each station\'s days equal those of every report at once, though 1 May was closed before its late reports came', async () => {
      const env = { VIC_FAIRFUEL_URL: fake.url, VIC_FAIRFUEL_CONSUMER_ID: CONSUMER };
      assert.equal((await ingest('vic', db.url, NOON_1, env)).code, 0);
      // What `serve` does every minute: close the days before the state's today (here 1 May, at 00:30 on 2 May).
      const store = await openStore(db.url);
      try { await store.seal(midnight(2) + 1800); } finally { await store.close(); }
      day = 2;
      const second = await ingest('vic', db.url, NOON_2, env);
      assert.equal(second.code, 0, second.stderr);

      const want = reference();
      assert.equal(want.size, 40);
      // The stations' ids by name, as the API lists them.
      const list = (await apiAnswers(db.url, NOON_3, ['/v1/stations?state=vic&limit=100']))['/v1/stations?state=vic&limit=100']?.body as { data: Array<{ id: string; name: string }> };
      const ids = new Map(list.data.map((s) => [s.name, s.id]));
      assert.deepEqual([...ids.keys()].sort(), [...want.keys()].sort());
      const paths = [...ids.values()].map((id) => `/v1/stations/${id}/history?timeframe=last-week`);
      const answers = await apiAnswers(db.url, NOON_3, paths);
      let days = 0;
      for (const [name, fuels] of want) {
        const id = ids.get(name) ?? '';
        const body = answers[`/v1/stations/${id}/history?timeframe=last-week`];
        assert.equal(body?.status, 200, id);
        const history = (body?.body as { data: { history: Array<{ fuel: string; records: false | Array<{ timestamp: number; date: string; average: string }> }> } }).data.history;
        for (const entry of history) {
          // The combined fuels (ulp-combined and the like) are worked out from these; the reported ones are compared.
          if (entry.fuel.endsWith('-combined')) continue;
          // Today (3 May) is still open: the days before it are compared.
          const got = entry.records === false ? [] : entry.records.filter((r) => r.timestamp < midnight(3));
          assert.deepEqual(got, fuels.get(entry.fuel) ?? [], `${id} ${entry.fuel}`);
          days += got.length;
        }
      }
      // The 40 stations' fuel-days of 27 April to 2 May that have a value.
      assert.equal(days, [...want.values()].reduce((n, fuels) => n + [...fuels.values()].reduce((m, r) => m + r.length, 0), 0));
    });
  });
}
