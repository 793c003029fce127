/**
 * NT MyFuel end to end, without the internet: `fuelprice ingest nt` in its own process against the
 * MyFuel fake (test/fakes/nt.ts), then the public API over what it wrote. Every expected answer is
 * worked out by hand from test/fixtures/feeds/nt/ in the comments. The tests of one describe are the
 * steps of one story (round 1, round 2, bad input) and run in order.
 *
 * MyFuel's page carries no times: a price is dated when a poll first sees it. So each round's
 * answers are read a while after its poll, once its prices have been in force for some hours.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FUELS } from '../../../src/domain/fuels.ts';
import { runCli } from '../../helpers.ts';
import { type NtFake, NT_ROUND_1_NOW, ntFixture, startNtFake } from '../../fakes/nt.ts';
import { type E2eDatabase, apiAnswers, e2eBackends, ingest } from './harness.ts';

// Clocks (Darwin is UTC+9:30). NT_ROUND_1_NOW = 2026-05-12 12:00 Darwin = 02:30 UTC.
const R1 = NT_ROUND_1_NOW;
const Q1 = R1 + 7_200; //  14:00 Darwin: round 1's answers
const R2 = R1 + 14_400; // 16:00 Darwin: round 2's poll
const Q2 = R1 + 28_800; // 20:00 Darwin: round 2's answers
// 2026-05-12 00:00 Darwin = 2026-05-11 14:30 UTC = R1 - 12 h.
const DAY12 = R1 - 43_200;

const PATHS = [
  '/v1/cities/darwin/spread', '/v1/cities/darwin/average', '/v1/cities/darwin/unavailable',
  '/v1/stations/ampol-stuart-park/history?timeframe=last-week', '/v1/stations/bp-parap/history?timeframe=last-week',
  '/v1/stations?state=nt', '/v1/stations/ampol-stuart-park',
] as const;
type Answers = Record<string, { status: number; body: unknown }>;
type Spread = { average: string; min: string; max: string };

function allFuels<T>(named: Partial<Record<string, T>>, none: T): Array<{ fuel: string } & T> {
  return FUELS.map((fuel) => ({ fuel, ...(named[fuel] ?? none) }));
}

/** Asserts Darwin's spread, average (from the same table: it must equal the spread's) and unavailable lists. */
function assertDarwin(answers: Answers, named: Record<string, Spread>, unavailable: Record<string, string[]>): void {
  const city = { id: 'darwin', name: 'Darwin' };
  assert.deepEqual(answers['/v1/cities/darwin/spread'], {
    status: 200, body: { data: { ...city, spread: allFuels<object>(named, { average: false, min: false, max: false }), tomorrow: false } },
  });
  const averages = Object.fromEntries(Object.entries(named).map(([fuel, s]) => [fuel, { average: s.average }]));
  assert.deepEqual(answers['/v1/cities/darwin/average'], {
    status: 200, body: { data: { ...city, averages: allFuels<object>(averages, { average: false }), tomorrow: false } },
  });
  const lists = Object.fromEntries(Object.entries(unavailable).map(([fuel, ids]) => [fuel, { stations: ids, count: ids.length }]));
  assert.deepEqual(answers['/v1/cities/darwin/unavailable'], {
    status: 200, body: { data: { ...city, unavailable: allFuels<object>(lists, { stations: false, count: 0 }) } },
  });
}

function assertStationIds(answers: Answers, ids: readonly string[]): void {
  const body = answers['/v1/stations?state=nt']?.body as { data: Array<{ id: string }>; total_items: number };
  assert.deepEqual(body.data.map((s) => s.id), ids);
  assert.equal(body.total_items, ids.length);
}

/** Ampol Stuart Park's history: one day (the 12th), its ulp91 mean as given, the rest constant. */
function assertAmpolHistory(answers: Answers, ulp91: string): void {
  const day = (average: string) => ({ records: [{ timestamp: DAY12, date: '12-05-2026', average }] });
  assert.deepEqual(answers['/v1/stations/ampol-stuart-park/history?timeframe=last-week'], {
    status: 200,
    body: { data: { id: 'ampol-stuart-park', name: 'AMPOL STUART PARK', history: allFuels<object>({
      ulp91: day(ulp91), ulp95: day('209.9'), ulp98: day('217.9'), diesel: day('205.9'), 'ulp-combined': day(ulp91),
      // The mean of its ulp95 and ulp98 values: (209.9 + 217.9) / 2 = 213.9.
      'pulp-combined': day('213.9'), 'diesel-combined': day('205.9'),
    }, { records: false }) } },
  });
}

