/**
 * The importers on slices of the files the states really publish (test/fixtures/import/real,
 * sources in its README), on every backend. Expected counts and stored values come from plain
 * reference readings written here: of each workbook slice's cells as its XML stores them
 * (NAME.cells.tsv, written without a spreadsheet library), of the QLD CSV's lines and of the
 * WA snapshots' JSON.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  NSW_BLANK_DATE, NSW_BLANK_DATE_NONE_ABOVE, NSW_BLANK_FUEL, NSW_BLANK_FUEL_NONE_ABOVE, NSW_BLANK_NAME_NONE_ABOVE, NSW_BLANK_STATION_NONE_ABOVE, nswHistory,
} from '../../src/ingest/import/nsw-history.ts';
import type { FileOutcome } from '../../src/ingest/import/progress.ts';
import { accountedFor } from '../../src/ingest/import/progress.ts';
import { qldHistory } from '../../src/ingest/import/qld-history.ts';
import { fileIdentity, fileKind, importCursorKey, importFile } from '../../src/ingest/import/run.ts';
import { WA_NO_PRICE_TODAY, waHistory } from '../../src/ingest/import/wa-history.ts';
import { demoCities } from '../../src/ingest/demo.ts';
import { Normaliser, type RawStation, type Rejection } from '../../src/ingest/normalise.ts';
import { UNKNOWN_STATION, applyNormalised } from '../../src/ingest/runner.ts';
import type { CopyTable, PriceStore } from '../../src/storage/store.ts';
import { freshStores, testBackends } from '../helpers.ts';

const REAL = join(import.meta.dirname, '..', 'fixtures', 'import', 'real');
const NOW = Date.UTC(2026, 10, 1) / 1000;

function byReason(rejected: readonly Rejection[]): Record<string, number> {
  return Object.fromEntries(rejected.filter((r) => r.count > 0).map((r) => [r.reason, r.count]));
}

// ---- reference: Sydney wall clock to Unix seconds, through Intl (not the code under test) ----

const SYDNEY = new Intl.DateTimeFormat('en-AU', {
  timeZone: 'Australia/Sydney', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
});
function wallText(y: number, m: number, d: number, h: number, mi: number, s: number): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${p(d)}/${p(m)}/${y}, ${p(h)}:${p(mi)}:${p(s)}`;
}
function sydneyToUnix(y: number, m: number, d: number, h: number, mi: number, s: number): number {
  for (const offsetHours of [10, 11]) {
    const ms = Date.UTC(y, m - 1, d, h, mi, s) - offsetHours * 3_600_000;
    if (SYDNEY.format(new Date(ms)) === wallText(y, m, d, h, mi, s)) return ms / 1000;
  }
  throw new Error(`no Sydney instant for ${wallText(y, m, d, h, mi, s)}`);
}

/** PriceUpdatedDate as the workbooks store it: an Excel serial (days since 30 Dec 1899) or `1/04/2020 12:13:08 AM`. */
function nswReferenceTime(text: string): number {
  if (/^\d{5}(\.\d+)?$/.test(text)) {
    const wall = new Date(Date.UTC(1899, 11, 30) + Math.round(Number(text) * 86_400) * 1000);
    return sydneyToUnix(wall.getUTCFullYear(), wall.getUTCMonth() + 1, wall.getUTCDate(), wall.getUTCHours(), wall.getUTCMinutes(), wall.getUTCSeconds());
  }
  const m = /^(\d{1,2})\/(\d{2})\/(\d{4}) (\d{1,2}):(\d{2}):(\d{2}) (AM|PM)$/.exec(text);
  if (!m) throw new Error(`reference cannot read ${text}`);
  const hour = (Number(m[4]) % 12) + (m[7] === 'PM' ? 12 : 0);
  return sydneyToUnix(Number(m[3]), Number(m[2]), Number(m[1]), hour, Number(m[5]), Number(m[6]));
}

