/**
 * WA FuelWatch end to end, without the internet: `fuelprice ingest wa` in its own process against
 * the FuelWatch fake (test/fakes/wa.ts), then the public API over what it wrote. Every expected
 * answer is worked out by hand from test/fixtures/feeds/wa/ in the comments. The tests of one
 * describe are the steps of one story (round 1, the 06:00 release, round 2, bad input) and run in order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FUELS } from '../../../src/domain/fuels.ts';
import { runCli } from '../../helpers.ts';
import { type WaFake, WA_ROUND_1_NOW, startWaFake, waFixture } from '../../fakes/wa.ts';
import { type E2eDatabase, apiAnswers, e2eBackends, ingest } from './harness.ts';

// Clocks (WA is UTC+8 all year). WA_ROUND_1_NOW = 2026-05-12 15:00 WA = 07:00 UTC.
const R1 = WA_ROUND_1_NOW;
const BEFORE_SIX_13 = R1 + 53_940; // 2026-05-13 05:59 WA: 14 h 59 min later
const SIX_13 = R1 + 54_000; //        2026-05-13 06:00 WA, when the 13th's prices take effect
const R2 = R1 + 86_400; //            2026-05-13 15:00 WA: the fake's round 2 (the 14th's lists published)
const SIX_14 = R2 + 54_000; //        2026-05-14 06:00 WA
// Local day starts: 2026-05-12 00:00 WA = 2026-05-11 16:00 UTC = R1 - 15 h.
const DAY12 = R1 - 54_000;
const DAY13 = DAY12 + 86_400;
const DAY14 = DAY13 + 86_400;

const STATIONS = ['ampol-victoria-park', 'puma-osborne-park', 'vibe-bayswater'];
const PATHS = [
  '/v1/cities/perth/spread', '/v1/cities/perth/average', '/v1/cities/perth/unavailable',
  '/v1/stations/ampol-victoria-park/history?timeframe=last-week', '/v1/stations?state=wa', '/v1/stations/ampol-victoria-park',
  '/v1/stations/ampol-victoria-park/prices', '/v1/prices/cheapest?fuel=ulp91&state=wa&day=tomorrow',
] as const;
type Answers = Record<string, { status: number; body: unknown }>;
type Spread = { average: string; min: string; max: string };
/** Tomorrow's figures where known: the instant they take effect and the spread per fuel; false where nothing is held. */
type Tomorrow = { from: number; named: Record<string, Spread> } | false;

/** All 19 fuels in API order: `named` where given, `none` for the rest. */
function allFuels<T>(named: Partial<Record<string, T>>, none: T): Array<{ fuel: string } & T> {
  return FUELS.map((fuel) => ({ fuel, ...(named[fuel] ?? none) }));
}

const averagesOf = (named: Record<string, Spread>) => allFuels<object>(
  Object.fromEntries(Object.entries(named).map(([fuel, s]) => [fuel, { average: s.average }])), { average: false });

/** Asserts spread and average of Perth, today's and tomorrow's, from one table each: the average endpoint must equal the spread's average. */
function assertPerthPrices(answers: Answers, named: Record<string, Spread>, tomorrow: Tomorrow): void {
  const none = { average: false, min: false, max: false };
  assert.deepEqual(answers['/v1/cities/perth/spread'], {
    status: 200, body: { data: { id: 'perth', name: 'Perth', spread: allFuels<object>(named, none),
      tomorrow: tomorrow && { from: tomorrow.from, spread: allFuels<object>(tomorrow.named, none) } } },
  });
  assert.deepEqual(answers['/v1/cities/perth/average'], {
    status: 200, body: { data: { id: 'perth', name: 'Perth', averages: averagesOf(named),
      tomorrow: tomorrow && { from: tomorrow.from, averages: averagesOf(tomorrow.named) } } },
  });
  // FuelWatch has no out-of-stock flag: nothing is ever unavailable.
  assert.deepEqual(answers['/v1/cities/perth/unavailable'], {
    status: 200, body: { data: { id: 'perth', name: 'Perth', unavailable: allFuels<object>({}, { stations: false, count: 0 }) } },
  });
}

