/**
 * VIC Fair Fuel end to end, without the internet: `fuelprice ingest vic` in its own process against
 * the Fair Fuel fake (test/fakes/vic.ts), then the public API over what it wrote. Every expected
 * answer is worked out by hand from test/fixtures/feeds/vic/ in the comments. The tests of one
 * describe are the steps of one story (round 1, round 2, bad input) and run in order. Last, the
 * feeds left out for want of credentials, alone and under `ingest all`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FUELS } from '../../../src/domain/fuels.ts';
import { runCli } from '../../helpers.ts';
import { startNtFake } from '../../fakes/nt.ts';
import { type VicFake, VIC_ROUND_1_NOW, startVicFake, vicFixture } from '../../fakes/vic.ts';
import { WA_ROUND_1_NOW, startWaFake } from '../../fakes/wa.ts';
import { type E2eDatabase, apiAnswers, e2eBackends, ingest, isoAt } from './harness.ts';

// Clocks (Melbourne is UTC+10 in May). VIC_ROUND_1_NOW = 2026-05-12 10:00 Melbourne = 00:00 UTC.
const R1 = VIC_ROUND_1_NOW;
const R2 = R1 + 86_400; // 2026-05-13 10:00 Melbourne: round 2, the 12th's reports published a day late
// Local day starts: 2026-05-12 00:00 Melbourne = 2026-05-11 14:00 UTC = R1 - 10 h.
const DAY12 = R1 - 36_000;
const DAY11 = DAY12 - 86_400;
const DAY10 = DAY11 - 86_400;
const DAY13 = DAY12 + 86_400;

const PATHS = [
  '/v1/cities/melbourne/spread', '/v1/cities/melbourne/average', '/v1/cities/melbourne/unavailable',
  '/v1/stations/7-eleven-richmond/history?timeframe=last-week', '/v1/stations/bp-clifton-hill/history?timeframe=last-week',
  '/v1/stations?state=vic', '/v1/stations/7-eleven-richmond',
] as const;
type Answers = Record<string, { status: number; body: unknown }>;
type Spread = { average: string; min: string; max: string };
type Day = { timestamp: number; date: string; average: string };

function allFuels<T>(named: Partial<Record<string, T>>, none: T): Array<{ fuel: string } & T> {
  return FUELS.map((fuel) => ({ fuel, ...(named[fuel] ?? none) }));
}

/** Asserts Melbourne's spread, average (from the same table: it must equal the spread's) and unavailable lists. */
function assertMelbourne(answers: Answers, named: Record<string, Spread>, unavailable: Record<string, string[]>): void {
  const city = { id: 'melbourne', name: 'Melbourne' };
  assert.deepEqual(answers['/v1/cities/melbourne/spread'], {
    status: 200, body: { data: { ...city, spread: allFuels<object>(named, { average: false, min: false, max: false }), tomorrow: false } },
  });
  const averages = Object.fromEntries(Object.entries(named).map(([fuel, s]) => [fuel, { average: s.average }]));
  assert.deepEqual(answers['/v1/cities/melbourne/average'], {
    status: 200, body: { data: { ...city, averages: allFuels<object>(averages, { average: false }), tomorrow: false } },
  });
  const lists = Object.fromEntries(Object.entries(unavailable).map(([fuel, ids]) => [fuel, { stations: ids, count: ids.length }]));
  assert.deepEqual(answers['/v1/cities/melbourne/unavailable'], {
    status: 200, body: { data: { ...city, unavailable: allFuels<object>(lists, { stations: false, count: 0 }) } },
  });
}

function assertStationIds(answers: Answers, ids: readonly string[]): void {
  const body = answers['/v1/stations?state=vic']?.body as { data: Array<{ id: string }>; total_items: number };
  assert.deepEqual(body.data.map((s) => s.id), ids);
  assert.equal(body.total_items, ids.length);
}

/** The same price on each of these days (one fuel's records, newest first). */
const flat = (average: string, days: Array<[number, string]>): Day[] => days.map(([timestamp, date]) => ({ timestamp, date, average }));
const D13: [number, string] = [DAY13, '13-05-2026'];
const D12: [number, string] = [DAY12, '12-05-2026'];
const D11: [number, string] = [DAY11, '11-05-2026'];
const D10: [number, string] = [DAY10, '10-05-2026'];