const NSW_FUELS: Readonly<Record<string, string>> = {
  E10: 'e10', U91: 'ulp91', P95: 'ulp95', P98: 'ulp98', DL: 'diesel', PDL: 'pdiesel', LPG: 'lpg', E85: 'e85', B20: 'b20', EV: 'ev',
};

interface Report {
  station: string;
  fuel: string;
  at: number;
  tenths: number;
  available: boolean;
}

interface Expected {
  rows: number;
  rejected: Record<string, number>;
  stored: number;
  /** Already known (the same report again) plus corrected (a new price at the same instant). */
  knownOrCorrected: number;
  /** The last report per station and fuel (latest instant; of equal instants the later row). */
  current: Map<string, Map<string, Report>>;
  reports: readonly Report[];
}

/** Counts by the documented rules: every report new to its (station, fuel, instant) is stored, the rest known or corrected. */
function tally(rows: number, rejected: Record<string, number>, reports: readonly Report[]): Expected {
  const seen = new Set<string>();
  let stored = 0;
  const current = new Map<string, Map<string, Report>>();
  for (const r of reports) {
    const key = `${r.station}|${r.fuel}|${r.at}`;
    if (seen.has(key)) continue;
    seen.add(key);
    stored++;
  }
  for (const r of reports) {
    const fuels = current.get(r.station) ?? new Map<string, Report>();
    current.set(r.station, fuels);
    const before = fuels.get(r.fuel);
    if (!before || r.at >= before.at) fuels.set(r.fuel, r);
  }
  return { rows, rejected, stored, knownOrCorrected: reports.length - stored, current, reports };
}

interface NswReference extends Expected {
  /** The stations the rows name, keyed by address and postcode as written. */
  stations: Map<string, { name: string; brand: string; address: string; suburb: string; postcode: string }>;
}

/** The NSW rules, read plainly: blank station fields are the station above, and then blank fuel and date too. */
function nswReference(cellsFile: string): NswReference {
  const lines = readFileSync(join(REAL, cellsFile), 'utf8').split('\n').filter((l) => l !== '');
  const cells = lines.map((l) => l.split('\t')).filter((c) => c.slice(1).some((v) => v !== ''));
  const headerAt = cells.findIndex((c) => c[1] === 'ServiceStationName');
  const rejected: Record<string, number> = {};
  const reject = (reason: string): void => { rejected[reason] = (rejected[reason] ?? 0) + 1; };
  const stations: NswReference['stations'] = new Map();
  const reports: Report[] = [];
  let above: string[] | undefined;
  const data = cells.slice(headerAt + 1);
  for (const c of data) {
    const [, name = '', address = '', suburb = '', postcode = '', brand = '', fuelCode = '', date = '', price = ''] = c;
    const continued = [name, address, suburb, postcode].every((v) => v === '');
    // A blank name beside an address: the name cell is merged with the row above's (two sites of one name).
    const named = name === '' && !continued ? above?.[0] ?? '' : name;
    const row = continued && above ? [above[0] ?? '', above[1] ?? '', above[2] ?? '', above[3] ?? '', above[4] ?? '', fuelCode || (above[5] ?? ''), date || (above[6] ?? ''), price]
      : [named, address, suburb, postcode, brand || (name === '' ? above?.[4] ?? '' : ''), fuelCode, date, price];
    above = row;
    if (continued && row[1] === '' && row[0] === '') { reject(NSW_BLANK_STATION_NONE_ABOVE); continue; }
    if (row[0] === '') { reject(NSW_BLANK_NAME_NONE_ABOVE); continue; }
    if (row[5] === '') { reject(continued ? NSW_BLANK_FUEL_NONE_ABOVE : NSW_BLANK_FUEL); continue; }
    if (row[6] === '') { reject(continued ? NSW_BLANK_DATE_NONE_ABOVE : NSW_BLANK_DATE); continue; }
    const fuel = NSW_FUELS[row[5] ?? ''];
    if (!fuel) { reject('unknown fuel code'); continue; }
    const key = `${row[1]}|${row[3]}`;
    if (!stations.has(key)) stations.set(key, { name: row[0] ?? '', brand: row[4] ?? '', address: row[1] ?? '', suburb: row[2] ?? '', postcode: row[3] ?? '' });
    reports.push({ station: key, fuel, at: nswReferenceTime(row[6] ?? ''), tenths: Math.round(Number(row[7]) * 10), available: true });
  }
  return { ...tally(data.length, rejected, reports), stations };
}