/** One fuel's records in BP Parap's history. */
function bpRecords(answers: Answers, fuel: string): unknown {
  const body = answers['/v1/stations/bp-parap/history?timeframe=last-week']?.body as { data: { history: Array<{ fuel: string; records: unknown }> } };
  return body.data.history.find((h) => h.fuel === fuel)?.records;
}

for (const backend of e2eBackends()) {
  describe(`NT MyFuel end to end on ${backend.name}`, () => {
    let fake: NtFake;
    let db: E2eDatabase;
    const env = (): Record<string, string> => ({ NT_MYFUEL_URL: fake.url });
    const api = (now: number): Promise<Answers> => apiAnswers(db.url, now, PATHS);
    before(async () => {
      fake = await startNtFake();
      db = await backend.create();
    });
    after(async () => {
      await fake.close();
      await db.drop();
    });

    test('round 1: three outlets and their prices, BP\'s premium 95 out of stock', async () => {
      const run = await ingest('nt', db.url, R1, env());
      assert.equal(run.code, 0, run.stderr);
      // Ampol Stuart Park 4 prices, BP Parap 4 (P95 out of stock), United Winnellie 3 (LAF as opal): 11.
      // Liberty Coconut Grove sits at 0,0: rejected. Puma Berrimah is inactive: left out, not rejected.
      assert.equal(run.stdout, '2026-05-12T02:30:00Z  nt    ok     0s  stations +3 ~0 (1 refused), prices 13 read: 11 stored, 0 already known, 0 corrected, 0 held, 2 rejected\n');
      assert.deepEqual(fake.server.requests.map((r) => [r.path, r.query.get('searchOptions'), r.query.get('RegionId')]), [['/Home/Results', 'region', '3']]);

      const answers = await api(Q1);
      // ulp91 1959, 1979, 1899 -> 5837 / 3 = 1945.7 -> 194.57 c -> "1.95". diesel 2059, 2079, 1999 -> 2045.7 -> "2.05".
      // ulp95: only Ampol's 2099 is available -> "2.10". ulp98 2179 -> "2.18". lpg BP 1199 -> "1.20". opal United 1899 -> "1.90".
      // pulp-combined: 2099 and 2179 -> 2139 -> "2.14". BP's only premium (P95) is out: it is unavailable for pulp-combined too.
      const ulp = { average: '1.95', min: '189.9', max: '197.9' };
      const diesel = { average: '2.05', min: '199.9', max: '207.9' };
      assertDarwin(answers, {
        ulp91: ulp, ulp95: { average: '2.10', min: '209.9', max: '209.9' }, ulp98: { average: '2.18', min: '217.9', max: '217.9' },
        diesel, lpg: { average: '1.20', min: '119.9', max: '119.9' }, opal: { average: '1.90', min: '189.9', max: '189.9' },
        'ulp-combined': ulp, 'pulp-combined': { average: '2.14', min: '209.9', max: '217.9' }, 'diesel-combined': diesel,
      }, { ulp95: ['bp-parap'], 'pulp-combined': ['bp-parap'] });
      assertStationIds(answers, ['ampol-stuart-park', 'bp-parap', 'united-winnellie']);
      assert.deepEqual(answers['/v1/stations/ampol-stuart-park'], {
        status: 200,
        body: { data: {
          id: 'ampol-stuart-park', name: 'AMPOL STUART PARK', brand: 'AMPOL', address: '1 Stuart Hwy, STUART PARK NT 0820',
          street: '1 Stuart Hwy', suburb: 'STUART PARK', postcode: '0820', state: 'nt', phone: '', website: 'https://www.ampol.com.au/',
          latitude: '-12.4497', longitude: '130.8405',
        } },
      });
      // Prices in force from 12:00; at 14:00 each day's mean is the one price.
      assertAmpolHistory(answers, '195.9');
      // BP's premium 95 has been out of stock all along: no value.
      assert.equal(bpRecords(answers, 'ulp95'), false);
    });

    test('round 2: Ampol\'s unleaded drops, BP\'s premium 95 is back, United runs out of diesel, Shell joins', async () => {
      fake.advance();
      const run = await ingest('nt', db.url, R2, env());
      assert.equal(run.code, 0, run.stderr);
      // Only changes are reported (the cursor holds the last values): Ampol U91, BP P95, United DL (out),
      // and Shell Coconut Grove's DL and U91 = 5.
      assert.equal(run.stdout, '2026-05-12T06:30:00Z  nt    ok     0s  stations +1 ~0 (1 refused), prices 15 read: 5 stored, 8 already known, 0 corrected, 0 held, 2 rejected\n');

      const answers = await api(Q2);
      // ulp91 1939, 1979, 1899, Shell 1949 -> 7766 / 4 = 1941.5 -> 194.15 c -> "1.94". ulp95 2099, 2119 -> 2109 -> "2.11".
      // diesel: United's is out -> 2059, 2079, 2049 -> 2062.3 -> "2.06", 204.9 to 207.9.
      // pulp-combined 2099 + 2119 + 2179 = 6397 / 3 = 2132.3 -> "2.13".
      const ulp = { average: '1.94', min: '189.9', max: '197.9' };
      const diesel = { average: '2.06', min: '204.9', max: '207.9' };
      assertDarwin(answers, {
        ulp91: ulp, ulp95: { average: '2.11', min: '209.9', max: '211.9' }, ulp98: { average: '2.18', min: '217.9', max: '217.9' },
        diesel, lpg: { average: '1.20', min: '119.9', max: '119.9' }, opal: { average: '1.90', min: '189.9', max: '189.9' },
        'ulp-combined': ulp, 'pulp-combined': { average: '2.13', min: '209.9', max: '217.9' }, 'diesel-combined': diesel,
      }, { diesel: ['united-winnellie'], 'diesel-combined': ['united-winnellie'] });
      assertStationIds(answers, ['ampol-stuart-park', 'bp-parap', 'shell-coconut-grove', 'united-winnellie']);
      // Ampol's U91: 195.9 from 12:00 to 16:00, 193.9 from 16:00 to 20:00: (4 x 1959 + 4 x 1939) / 8 = 1949 -> 194.9.
      assertAmpolHistory(answers, '194.9');
      // BP's premium 95 counts only from 16:00, when it came back: 211.9.
      assert.deepEqual(bpRecords(answers, 'ulp95'), [{ timestamp: DAY12, date: '12-05-2026', average: '211.9' }]);
    });

    test('a cut page fails the run, changes nothing, and `ingest status` lists it', async () => {
      const before = await api(Q2);
      const page = ntFixture(2);
      fake.server.failNext({ body: page.slice(0, Math.floor(page.length / 2)) });
      const cut = await ingest('nt', db.url, R2, env());
      assert.equal(cut.code, 1);
      // Half the page ends inside the #serverJson input, which is then never closed.
      assert.equal(cut.stdout, '2026-05-12T06:30:00Z  nt    FAILED 0s  stations +0 ~0, prices 0 read: 0 stored, 0 already known, 0 corrected, 0 held, 0 rejected\n'
        + '    error: MyFuel NT (site changed?): the results page has no #serverJson input\n');
      assert.deepEqual(await api(Q2), before);

      // A page whose JSON lost its outlets (a redesign, say) is refused too, rather than read as "no stations".
      fake.server.failNext({ body: page.replace(/&quot;FuelOutlet&quot;:/, '&quot;Outlets&quot;:') });
      const renamed = await ingest('nt', db.url, R2, env());
      assert.equal(renamed.code, 1);
      assert.match(renamed.stdout, /\n {4}error: MyFuel NT \(site changed\?\): #serverJson has no FuelOutlet list\n$/);
      assert.deepEqual(await api(Q2), before);

      // The cursor was left as round 2 wrote it: the same page again reports nothing new.
      const again = await ingest('nt', db.url, R2, env());
      assert.equal(again.stdout, '2026-05-12T06:30:00Z  nt    ok     0s  stations +0 ~0 (1 refused), prices 15 read: 0 stored, 13 already known, 0 corrected, 0 held, 2 rejected\n');
      assert.deepEqual(await api(Q2), before);

      const status = await runCli(['ingest', 'status'], { DATABASE_URL: db.url });
      assert.equal(status.code, 0, status.stderr);
      // Newest first: the good run (followed by its rejection line), then the two failed ones with their errors.
      assert.ok(status.stdout.includes(`\nRecent runs, newest first:\n${again.stdout}    rejected 2: reading of an outlet refused`), status.stdout);
      assert.ok(status.stdout.includes(`\n${renamed.stdout}${cut.stdout}`), status.stdout);
    });
  });
}
