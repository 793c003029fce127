/**
 * NSW FuelCheck (NSW, ACT, TAS) end to end, without the internet: `fuelprice ingest nsw` in its own
 * process against the FuelCheck fake (test/fakes/nsw.ts), then the public API over what it wrote.
 * Every expected answer is worked out by hand from test/fixtures/feeds/nsw/ in the comments. The
 * tests of one describe are the steps of one story (round 1, round 2 through /prices/new, bad input,
 * a missing credential) and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FUELS } from '../../../src/domain/fuels.ts';
import { openStore } from '../../../src/storage/open.ts';
import { fixedClock, get, runCli, startServer } from '../../helpers.ts';
import { NSW_ROUND_1_NOW, NSW_ROUND_2_NOW, NSW_TEST_KEY, NSW_TEST_SECRET, type NswFake, startNswFake } from '../../fakes/nsw.ts';
import { type E2eDatabase, e2eBackends, ingest, isoAt } from './harness.ts';

// NSW_ROUND_1_NOW = 2026-05-12 09:00 Sydney = 2026-05-11T23:00:00Z; round 2 at 09:30. Hobart keeps
// Sydney's offset (AEST, UTC+10, in May), so the local day 12-05-2026 starts at 2026-05-11T14:00Z
// = R1 - 9 h in all three states.
const R1 = NSW_ROUND_1_NOW;
const R2 = NSW_ROUND_2_NOW;
const DAY12 = R1 - 32_400;
const NEXT = R1 + 86_400; // 2026-05-13 09:00 Sydney
const day = (n: number): [number, string] => [DAY12 - (12 - n) * 86_400, `${String(n).padStart(2, '0')}-05-2026`];

const CITIES = { sydney: 'Sydney', canberra: 'Canberra', hobart: 'Hobart' } as const;
type CityId = keyof typeof CITIES;
const HISTORY = {
  surry: '/v1/stations/ampol-foodary-surry-hills/history?timeframe=last-week',
  braddon: '/v1/stations/bp-braddon/history?timeframe=last-week',
  moonah: '/v1/stations/united-moonah/history?timeframe=last-week',
} as const;
const PATHS = [
  ...Object.keys(CITIES).flatMap((c) => [`/v1/cities/${c}/spread`, `/v1/cities/${c}/average`, `/v1/cities/${c}/unavailable`]),
  ...Object.values(HISTORY), '/v1/stations?state=nsw', '/v1/stations?state=act', '/v1/stations?state=tas',
];
type Answers = Record<string, { status: number; body: unknown; text: string }>;
type Spread = { average: string; min: string; max: string };
type Day = { timestamp: number; date: string; average: string };

/** The API's answers at `nowSec` through a real port, parsed and as the exact bytes sent. */
async function api(databaseUrl: string, nowSec: number): Promise<Answers> {
  const store = await openStore(databaseUrl);
  const server = await startServer(store, fixedClock(nowSec));
  try {
    const out: Answers = {};
    for (const path of PATHS) {
      const r = await get(server, path);
      out[path] = { status: r.status, body: r.body, text: r.text };
    }
    return out;
  } finally {
    await server.close();
    await store.close();
  }
}
const texts = (answers: Answers): Record<string, string> => Object.fromEntries(Object.entries(answers).map(([p, a]) => [p, `${a.status} ${a.text}`]));

function allFuels<T>(named: Partial<Record<string, T>>, none: T): Array<{ fuel: string } & T> {
  return FUELS.map((fuel) => ({ fuel, ...(named[fuel] ?? none) }));
}