/** QLD: one report per line; 9999 is out of stock; Price in tenths; TransactionDateutc `dd/mm/yyyy HH:MM` UTC. */
function qldReference(file: string): Expected & { sites: Set<string> } {
  const QLD_FUELS: Record<string, string> = {
    Unleaded: 'ulp91', e10: 'e10', 'PULP 95/96 RON': 'ulp95', 'PULP 98 RON': 'ulp98', Diesel: 'diesel', 'Premium Diesel': 'pdiesel', LPG: 'lpg', e85: 'e85', OPAL: 'opal',
  };
  const lines = readFileSync(join(REAL, file), 'utf8').replace(/^\ufeff/, '').split(/\r?\n/).filter((l) => l !== '');
  const rejected: Record<string, number> = {};
  const reports: Report[] = [];
  const sites = new Set<string>();
  for (const line of lines.slice(1)) {
    const f = line.split(',');
    const [site = '', , , , , , , , , fuelType = '', price = '', when = ''] = f;
    sites.add(site);
    const fuel = QLD_FUELS[fuelType];
    if (!fuel) { rejected['unknown fuel code'] = (rejected['unknown fuel code'] ?? 0) + 1; continue; }
    const m = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2})$/.exec(when);
    if (!m) throw new Error(`reference cannot read ${when}`);
    const at = Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1]), Number(m[4]), Number(m[5])) / 1000;
    const tenths = Number(price);
    if (tenths !== 9999 && (tenths < 500 || tenths > 5000)) {
      const reason = `price outside 50-500 c/L for ${fuel}`;
      rejected[reason] = (rejected[reason] ?? 0) + 1;
      continue;
    }
    reports.push({ station: site, fuel, at, tenths: tenths === 9999 ? 0 : tenths, available: tenths !== 9999 });
  }
  return { ...tally(lines.length - 1, rejected, reports), sites };
}

interface WaSnapshotRow {
  date: string;
  fuelType: string;
  stationId: number;
  address: string;
  suburb: string;
  priceToday: number | null;
  tempUnavailable: boolean;
}
const WA_FUELS: Record<string, string> = { ULP: 'ulp91', PUP: 'ulp95', '98R': 'ulp98', DSL: 'diesel', BDL: 'pdiesel', LPG: 'lpg', E85: 'e85' };

/** WA snapshots: priceToday at 06:00 AWST (UTC+8, no daylight saving) on `date`; null without tempUnavailable is no price. */
function waReference(files: readonly string[]): Expected {
  const rejected: Record<string, number> = {};
  const reports: Report[] = [];
  let rows = 0;
  for (const file of files) {
    const items = JSON.parse(gunzipSync(readFileSync(join(REAL, file))).toString('utf8')) as WaSnapshotRow[];
    for (const r of items) {
      rows++;
      if (r.priceToday === null && !r.tempUnavailable) { rejected[WA_NO_PRICE_TODAY] = (rejected[WA_NO_PRICE_TODAY] ?? 0) + 1; continue; }
      const [y, m, d] = r.date.split('-').map(Number) as [number, number, number];
      const at = Date.UTC(y, m - 1, d, 6 - 8, 0, 0) / 1000;
      const fuel = WA_FUELS[r.fuelType] ?? '?';
      // The station as FuelWatch numbers it: two stations at one address are two.
      const station = String(r.stationId);
      reports.push({ station, fuel, at, tenths: r.tempUnavailable ? 0 : Math.round((r.priceToday ?? 0) * 10), available: !r.tempUnavailable });
    }
  }
  return tally(rows, rejected, reports);
}