/** 7-Eleven Richmond's history: every price is constant from its first report, so each day's mean is that price. */
function richmondHistory(answers: Answers, days: Array<[number, string]>, lpgDays: Array<[number, string]>): void {
  const named: Record<string, { records: Day[] }> = {
    ulp91: { records: flat('182.9', days) }, ulp95: { records: flat('196.9', days) }, ulp98: { records: flat('204.9', days) },
    diesel: { records: flat('192.9', days) }, lpg: { records: flat('109.9', lpgDays) },
    'ulp-combined': { records: flat('182.9', days) },
    // The mean of the station's ulp95 and ulp98 values: (196.9 + 204.9) / 2 = 200.9.
    'pulp-combined': { records: flat('200.9', days) }, 'diesel-combined': { records: flat('192.9', days) },
  };
  assert.deepEqual(answers['/v1/stations/7-eleven-richmond/history?timeframe=last-week'], {
    status: 200, body: { data: { id: '7-eleven-richmond', name: '7-Eleven Richmond', history: allFuels<object>(named, { records: false }) } },
  });
}

for (const backend of e2eBackends()) {
  describe(`VIC Fair Fuel end to end on ${backend.name}`, () => {
    let fake: VicFake;
    let db: E2eDatabase;
    const env = (): Record<string, string> => ({ VIC_FAIRFUEL_URL: fake.url, VIC_FAIRFUEL_CONSUMER_ID: fake.consumerId });
    const api = (now: number): Promise<Answers> => apiAnswers(db.url, now, PATHS);
    before(async () => {
      fake = await startVicFake();
      db = await backend.create();
    });
    after(async () => {
      await fake.close();
      await db.drop();
    });

    test('round 1: three stations and their prices, premium diesel out of stock', async () => {
      const run = await ingest('vic', db.url, R1, env());
      assert.equal(run.code, 0, run.stderr);
      // bp Clifton Hill 4 prices, Ampol Carlton North 5 (its PDSL out of stock), 7-Eleven Richmond 5: 14.
      // Liberty Brunswick has no position: rejected with its prices.
      assert.equal(run.stdout, '2026-05-12T00:00:00Z  vic   ok     0s  stations +3 ~0 (1 refused), prices 16 read: 14 stored, 0 already known, 0 corrected, 0 held, 2 rejected\n');
      // Brands, then prices, each with the consumer id.
      assert.deepEqual(fake.server.requests.map((r) => [r.path, r.headers['x-consumer-id']]), [
        ['/open-data/v1/fuel/reference-data/brands', fake.consumerId], ['/open-data/v1/fuel/prices', fake.consumerId],
      ]);

      const answers = await api(R1);
      // Tenths: ulp91 bp 1899, Ampol 1847, 7-Eleven 1829 -> 5575 / 3 = 1858.3 -> 185.8 c -> "1.86".
      // ulp95 bp 2039, 7-Eleven 1969 -> 2004 -> "2.00". ulp98 2119, 2077, 2049 -> 2081.7 -> "2.08".
      // diesel 1959, 1935, 1929 -> 1941 -> "1.94". e10 Ampol 1827; lpg 7-Eleven 1099 -> "1.10".
      // ulp-combined: ulp91 and e10 -> 7402 / 4 = 1850.5 -> 185.05 c -> "1.85". pulp-combined: ulp95
      // and ulp98 -> 10253 / 5 = 2050.6 -> "2.05". diesel-combined: Ampol's PDSL is out, so diesel's.
      const diesel = { average: '1.94', min: '192.9', max: '195.9' };
      assertMelbourne(answers, {
        e10: { average: '1.83', min: '182.7', max: '182.7' }, ulp91: { average: '1.86', min: '182.9', max: '189.9' },
        ulp95: { average: '2.00', min: '196.9', max: '203.9' }, ulp98: { average: '2.08', min: '204.9', max: '211.9' },
        diesel, lpg: { average: '1.10', min: '109.9', max: '109.9' },
        'ulp-combined': { average: '1.85', min: '182.7', max: '189.9' },
        'pulp-combined': { average: '2.05', min: '196.9', max: '211.9' }, 'diesel-combined': diesel,
      }, { pdiesel: ['ampol-foodary-carlton-north'] });
      assertStationIds(answers, ['7-eleven-richmond', 'ampol-foodary-carlton-north', 'bp-clifton-hill']);
      assert.deepEqual(answers['/v1/stations/7-eleven-richmond'], {
        status: 200,
        body: { data: {
          id: '7-eleven-richmond', name: '7-Eleven Richmond', brand: '7-Eleven', address: '390 Church St, Richmond VIC 3121',
          street: '390 Church St', suburb: 'Richmond', postcode: '3121', state: 'vic', phone: '', website: '',
          latitude: '-37.8236', longitude: '144.9983',
        } },
      });
      // First reports (Melbourne time): LPG 10th 09:41:09, diesel 11th 10:05:18, the rest 11th 17:20:41.
      richmondHistory(answers, [D12, D11], [D12, D11, D10]);
    });

    test('round 2: new prices, LPG out of stock at 7-Eleven, United Collingwood joins', async () => {
      fake.advance();
      const run = await ingest('vic', db.url, R2, env());
      assert.equal(run.code, 0, run.stderr);
      // New reports: bp U91 and P95, Ampol PDSL (back), 7-Eleven LPG (out), United U91 and DSL = 6;
      // the other 10 of the 16 are the same reports as round 1's.
      assert.equal(run.stdout, '2026-05-13T00:00:00Z  vic   ok     0s  stations +1 ~0 (1 refused), prices 18 read: 6 stored, 10 already known, 0 corrected, 0 held, 2 rejected\n');

      const answers = await api(R2);
      // ulp91 1859, 1847, 1829, United 1799 -> 7334 / 4 = 1833.5 -> 183.35 c -> "1.83", 179.9 to 185.9.
      // ulp95 1999, 1969 -> 1984 -> "1.98". diesel 1959, 1935, 1929, 1899 -> 1930.5 -> 193.05 c -> "1.93".
      // pdiesel Ampol 2019 -> "2.02". lpg: 7-Eleven's is out, no other: false.
      // ulp-combined 7334 + 1827 = 9161 / 5 = 1832.2 -> "1.83". pulp-combined 1999 + 1969 + 2119 + 2077 + 2049
      // = 10213 / 5 = 2042.6 -> "2.04". diesel-combined 7722 + 2019 = 9741 / 5 = 1948.2 -> "1.95", 189.9 to 201.9.
      assertMelbourne(answers, {
        e10: { average: '1.83', min: '182.7', max: '182.7' }, ulp91: { average: '1.83', min: '179.9', max: '185.9' },
        ulp95: { average: '1.98', min: '196.9', max: '199.9' }, ulp98: { average: '2.08', min: '204.9', max: '211.9' },
        diesel: { average: '1.93', min: '189.9', max: '195.9' }, pdiesel: { average: '2.02', min: '201.9', max: '201.9' },
        'ulp-combined': { average: '1.83', min: '179.9', max: '185.9' },
        'pulp-combined': { average: '2.04', min: '196.9', max: '211.9' },
        'diesel-combined': { average: '1.95', min: '189.9', max: '201.9' },
      }, { lpg: ['7-eleven-richmond'] });
      assertStationIds(answers, ['7-eleven-richmond', 'ampol-foodary-carlton-north', 'bp-clifton-hill', 'united-collingwood']);
      // LPG ran out on the 12th at 12:58:20: the 12th keeps 109.9 (while available); the 13th has no value.
      richmondHistory(answers, [D13, D12, D11], [D12, D11, D10]);
      // bp's U91 went from 189.9 to 185.9 on the 12th at 14:10:37 (51037 s into the day):
      // (1899 x 51037 + 1859 x 35363) / 86400 = 1882.63 -> 188.3. The 11th: 189.9 from 15:47:12; the 13th: 185.9.
      const bp = answers['/v1/stations/bp-clifton-hill/history?timeframe=last-week']?.body as { data: { history: Array<{ fuel: string; records: unknown }> } };
      assert.deepEqual(bp.data.history.find((h) => h.fuel === 'ulp91')?.records, [
        { timestamp: DAY13, date: '13-05-2026', average: '185.9' }, { timestamp: DAY12, date: '12-05-2026', average: '188.3' },
        { timestamp: DAY11, date: '11-05-2026', average: '189.9' },
      ]);
    });

    test('a cut prices answer fails the run, changes nothing, and `ingest status` lists it', async () => {
      const before = await api(R2);
      const requestsBefore = fake.server.requests.length;
      const full = vicFixture(2, 'prices');
      fake.server.failNext({ pathIncludes: '/fuel/prices', body: full.slice(0, Math.floor(full.length / 2)) });
      const cut = await ingest('vic', db.url, R2, env());
      assert.equal(cut.code, 1);
      assert.equal(cut.stdout, '2026-05-13T00:00:00Z  vic   FAILED 0s  stations +0 ~0, prices 0 read: 0 stored, 0 already known, 0 corrected, 0 held, 0 rejected\n'
        + '    error: Fair Fuel: the prices answer is not JSON (cut short or not the API?)\n');
      assert.equal(fake.server.requests.length, requestsBefore + 2);
      assert.deepEqual(await api(R2), before);

      // A well-formed answer of the wrong shape is refused the same way.
      fake.server.failNext({ pathIncludes: '/fuel/prices', body: '{"message":"service unavailable"}' });
      const wrong = await ingest('vic', db.url, R2, env());
      assert.equal(wrong.code, 1);
      assert.match(wrong.stdout, /\n {4}error: Fair Fuel: the prices answer has no fuelPriceDetails list\n$/);
      assert.deepEqual(await api(R2), before);

      const status = await runCli(['ingest', 'status'], { DATABASE_URL: db.url });
      assert.equal(status.code, 0, status.stderr);
      assert.ok(status.stdout.includes(`\nRecent runs, newest first:\n${wrong.stdout}${cut.stdout}`), status.stdout);
    });
  });
}

