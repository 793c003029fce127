/**
 * QLD and SA (FPD API) end to end: `fuelprice ingest qld|sa` in its own process against the feed's
 * fake (test/fakes/fpd.ts), then the public API over the database it wrote. Every expected value
 * below is worked out by hand from test/fixtures/feeds/fpd/<state>/round-<n>.*.json.
 *
 * Clocks: round 1 = 2026-11-21T00:00Z (1_795_219_200) = 10:00 in Brisbane (UTC+10) and 10:30 in
 * Adelaide (UTC+10:30, daylight saving); round 2 = 06:00Z (1_795_240_800) = 16:00 / 16:30.
 * Day starts: Brisbane 21-11 = 20-11T14:00Z = 1_795_219_200 - 36_000 = 1_795_183_200, 20-11 =
 * 1_795_096_800; Adelaide 21-11 = 20-11T13:30Z = 1_795_219_200 - 37_800 = 1_795_181_400, 20-11 = 1_795_095_000.
 *
 * Cities (nearest town of the state within 25 km, haversine): QLD 7-Eleven Fortitude Valley 1.4 km,
 * Ampol Woolloongabba 2.5 km and Liberty Kedron 6.9 km from brisbane; BP Toowoomba City 0.4 km from
 * toowoomba; United Southport 4.0 km from gold-coast. SA OTR Kilburn 7.6 km, BP Unley 2.6 km, Shell
 * Norwood 3.2 km and Liberty Prospect 4.9 km from adelaide; Ampol Gawler 0.4 km from gawler.
 *
 * Spread and average are over the current available prices (no time weighting): average = mean
 * tenths / 10 rounded to whole cents, written in dollars; min and max in cents. Station history is
 * time-weighted over each local day while available (today: up to now).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FUELS } from '../../../src/domain/fuels.ts';
import { runCli } from '../../helpers.ts';
import { FPD_ROUND_NOW, type FpdFake, type FpdState, startFpdFake } from '../../fakes/fpd.ts';
import { type E2eDatabase, apiAnswers, e2eBackends, ingest, isoAt } from './harness.ts';

const [R1, R2] = FPD_ROUND_NOW;
const PRICES = '/Price/GetSitesPrices';
type Triple = readonly [average: string, min: string, max: string];
type Station = readonly [id: string, name: string, brand: string, street: string, suburb: string, postcode: string, lat: string, lng: string];
type Rounds<T> = readonly [T, T];

interface Case {
  state: FpdState;
  abbrev: string;
  env: (fake: FpdFake, token?: string) => Record<string, string>;
  city: readonly [id: string, name: string];
  station: readonly [id: string, name: string];
  /** Station list per round, ids ascending ('7' sorts before letters). */
  stations: Rounds<readonly Station[]>;
  /** Counts of the run line: round 1, round 2. */
  runs: Rounds<string>;
  spread: Rounds<Record<string, Triple>>;
  unavailable: Rounds<Record<string, string[]>>;
  history: Rounds<Record<string, ReadonlyArray<readonly [number, string]>>>;
  /** Other cities of the state: path -> body per round. */
  extra: (round: 0 | 1) => Record<string, unknown>;
}

const spreadBody = (id: string, name: string, named: Record<string, Triple>): unknown => ({ data: { id, name, spread: FUELS.map((fuel) => {
  const v = named[fuel];
  return { fuel, average: v?.[0] ?? false, min: v?.[1] ?? false, max: v?.[2] ?? false };
}), tomorrow: false } });
const averageBody = (id: string, name: string, named: Record<string, Triple>): unknown =>
  ({ data: { id, name, averages: FUELS.map((fuel) => ({ fuel, average: named[fuel]?.[0] ?? false })), tomorrow: false } });
const unavailableBody = (id: string, name: string, named: Record<string, string[]>): unknown =>
  ({ data: { id, name, unavailable: FUELS.map((fuel) => ({ fuel, stations: named[fuel] ?? false, count: named[fuel]?.length ?? 0 })) } });
/** Records newest first; `date` is derived from the day start (both states are ahead of UTC: +12 h lands on the local date). */
const historyBody = (id: string, name: string, named: Record<string, ReadonlyArray<readonly [number, string]>>): unknown =>
  ({ data: { id, name, history: FUELS.map((fuel) => ({ fuel, records: named[fuel]?.map(([timestamp, average]) => ({
    timestamp, date: isoAt(timestamp + 43_200).slice(0, 10).split('-').reverse().join('-'), average,
  })) ?? false })) } });
