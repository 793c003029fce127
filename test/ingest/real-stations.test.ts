import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { NSW_FUELS } from '../../src/ingest/feeds/nsw.ts';
import { readNswStation } from '../../src/ingest/feeds/nsw-records.ts';
import { importFile } from '../../src/ingest/import/run.ts';
import { nswHistory } from '../../src/ingest/import/nsw-history.ts';
import { waHistory } from '../../src/ingest/import/wa-history.ts';
import { Normaliser } from '../../src/ingest/normalise.ts';
import { applyNormalised } from '../../src/ingest/runner.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { freshStores, testBackends } from '../helpers.ts';

/**
 * Stations from history on real rows (test/fixtures/import/real-stations/README.md): a station
 * the store does not know is created once and found again by the next file, a rebranded station
 * (Caltex Woolworths Morisset in April 2020, EG Ampol Morisset in the live answer of 2024) joins
 * the live one, and stations sharing a name or an address stay apart. Expected stations and
 * counts are worked out here from the fixture rows themselves.
 */
const DIR = join(import.meta.dirname, '..', 'fixtures', 'import', 'real-stations');
const NSW_FIRST = join(DIR, 'nsw-2020-04-first-half.csv');
const NSW_SECOND = join(DIR, 'nsw-2020-04-second-half.csv');
const NOW = Date.UTC(2026, 5, 1) / 1000;