/** The stations a NSW slice names, as the live feed would have stored them (positions made up: the files carry none). */
async function seedNsw(store: PriceStore, stations: NswReference['stations']): Promise<Map<string, string>> {
  await store.upsertCities(demoCities());
  const normaliser = new Normaliser('nsw', {}, NOW);
  const codes = new Map<string, string>();
  let n = 0;
  for (const [key, s] of stations) {
    const code = `NSW-${++n}`;
    codes.set(key, code);
    const station: RawStation = { code, name: s.name || `Station ${n}`, brand: s.brand, address: s.address, suburb: s.suburb, postcode: s.postcode, state: 'nsw', latitude: -33.87, longitude: 151.2 };
    assert.ok(normaliser.station(station), s.address);
  }
  await applyNormalised(store, normaliser, { now: NOW });
  return codes;
}

function assertCounts(outcome: FileOutcome, expected: Expected, label: string): void {
  assert.equal(outcome.status, 'imported', `${label}: ${outcome.error ?? ''}`);
  assert.equal(outcome.rows, expected.rows, `${label}: rows`);
  assert.deepEqual(byReason(outcome.rejected), expected.rejected, `${label}: rejected`);
  assert.equal(outcome.pricesAccepted + outcome.pricesHeld, expected.stored, `${label}: stored`);
  assert.equal(outcome.pricesIgnored + outcome.pricesCorrected, expected.knownOrCorrected, `${label}: already known + corrected`);
  assert.ok(accountedFor(outcome), `${label}: the equation adds up`);
}

async function currentOf(store: PriceStore, stationId: string): Promise<Array<{ fuel: string; priceTenths: number; available: boolean; reportedAt: number }>> {
  return (await store.currentForStation(stationId))
    .map(({ fuel, priceTenths, available, reportedAt }) => ({ fuel, priceTenths, available, reportedAt }))
    .sort((a, b) => a.fuel.localeCompare(b.fuel));
}

/**
 * Stations of the reference with two fuels or more, none of whose last instants carries two
 * different prices (so what the store holds does not depend on which of two rows wins).
 */
function unambiguous(expected: Expected, count: number): string[] {
  const out: string[] = [];
  for (const [station, fuels] of expected.current) {
    const tied = [...fuels.values()].some((last) => expected.reports.some((r) => r.station === station && r.fuel === last.fuel && r.at === last.at && r.tenths !== last.tenths));
    if (fuels.size >= 2 && !tied) out.push(station);
    if (out.length === count) break;
  }
  return out;
}

async function allTables(store: PriceStore): Promise<string> {
  const names: CopyTable[] = ['stations', 'price_events', 'current_prices', 'station_daily', 'pending_prices', 'feed_cursors'];
  const out: Record<string, unknown> = {};
  for (const name of names) out[name] = (await store.exportTable(name, undefined, 100_000)).rows;
  return JSON.stringify(out);
}