const stationList = (abbrev: string, list: readonly Station[]): unknown => ({
  data: list.map(([id, name, brand, street, suburb, postcode, latitude, longitude]) => ({
    id, name, brand, address: `${street}, ${suburb} ${abbrev} ${postcode}`, street, suburb, postcode, state: abbrev.toLowerCase(),
    phone: '', website: '', latitude, longitude,
  })),
  total_items: list.length, total_pages: 1, current_page: 1,
});

const BNE = { d20: 1_795_096_800, d21: 1_795_183_200 };
const ADL = { d20: 1_795_095_000, d21: 1_795_181_400 };

const QLD_STATIONS: readonly Station[] = [
  ['7-eleven-fortitude-valley', '7-Eleven Fortitude Valley', '7 Eleven', '180 Wickham St', 'Fortitude Valley', '4006', '-27.4575', '153.0355'],
  ['ampol-woolloongabba', 'Ampol Woolloongabba', 'Ampol', '21 Logan Rd', 'Woolloongabba', '4102', '-27.4893', '153.0366'],
  ['bp-toowoomba-city', 'BP Toowoomba City', 'BP', '312 Ruthven St', 'Toowoomba City', '4350', '-27.5641', '151.9532'],
  ['united-southport', 'United Southport', 'United', '96 Ferry Rd', 'Southport', '4215', '-27.9762', '153.4011'],
];
const KEDRON: Station = ['liberty-kedron', 'Liberty Kedron', 'Liberty', '590 Gympie Rd', 'Kedron', '4031', '-27.4061', '153.0301'];
const SA_STATIONS: readonly Station[] = [
  ['ampol-gawler', 'Ampol Gawler', 'Ampol', '1 Murray St', 'Gawler', '5118', '-34.6012', '138.7455'],
  ['bp-unley', 'BP Unley', 'BP', '200 Unley Rd', 'Unley', '5061', '-34.9512', '138.6063'],
  ['otr-kilburn', 'OTR Kilburn', 'On the Run', '552 Churchill Rd', 'Kilburn', '5084', '-34.8608', '138.5872'],
  ['shell-norwood', 'Shell Norwood', 'Shell', '120 The Parade', 'Norwood', '5067', '-34.9213', '138.6321'],
];
const PROSPECT: Station = ['liberty-prospect', 'Liberty Prospect', 'Liberty', '177 Main North Rd', 'Prospect', '5082', '-34.8845', '138.6010'];