const tmp = mkdtempSync(join(tmpdir(), 'fuelprice-real-stations-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** The NSW file's rows with the published "as above" rule applied: blank station fields are the row above's. */
function nswRows(path: string): Array<Record<string, string>> {
  const records: string[][] = parse(readFileSync(path, 'utf8'), { relax_column_count: true });
  const header = records[1] ?? [];
  const out: Array<Record<string, string>> = [];
  let station: string[] = [];
  for (const record of records.slice(2)) {
    if (record.slice(0, 4).some((f) => f !== '')) station = record.slice(0, 4);
    const row: Record<string, string> = Object.fromEntries(header.map((h, i) => [h, record[i] ?? '']));
    ['ServiceStationName', 'Address', 'Suburb', 'Postcode'].forEach((name, i) => { row[name] = station[i] ?? ''; });
    out.push(row);
  }
  return out;
}

/** Distinct price reports (fuel and time as written) per station of the file, the station named by its name and address. */
function reportsByStation(rows: ReadonlyArray<Record<string, string>>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const r of rows) {
    const station = `${r['ServiceStationName']}|${r['Address']}`;
    if (!out.has(station)) out.set(station, new Set());
    out.get(station)?.add(`${r['FuelCode']}|${r['PriceUpdatedDate']}`);
  }
  return out;
}

/** Price events stored per station id. */
async function eventsByStation(store: PriceStore): Promise<Map<string, number>> {
  const ids = new Map((await store.exportTable('stations', undefined, 10_000)).rows.map((r) => [Number(r['key']), String(r['id'])]));
  const out = new Map<string, number>();
  for (const e of (await store.exportTable('price_events', undefined, 10_000)).rows) {
    const id = ids.get(Number(e['station_key'])) ?? '?';
    out.set(id, (out.get(id) ?? 0) + 1);
  }
  return out;
}

/** The stations of the fixture's April 2020 rows, by name and address, as the API will know them (worked out by hand). */
const NSW_IDS: Readonly<Record<string, string>> = {
  // The live answer (2024) lists this address as EG Ampol Morisset: a rebrand, the same station.
  'Caltex Woolworths Morisset|125 Dora Street, Morisset NSW 2264': 'eg-ampol-morisset',
  // Three 7-Elevens of one name in one postcode: three stations, each id of its name, street and postcode (docs/DATA.md "Ids").
  '7-Eleven Blacktown|354 Corner Flushcombe Road & Myrtle Street, Blacktown NSW 2148': '7-eleven-blacktown-354-corner-flushcombe-road-and-myrtle-street-2148',
  '7-Eleven Blacktown|62 Walters Road, Blacktown NSW 2148': '7-eleven-blacktown-62-walters-road-2148',
  '7-Eleven Blacktown|175 Richmond Road, Blacktown NSW 2148': '7-eleven-blacktown-175-richmond-road-2148',
  // One Hume Highway address, two sides of the road: two stations.
  'BP Marulan Northbound T/S|Hume Highway, Marulan North NSW 2579': 'bp-marulan-northbound-t-s-hume-highway-2579',
  'BP Marulan Southbound T/S|Hume Highway, Marulan South NSW 2579': 'bp-marulan-southbound-t-s-hume-highway-2579',
};

/** WA: the site API's objects as rows of a FuelWatchRetail-layout CSV with its STATION_ID, LATITUDE and LONGITUDE. */
function waCsv(name: string, objects: ReadonlyArray<Record<string, unknown>>): string {
  const product: Record<string, string> = { ULP: 'ULP', PUP: 'PULP', '98R': '98 RON', DSL: 'Diesel', BDL: 'Brand diesel', LPG: 'LPG', E85: 'E85' };
  const quote = (v: unknown): string => `"${typeof v === 'string' || typeof v === 'number' ? String(v).replace(/"/g, '""') : ''}"`;
  const lines = ['PUBLISH_DATE,TRADING_NAME,BRAND_DESCRIPTION,PRODUCT_DESCRIPTION,PRODUCT_PRICE,ADDRESS,LOCATION,POSTCODE,STATION_ID,LATITUDE,LONGITUDE'];
  for (const o of objects) {
    const [y, m, d] = String(o['date']).split('-');
    lines.push([`${d}/${m}/${y}`, o['siteName'], o['brandName'], product[String(o['fuelType'])], o['priceToday'] ?? '', o['address'], o['suburb'],
      o['postCode'], o['stationId'], o['latitude'], o['longitude']].map(quote).join(','));
  }
  const path = join(tmp, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const waObjects = (day: string): Array<Record<string, unknown>> =>
  JSON.parse(readFileSync(join(DIR, `wa-${day}.json`), 'utf8')) as Array<Record<string, unknown>>;

for (const backend of testBackends()) {
  describe(`stations from history, real rows, on ${backend.name}`, () => {
    const fresh = freshStores(backend);

    test('NSW April 2020: unknown stations created once without a position, found again by the next file; the rebranded one joins the live station', async () => {
      const store = await fresh();
      // The live FuelCheck record of the Morisset station (2024), stored as `ingest nsw` stores it.
      const live = new Normaliser('nsw', NSW_FUELS, NOW);
      for (const record of JSON.parse(readFileSync(join(DIR, 'nsw-live-stations.json'), 'utf8')) as unknown[]) {
        const station = readNswStation(record);
        assert.ok(!('rejected' in station) && live.station(station));
      }
      await applyNormalised(store, live, { now: NOW });

      const first = reportsByStation(nswRows(NSW_FIRST));
      const second = reportsByStation(nswRows(NSW_SECOND));
      assert.deepEqual([...first.keys()].sort(), Object.keys(NSW_IDS).sort(), 'the fixture has the stations this test names');
      const rows = (path: string): number => nswRows(path).length;

      const one = await importFile({ store, format: nswHistory, path: NSW_FIRST, now: NOW });
      assert.equal(one.status, 'imported', one.error);
      // Five stations new to the store (the Morisset one is the live station), every row stored.
      assert.deepEqual([one.rows, one.stationsAdded, one.pricesAccepted, one.pricesIgnored, one.rejected], [rows(NSW_FIRST), 5, rows(NSW_FIRST), 0, []]);
      const two = await importFile({ store, format: nswHistory, path: NSW_SECOND, now: NOW });
      assert.equal(two.status, 'imported', two.error);
      assert.deepEqual([two.stationsAdded, two.pricesAccepted, two.pricesIgnored, two.rejected], [0, rows(NSW_SECOND), 0, []]);

      const expected = new Map<string, number>();
      for (const reports of [first, second]) {
        for (const [station, set] of reports) expected.set(NSW_IDS[station] ?? '?', (expected.get(NSW_IDS[station] ?? '?') ?? 0) + set.size);
      }
      assert.deepEqual(Object.fromEntries(await eventsByStation(store)), Object.fromEntries(expected));

      const page = await store.listStations({ state: 'nsw', limit: 100, offset: 0 });
      assert.deepEqual(page.items.map((s) => s.id), [...new Set(Object.values(NSW_IDS))].sort());
      // The live station keeps its name and position; a created one has the file's fields and no position.
      assert.deepEqual(await store.station('eg-ampol-morisset'), {
        id: 'eg-ampol-morisset', name: 'EG Ampol Morisset', brand: 'EG Ampol', address: '125 Dora Street, Morisset NSW 2264',
        street: '125 Dora Street', suburb: 'Morisset', postcode: '2264', state: 'nsw', phone: '', website: '', latitude: '-33.1116', longitude: '151.4816',
      });
      assert.deepEqual(await store.station('bp-marulan-southbound-t-s-hume-highway-2579'), {
        id: 'bp-marulan-southbound-t-s-hume-highway-2579', name: 'BP Marulan Southbound T/S', brand: 'BP', address: 'Hume Highway, Marulan South NSW 2579',
        street: 'Hume Highway', suburb: 'Marulan South', postcode: '2579', state: 'nsw', phone: '', website: '', latitude: false, longitude: false,
      });

      // The same files again, read from their first row: every station found, nothing new.
      for (const path of [NSW_FIRST, NSW_SECOND]) {
        const again = await importFile({ store, format: nswHistory, path, now: NOW, restart: true });
        assert.deepEqual([again.stationsAdded, again.pricesAccepted, again.pricesIgnored], [0, 0, rows(path)]);
      }
    });

    test('WA site-API days: two stations at one address stay two, each day\'s price of each kept, and the next day finds them', async () => {
      const store = await fresh();
      const days = ['2026-04-06', '2026-04-07'];
      for (const [i, day] of days.entries()) {
        const objects = waObjects(day);
        const priced = objects.filter((o) => o['priceToday'] !== null);
        const outcome = await importFile({ store, format: waHistory, path: waCsv(`wa-${day}.csv`, objects), now: NOW });
        assert.equal(outcome.status, 'imported', outcome.error);
        const sites = new Set(objects.map((o) => o['stationId'])).size;
        const rejected = objects.length - priced.length;
        assert.deepEqual([outcome.stationsAdded, outcome.pricesAccepted, outcome.pricesIgnored], [i === 0 ? sites : 0, priced.length, 0]);
        assert.deepEqual(outcome.rejected.map((r) => [r.reason, r.count]), rejected === 0 ? [] : [['price that is not a number', rejected]]);
      }
      // Per site: its priced reports of both days, worked out from the objects.
      const perSite = new Map<number, number>();
      for (const day of days) for (const o of waObjects(day)) if (o['priceToday'] !== null) perSite.set(Number(o['stationId']), (perSite.get(Number(o['stationId'])) ?? 0) + 1);
      const stored = await eventsByStation(store);
      const codes = new Map((await store.feedStations('wa')).map((s) => [s.feedCode, s.id]));
      assert.deepEqual([...codes.keys()].sort(), ['1794', '2047', '2217']);
      for (const [site, count] of perSite) assert.equal(stored.get(codes.get(String(site)) ?? '?'), count, `site ${site}`);
      // 7-Eleven and EG Ampol at 3 Marvel Ent, Brabham: two stations, each with FuelWatch's position.
      const brabham = (await store.listStations({ state: 'wa', limit: 10, offset: 0, suburb: 'BRABHAM' })).items;
      assert.deepEqual(brabham.map((s) => [s.id, s.name, s.address, s.latitude, s.longitude]), [
        ['7-eleven-brabham', '7-Eleven Brabham', '3 Marvel Ent, BRABHAM WA 6055', '-31.8326', '115.9681'],
        ['eg-ampol-brabham', 'EG Ampol Brabham', '3 Marvel Ent, BRABHAM WA 6055', '-31.8329', '115.9669'],
      ]);
    });
  });
}