function assertStationIds(answers: Answers, ids: readonly string[]): void {
  const list = answers['/v1/stations?state=wa'];
  assert.equal(list?.status, 200);
  const body = list?.body as { data: Array<{ id: string }>; total_items: number };
  assert.deepEqual(body.data.map((s) => s.id), ids);
  assert.equal(body.total_items, ids.length);
}

const record = (timestamp: number, date: string, average: string) => ({ timestamp, date, average });

for (const backend of e2eBackends()) {
  describe(`WA FuelWatch end to end on ${backend.name}`, () => {
    let fake: WaFake;
    let db: E2eDatabase;
    // The RSS path, pinned: the fake plays FuelWatch's RSS only (the site API's own end to end: wa-api.test.ts).
    const env = (): Record<string, string> => ({ WA_FUELWATCH_URL: fake.url, WA_FUELWATCH_SOURCE: 'rss' });
    const api = (now: number): Promise<Answers> => apiAnswers(db.url, now, PATHS);
    before(async () => {
      fake = await startWaFake();
      db = await backend.create();
    });
    after(async () => {
      await fake.close();
      await db.drop();
    });

    test('round 1: today\'s prices are stored, tomorrow\'s held, bad records rejected', async () => {
      const run = await ingest('wa', db.url, R1, env());
      assert.equal(run.code, 0, run.stderr);
      // Stations: Ampol Victoria Park, Puma Osborne Park, Vibe Bayswater (Liberty Belmont has no position: rejected).
      // Today (the 12th): ULP 3 (Ampol, Puma, Vibe) + diesel 2 + LPG 1 (Puma) = 6; Vibe's LPG at 11.9 c/L is
      // under the 30 c/L bound: rejected. Tomorrow (the 13th, from 06:00): ULP 3 + diesel 2 + LPG 1 = 6 held.
      assert.equal(run.stdout, '2026-05-12T07:00:00Z  wa    ok     0s  stations +3 ~0 (1 refused), prices 14 read: 6 stored, 0 already known, 0 corrected, 6 held, 2 rejected\n');
      // 7 products x today and tomorrow: 14 requests, every one to the RSS path.
      assert.equal(fake.server.requests.length, 14);

      const answers = await api(R1);
      // ulp91: (1899 + 1765 + 1749) / 3 = 1804.33 tenths -> 180.4 c -> "1.80"; min 174.9 (Vibe), max 189.9 (Ampol).
      // diesel: (1919 + 1887) / 2 = 1903 -> "1.90", 188.7 to 191.9. lpg: Puma alone, 112.9.
      // ulp-combined and diesel-combined group only those (no e10, no premium diesel in WA's lists).
      const ulp = { average: '1.80', min: '174.9', max: '189.9' };
      const diesel = { average: '1.90', min: '188.7', max: '191.9' };
      // Tomorrow (the 13th, held, from 06:00): ulp91 (1999 + 1945 + 1929) / 3 = 1957.67 -> "1.96", 192.9 to 199.9;
      // diesel the same two prices as today; lpg Puma's 112.9 alone.
      const ulp13 = { average: '1.96', min: '192.9', max: '199.9' };
      assertPerthPrices(answers, { ulp91: ulp, diesel, lpg: { average: '1.13', min: '112.9', max: '112.9' }, 'ulp-combined': ulp, 'diesel-combined': diesel },
        { from: SIX_13, named: { ulp91: ulp13, diesel, lpg: { average: '1.13', min: '112.9', max: '112.9' }, 'ulp-combined': ulp13, 'diesel-combined': diesel } });
      // Ampol's own: today's ULP 189.9 and diesel 191.9 (from 06:00 on the 12th), tomorrow's 199.9 and 191.9 from 06:00 on the 13th.
      const ampolPrices = (answers['/v1/stations/ampol-victoria-park/prices']?.body as { data: { prices: Array<{ fuel: string }> } }).data.prices;
      assert.deepEqual(ampolPrices.filter((p) => p.fuel === 'ulp91' || p.fuel === 'diesel' || p.fuel === 'lpg'), [
        { fuel: 'ulp91', price: '189.9', available: true, updated_at: SIX_13 - 86_400, source: 'wa', tomorrow: { price: '199.9', from: SIX_13 } },
        { fuel: 'diesel', price: '191.9', available: true, updated_at: SIX_13 - 86_400, source: 'wa', tomorrow: { price: '191.9', from: SIX_13 } },
        { fuel: 'lpg', price: false, available: false, updated_at: false, source: false, tomorrow: false },
      ]);
      // The 13th's ULP ranked: Vibe 192.9, Puma 194.5, Ampol 199.9 (Liberty Belmont's station was refused: no station to list).
      const cheapest = answers['/v1/prices/cheapest?fuel=ulp91&state=wa&day=tomorrow']?.body as { data: Array<{ station_id: string; price: string; updated_at: number }>; total_items: number };
      assert.deepEqual(cheapest.data.map((i) => [i.station_id, i.price, i.updated_at]),
        [['vibe-bayswater', '192.9', SIX_13], ['puma-osborne-park', '194.5', SIX_13], ['ampol-victoria-park', '199.9', SIX_13]]);
      assert.equal(cheapest.total_items, 3);
      assertStationIds(answers, STATIONS);
      assert.deepEqual(answers['/v1/stations/ampol-victoria-park'], {
        status: 200,
        body: { data: {
          id: 'ampol-victoria-park', name: 'Ampol Victoria Park', brand: 'Ampol', address: '850 Albany Hwy, EAST VICTORIA PARK WA',
          street: '850 Albany Hwy', suburb: 'EAST VICTORIA PARK', postcode: '', state: 'wa', phone: '(08) 9361 2210', website: '',
          latitude: '-31.9874', longitude: '115.9043', // -31.987410 and 115.904280 to four places
        } },
      });
      // Ampol's 12th: one price since 06:00 (its first report), so the mean is that price.
      const ulpDays = [record(DAY12, '12-05-2026', '189.9')];
      const dieselDays = [record(DAY12, '12-05-2026', '191.9')];
      assert.deepEqual(answers['/v1/stations/ampol-victoria-park/history?timeframe=last-week'], {
        status: 200,
        body: { data: { id: 'ampol-victoria-park', name: 'Ampol Victoria Park', history: allFuels<object>(
          { ulp91: { records: ulpDays }, diesel: { records: dieselDays }, 'ulp-combined': { records: ulpDays }, 'diesel-combined': { records: dieselDays } },
          { records: false },
        ) } },
      });
    });

    test('tomorrow\'s prices stay held at 05:59 and are in force from 06:00', async () => {
      const round1 = await api(R1);
      // At 05:59 the poll sees the same lists: the 12th's 6 prices are known, the 13th's 6 are still a
      // minute ahead and already held (held counts only newly held ones: 0), the same 2 records rejected.
      const early = await ingest('wa', db.url, BEFORE_SIX_13, env());
      assert.equal(early.code, 0, early.stderr);
      assert.equal(early.stdout, '2026-05-12T21:59:00Z  wa    ok     0s  stations +0 ~0 (1 refused), prices 14 read: 0 stored, 12 already known, 0 corrected, 0 held, 2 rejected\n');
      const at0559 = await api(BEFORE_SIX_13);
      // Spread and average are the 12th's prices still; none of the 13th's took effect a minute early.
      assert.deepEqual(at0559['/v1/cities/perth/spread'], round1['/v1/cities/perth/spread']);
      assert.deepEqual(at0559['/v1/cities/perth/average'], round1['/v1/cities/perth/average']);

      const six = await ingest('wa', db.url, SIX_13, env());
      assert.equal(six.code, 0, six.stderr);
      // The 6 held prices are released and applied; the 12th's 6 are known, and the 13th's lists, due now,
      // repeat the 6 just released: 12 already known.
      assert.equal(six.stdout, '2026-05-12T22:00:00Z  wa    ok     0s  stations +0 ~0 (1 refused), prices 14 read + 6 released from hold: 6 stored, 12 already known, 0 corrected, 0 held, 2 rejected\n');
      // ulp91: (1999 + 1945 + 1929) / 3 = 1957.67 -> 195.8 c -> "1.96", 192.9 to 199.9. Diesel unchanged
      // (same prices for the 13th). lpg: only Puma's 112.9 again (Vibe has no LPG for the 13th).
      const ulp = { average: '1.96', min: '192.9', max: '199.9' };
      const diesel = { average: '1.90', min: '188.7', max: '191.9' };
      // Nothing is held any more: tomorrow (the 14th) is not published until about 14:30.
      const at6 = await api(SIX_13);
      assertPerthPrices(at6, { ulp91: ulp, diesel, lpg: { average: '1.13', min: '112.9', max: '112.9' }, 'ulp-combined': ulp, 'diesel-combined': diesel }, false);
      assert.deepEqual(at6['/v1/prices/cheapest?fuel=ulp91&state=wa&day=tomorrow'], { status: 200, body: { data: [], total_items: 0, total_pages: 0, current_page: 1 } });
    });

    test('round 2: 7-Eleven Rivervale joins, the 14th\'s prices apply from 06:00 on the 14th', async () => {
      fake.advance();
      const run = await ingest('wa', db.url, R2, env());
      assert.equal(run.code, 0, run.stderr);
      // Today (the 13th): ULP 3 + diesel 2 + LPG 1 = 6 known. Tomorrow (the 14th): ULP 4 + diesel 3 + LPG 2 = 9 held.
      assert.equal(run.stdout, '2026-05-13T07:00:00Z  wa    ok     0s  stations +1 ~0, prices 15 read: 0 stored, 6 already known, 0 corrected, 9 held, 0 rejected\n');
      const atR2 = await api(R2);
      assertStationIds(atR2, ['7-eleven-rivervale', ...STATIONS]);
      // Rivervale has only held prices so far: today's spread is still the 13th's; tomorrow's is the 14th's:
      // ulp91 (1979 + 1929 + 1899 + 1869) / 4 = 1919 -> "1.92", 186.9 to 197.9; diesel (1899 + 1887 + 1905) / 3 = 1897 -> "1.90",
      // 188.7 to 190.5; lpg (1099 + 1145) / 2 = 1122 -> "1.12", 109.9 to 114.5.
      const spreadAt = (answers: Answers) => answers['/v1/cities/perth/spread']?.body as { data: { spread: unknown; tomorrow: unknown } };
      assert.deepEqual(spreadAt(atR2).data.spread, spreadAt(await api(SIX_13)).data.spread);
      const [ulp14, diesel14] = [{ average: '1.92', min: '186.9', max: '197.9' }, { average: '1.90', min: '188.7', max: '190.5' }];
      const tomorrow14 = { ulp91: ulp14, diesel: diesel14, lpg: { average: '1.12', min: '109.9', max: '114.5' }, 'ulp-combined': ulp14, 'diesel-combined': diesel14 };
      assert.deepEqual(spreadAt(atR2).data.tomorrow, { from: SIX_14, spread: allFuels<object>(tomorrow14, { average: false, min: false, max: false }) });

      const six = await ingest('wa', db.url, SIX_14, env());
      assert.equal(six.code, 0, six.stderr);
      // The 9 held are released; the 13th's 6 are known and the 14th's 9, due now, repeat the released ones.
      assert.equal(six.stdout, '2026-05-13T22:00:00Z  wa    ok     0s  stations +0 ~0, prices 15 read + 9 released from hold: 9 stored, 15 already known, 0 corrected, 0 held, 0 rejected\n');
      const answers = await api(SIX_14);
      // ulp91: (1979 + 1929 + 1899 + 1869) / 4 = 1919 -> "1.92", min 186.9 (Rivervale), max 197.9 (Ampol).
      // diesel: (1899 + 1887 + 1905) / 3 = 1897 -> "1.90", 188.7 to 190.5. lpg: (1099 + 1145) / 2 = 1122 -> "1.12", 109.9 to 114.5.
      const ulp = { average: '1.92', min: '186.9', max: '197.9' };
      const diesel = { average: '1.90', min: '188.7', max: '190.5' };
      assertPerthPrices(answers, { ulp91: ulp, diesel, lpg: { average: '1.12', min: '109.9', max: '114.5' }, 'ulp-combined': ulp, 'diesel-combined': diesel }, false);
      // Ampol ULP, time-weighted per WA day: 12th 189.9 (from 06:00, its first report);
      // 13th 6 h x 1899 + 18 h x 1999 = 47376 / 24 = 1974 -> 197.4; 14th so far 6 h of 1999 (197.9 from 06:00 has run 0 s).
      // Diesel was 191.9 throughout.
      const ulpDays = [record(DAY14, '14-05-2026', '199.9'), record(DAY13, '13-05-2026', '197.4'), record(DAY12, '12-05-2026', '189.9')];
      const dieselDays = [record(DAY14, '14-05-2026', '191.9'), record(DAY13, '13-05-2026', '191.9'), record(DAY12, '12-05-2026', '191.9')];
      assert.deepEqual(answers['/v1/stations/ampol-victoria-park/history?timeframe=last-week'], {
        status: 200,
        body: { data: { id: 'ampol-victoria-park', name: 'Ampol Victoria Park', history: allFuels<object>(
          { ulp91: { records: ulpDays }, diesel: { records: dieselDays }, 'ulp-combined': { records: ulpDays }, 'diesel-combined': { records: dieselDays } },
          { records: false },
        ) } },
      });
    });

    test('a cut answer fails the run, changes nothing, and `ingest status` lists it', async () => {
      const before = await api(SIX_14);
      const requestsBefore = fake.server.requests.length;
      // A 200 whose body stops half way: the adapter refuses it before anything is applied.
      const full = waFixture(2, 'today', '1') ?? '';
      fake.server.failNext({ body: full.slice(0, Math.floor(full.length / 2)) });
      const cut = await ingest('wa', db.url, SIX_14, env());
      assert.equal(cut.code, 1);
      assert.equal(cut.stdout, '2026-05-13T22:00:00Z  wa    FAILED 0s  stations +0 ~0, prices 0 read: 0 stored, 0 already known, 0 corrected, 0 held, 0 rejected\n'
        + '    error: FuelWatch RSS: the document ends before </channel></rss> (truncated?)\n');
      // The poll stopped at its first answer.
      assert.equal(fake.server.requests.length, requestsBefore + 1);
      assert.deepEqual(await api(SIX_14), before);

      const status = await runCli(['ingest', 'status'], { DATABASE_URL: db.url });
      assert.equal(status.code, 0, status.stderr);
      assert.ok(status.stdout.includes(`\nRecent runs, newest first:\n${cut.stdout}`), status.stdout);
    });

    test('a connection dropped on every attempt fails the run and changes nothing', async () => {
      const before = await api(SIX_14);
      const requestsBefore = fake.server.requests.length;
      // The connection drops half way through the body on every one of FeedHttp's 4 attempts.
      fake.server.failNext(...Array.from({ length: 4 }, () => ({ truncate: true })));
      const dropped = await ingest('wa', db.url, SIX_14, env());
      assert.equal(dropped.code, 1, dropped.stderr);
      assert.equal(dropped.stdout, '2026-05-13T22:00:00Z  wa    FAILED 0s  stations +0 ~0, prices 0 read: 0 stored, 0 already known, 0 corrected, 0 held, 0 rejected\n'
        + `    error: ${fake.url.replace('http://', '')}/fuelwatch/fuelWatchRSS: UND_ERR_SOCKET (connection closed before the answer was complete)\n`);
      assert.equal(fake.server.requests.length, requestsBefore + 4);
      assert.deepEqual(await api(SIX_14), before);
      const status = await runCli(['ingest', 'status'], { DATABASE_URL: db.url });
      assert.ok(status.stdout.includes(`\nRecent runs, newest first:\n${dropped.stdout}`), status.stdout);
    });
  });
}