/** Every feed's URL pointed at a port nobody listens on, so nothing can leave the machine. */
const UNREACHABLE = {
  NSW_FUELCHECK_URL: 'http://127.0.0.1:1', QLD_FPD_URL: 'http://127.0.0.1:1', SA_FPD_URL: 'http://127.0.0.1:1',
  VIC_FAIRFUEL_URL: 'http://127.0.0.1:1', WA_FUELWATCH_URL: 'http://127.0.0.1:1', NT_MYFUEL_URL: 'http://127.0.0.1:1',
};
const DISABLED = {
  nsw: 'fuelprice: feed nsw (NSW FuelCheck (NSW, ACT, TAS)) disabled: set NSW_FUELCHECK_API_KEY and NSW_FUELCHECK_API_SECRET (how to get them: docs/FEEDS-SETUP.md)\n',
  qld: 'fuelprice: feed qld (Fuel Prices QLD (FPD API)) disabled: set QLD_FPD_TOKEN (how to get them: docs/FEEDS-SETUP.md)\n',
  sa: 'fuelprice: feed sa (SA Fuel Pricing Information Scheme (FPD API)) disabled: set SA_FPD_TOKEN (how to get them: docs/FEEDS-SETUP.md)\n',
  vic: 'fuelprice: feed vic (VIC Fair Fuel open data) disabled: set VIC_FAIRFUEL_CONSUMER_ID (how to get them: docs/FEEDS-SETUP.md)\n',
};