/** A city's spread, average (the spread's, by DESIGN) and unavailable lists. */
function assertCity(answers: Answers, id: CityId, named: Record<string, Spread>, unavailable: Record<string, string[]> = {}): void {
  const city = { id, name: CITIES[id] };
  const pick = (path: string) => ({ status: answers[path]?.status, body: answers[path]?.body });
  assert.deepEqual(pick(`/v1/cities/${id}/spread`), {
    status: 200, body: { data: { ...city, spread: allFuels<object>(named, { average: false, min: false, max: false }), tomorrow: false } },
  });
  const averages = Object.fromEntries(Object.entries(named).map(([fuel, s]) => [fuel, { average: s.average }]));
  assert.deepEqual(pick(`/v1/cities/${id}/average`), { status: 200, body: { data: { ...city, averages: allFuels<object>(averages, { average: false }), tomorrow: false } } });
  const lists = Object.fromEntries(Object.entries(unavailable).map(([fuel, ids]) => [fuel, { stations: ids, count: ids.length }]));
  assert.deepEqual(pick(`/v1/cities/${id}/unavailable`), {
    status: 200, body: { data: { ...city, unavailable: allFuels<object>(lists, { stations: false, count: 0 }) } },
  });
}

/** One station's last-week history; `named` maps a fuel to its records, newest first. */
function assertHistory(answers: Answers, path: string, id: string, name: string, named: Record<string, Day[]>): void {
  const history = allFuels<object>(Object.fromEntries(Object.entries(named).map(([f, records]) => [f, { records }])), { records: false });
  assert.deepEqual({ status: answers[path]?.status, body: answers[path]?.body }, { status: 200, body: { data: { id, name, history } } });
}
const flat = (average: string, days: number[]): Day[] => days.map((n) => { const [timestamp, date] = day(n); return { timestamp, date, average }; });

function assertStationIds(answers: Answers, state: string, ids: readonly string[]): void {
  const body = answers[`/v1/stations?state=${state}`]?.body as { data: Array<{ id: string }>; total_items: number };
  assert.deepEqual(body.data.map((s) => s.id), ids);
  assert.equal(body.total_items, ids.length);
}

const runLine = (now: number, counts: string): string => `${isoAt(now).replace('.000Z', 'Z')}  nsw   ok     0s  ${counts}\n`;
const failedLine = (now: number, error: string): string => `${isoAt(now).replace('.000Z', 'Z')}  nsw   FAILED 0s  `
  + `stations +0 ~0, prices 0 read: 0 stored, 0 already known, 0 corrected, 0 held, 0 rejected\n    error: ${error}\n`;
const basic = `Basic ${Buffer.from(`${NSW_TEST_KEY}:${NSW_TEST_SECRET}`).toString('base64')}`;