// Brisbane round 1 (7-Eleven FV, Ampol Woolloongabba): e10 [1839]; ulp91 [1859, 1879] mean 1869 -> 186.9 c -> $1.87;
// ulp95 [2019] -> 201.9 -> $2.02; ulp98 [2099] -> $2.10; diesel [1889, 1909] mean 1899 -> $1.90; pdiesel [2049] -> $2.05;
// lpg [1149] -> $1.15; ulp-combined = ulp91 + e10 [1859, 1879, 1839] = 5577 / 3 = 1859 -> $1.86; pulp-combined = ulp95 +
// ulp98 [2019, 2099] mean 2059 -> $2.06; diesel-combined = diesel + pdiesel [1889, 1909, 2049] = 5847 / 3 = 1949 -> $1.95.
const BNE_1: Record<string, Triple> = {
  e10: ['1.84', '183.9', '183.9'], ulp91: ['1.87', '185.9', '187.9'], ulp95: ['2.02', '201.9', '201.9'], ulp98: ['2.10', '209.9', '209.9'],
  diesel: ['1.90', '188.9', '190.9'], pdiesel: ['2.05', '204.9', '204.9'], lpg: ['1.15', '114.9', '114.9'],
  'ulp-combined': ['1.86', '183.9', '187.9'], 'pulp-combined': ['2.06', '201.9', '209.9'], 'diesel-combined': ['1.95', '188.9', '204.9'],
};
// Round 2: 7-Eleven ulp91 1999 and e10 1979 (04:10Z); Liberty Kedron joins with ulp91 1869, diesel 1899.
// e10 [1979] -> $1.98; ulp91 [1999, 1879, 1869] = 5747 / 3 = 1915.67 -> 191.57 c -> $1.92; diesel [1889, 1909, 1899] -> 1899
// -> $1.90; ulp-combined [1999, 1979, 1879, 1869] = 7726 / 4 = 1931.5 -> 193.15 c -> $1.93;
// diesel-combined [1889, 1909, 2049, 1899] = 7746 / 4 = 1936.5 -> 193.65 c -> $1.94.
const BNE_2: Record<string, Triple> = {
  ...BNE_1, e10: ['1.98', '197.9', '197.9'], ulp91: ['1.92', '186.9', '199.9'], diesel: ['1.90', '188.9', '190.9'],
  'ulp-combined': ['1.93', '186.9', '199.9'], 'diesel-combined': ['1.94', '188.9', '204.9'],
};
// 7-Eleven FV history, round 1: petrol reported 20-11T21:15Z = 21-11 07:15 local, so one day, the price itself; diesel reported
// 19-11T23:02:30Z = 20-11 09:02:30 local, so 20-11 and 21-11 at 188.9. ulp-combined = mean of ulp91 and e10: (1859 + 1839) / 2
// = 1849; pulp-combined (2019 + 2099) / 2 = 2059.
const FV_1 = {
  e10: [[BNE.d21, '183.9']], ulp91: [[BNE.d21, '185.9']], ulp95: [[BNE.d21, '201.9']], ulp98: [[BNE.d21, '209.9']],
  diesel: [[BNE.d21, '188.9'], [BNE.d20, '188.9']], 'ulp-combined': [[BNE.d21, '184.9']], 'pulp-combined': [[BNE.d21, '205.9']],
  'diesel-combined': [[BNE.d21, '188.9'], [BNE.d20, '188.9']],
} as const;
// Round 2, today 07:15-14:10 local (24_900 s) at the old price, 14:10-16:00 (6_600 s) at the new:
// ulp91 (1859 * 24_900 + 1999 * 6_600) / 31_500 = 59_482_500 / 31_500 = 1888.33 -> 188.8;
// e10 (1839 * 24_900 + 1979 * 6_600) / 31_500 = 58_852_500 / 31_500 = 1868.33 -> 186.8; ulp-combined (1888.33 + 1868.33) / 2 = 1878.33 -> 187.8.
const FV_2 = { ...FV_1, e10: [[BNE.d21, '186.8']], ulp91: [[BNE.d21, '188.8']], 'ulp-combined': [[BNE.d21, '187.8']] } as const;

// Adelaide round 1 (OTR Kilburn, BP Unley, Shell Norwood; Shell's LPG 9999 = out of stock, left out of the spread):
// e10 [1809]; ulp91 [1829, 1849] -> 1839; ulp95 [1979, 1989] -> 1984 = 198.4 c -> $1.98; ulp98 [2079, 2069] -> 2074 -> $2.07;
// diesel [1879, 1899] -> 1889 -> $1.89; pdiesel [2019]; lpg [1099] -> $1.10; ulp-combined [1829, 1809, 1849] -> 1829 -> $1.83;
// pulp-combined [1979, 1989, 2079, 2069] = 8116 / 4 = 2029 -> $2.03; diesel-combined [1879, 1899, 2019] = 5797 / 3 = 1932.33 -> $1.93.
const ADL_1: Record<string, Triple> = {
  e10: ['1.81', '180.9', '180.9'], ulp91: ['1.84', '182.9', '184.9'], ulp95: ['1.98', '197.9', '198.9'], ulp98: ['2.07', '206.9', '207.9'],
  diesel: ['1.89', '187.9', '189.9'], pdiesel: ['2.02', '201.9', '201.9'], lpg: ['1.10', '109.9', '109.9'],
  'ulp-combined': ['1.83', '180.9', '184.9'], 'pulp-combined': ['2.03', '197.9', '207.9'], 'diesel-combined': ['1.93', '187.9', '201.9'],
};
// Round 2: OTR ulp91 1959, e10 1939 (03:40Z); BP Unley's LPG out; Shell Norwood's LPG back at 1119; Liberty Prospect joins
// (ulp91 1889, e10 1869, diesel 1909). e10 [1939, 1869] -> 1904 -> $1.90; ulp91 [1959, 1849, 1889] = 5697 / 3 = 1899 -> $1.90;
// diesel [1879, 1899, 1909] = 5687 / 3 = 1895.67 -> $1.90; lpg [1119] -> $1.12; ulp-combined [1959, 1939, 1849, 1889, 1869]
// = 9505 / 5 = 1901 -> $1.90; diesel-combined [1879, 1899, 2019, 1909] = 7706 / 4 = 1926.5 -> 192.65 c -> $1.93.
const ADL_2: Record<string, Triple> = {
  ...ADL_1, e10: ['1.90', '186.9', '193.9'], ulp91: ['1.90', '184.9', '195.9'], diesel: ['1.90', '187.9', '190.9'],
  lpg: ['1.12', '111.9', '111.9'], 'ulp-combined': ['1.90', '184.9', '195.9'], 'diesel-combined': ['1.93', '187.9', '201.9'],
};
// OTR Kilburn history, round 1: petrol from 20-11T22:00Z = 21-11 08:30 local; diesel from 19-11T21:30Z = 20-11 08:00 local.
// ulp-combined (1829 + 1809) / 2 = 1819; pulp-combined is its ulp95 alone.
const OTR_1 = {
  e10: [[ADL.d21, '180.9']], ulp91: [[ADL.d21, '182.9']], ulp95: [[ADL.d21, '197.9']], diesel: [[ADL.d21, '187.9'], [ADL.d20, '187.9']],
  'ulp-combined': [[ADL.d21, '181.9']], 'pulp-combined': [[ADL.d21, '197.9']], 'diesel-combined': [[ADL.d21, '187.9'], [ADL.d20, '187.9']],
} as const;
// Round 2, 08:30-14:10 local (20_400 s) old, 14:10-16:30 (8_400 s) new: ulp91 (1829 * 20_400 + 1959 * 8_400) / 28_800
// = 53_767_200 / 28_800 = 1866.92 -> 186.7; e10 (1809 * 20_400 + 1939 * 8_400) / 28_800 = 53_191_200 / 28_800 = 1846.92 -> 184.7;
// ulp-combined (1866.92 + 1846.92) / 2 = 1856.92 -> 185.7.
const OTR_2 = { ...OTR_1, e10: [[ADL.d21, '184.7']], ulp91: [[ADL.d21, '186.7']], 'ulp-combined': [[ADL.d21, '185.7']] } as const;