describe('feeds without credentials', () => {
  test('`ingest vic` without a consumer id: one line, exit 2, no call; `ingest all` runs WA and NT and skips the rest', async () => {
    const sqlite = e2eBackends()[0];
    assert.ok(sqlite);
    const db = await sqlite.create();
    const [vic, wa, nt] = await Promise.all([startVicFake(), startWaFake(), startNtFake()]);
    try {
      const base = { DATABASE_URL: db.url, FUELPRICE_NOW: isoAt(WA_ROUND_1_NOW), ...UNREACHABLE };
      const alone = await runCli(['ingest', 'vic'], { ...base, VIC_FAIRFUEL_URL: vic.url });
      assert.deepEqual(alone, { code: 2, stdout: '', stderr: DISABLED.vic });
      assert.equal(vic.server.requests.length, 0);

      const all = await runCli(['ingest', 'all'], { ...base, WA_FUELWATCH_URL: wa.url, WA_FUELWATCH_SOURCE: 'rss', NT_MYFUEL_URL: nt.url });
      assert.equal(all.code, 0, all.stderr);
      // One line per feed left out, in feed order; nothing else (logs are silent).
      assert.equal(all.stderr, DISABLED.nsw + DISABLED.qld + DISABLED.sa + DISABLED.vic);
      // WA as in its own round 1; NT: Ampol Stuart Park 4 + BP Parap 4 + United Winnellie 3 prices,
      // Liberty Coconut Grove (no position) rejected, Puma Berrimah (inactive) left out.
      assert.equal(all.stdout, '2026-05-12T07:00:00Z  wa    ok     0s  stations +3 ~0 (1 refused), prices 14 read: 6 stored, 0 already known, 0 corrected, 6 held, 2 rejected\n'
        + '2026-05-12T07:00:00Z  nt    ok     0s  stations +3 ~0 (1 refused), prices 13 read: 11 stored, 0 already known, 0 corrected, 0 held, 2 rejected\n');
      assert.equal(wa.server.requests.length, 14);
      assert.equal(nt.server.requests.length, 1);
      assert.equal(vic.server.requests.length, 0);
    } finally {
      await Promise.all([vic.close(), wa.close(), nt.close()]);
      await db.drop();
    }
  });
});