for (const backend of e2eBackends()) {
  describe(`NSW FuelCheck end to end on ${backend.name}`, () => {
    let fake: NswFake;
    let db: E2eDatabase;
    let afterRound2: Answers;
    let afterNext: Record<string, string>;
    const env = (secret = NSW_TEST_SECRET): Record<string, string> => ({
      NSW_FUELCHECK_URL: fake.url, NSW_FUELCHECK_API_KEY: NSW_TEST_KEY, NSW_FUELCHECK_API_SECRET: secret,
    });
    const paths = (from: number): string[] => fake.server.requests.slice(from).map((r) => r.path);
    const host = (): string => fake.url.replace('http://', '');
    before(async () => {
      fake = await startNswFake();
      db = await backend.create();
    });
    after(async () => {
      await fake.close();
      await db.drop();
    });

    test('round 1: a full snapshot of NSW, ACT and TAS; bad records rejected alone', async () => {
      const run = await ingest('nsw', db.url, R1, env());
      assert.equal(run.code, 0, run.stderr);
      // Stations: 7 in the fixture, Budget Auburn (null position) rejected: +6.
      // Prices: 27. Accepted: Surry Hills E10 U91 P98 DL (4), Pyrmont E10 P95 DL (3), Queanbeyan U91 DL
      // LPG (3), Braddon E10 U91 P98 DL PDL (5), Moonah U91 P95 DL LPG (4), Sandy Bay U91 P98 DL (3) = 22.
      // Rejected 6: Auburn's station and its U91 (unknown station), H2 at Surry Hills and at Braddon
      // (unknown fuel code), Pyrmont P98 2117.0 (21170 tenths, over 500 c/L), Sandy Bay P95 "N/A".
      assert.equal(run.stdout, runLine(R1, 'stations +6 ~0 (1 refused), prices 27 read: 22 stored, 0 already known, 0 corrected, 0 held, 5 rejected'));
      // A first run takes the snapshot, for both states, after one token.
      assert.deepEqual(fake.server.requests.map((r) => [r.path, r.query.get('states') ?? r.query.get('grant_type')]), [
        ['/oauth/client_credential/accesstoken', 'client_credentials'], ['/FuelPriceCheck/v2/fuel/prices', 'NSW|TAS'],
      ]);
      assert.equal(fake.server.requests[0]?.headers['authorization'], basic);

      const answers = await api(db.url, R1);
      // Sydney (tenths): Surry Hills e10 1869 ulp91 1899 ulp98 2139 diesel 1929; Pyrmont e10 1877 ulp95 2037
      // diesel 1937. e10 (1869 + 1877) / 2 = 1873 -> 187.3 c -> "1.87". diesel 1933 -> "1.93".
      // ulp-combined: ulp91 and e10 -> (1869 + 1899 + 1877) / 3 = 1881.67 -> "1.88", 186.9 to 189.9.
      // pulp-combined: (2139 + 2037) / 2 = 2088 -> "2.09". diesel-combined: no pdiesel, so diesel's.
      const sydDiesel = { average: '1.93', min: '192.9', max: '193.7' };
      assertCity(answers, 'sydney', {
        e10: { average: '1.87', min: '186.9', max: '187.7' }, ulp91: { average: '1.90', min: '189.9', max: '189.9' },
        ulp95: { average: '2.04', min: '203.7', max: '203.7' }, ulp98: { average: '2.14', min: '213.9', max: '213.9' }, diesel: sydDiesel,
        'ulp-combined': { average: '1.88', min: '186.9', max: '189.9' }, 'pulp-combined': { average: '2.09', min: '203.7', max: '213.9' },
        'diesel-combined': sydDiesel,
      });
      // Canberra: bp Braddon alone (its address says ACT, though the feed says NSW); Metro Fuel
      // Queanbeyan (NSW, 11.8 km away) goes to NSW's Queanbeyan, never to the ACT's Canberra.
      // diesel-combined: (1949 + 1999) / 2 = 1974 -> "1.97". ulp-combined (1857 + 1887) / 2 = 1872 -> "1.87".
      assertCity(answers, 'canberra', {
        e10: { average: '1.86', min: '185.7', max: '185.7' }, ulp91: { average: '1.89', min: '188.7', max: '188.7' },
        ulp98: { average: '2.13', min: '212.7', max: '212.7' }, diesel: { average: '1.95', min: '194.9', max: '194.9' },
        pdiesel: { average: '2.00', min: '199.9', max: '199.9' }, 'ulp-combined': { average: '1.87', min: '185.7', max: '188.7' },
        'pulp-combined': { average: '2.13', min: '212.7', max: '212.7' }, 'diesel-combined': { average: '1.97', min: '194.9', max: '199.9' },
      });
      // Hobart: Moonah ulp91 1949 ulp95 2079 diesel 1979 lpg 1189; Sandy Bay ulp91 1969 ulp98 2199 diesel 1999.
      // ulp91 1959 -> "1.96"; diesel 1989 -> "1.99"; pulp-combined (2079 + 2199) / 2 = 2139 -> "2.14".
      const hobUlp = { average: '1.96', min: '194.9', max: '196.9' };
      const hobDiesel = { average: '1.99', min: '197.9', max: '199.9' };
      assertCity(answers, 'hobart', {
        ulp91: hobUlp, ulp95: { average: '2.08', min: '207.9', max: '207.9' }, ulp98: { average: '2.20', min: '219.9', max: '219.9' },
        diesel: hobDiesel, lpg: { average: '1.19', min: '118.9', max: '118.9' }, 'ulp-combined': hobUlp,
        'pulp-combined': { average: '2.14', min: '207.9', max: '219.9' }, 'diesel-combined': hobDiesel,
      });
      // Histories: each price is constant from its first report (Sydney time), so each day's mean is it.
      // Surry Hills: E10/U91 from the 12th 07:45:10, P98 from the 11th, DL from the 10th;
      // ulp-combined is the mean of the station's ulp91 and e10: (186.9 + 189.9) / 2 = 188.4.
      assertHistory(answers, HISTORY.surry, 'ampol-foodary-surry-hills', 'Ampol Foodary Surry Hills', {
        e10: flat('186.9', [12]), ulp91: flat('189.9', [12]), ulp98: flat('213.9', [12, 11]), diesel: flat('192.9', [12, 11, 10]),
        'ulp-combined': flat('188.4', [12]), 'pulp-combined': flat('213.9', [12, 11]), 'diesel-combined': flat('192.9', [12, 11, 10]),
      });
      // Braddon: E10/U91/P98 from the 11th 12:00, DL and PDL from the 8th 09:15; diesel-combined (194.9 + 199.9) / 2 = 197.4.
      const braddon = {
        e10: flat('185.7', [12, 11]), ulp91: flat('188.7', [12, 11]), ulp98: flat('212.7', [12, 11]), diesel: flat('194.9', [12, 11, 10, 9, 8]),
        pdiesel: flat('199.9', [12, 11, 10, 9, 8]), 'ulp-combined': flat('187.2', [12, 11]), 'pulp-combined': flat('212.7', [12, 11]),
        'diesel-combined': flat('197.4', [12, 11, 10, 9, 8]),
      };
      assertHistory(answers, HISTORY.braddon, 'bp-braddon', 'bp Braddon', braddon);
      // Moonah: U91/P95 from the 11th 09:30, DL from the 10th 15:45:30, LPG from 3 April: every day of the week (6th to 12th).
      assertHistory(answers, HISTORY.moonah, 'united-moonah', 'United Moonah', {
        ulp91: flat('194.9', [12, 11]), ulp95: flat('207.9', [12, 11]), diesel: flat('197.9', [12, 11, 10]),
        lpg: flat('118.9', [12, 11, 10, 9, 8, 7, 6]), 'ulp-combined': flat('194.9', [12, 11]), 'pulp-combined': flat('207.9', [12, 11]),
        'diesel-combined': flat('197.9', [12, 11, 10]),
      });
      assertStationIds(answers, 'nsw', ['7-eleven-pyrmont', 'ampol-foodary-surry-hills', 'metro-fuel-queanbeyan']);
      assertStationIds(answers, 'act', ['bp-braddon']);
      assertStationIds(answers, 'tas', ['ampol-foodary-sandy-bay', 'united-moonah']);
      assert.deepEqual((answers['/v1/stations?state=act']?.body as { data: unknown[] }).data[0], {
        id: 'bp-braddon', name: 'bp Braddon', brand: 'BP', address: '33 Mort St, BRADDON ACT 2612', street: '33 Mort St',
        suburb: 'Braddon', postcode: '2612', state: 'act', phone: '', website: '', latitude: '-35.2747', longitude: '149.1339',
      });
    });

    test('round 2 through /prices/new: Ampol cheaper, bp Braddon out of premium diesel, Speedway Marrickville joins', async () => {
      fake.advance();
      const from = fake.server.requests.length;
      const run = await ingest('nsw', db.url, R2, env());
      assert.equal(run.code, 0, run.stderr);
      // /new answers only what changed since round 1: Surry Hills E10 and U91, Braddon PDL (0: out),
      // Marrickville E10 U91 DL, Moonah DL = 7 prices, with their 4 stations (only Marrickville new).
      assert.equal(run.stdout, runLine(R2, 'stations +1 ~0, prices 7 read: 7 stored, 0 already known, 0 corrected, 0 held, 0 rejected'));
      // A new process reuses the token round 1 bought and kept in the store (it lasts 12 hours): no token
      // call, only /new (the cursor is today's), never the snapshot.
      const sent = fake.server.requests.slice(from);
      assert.deepEqual(sent.map((r) => r.path), ['/FuelPriceCheck/v2/fuel/prices/new']);
      assert.equal(fake.tokens.length, 1);
      assert.equal(sent[0]?.headers['authorization'], `Bearer ${fake.tokens[0]}`);
      assert.equal(sent[0]?.headers['apikey'], NSW_TEST_KEY);

      const answers = await api(db.url, R2);
      // Sydney: e10 Surry Hills 1839, Pyrmont 1877, Marrickville 1809 -> 5525 / 3 = 1841.67 -> "1.84".
      // ulp91 (1869 + 1829) / 2 = 1849 -> 184.9 c -> "1.85". diesel (1929 + 1937 + 1909) / 3 = 1925 ->
      // 192.5 c -> "1.93" (half away from zero). ulp-combined (1839 + 1869 + 1877 + 1809 + 1829) / 5 = 9223 / 5
      // = 1844.6 -> "1.84", 180.9 to 187.7.
      const sydDiesel = { average: '1.93', min: '190.9', max: '193.7' };
      assertCity(answers, 'sydney', {
        e10: { average: '1.84', min: '180.9', max: '187.7' }, ulp91: { average: '1.85', min: '182.9', max: '186.9' },
        ulp95: { average: '2.04', min: '203.7', max: '203.7' }, ulp98: { average: '2.14', min: '213.9', max: '213.9' }, diesel: sydDiesel,
        'ulp-combined': { average: '1.84', min: '180.9', max: '187.7' }, 'pulp-combined': { average: '2.09', min: '203.7', max: '213.9' },
        'diesel-combined': sydDiesel,
      });
      // Canberra: pdiesel out, so no value; diesel-combined is diesel's alone; Braddon listed for pdiesel
      // only (its diesel still counts towards diesel-combined).
      const cbrDiesel = { average: '1.95', min: '194.9', max: '194.9' };
      assertCity(answers, 'canberra', {
        e10: { average: '1.86', min: '185.7', max: '185.7' }, ulp91: { average: '1.89', min: '188.7', max: '188.7' },
        ulp98: { average: '2.13', min: '212.7', max: '212.7' }, diesel: cbrDiesel, 'ulp-combined': { average: '1.87', min: '185.7', max: '188.7' },
        'pulp-combined': { average: '2.13', min: '212.7', max: '212.7' }, 'diesel-combined': cbrDiesel,
      }, { pdiesel: ['bp-braddon'] });
      // Hobart: Moonah diesel 1959 -> (1959 + 1999) / 2 = 1979 -> "1.98", 195.9 to 199.9.
      const hobUlp = { average: '1.96', min: '194.9', max: '196.9' };
      const hobDiesel = { average: '1.98', min: '195.9', max: '199.9' };
      assertCity(answers, 'hobart', {
        ulp91: hobUlp, ulp95: { average: '2.08', min: '207.9', max: '207.9' }, ulp98: { average: '2.20', min: '219.9', max: '219.9' },
        diesel: hobDiesel, lpg: { average: '1.19', min: '118.9', max: '118.9' }, 'ulp-combined': hobUlp,
        'pulp-combined': { average: '2.14', min: '207.9', max: '219.9' }, 'diesel-combined': hobDiesel,
      });
      // Surry Hills' E10 on the 12th: 186.9 from 07:45:10 to 09:12:40 (5250 s), 183.9 to 09:30 (1040 s):
      // (1869 x 5250 + 1839 x 1040) / 6290 = 11724810 / 6290 = 1864.04 -> "186.4". U91 likewise:
      // (1899 x 5250 + 1869 x 1040) / 6290 = 11913510 / 6290 = 1894.04 -> "189.4". ulp-combined (1864.04 + 1894.04) / 2 = 1879.04 -> "187.9".
      assertHistory(answers, HISTORY.surry, 'ampol-foodary-surry-hills', 'Ampol Foodary Surry Hills', {
        e10: flat('186.4', [12]), ulp91: flat('189.4', [12]), ulp98: flat('213.9', [12, 11]), diesel: flat('192.9', [12, 11, 10]),
        'ulp-combined': flat('187.9', [12]), 'pulp-combined': flat('213.9', [12, 11]), 'diesel-combined': flat('192.9', [12, 11, 10]),
      });
      // Braddon's PDL ran out at 09:20:05: the 12th counts only the time it was available, all at 199.9.
      assertHistory(answers, HISTORY.braddon, 'bp-braddon', 'bp Braddon', {
        e10: flat('185.7', [12, 11]), ulp91: flat('188.7', [12, 11]), ulp98: flat('212.7', [12, 11]), diesel: flat('194.9', [12, 11, 10, 9, 8]),
        pdiesel: flat('199.9', [12, 11, 10, 9, 8]), 'ulp-combined': flat('187.2', [12, 11]), 'pulp-combined': flat('212.7', [12, 11]),
        'diesel-combined': flat('197.4', [12, 11, 10, 9, 8]),
      });
      // Moonah's DL on the 12th: 197.9 from 00:00 to 09:05 (32700 s), 195.9 to 09:30 (1500 s):
      // (1979 x 32700 + 1959 x 1500) / 34200 = 67651800 / 34200 = 1978.12 -> "197.8".
      const moonahDiesel = [{ timestamp: day(12)[0], date: '12-05-2026', average: '197.8' }, ...flat('197.9', [11, 10])];
      assertHistory(answers, HISTORY.moonah, 'united-moonah', 'United Moonah', {
        ulp91: flat('194.9', [12, 11]), ulp95: flat('207.9', [12, 11]), diesel: moonahDiesel,
        lpg: flat('118.9', [12, 11, 10, 9, 8, 7, 6]), 'ulp-combined': flat('194.9', [12, 11]), 'pulp-combined': flat('207.9', [12, 11]),
        'diesel-combined': moonahDiesel,
      });
      assertStationIds(answers, 'nsw', ['7-eleven-pyrmont', 'ampol-foodary-surry-hills', 'metro-fuel-queanbeyan', 'speedway-marrickville']);
      assertStationIds(answers, 'act', ['bp-braddon']);
      assertStationIds(answers, 'tas', ['ampol-foodary-sandy-bay', 'united-moonah']);
      afterRound2 = answers;
    });

    test('a wrong secret and a cut answer fail the run and change nothing; the next runs converge', async () => {
      const unchanged = async (): Promise<void> => assert.deepEqual(texts(await api(db.url, R2)), texts(afterRound2));
      let from = fake.server.requests.length;
      const wrong = await ingest('nsw', db.url, R2 + 60, env('not-the-secret'));
      assert.equal(wrong.code, 1);
      // Other credentials do not use the kept token: the token call answers 401, an auth error, not retried, and no data call.
      assert.equal(wrong.stdout, failedLine(R2 + 60, `${host()}/oauth/client_credential/accesstoken: HTTP 401, credentials refused (check the feed's credentials): {"ErrorCode":"invalid_client","Error":"ClientId is Invalid"}`));
      assert.deepEqual(paths(from), ['/oauth/client_credential/accesstoken']);
      await unchanged();

      // The last run failed, so this one asks for a full snapshot; each of FeedHttp's 4 attempts is cut off halfway through the body.
      from = fake.server.requests.length;
      const cutFault = { pathIncludes: '/fuel/prices', truncate: true };
      fake.server.failNext(cutFault, cutFault, cutFault, cutFault);
      const cut = await ingest('nsw', db.url, R2 + 120, env());
      assert.equal(cut.code, 1);
      // Each attempt dies with the socket (undici's UND_ERR_SOCKET): a network error, retried, then given up.
      assert.equal(cut.stdout, failedLine(R2 + 120, `${host()}/FuelPriceCheck/v2/fuel/prices: UND_ERR_SOCKET (connection closed before the answer was complete)`));
      // The right credentials again: the kept token, no token call.
      assert.deepEqual(paths(from), Array<string>(4).fill('/FuelPriceCheck/v2/fuel/prices'));
      await unchanged();

      const listed = await runCli(['ingest', 'status'], { DATABASE_URL: db.url });
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok(listed.stdout.includes(`\nRecent runs, newest first:\n${cut.stdout}${wrong.stdout}`), listed.stdout);

      // The next run, a new process the same day: the last run failed, so it takes a full snapshot
      // again, with the kept token. Round 2 is stored already: nothing new.
      from = fake.server.requests.length;
      const again = await ingest('nsw', db.url, R2 + 180, env());
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stdout, runLine(R2 + 180, 'stations +0 ~0 (1 refused), prices 30 read: 0 stored, 25 already known, 0 corrected, 0 held, 5 rejected'));
      assert.deepEqual(paths(from), ['/FuelPriceCheck/v2/fuel/prices']);
      await unchanged();

      // The next Sydney day (NEXT = the 13th, 09:00) the cursor asks for a full snapshot: round 2's 30
      // prices, 25 valid and all already known, the same 6 rejected (Auburn and its price, 2 x H2,
      // Pyrmont P98, Sandy Bay P95). Answers are compared at NEXT: asked at R2 after the 13th's run,
      // the 12th's history would count the rest of that day, which had not happened at R2.
      const beforeNext = texts(await api(db.url, NEXT));
      from = fake.server.requests.length;
      const nextDay = await ingest('nsw', db.url, NEXT, env());
      assert.equal(nextDay.code, 0, nextDay.stderr);
      assert.equal(nextDay.stdout, runLine(NEXT, 'stations +0 ~0 (1 refused), prices 30 read: 0 stored, 25 already known, 0 corrected, 0 held, 5 rejected'));
      // The kept token, bought at R1 for 43,199 s (less 5 minutes' margin), has expired: a new one.
      assert.deepEqual(paths(from), ['/oauth/client_credential/accesstoken', '/FuelPriceCheck/v2/fuel/prices']);
      afterNext = texts(await api(db.url, NEXT));
      assert.deepEqual(afterNext, beforeNext);
      // Today's spreads, averages and unavailable lists come from the current prices: still round 2's.
      for (const path of PATHS.filter((p) => p.startsWith('/v1/cities/'))) assert.equal(afterNext[path], texts(afterRound2)[path], path);
    });

    test('changes sent in a /new answer that was cut short are not lost: the next run takes a full snapshot', async () => {
      const other = await startNswFake();
      const fresh = await backend.create();
      try {
        const envOf = { NSW_FUELCHECK_URL: other.url, NSW_FUELCHECK_API_KEY: NSW_TEST_KEY, NSW_FUELCHECK_API_SECRET: NSW_TEST_SECRET };
        assert.equal((await ingest('nsw', fresh.url, R1, envOf)).code, 0);
        other.advance();
        // Round 2's /new is answered (so the fake, like the API, counts its 7 changes as sent) but cut off each time.
        const cutFault = { pathIncludes: '/fuel/prices', truncate: true };
        other.server.failNext(cutFault, cutFault, cutFault, cutFault);
        assert.equal((await ingest('nsw', fresh.url, R2, envOf)).code, 1);
        const from = other.server.requests.length;
        const next = await ingest('nsw', fresh.url, R2 + 60, envOf);
        assert.equal(next.code, 0, next.stderr);
        assert.equal(next.stdout, runLine(R2 + 60, 'stations +1 ~0 (1 refused), prices 30 read: 7 stored, 18 already known, 0 corrected, 0 held, 5 rejected'));
        assert.deepEqual(other.server.requests.slice(from).map((r) => r.path), ['/FuelPriceCheck/v2/fuel/prices']);
        assert.deepEqual(texts(await api(fresh.url, R2)), texts(afterRound2));
      } finally {
        await other.close();
        await fresh.drop();
      }
    });

    test('only the API key set: exit 2, one line naming the secret, no call, nothing written', async () => {
      const before = await runCli(['ingest', 'status'], { DATABASE_URL: db.url });
      const from = fake.server.requests.length;
      const run = await runCli(['ingest', 'nsw'], {
        DATABASE_URL: db.url, FUELPRICE_NOW: isoAt(NEXT + 60), NSW_FUELCHECK_URL: fake.url, NSW_FUELCHECK_API_KEY: NSW_TEST_KEY,
      });
      assert.deepEqual(run, {
        code: 2, stdout: '',
        stderr: 'fuelprice: feed nsw (NSW FuelCheck (NSW, ACT, TAS)) disabled: set NSW_FUELCHECK_API_SECRET (how to get them: docs/FEEDS-SETUP.md)\n',
      });
      assert.equal(fake.server.requests.length, from);
      assert.deepEqual(await runCli(['ingest', 'status'], { DATABASE_URL: db.url }), before);
      assert.deepEqual(texts(await api(db.url, NEXT)), afterNext);
    });
  });
}