const CASES: Case[] = [{
  state: 'qld', abbrev: 'QLD', env: (fake, token) => ({ QLD_FPD_URL: fake.url, QLD_FPD_TOKEN: token ?? fake.token }),
  city: ['brisbane', 'Brisbane'], station: ['7-eleven-fortitude-valley', '7-Eleven Fortitude Valley'],
  stations: [QLD_STATIONS, [...QLD_STATIONS.slice(0, 3), KEDRON, ...QLD_STATIONS.slice(3)]],
  // Round 1: 4 sites, 16 prices. Round 2: 18 prices, of which 6 are new (7-Eleven ulp91 + e10, BP's LPG, United's diesel, Kedron's 2).
  runs: ['stations +4 ~0, prices 16 read: 16 stored, 0 already known, 0 corrected, 0 held, 0 rejected', 'stations +1 ~0, prices 18 read: 6 stored, 12 already known, 0 corrected, 0 held, 0 rejected'],
  spread: [BNE_1, BNE_2], unavailable: [{}, {}], history: [FV_1, FV_2],
  // Toowoomba: BP reports the combined codes itself (999 e10/Unleaded 1899, 1000 Diesel/Premium Diesel 1929): they appear as
  // ulp-combined and diesel-combined only; its LPG is out in round 1 and back at 1139 in round 2. Gold Coast: United's diesel
  // runs out in round 2 (9999), so diesel and diesel-combined (its only diesel report) list it.
  extra: (round) => ({
    '/v1/cities/toowoomba/spread': spreadBody('toowoomba', 'Toowoomba', {
      ...(round === 1 ? { lpg: ['1.14', '113.9', '113.9'] } : {}), 'ulp-combined': ['1.90', '189.9', '189.9'], 'diesel-combined': ['1.93', '192.9', '192.9'],
    }),
    '/v1/cities/toowoomba/unavailable': unavailableBody('toowoomba', 'Toowoomba', round === 0 ? { lpg: ['bp-toowoomba-city'] } : {}),
    '/v1/cities/gold-coast/unavailable': unavailableBody('gold-coast', 'Gold Coast', round === 1 ? { diesel: ['united-southport'], 'diesel-combined': ['united-southport'] } : {}),
  }),
}, {
  state: 'sa', abbrev: 'SA', env: (fake, token) => ({ SA_FPD_URL: fake.url, SA_FPD_TOKEN: token ?? fake.token }),
  city: ['adelaide', 'Adelaide'], station: ['otr-kilburn', 'OTR Kilburn'],
  stations: [SA_STATIONS, [...SA_STATIONS.slice(0, 2), PROSPECT, ...SA_STATIONS.slice(2)]],
  // Round 1: 4 sites, 14 prices. Round 2: 17 prices, 7 new (OTR ulp91 + e10, both LPGs, Prospect's 3).
  runs: ['stations +4 ~0, prices 14 read: 14 stored, 0 already known, 0 corrected, 0 held, 0 rejected', 'stations +1 ~0, prices 17 read: 7 stored, 10 already known, 0 corrected, 0 held, 0 rejected'],
  spread: [ADL_1, ADL_2], unavailable: [{ lpg: ['shell-norwood'] }, { lpg: ['bp-unley'] }], history: [OTR_1, OTR_2],
  // Gawler (Ampol alone, unchanged in round 2): ulp91 1859, diesel 1889, and the combined ids carry the same values.
  extra: () => ({
    '/v1/cities/gawler/spread': spreadBody('gawler', 'Gawler', {
      ulp91: ['1.86', '185.9', '185.9'], diesel: ['1.89', '188.9', '188.9'], 'ulp-combined': ['1.86', '185.9', '185.9'], 'diesel-combined': ['1.89', '188.9', '188.9'],
    }),
  }),
}];