describe('import: telling a file\'s kind by its content', () => {
  test('a workbook by its zip signature, a snapshot by gzip or a JSON array, else CSV, whatever the name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-kind-'));
    try {
      const renamed = join(dir, 'april.csv');
      copyFileSync(join(REAL, 'nsw-2020-04-slice.xlsx'), renamed);
      assert.equal(await fileKind(renamed), 'xlsx');
      assert.equal(await fileKind(join(REAL, '2026-04-06_E85.json.gz')), 'json');
      assert.equal(await fileKind(join(REAL, 'qld-2023-02-slice.csv')), 'csv');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a workbook cut short fails with one line saying so, not the unzip library\'s code alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-cut-'));
    const backend = testBackends()[0];
    assert.ok(backend);
    const { store, drop } = await backend.create();
    try {
      const cut = join(dir, 'cut.xlsx');
      writeFileSync(cut, readFileSync(join(REAL, 'nsw-2018-07-slice.xlsx')).subarray(0, 10_000));
      const outcome = await importFile({ store, format: nswHistory, path: cut, now: NOW });
      assert.deepEqual([outcome.status, outcome.rows, outcome.error], ['failed', 0, 'not a readable .xlsx workbook: it is cut short or damaged (FILE_ENDED)']);
    } finally {
      await drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const backend of testBackends()) {
  describe(`import of real published files on ${backend.name}`, () => {
    const fresh = freshStores(backend);

    for (const slice of ['nsw-2020-04-slice.xlsx', 'nsw-2018-12-slice.xlsx', 'nsw-2018-07-slice.xlsx']) {
      test(`nsw-history reads ${slice} as published: every row accounted for, times in Sydney`, async () => {
        const expected = nswReference(`${slice}.cells.tsv`);
        const s = await fresh();
        const codes = await seedNsw(s, expected.stations);
        const outcome = await importFile({ store: s, format: nswHistory, path: join(REAL, slice), now: NOW, label: slice });
        assertCounts(outcome, expected, slice);
        const ids = new Map((await s.feedStations('nsw')).map((st) => [st.feedCode, st.id]));
        const checked = unambiguous(expected, 4);
        assert.ok(checked.length >= 3, `${slice}: stations with two fuels or more`);
        for (const station of checked) {
          const id = ids.get(codes.get(station) ?? '') ?? '';
          const fuels = [...(expected.current.get(station) ?? new Map<string, Report>()).values()].sort((a, b) => a.fuel.localeCompare(b.fuel));
          assert.deepEqual(await currentOf(s, id), fuels.map((r) => ({ fuel: r.fuel, priceTenths: r.tenths, available: true, reportedAt: r.at })), `${slice}: ${station}`);
        }
      });
    }

    test('nsw-history April 2020: the rows the old fill-down got wrong, by hand', async () => {
      const expected = nswReference('nsw-2020-04-slice.xlsx.cells.tsv');
      const s = await fresh();
      const codes = await seedNsw(s, expected.stations);
      const outcome = await importFile({ store: s, format: nswHistory, path: join(REAL, 'nsw-2020-04-slice.xlsx'), now: NOW });
      // Row 2104 names Caltex Woolworths Rosebery with no fuel and no date: rejected, never given the row above's P98.
      assert.deepEqual(byReason(outcome.rejected), { [NSW_BLANK_FUEL]: 1 });
      const ids = new Map((await s.feedStations('nsw')).map((st) => [st.feedCode, st.id]));
      const id = (address: string, postcode: string): string => ids.get(codes.get(`${address}|${postcode}`) ?? '') ?? '';
      // Rows 66-67: Metro Fuel Haberfield E10 101.9 at 5:20:00 AM, then (FuelCode merged with the row above) 109.9 at
      // 5:20:06 AM; AEDT (UTC+11) on 1 April, so 31 March 18:20 UTC. Later E10 rows of the slice come after it.
      const haberfield = expected.reports.filter((r) => r.station === '163-165 Parramatta Rd, HABERFIELD NSW 2045|2045');
      assert.deepEqual(haberfield.slice(0, 2).map((r) => [r.fuel, r.tenths, r.at]), [
        ['e10', 1019, Date.UTC(2020, 2, 31, 18, 20, 0) / 1000], ['e10', 1099, Date.UTC(2020, 2, 31, 18, 20, 6) / 1000],
      ]);
      // Row 68: 134.69999999999999 in the sheet is 134.7 c/L; 1/04/2020 5:23:50 AM AEDT = 31 Mar 18:23:50 UTC.
      const narromine = await currentOf(s, id('1 Dandaloo Street, Narromine NSW 2821', '2821'));
      assert.deepEqual(narromine.find((p) => p.fuel === 'diesel'), { fuel: 'diesel', priceTenths: 1347, available: true, reportedAt: Date.UTC(2020, 2, 31, 18, 23, 50) / 1000 });
      // Row 3904 (a page's first row: station and FuelCode blank, nothing merged) is Independent Cooranbong's E10 114.9 at
      // 9:47:54 AM AEDT on 2 April (22:47:54 UTC on 1 April), after its 99.9 of 9:46:55.
      const cooranbong = await currentOf(s, id('435 Freemans Drive, Cooranbong NSW 2265', '2265'));
      assert.deepEqual(cooranbong, [{ fuel: 'e10', priceTenths: 1149, available: true, reportedAt: Date.UTC(2020, 3, 1, 22, 47, 54) / 1000 }]);
      // Rows 45566-45567: M1 Northbound PDL 130.9 at 7:04:25 PM, the second row blank but for its price (merged cells): the
      // same report twice, so one is already known. 17 April is after daylight saving ended (5 April): AEST, UTC+10.
      assert.deepEqual(expected.reports.filter((r) => r.station === 'M1 Northbound, Wyong NSW 2259|2259').map((r) => [r.fuel, r.tenths, r.at]), [
        ['pdiesel', 1309, Date.UTC(2020, 3, 17, 9, 4, 25) / 1000], ['pdiesel', 1309, Date.UTC(2020, 3, 17, 9, 4, 25) / 1000],
      ]);
      assert.equal(outcome.pricesIgnored + outcome.pricesCorrected, expected.knownOrCorrected);
      assert.ok(expected.knownOrCorrected >= 1);
    });

    test('nsw-history April 2020 on an empty store: a blank name beside an address is the name above (a merged cell), no row rejected for it', async () => {
      const expected = nswReference('nsw-2020-04-slice.xlsx.cells.tsv');
      const s = await fresh();
      await s.upsertCities(demoCities());
      const outcome = await importFile({ store: s, format: nswHistory, path: join(REAL, 'nsw-2020-04-slice.xlsx'), now: NOW });
      assertCounts(outcome, expected, 'April 2020 slice, empty store');
      assert.equal(byReason(outcome.rejected)[NSW_BLANK_NAME_NONE_ABOVE], undefined);
      const stations = await s.feedStations('nsw');
      // Rows 45565-45568: "Caltex Wyong" names row 45565 (M1 Southbound); 45566 (M1 Northbound) and 45568 (M1 Southbound
      // again) leave the name blank in the merged cell. Two sites of one name, each at its own address.
      const wyong = stations.filter((st) => st.name === 'Caltex Wyong').map((st) => st.address).sort();
      assert.deepEqual(wyong, ['M1 Northbound, Wyong NSW 2259', 'M1 Southbound, Wyong NSW 2259']);
      // Rows 173-175: Independent Warren's second site (1 Coonamble Road), its name merged with row 170's.
      const warren = stations.filter((st) => st.name === 'Independent Warren').map((st) => st.address).sort();
      assert.deepEqual(warren, ['1 Coonamble Road (Warren Fuels), Warren NSW 2824', "Oxley Hwy (Uncle Clarrie'S Service Station), Warren NSW 2824"]);
      // One station per address the reference reads.
      assert.equal(stations.length, expected.stations.size);
      const northbound = stations.find((st) => st.address.startsWith('M1 Northbound'))?.id ?? '';
      assert.deepEqual(await currentOf(s, northbound), [{ fuel: 'pdiesel', priceTenths: 1309, available: true, reportedAt: Date.UTC(2020, 3, 17, 9, 4, 25) / 1000 }]);
    });

    test('nsw-history: an import stopped after a batch resumes with the merged cells above it, as one uninterrupted run', async () => {
      const expected = nswReference('nsw-2020-04-slice.xlsx.cells.tsv');
      const path = join(REAL, 'nsw-2020-04-slice.xlsx');
      const whole = await fresh();
      await seedNsw(whole, expected.stations);
      const uninterrupted = await importFile({ store: whole, format: nswHistory, path, now: NOW, batchRows: 50 });
      const broken = await fresh();
      await seedNsw(broken, expected.stations);
      const first = await importFile({ store: broken, format: nswHistory, path, now: NOW, batchRows: 50, afterBatch: (n) => { if (n === 2) throw new Error('power cut'); } });
      assert.deepEqual([first.status, first.rows], ['failed', 100]);
      const second = await importFile({ store: broken, format: nswHistory, path, now: NOW, batchRows: 50 });
      assert.equal(second.status, 'imported', second.error);
      assert.equal(second.resumedAfter, 100);
      assert.ok(accountedFor(second));
      assert.equal(first.pricesAccepted + second.pricesAccepted, uninterrupted.pricesAccepted);
      assert.deepEqual(Normaliser.merge([first.rejected, second.rejected]), uninterrupted.rejected);
      assert.equal(await allTables(broken), await allTables(whole));
      assert.equal(await broken.feedCursor(importCursorKey('nsw-history', await fileIdentity(path))), `done:${expected.rows}`);
    });

    test('qld-history reads the February 2023 file as published (BOM, same-minute corrections, 9999)', async () => {
      const expected = qldReference('qld-2023-02-slice.csv');
      const s = await fresh();
      await s.upsertCities(demoCities());
      const outcome = await importFile({ store: s, format: qldHistory, path: join(REAL, 'qld-2023-02-slice.csv'), now: NOW });
      assertCounts(outcome, expected, 'qld');
      assert.equal(outcome.stationsAdded, expected.sites.size);
      const ids = new Map((await s.feedStations('qld')).map((st) => [st.feedCode, st.id]));
      for (const site of unambiguous(expected, 4)) {
        const fuels = [...(expected.current.get(site) ?? new Map<string, Report>()).values()].sort((a, b) => a.fuel.localeCompare(b.fuel));
        assert.deepEqual(await currentOf(s, ids.get(site) ?? ''), fuels.map((r) => ({ fuel: r.fuel, priceTenths: r.tenths, available: r.available, reportedAt: r.at })), `site ${site}`);
      }
    });

    test('qld-history reads the flattened GetSitesPrices answer: FuelId codes, 1899.0 prices, 9999 out of stock, on the sites the store knows', async () => {
      const file = 'qld-getsitesprices-2025-08-11-slice.csv';
      const lines = readFileSync(join(REAL, file), 'utf8').split('\n').filter((l) => l !== '').slice(1).map((l) => l.split(','));
      // The live feed knows every other site of the slice (the file names no site, so the rest cannot be stored).
      const sites = [...new Set(lines.map((f) => f[0] ?? ''))];
      const known = new Set(sites.filter((_, i) => i % 2 === 0));
      const s = await fresh();
      await s.upsertCities(demoCities());
      const normaliser = new Normaliser('qld', {}, NOW);
      for (const site of known) {
        assert.ok(normaliser.station({ code: site, name: `Site ${site}`, brand: 'BP', address: '1 Main St, Brisbane QLD 4000', suburb: 'Brisbane', postcode: '4000', state: 'qld', latitude: -27.47, longitude: 153.02 }));
      }
      await applyNormalised(s, normaliser, { now: NOW });
      const outcome = await importFile({ store: s, format: qldHistory, path: join(REAL, file), now: NOW });
      const FUEL_IDS: Record<string, string> = { '2': 'ulp91', '3': 'diesel', '4': 'lpg', '5': 'ulp95', '8': 'ulp98', '12': 'e10', '14': 'pdiesel', '19': 'e85', '21': 'opal' };
      // Reference: 2025-08-06T00:02:10.073 is UTC, to the second; 9999.0 is out of stock.
      const stored = lines.filter((f) => known.has(f[0] ?? ''));
      assert.equal(outcome.status, 'imported', outcome.error);
      assert.equal(outcome.rows, lines.length);
      assert.equal(outcome.stationsAdded, 0);
      assert.equal(outcome.pricesAccepted, stored.length);
      assert.deepEqual(byReason(outcome.rejected), { [UNKNOWN_STATION]: lines.length - stored.length });
      assert.ok(accountedFor(outcome));
      const ids = new Map((await s.feedStations('qld')).map((st) => [st.feedCode, st.id]));
      const outOfStock = stored.filter((f) => f[4] === '9999.0');
      assert.ok(outOfStock.length >= 2);
      for (const f of [...stored.slice(0, 4), ...outOfStock]) {
        const [site = '', fuelId = '', , when = '', price = ''] = f;
        const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(when);
        assert.ok(m);
        const at = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) / 1000;
        const tenths = Number(price);
        const fuel = FUEL_IDS[fuelId] ?? '?';
        const held = (await currentOf(s, ids.get(site) ?? '')).find((p) => p.fuel === fuel);
        assert.deepEqual(held, tenths === 9999 ? { fuel, priceTenths: 0, available: false, reportedAt: at } : { fuel, priceTenths: tenths, available: true, reportedAt: at }, site);
      }
    });

    test('nsw-history reads the datastore CSV layout (an _id column first, ISO times)', async () => {
      // Written from the documented columns of data.nsw.gov.au's datastore export (no real export was at hand).
      const s = await fresh();
      const codes = await seedNsw(s, new Map([
        ['a', { name: 'Ampol Foodary Surry Hills', brand: 'Ampol', address: '120 Cleveland Street, Surry Hills NSW 2010', suburb: 'Surry Hills', postcode: '2010' }],
        ['b', { name: '7-Eleven Newtown', brand: '7-Eleven', address: '368 King Street, Newtown NSW 2042', suburb: 'Newtown', postcode: '2042' }],
      ]));
      const outcome = await importFile({ store: s, format: nswHistory, path: join(REAL, '..', 'nsw-history-datastore.csv'), now: NOW });
      assert.equal(outcome.status, 'imported', outcome.error);
      assert.deepEqual([outcome.rows, outcome.pricesAccepted, byReason(outcome.rejected)], [4, 3, { [NSW_BLANK_FUEL]: 1 }]);
      const ids = new Map((await s.feedStations('nsw')).map((st) => [st.feedCode, st.id]));
      // 2026-02-03T13:45:12 AEDT (UTC+11) = 02:45:12 UTC; 213.69999999999999 is 213.7.
      assert.deepEqual(await currentOf(s, ids.get(codes.get('b') ?? '') ?? ''), [{ fuel: 'ulp98', priceTenths: 2137, available: true, reportedAt: Date.UTC(2026, 1, 3, 2, 45, 12) / 1000 }]);
    });

    test('wa-history reads FuelWatch site-API snapshots: stations with their positions, priceToday at 06:00 WA time', async () => {
      const files = ['2026-04-06_ULP.json.gz', '2026-04-07_ULP.json.gz', '2026-04-05_98R.json.gz', '2026-04-06_E85.json.gz'];
      const expected = waReference(files);
      const s = await fresh();
      await s.upsertCities(demoCities());
      const outcomes: FileOutcome[] = [];
      for (const f of files) outcomes.push(await importFile({ store: s, format: waHistory, path: join(REAL, f), now: NOW }));
      for (const o of outcomes) assert.ok(accountedFor(o), o.file);
      assert.equal(outcomes.reduce((n, o) => n + o.rows, 0), expected.rows);
      assert.deepEqual(byReason(Normaliser.merge(outcomes.map((o) => o.rejected))), expected.rejected);
      assert.equal(outcomes.reduce((n, o) => n + o.pricesAccepted + o.pricesHeld, 0), expected.stored);
      assert.equal(outcomes.reduce((n, o) => n + o.pricesIgnored + o.pricesCorrected, 0), expected.knownOrCorrected);
      // 1780 Thomas Rd, Oakford (stationId 2280): ULP 198.9 on 6 April, its position as FuelWatch gives it.
      const oakford = (await s.feedStations('wa')).find((st) => st.address.startsWith('1780 Thomas Rd'));
      assert.ok(oakford);
      const station = await s.station(oakford.id);
      assert.deepEqual([station?.latitude, station?.longitude, station?.state], ['-32.2093', '115.9523', 'wa']);
      const ulp = (await currentOf(s, oakford.id)).find((p) => p.fuel === 'ulp91');
      const reference = expected.current.get('2280')?.get('ulp91');
      assert.ok(reference);
      assert.deepEqual(ulp, { fuel: 'ulp91', priceTenths: reference.tenths, available: true, reportedAt: reference.at });
    });
  });
}