/** Every answer the test checks, per round. */
function expected(c: Case, round: 0 | 1): Record<string, unknown> {
  const [cityId, cityName] = c.city;
  const [stationId, stationName] = c.station;
  return {
    [`/v1/cities/${cityId}/spread`]: spreadBody(cityId, cityName, c.spread[round]),
    [`/v1/cities/${cityId}/average`]: averageBody(cityId, cityName, c.spread[round]),
    [`/v1/cities/${cityId}/unavailable`]: unavailableBody(cityId, cityName, c.unavailable[round]),
    [`/v1/stations/${stationId}/history?timeframe=last-week`]: historyBody(stationId, stationName, c.history[round]),
    [`/v1/stations?state=${c.state}`]: stationList(c.abbrev, c.stations[round]),
    ...c.extra(round),
  };
}

async function bodies(databaseUrl: string, now: number, paths: string[]): Promise<Record<string, unknown>> {
  const answers = await apiAnswers(databaseUrl, now, paths);
  for (const [path, { status }] of Object.entries(answers)) assert.equal(status, 200, path);
  return Object.fromEntries(Object.entries(answers).map(([path, { body }]) => [path, body]));
}

const runLine = (now: number, feed: string, counts: string, error?: string): string =>
  `${isoAt(now).replace('.000Z', 'Z')}  ${feed.padEnd(5)} ${error === undefined ? 'ok    ' : 'FAILED'} 0s  ${counts}${error === undefined ? '' : `\n    error: ${error}`}`;
const NOTHING = 'stations +0 ~0, prices 0 read: 0 stored, 0 already known, 0 corrected, 0 held, 0 rejected';

for (const c of CASES) {
  for (const backend of e2eBackends()) {
    describe(`${c.state} (FPD API) end to end on ${backend.name}`, () => {
      let db: E2eDatabase;
      let fake: FpdFake;
      const paths = Object.keys(expected(c, 0));
      let afterRound2: Record<string, unknown>;
      /** 127.0.0.1:<port>, as FeedHttp's errors name the feed. */
      let host = '';
      const cutError = (): string => `${host}${PRICES}: UND_ERR_SOCKET (connection closed before the answer was complete)`;
      before(async () => {
        db = await backend.create();
        fake = await startFpdFake({ state: c.state });
        host = fake.url.replace('http://', '');
      });
      after(async () => {
        await fake.close();
        await db.drop();
      });

      test('round 1: ingest writes the first snapshot and the API answers it', async () => {
        assert.equal(fake.now, R1);
        const run = await ingest(c.state, db.url, R1, c.env(fake));
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, `${runLine(R1, c.state, c.runs[0])}\n`);
        assert.deepEqual(await bodies(db.url, R1, paths), expected(c, 0));
      });

      test('round 2: new prices, a fuel out of stock and one back, a new station', async () => {
        fake.advance();
        const run = await ingest(c.state, db.url, R2, c.env(fake));
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, `${runLine(R2, c.state, c.runs[1])}\n`);
        afterRound2 = await bodies(db.url, R2, paths);
        assert.deepEqual(afterRound2, expected(c, 1));
      });

      test('an answer cut short on all 4 attempts fails the run and changes nothing', async () => {
        // Each attempt gets half the body, then the connection closes: a network error, retried, then given up.
        // Requests: brands, fuel types, regions, sites, then prices 4 times.
        fake.server.failNext(...Array.from({ length: 4 }, () => ({ truncate: true, pathIncludes: PRICES })));
        const sent = fake.server.requests.length;
        const cut = await ingest(c.state, db.url, R2 + 600, c.env(fake));
        assert.equal(cut.code, 1, cut.stderr);
        assert.equal(cut.stdout, `${runLine(R2 + 600, c.state, NOTHING, cutError())}\n`);
        assert.deepEqual(fake.server.requests.slice(sent).map((r) => r.path), [
          '/Subscriber/GetCountryBrands', '/Subscriber/GetCountryFuelTypes', '/Subscriber/GetCountryGeographicRegions',
          '/Subscriber/GetFullSiteDetails', PRICES, PRICES, PRICES, PRICES,
        ]);
        assert.deepEqual(await bodies(db.url, R2, paths), afterRound2);
      });

      test('a malformed answer and a wrong token fail the run and change nothing; status lists the errors', async () => {
        // A 200 whose body is not JSON is not retried: one prices request, FeedError('malformed').
        fake.server.failNext({ body: '{"SitePrices":[{"SiteId":61401001,"FuelId":2,"Price":18', pathIncludes: PRICES });
        let sent = fake.server.requests.length;
        const bad = await ingest(c.state, db.url, R2 + 1200, c.env(fake));
        assert.equal(bad.code, 1, bad.stderr);
        const badError = `FPD API ${PRICES}: the answer is not JSON (cut short or not the API?)`;
        assert.equal(bad.stdout, `${runLine(R2 + 1200, c.state, NOTHING, badError)}\n`);
        assert.equal(fake.server.requests.length - sent, 5);
        assert.equal(fake.server.requests.at(-1)?.path, PRICES);

        // 401 on the first lookup: an auth error at once, no retry, and the wrong token was what was sent.
        sent = fake.server.requests.length;
        const wrong = 'FFFFFFFF-0000-4000-8000-000000000000';
        const denied = await ingest(c.state, db.url, R2 + 1800, c.env(fake, wrong));
        assert.equal(denied.code, 1, denied.stderr);
        // What the API said follows the hint.
        const authError = `${host}/Subscriber/GetCountryBrands: HTTP 401, credentials refused (check the feed's credentials): {"Message":"Authorization has been denied for this request."}`;
        assert.equal(denied.stdout, `${runLine(R2 + 1800, c.state, NOTHING, authError)}\n`);
        assert.equal(fake.server.requests.length - sent, 1);
        assert.equal(fake.server.requests.at(-1)?.headers['authorization'], `FPDAPI SubscriberToken=${wrong}`);

        assert.deepEqual(await bodies(db.url, R2, paths), afterRound2);

        // Last run finished at R2 + 1800 (06:30Z), last success R2 (06:00Z): 1800 s <= max(3600, 3 * 600), so 'ok'.
        const status = await runCli(['ingest', 'status'], { DATABASE_URL: db.url, FUELPRICE_NOW: isoAt(R2 + 1800) });
        assert.equal(status.code, 0, status.stderr);
        assert.equal(status.stdout, [
          'feed    last run              last success          status',
          `${c.state.padEnd(8)}2026-11-21T06:30:00Z  2026-11-21T06:00:00Z  ok`,
          '', 'Recent runs, newest first:',
          runLine(R2 + 1800, c.state, NOTHING, authError), runLine(R2 + 1200, c.state, NOTHING, badError),
          runLine(R2 + 600, c.state, NOTHING, cutError()),
          runLine(R2, c.state, c.runs[1]), runLine(R1, c.state, c.runs[0]), '',
        ].join('\n'));
      });

      test('round 1 again after round 2 changes nothing', async () => {
        const replay = await startFpdFake({ state: c.state });
        try {
          const run = await ingest(c.state, db.url, replay.now, c.env(replay));
          assert.equal(run.code, 0, run.stderr);
          // Every report of round 1 is stored already; its 4 sites are unchanged.
          const known = Number(/prices (\d+) read/.exec(c.runs[0])?.[1]);
          assert.equal(run.stdout, `${runLine(R1, c.state, `stations +0 ~0, prices ${known} read: 0 stored, ${known} already known, 0 corrected, 0 held, 0 rejected`)}\n`);
        } finally {
          await replay.close();
        }
        assert.deepEqual(await bodies(db.url, R2, paths), afterRound2);
      });
    });
  }
}
