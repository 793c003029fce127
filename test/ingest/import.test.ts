import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../src/cli/args.ts';
import { importCommand } from '../../src/cli/import.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/storage/open.ts';
import { localDayFromYmd } from '../../src/domain/time.ts';
import { demoCities } from '../../src/ingest/demo.ts';
import { waStationKey } from '../../src/ingest/feeds/wa.ts';
import { headerKey, resolveHeader, rowOf } from '../../src/ingest/import/csv.ts';
import { parseDayFirstDate, parseDayFirstDateTime, parseExcelSerial, parseIsoDateTime } from '../../src/ingest/import/dates.ts';
import {
  NSW_BLANK_DATE, NSW_BLANK_FUEL, NSW_BLANK_FUEL_NONE_ABOVE, NswStationIndex, nswAddressKey, nswHistory, nswHistoryCode,
  nswPriceTime, postcodeOf,
} from '../../src/ingest/import/nsw-history.ts';
import { fillDown } from '../../src/ingest/import/nsw-merged-cells.ts';
import { type FileOutcome, ImportProgress, PLAIN_INTERVAL_MS, summaryLine } from '../../src/ingest/import/progress.ts';
import { qldHistory, qldTransactionTime } from '../../src/ingest/import/qld-history.ts';
import {
  ImportError, WRONG_FIELD_COUNT, fileIdentity, importCursorKey, importFile, parseImportCursor, storeFailure,
} from '../../src/ingest/import/run.ts';
import { waHistory, waPublishTime } from '../../src/ingest/import/wa-history.ts';
import type { ImportFormat } from '../../src/ingest/import/format.ts';
import { Normaliser, type RawStation, type Rejection } from '../../src/ingest/normalise.ts';
import { applyNormalised } from '../../src/ingest/runner.ts';
import type { CopyTable, FeedStation, PriceStore } from '../../src/storage/store.ts';
import { freshStores, snapshot, testBackends } from '../helpers.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'import');
const NSW_FILE = join(FIXTURES, 'nsw-history-2026-02.csv');
const NSW_2016_FILE = join(FIXTURES, 'nsw-history-2016-08.csv');
const WA_FILE = join(FIXTURES, 'FuelWatchRetail-02-2026.csv');
const QLD_FILE = join(FIXTURES, 'qld-fuel-prices-2026-02.csv');

/** 2 March 2026 00:00 UTC: after every fixture row. */
const NOW = Date.UTC(2026, 2, 2) / 1000;
const utc = (y: number, m: number, d: number, h: number, mi: number): number => Date.UTC(y, m - 1, d, h, mi) / 1000;

const tmp = mkdtempSync(join(tmpdir(), 'fuelprice-import-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let tmpCount = 0;
function tmpFile(name: string, text: string | Buffer): string {
  const path = join(tmp, `${++tmpCount}-${name}`);
  writeFileSync(path, text);
  return path;
}

function byReason(rejected: readonly Rejection[]): Record<string, number> {
  return Object.fromEntries(rejected.map((r) => [r.reason, r.count]));
}

async function current(store: PriceStore, stationId: string): Promise<Array<{ fuel: string; priceTenths: number; available: boolean; reportedAt: number }>> {
  return (await store.currentForStation(stationId))
    .map(({ fuel, priceTenths, available, reportedAt }) => ({ fuel, priceTenths, available, reportedAt }))
    .sort((a, b) => a.fuel.localeCompare(b.fuel));
}

/** Stations as the live feeds would have created them, applied through the runner like a poll. */
async function seed(store: PriceStore, feed: string, stations: RawStation[]): Promise<void> {
  await store.upsertCities(demoCities());
  const normaliser = new Normaliser(feed, {}, NOW);
  for (const s of stations) assert.ok(normaliser.station(s), s.name);
  await applyNormalised(store, normaliser, { now: NOW });
}

// Live FuelCheck stations ('nsw' feed, codes state + FuelCheck code), inner Sydney and Canberra.
const NSW_STATIONS: RawStation[] = [
  { code: 'NSW-1001', name: 'Ampol Foodary Surry Hills', brand: 'Ampol', address: '120 Cleveland Street, Surry Hills NSW 2010', suburb: 'Surry Hills', postcode: '2010', state: 'nsw', latitude: -33.8886, longitude: 151.2094 },
  { code: 'NSW-1002', name: '7-Eleven Newtown', brand: '7-Eleven', address: '368 King Street, Newtown NSW 2042', suburb: 'Newtown', postcode: '2042', state: 'nsw', latitude: -33.897, longitude: 151.179 },
  { code: 'NSW-1003', name: 'Shell Reddy Express Rozelle', brand: 'Shell', address: '671 Darling Street, Rozelle NSW 2039', suburb: 'Rozelle', postcode: '2039', state: 'nsw', latitude: -33.862, longitude: 151.17 },
  // The history file's BP Kensington is at another address: another site, never joined by name alone.
  { code: 'NSW-1004', name: 'BP Kensington', brand: 'BP', address: '150 Anzac Parade, Kensington NSW 2033', suburb: 'Kensington', postcode: '2033', state: 'nsw', latitude: -33.909, longitude: 151.223 },
  // The file abbreviates "Street": matched by address all the same.
  { code: 'ACT-2001', name: 'Caltex Braddon', brand: 'Caltex', address: '32 Lonsdale Street, Braddon ACT 2612', suburb: 'Braddon', postcode: '2612', state: 'act', latitude: -35.2745, longitude: 149.1335 },
];

// Live FuelWatch stations ('wa' feed): code from waStationKey, address as the RSS adapter writes it.
const waLive = (name: string, brand: string, street: string, suburb: string, latitude: number, longitude: number): RawStation => ({
  code: waStationKey(street, suburb, name), name, brand, address: `${street}, ${suburb} WA`, street, suburb, postcode: '', state: 'wa', latitude, longitude,
});
const WA_STATIONS: RawStation[] = [
  waLive('Caltex StarMart Northbridge', 'Caltex', '100 Newcastle Street', 'Northbridge', -31.945, 115.857),
  waLive('Ampol Foodary Victoria Park', 'Ampol', '868 Albany Highway', 'East Victoria Park', -31.989, 115.9),
  waLive('BP Leederville', 'BP', '326 Oxford Street', 'Leederville', -31.934, 115.842),
  waLive('Puma Subiaco', 'Puma Energy', '85 Thomas Street', 'Subiaco', -31.948, 115.826),
];

// A QLD site the live FPD feed knows already, under a newer name than the file's.
const QLD_KNOWN: RawStation = {
  code: '61401004', name: 'BP Connect Bowen Hills', brand: 'BP', address: '55 Abbotsford Road, Bowen Hills QLD 4006', street: '55 Abbotsford Road',
  suburb: 'Bowen Hills', postcode: '4006', state: 'qld', latitude: -27.4451, longitude: 153.0379,
};

describe('import: columns and rows', () => {
  test('header cells compare without case, spaces, underscores or a byte-order mark', () => {
    assert.equal(headerKey('\ufeffSite_Name'), 'sitename');
    assert.equal(headerKey('Site Name'), 'sitename');
    assert.equal(headerKey('PUBLISH_DATE'), 'publishdate');
  });

  test('the QLD header of December 2018 (spaces for underscores) resolves to the same columns', () => {
    const spaced = ['SiteId', 'Site Name', 'Site Brand', 'Sites Address Line 1', 'Site Suburb', 'Site State', 'Site Post Code',
      'Site Latitude', 'Site Longitude', 'Fuel Type', 'Price', 'TransactionDateutc'];
    const resolved = resolveHeader(spaced, qldHistory.columns);
    assert.ok(resolved.ok);
    assert.equal(resolved.header.index.get('Site_Name'), 1);
    assert.equal(resolved.header.index.get('TransactionDateutc'), 11);
    assert.equal(resolved.header.width, 12);
  });

  test('FuelType (early 2016 NSW files) stands for FuelCode', () => {
    const resolved = resolveHeader(['ServiceStationName', 'Address', 'Suburb', 'Postcode', 'Brand', 'FuelType', 'PriceUpdatedDate', 'Price'], nswHistory.columns);
    assert.ok(resolved.ok);
    assert.equal(resolved.header.index.get('FuelCode'), 5);
  });

  test('missing required columns are named, in the format\'s order', () => {
    const resolved = resolveHeader(['PUBLISH_DATE', 'TRADING_NAME', 'PRODUCT_PRICE', 'ADDRESS'], waHistory.columns);
    assert.deepEqual(resolved, { ok: false, missing: ['PRODUCT_DESCRIPTION', 'LOCATION'] });
  });

  test('a row must have the header\'s fields; empty extras from a trailing comma are harmless', () => {
    const resolved = resolveHeader(['PUBLISH_DATE', 'PRODUCT_DESCRIPTION', 'PRODUCT_PRICE', 'ADDRESS', 'LOCATION', ''], waHistory.columns);
    assert.ok(resolved.ok);
    const header = resolved.header;
    assert.equal(header.width, 5);
    const expected = { PUBLISH_DATE: '01/02/2026', PRODUCT_DESCRIPTION: 'ULP', PRODUCT_PRICE: '189.9', ADDRESS: '1 A St', LOCATION: 'PERTH' };
    assert.deepEqual(rowOf(['01/02/2026', 'ULP', '189.9', '1 A St', 'PERTH'], header), expected);
    assert.deepEqual(rowOf(['01/02/2026', 'ULP', ' 189.9 ', '1 A St', 'PERTH', '', ''], header), expected);
    assert.equal(rowOf(['01/02/2026', 'ULP', '189.9', '1 A St'], header), undefined);
    assert.equal(rowOf(['01/02/2026', 'ULP', '189.9', '1 A St', 'PERTH', '6000'], header), undefined);
  });
});

describe('import: dates and times', () => {
  test('NSW PriceUpdatedDate in each published shape, as Sydney time', () => {
    // 1/08/2016 12:02:00 AM = 00:02 AEST (UTC+10) = 31 Jul 2016 14:02 UTC.
    assert.equal(nswPriceTime('1/08/2016 12:02:00 AM'), utc(2016, 7, 31, 14, 2));
    assert.equal(nswPriceTime('01/08/2016 00:02'), utc(2016, 7, 31, 14, 2));
    // 3/08/2016 1:15:00 PM = 13:15 AEST = 03:15 UTC.
    assert.equal(nswPriceTime('3/08/2016 1:15:00 PM'), utc(2016, 8, 3, 3, 15));
    // 12:30:00 PM is half past noon: 12:30 AEST = 02:30 UTC.
    assert.equal(nswPriceTime('3/08/2016 12:30:00 PM'), utc(2016, 8, 3, 2, 30));
    // 01/02/2026 06:05 = 06:05 AEDT (UTC+11, daylight time) = 31 Jan 19:05 UTC.
    assert.equal(nswPriceTime('01/02/2026 06:05'), utc(2026, 1, 31, 19, 5));
    // 2016-09-01 00:01:35 AEST = 31 Aug 14:01:35 UTC.
    assert.equal(nswPriceTime('2016-09-01 00:01:35'), utc(2016, 8, 31, 14, 1) + 35);
    // Excel serials (2018's workbooks), Sydney wall clock: 43435.009363425925 days after 30 Dec 1899 is 1 Dec 2018
    // 00:13:29 (0.009363425925 d = 808.999... s, to the second 809), AEDT = 30 Nov 13:13:29 UTC.
    assert.equal(nswPriceTime('43435.009363425925'), utc(2018, 11, 30, 13, 13) + 29);
    // 43282.00548611111: 1 Jul 2018 00:07:54 (474.0 s), AEST = 30 Jun 14:07:54 UTC.
    assert.equal(nswPriceTime('43282.00548611111'), utc(2018, 6, 30, 14, 7) + 54);
  });

  test('an Excel serial is read only as five digits and a fraction: other numbers are not dates', () => {
    assert.deepEqual(parseExcelSerial('43435.5'), { y: 2018, m: 12, d: 1, h: 12, mi: 0, s: 0 });
    assert.deepEqual(parseExcelSerial('43435'), { y: 2018, m: 12, d: 1, h: 0, mi: 0, s: 0 });
    for (const text of ['1859', '134.7', '434350.5', '-43435', '4.3435e4', '']) assert.equal(parseExcelSerial(text), undefined, text);
  });

  test('impossible or month-first dates are refused, not guessed', () => {
    for (const text of ['31/02/2026 10:00', '08/31/2016 10:00', '1/08/2016 13:00:00 PM', '1/08/2016 0:02:00 AM', '01/08/2016', '2016-13-01 00:00', '']) {
      assert.equal(nswPriceTime(text), undefined, text);
    }
    assert.equal(parseDayFirstDateTime('01/08/2016 24:00'), undefined);
    assert.deepEqual(parseDayFirstDate('3/2/2026'), { y: 2026, m: 2, d: 3, h: 0, mi: 0, s: 0 });
    assert.equal(parseDayFirstDate('2026-02-03'), undefined);
    assert.deepEqual(parseIsoDateTime('2018-11-30T23:59:00'), { y: 2018, m: 11, d: 30, h: 23, mi: 59, s: 0 });
  });

  test('QLD TransactionDateutc is UTC, in the current and the older shape', () => {
    assert.equal(qldTransactionTime('04/08/2026 22:54'), utc(2026, 8, 4, 22, 54));
    assert.equal(qldTransactionTime('2018-11-30T23:59:00'), utc(2018, 11, 30, 23, 59));
    assert.equal(qldTransactionTime('30/11/2018'), undefined);
  });

  test('a WA PUBLISH_DATE (or a snapshot\'s date) takes effect at 06:00 WA time', () => {
    // 01/02/2026 06:00 AWST (UTC+8) = 31 Jan 22:00 UTC; the site API's snapshots write the same day 2026-02-01.
    assert.equal(waPublishTime('01/02/2026'), utc(2026, 1, 31, 22, 0));
    assert.equal(waPublishTime('2026-02-01'), utc(2026, 1, 31, 22, 0));
    for (const text of ['2026-02-01T06:00', '02/01/26', '2026-13-01', '']) assert.equal(waPublishTime(text), undefined, text);
  });
});

describe('import: matching NSW rows to known stations', () => {
  test('address keys drop the trailing suburb, state and postcode and shorten street words', () => {
    const key = '120 cleveland st|2010';
    assert.equal(nswAddressKey('120 Cleveland Street, Surry Hills NSW 2010', 'Surry Hills', '2010'), key);
    assert.equal(nswAddressKey('120 CLEVELAND ST', 'SURRY HILLS', '2010'), key);
    assert.equal(nswAddressKey('120 Cleveland St., Surry Hills', 'Surry Hills', '2010.0'), key);
    assert.equal(nswAddressKey('940 Pittwater Road & Hawkesbury Avenue, Dee Why NSW 2099', 'Dee Why', '2099'), '940 pittwater rd and hawkesbury ave|2099');
    assert.equal(nswAddressKey('', 'Dee Why', '2099'), '');
    assert.equal(postcodeOf('800'), '0800');
    assert.equal(postcodeOf('NSW'), '');
  });

  test('a row finds the one live station at its site (address and postcode, however written); never by name alone', () => {
    const station = (feedCode: string, name: string, address: string, postcode: string): FeedStation =>
      ({ id: feedCode.toLowerCase(), feedCode, name, brand: '', address, street: '', suburb: 'Kensington', postcode, state: 'nsw' });
    const index = new NswStationIndex([
      station('NSW-1', 'BP Kensington', '150 Anzac Parade, Kensington NSW 2033', '2033'),
      station('NSW-2', 'Shell Kensington', '1 Todman Avenue, Kensington NSW 2033', '2033'),
      // Two live stations at one site (a shopping centre's chargers): the site is neither's.
      station('NSW-3', 'Kensington Centre', '9 Doncaster Avenue, Kensington NSW 2033', '2033'),
      station('NSW-4', 'Kensington Centre', '9 Doncaster Ave, KENSINGTON NSW 2033', '2033'),
    ]);
    assert.equal(index.match('BP', '150 Anzac Pde', 'Kensington', '2033'), 'NSW-1');
    // A rebrand, capitals and the state written out: the same site.
    assert.equal(index.match('Ampol Kensington', '150 ANZAC PARADE, KENSINGTON NEW SOUTH WALES 2033', 'KENSINGTON', '2033'), 'NSW-1');
    assert.equal(index.match('BP Kensington', '150 Anzac Parade', 'Kensington', '2034'), undefined);
    // The name alone: another site (FuelCheck has several "7-Eleven Blacktown"; a site's rows carry several names).
    assert.equal(index.match('BP Kensington', 'Cnr Anzac Parade & Todman Avenue', 'Kensington', '2033'), undefined);
    assert.equal(index.match('Shell Kensington', '1 Todman Ave', 'Kensington', '2033'), 'NSW-2');
    assert.equal(index.match('Kensington Centre', '9 Doncaster Avenue', 'Kensington', '2033'), undefined);
  });

  test('the site of a history row: a rebrand and "Rd"/"Road" are one site, the two sides of a motorway two', () => {
    // The case, two real rows: "Caltex Figtree, 99 Bellevue Rd" (2018) and "Metro Figtree, 99 Bellevue Road" (2020).
    const figtree = nswHistoryCode('Caltex Figtree', '99 Bellevue Rd, Figtree NSW 2525', 'Figtree', '2525');
    assert.equal(figtree, 'history:99 bellevue rd|2525');
    assert.equal(nswHistoryCode('Metro Figtree', '99 Bellevue Road, FIGTREE NSW 2525', 'FIGTREE', '2525'), figtree);
    // "BP Marulan Northbound" and "Southbound" share "Hume Highway" (every 2018 and 2020 workbook): two sites.
    const south = nswHistoryCode('BP Marulan Southbound T/S', 'Hume Highway, Marulan NSW 2579', 'Marulan', '2579');
    assert.equal(south, 'history:hume hwy|2579|sb');
    assert.equal(nswHistoryCode('BP Express Marulan Northbound', 'Hume Highway, Marulan NSW 2579', 'Marulan', '2579'), 'history:hume hwy|2579|nb');
    // "M1 Northbound, Wyong": the side in the address.
    assert.equal(nswHistoryCode('Caltex Wyong', 'M1 Northbound, Wyong NSW 2259', 'Wyong', '2259'), 'history:m1 northbound|2259|nb');
    // Without a street, the name and postcode.
    assert.equal(nswHistoryCode('Caltex Nowhere', '', '', '2999'), 'history:name:caltex nowhere|2999');
    const station = (feedCode: string, name: string, address: string): FeedStation =>
      ({ id: feedCode.toLowerCase(), feedCode, name, brand: '', address, street: '', suburb: 'Marulan', postcode: '2579', state: 'nsw' });
    const index = new NswStationIndex([station('NSW-7', 'BP Marulan Northbound', 'Hume Highway, Marulan NSW 2579')]);
    assert.equal(index.match('Ampol Marulan Northbound', 'Hume Hwy', 'Marulan', '2579'), 'NSW-7');
    assert.equal(index.match('BP Marulan Southbound', 'Hume Highway', 'Marulan', '2579'), undefined);
    assert.equal(index.has(south), false);
    index.add({ feedCode: south });
    assert.equal(index.has(south), true);
  });

  test('blank station fields are the station above; then a blank fuel or date is the row above\'s too', () => {
    const previous = { ServiceStationName: 'BP Kensington', Address: '150 Anzac Parade', Suburb: 'Kensington', Postcode: '2033', Brand: 'BP', FuelCode: 'U91', PriceUpdatedDate: '01/02/2026 06:05', Price: '185.9' };
    const continued = { ServiceStationName: '', Address: '', Suburb: '', Postcode: '', Brand: '', Price: '189.9' };
    assert.deepEqual(fillDown({ ...continued, FuelCode: 'DL', PriceUpdatedDate: '01/02/2026 06:07' }, previous),
      { ...previous, FuelCode: 'DL', PriceUpdatedDate: '01/02/2026 06:07', Price: '189.9' });
    assert.deepEqual(fillDown({ ...continued, FuelCode: '', PriceUpdatedDate: '' }, previous), { ...previous, Price: '189.9' });
    // Nothing above: the blanks stay blank (and the reader rejects the row).
    assert.deepEqual(fillDown({ ...continued, FuelCode: '', PriceUpdatedDate: '' }, undefined),
      { ...continued, FuelCode: '', PriceUpdatedDate: '' });
  });

  test('a blank name beside an address is the name above (a merged name cell over two sites), the address its own', () => {
    // April 2020, rows 45565-45567 as published.
    const southbound = { ServiceStationName: 'Caltex Wyong', Address: 'M1 Southbound, Wyong NSW 2259', Suburb: 'Wyong', Postcode: '2259', Brand: 'Caltex Woolworths', FuelCode: 'PDL', PriceUpdatedDate: '17/04/2020 7:04:09 PM', Price: '130.9' };
    const northbound = { ServiceStationName: '', Address: 'M1 Northbound, Wyong NSW 2259', Suburb: 'Wyong', Postcode: '2259', Brand: 'Caltex Woolworths', FuelCode: 'PDL', PriceUpdatedDate: '17/04/2020 7:04:25 PM', Price: '130.9' };
    const filled = fillDown(northbound, southbound);
    assert.deepEqual(filled, { ...northbound, ServiceStationName: 'Caltex Wyong' });
    const blankPrice = { ServiceStationName: '', Address: '', Suburb: '', Postcode: '', Brand: '', FuelCode: '', PriceUpdatedDate: '', Price: '130.9' };
    assert.deepEqual(fillDown(blankPrice, filled), { ...filled, Price: '130.9' });
    // A blank Brand beside it is the row above's too; nothing above: the name stays blank (the reader rejects the row).
    assert.deepEqual(fillDown({ ...northbound, Brand: '' }, southbound), { ...northbound, ServiceStationName: 'Caltex Wyong' });
    assert.equal(fillDown(northbound, undefined), northbound);
  });

  test('a row that names its station takes nothing from the row above, not even a blank fuel or date', () => {
    const previous = { ServiceStationName: 'BP Kensington', Address: '150 Anzac Parade', Suburb: 'Kensington', Postcode: '2033', Brand: 'BP', FuelCode: 'P98', PriceUpdatedDate: '01/04/2020 3:20:28 PM', Price: '148.9' };
    const own = { ServiceStationName: 'Caltex Woolworths Rosebery', Address: '321 Gardeners Rd, ROSEBERY NSW 2018', Suburb: 'ROSEBERY', Postcode: '2018', Brand: 'Caltex', FuelCode: '', PriceUpdatedDate: '', Price: '145.9' };
    assert.equal(fillDown(own, previous), own);
    assert.equal(fillDown(own, undefined), own);
  });

  test('blank FuelCode: rejected when the row names its station, taken from above within the same station, never across', async () => {
    const header = 'ServiceStationName,Address,Suburb,Postcode,Brand,FuelCode,PriceUpdatedDate,Price';
    const rows = [
      header,
      'Shell Reddy Express Rozelle,"671 Darling Street, Rozelle NSW 2039",Rozelle,2039,Shell,E10,01/02/2026 06:00,186.9',
      // The next station names itself with a blank FuelCode: the E10 above is Rozelle's, so this is rejected.
      '7-Eleven Newtown,"368 King Street, Newtown NSW 2042",Newtown,2042,7-Eleven,,01/02/2026 06:10,191.9',
      // A row of Newtown's with a blank FuelCode: the row above has none either.
      ',,,,,,01/02/2026 06:11,192.9',
      ',,,,,U91,01/02/2026 06:12,190.9',
      // Merged with the U91 above: Newtown's U91 again, a minute later.
      ',,,,,,01/02/2026 06:13,189.9',
      // Named, with a blank date: rejected (never the row above's).
      'Shell Reddy Express Rozelle,"671 Darling Street, Rozelle NSW 2039",Rozelle,2039,Shell,U91,,188.9',
    ];
    const normaliser = new Normaliser('nsw', nswHistory.fuels, NOW);
    const reader = await nswHistory.start({ feedStations: async () => [
      { id: 'rozelle', feedCode: 'NSW-1003', name: 'Shell Reddy Express Rozelle', brand: 'Shell', address: '671 Darling Street, Rozelle NSW 2039', suburb: 'Rozelle', postcode: '2039' },
      { id: 'newtown', feedCode: 'NSW-1002', name: '7-Eleven Newtown', brand: '7-Eleven', address: '368 King Street, Newtown NSW 2042', suburb: 'Newtown', postcode: '2042' },
    ] } as unknown as Parameters<typeof nswHistory.start>[0]);
    const resolved = resolveHeader(header.split(','), nswHistory.columns);
    assert.ok(resolved.ok);
    const split = (line: string): string[] => line.match(/("[^"]*"|[^,]*)(,|$)/g)?.slice(0, 8).map((f) => f.replace(/,$/, '').replace(/^"|"$/g, '')) ?? [];
    rows.slice(1).forEach((line, i) => {
      const row = rowOf(split(line), resolved.header);
      assert.ok(row, line);
      reader.read(row, normaliser, i + 2);
    });
    assert.deepEqual(byReason(normaliser.rejected()), {
      [NSW_BLANK_FUEL]: 1, [NSW_BLANK_FUEL_NONE_ABOVE]: 1, [NSW_BLANK_DATE]: 1,
    });
    // 01/02/2026 06:00 AEDT = 31 Jan 19:00 UTC.
    assert.deepEqual(normaliser.batch().prices.map((p) => [p.feedCode, p.fuel, p.at, p.priceTenths]), [
      ['NSW-1003', 'e10', utc(2026, 1, 31, 19, 0), 1869],
      ['NSW-1002', 'ulp91', utc(2026, 1, 31, 19, 12), 1909],
      ['NSW-1002', 'ulp91', utc(2026, 1, 31, 19, 13), 1899],
    ]);
  });
});

describe('import: file identity and cursors', () => {
  test('a file is known by its size and first MiB, not its name', async () => {
    const a = tmpFile('a.csv', 'SiteId\n1\n');
    const renamed = join(tmp, 'renamed.csv');
    copyFileSync(a, renamed);
    const identity = await fileIdentity(a);
    assert.match(identity, /^[0-9a-f]{16}$/);
    assert.equal(await fileIdentity(renamed), identity);
    assert.notEqual(await fileIdentity(tmpFile('b.csv', 'SiteId\n2\n')), identity);
    assert.notEqual(await fileIdentity(tmpFile('c.csv', 'SiteId\n1\n\n')), identity);
    const big = Buffer.alloc(1024 * 1024 + 10, 0x41);
    const bigOther = Buffer.from(big);
    bigOther[1024 * 1024 + 5] = 0x42; // past the first MiB, same size
    assert.equal(await fileIdentity(tmpFile('big1.csv', big)), await fileIdentity(tmpFile('big2.csv', bigOther)));
    assert.equal(importCursorKey('qld-history', identity), `import:qld-history:${identity}`);
  });

  test('a batch the database refused is one line naming its rows and lines, with the error code and not the database\'s words', () => {
    const refused = Object.assign(new Error('UNIQUE constraint failed: station_runs.station_key, station_runs.to_day'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    assert.equal(storeFailure(refused, 5001, 10000, 5004, 10003),
      'the database refused rows 5001-10000 (lines 5004-10003) (SQLITE_CONSTRAINT_UNIQUE): none of them was stored, the rows before them were; '
      + 'this is a fault of fuelprice, please report it');
    assert.equal(storeFailure(new Error('connection reset'), 1, 1, undefined, 0),
      'the database refused rows 1-1: none of them was stored, the rows before them were; this is a fault of fuelprice, please report it');
  });

  test('cursor values: rows applied, or done', () => {
    assert.deepEqual(parseImportCursor(undefined), { rows: 0, done: false });
    assert.deepEqual(parseImportCursor('5000'), { rows: 5000, done: false });
    assert.deepEqual(parseImportCursor('done:12'), { rows: 12, done: true });
    assert.throws(() => parseImportCursor('half'), ImportError);
  });
});

describe('import: progress output', () => {
  const outcome = (over: Partial<FileOutcome> = {}): FileOutcome => ({
    format: 'nsw-history', file: 'may.csv', status: 'imported', rows: 120000, resumedAfter: 0, stationsAdded: 0,
    pricesAccepted: 118000, pricesIgnored: 1500, pricesCorrected: 0, pricesHeld: 0, error: undefined,
    rejected: [{ reason: 'unknown fuel code', count: 300, example: '' }, { reason: 'price with an unreadable PriceUpdatedDate', count: 200, example: '' }],
    ...over,
  });

  test('off a terminal: a plain line at most every five seconds, then the summary', () => {
    let text = '';
    let nowMs = 1_000_000;
    const progress = new ImportProgress({ write: (s: string) => { text += s; }, isTTY: false }, () => nowMs, 'import nsw-history may.csv');
    progress.update({ bytesRead: 100, totalBytes: 1000, rows: 10, rejected: 0 });
    nowMs += PLAIN_INTERVAL_MS - 1;
    progress.update({ bytesRead: 400, totalBytes: 1000, rows: 90000, rejected: 0 });
    assert.equal(text, '');
    nowMs += 1;
    progress.update({ bytesRead: 500, totalBytes: 1000, rows: 120000, rejected: 0 });
    nowMs += 1000;
    progress.update({ bytesRead: 600, totalBytes: 1000, rows: 130000, rejected: 2 });
    nowMs += PLAIN_INTERVAL_MS;
    progress.update({ bytesRead: 999, totalBytes: 1000, rows: 200000, rejected: 2 });
    progress.finish(outcome());
    assert.equal(text, [
      'import nsw-history may.csv: 50% 120000 rows, 0 rejected',
      'import nsw-history may.csv: 99% 200000 rows, 2 rejected',
      'import nsw-history may.csv: 120000 rows read = 118000 stored + 1500 already known + 0 corrected + 500 rejected '
        + '(300 unknown fuel code; 200 price with an unreadable PriceUpdatedDate)',
      '',
    ].join('\n'));
  });

  test('on a terminal: one bar redrawn with \\r and rows a second, ended before the summary', () => {
    let text = '';
    let nowMs = 0;
    const progress = new ImportProgress({ write: (s: string) => { text += s; }, isTTY: true }, () => nowMs, 'import qld-history q.csv');
    nowMs = 2000;
    progress.update({ bytesRead: 250, totalBytes: 1000, rows: 1000, rejected: 0 });
    nowMs = 4000;
    progress.update({ bytesRead: 1000, totalBytes: 1000, rows: 3000, rejected: 0 });
    progress.finish(outcome({ format: 'qld-history', file: 'q.csv', rows: 3000, stationsAdded: 2, pricesAccepted: 3000, pricesIgnored: 0, rejected: [] }));
    assert.equal(text,
      '\rimport qld-history q.csv [#####...............] 25% 1000 rows 500 rows/s '
      + '\rimport qld-history q.csv [####################] 100% 3000 rows 750 rows/s '
      + '\nimport qld-history q.csv: 3000 rows read = 3000 stored + 0 already known + 0 corrected + 0 rejected; 2 stations added\n');
  });

  test('several files: one bar over all their bytes, each file\'s summary above it, and a total that adds up', () => {
    let text = '';
    let nowMs = 0;
    const progress = new ImportProgress({ write: (s: string) => { text += s; }, isTTY: true }, () => nowMs, 'import nsw-history (2 files)', 3000, 2);
    const first = progress.file();
    nowMs = 1000;
    first.update({ bytesRead: 500, totalBytes: 1000, rows: 100, rejected: 0 });
    first.finish(outcome({ file: 'a.xlsx', rows: 200, pricesAccepted: 190, pricesIgnored: 5, pricesCorrected: 3, rejected: [{ reason: NSW_BLANK_FUEL, count: 2, example: '' }] }));
    const second = progress.file();
    nowMs = 2000;
    second.update({ bytesRead: 2000, totalBytes: 2000, rows: 300, rejected: 1 });
    second.finish(outcome({ file: 'b.csv', rows: 300, resumedAfter: 100, pricesAccepted: 199, pricesIgnored: 0, rejected: [{ reason: NSW_BLANK_FUEL, count: 1, example: '' }] }));
    progress.close('nsw-history');
    // 500 of 3000 bytes: 16%, 3 of 20 marks. Then 1000 + 2000 of 3000 bytes, and the rows shown so far, 100 + 300, in 2 s.
    assert.equal(text,
      '\rimport nsw-history (2 files) [###.................] 16% file 1/2 100 rows 100 rows/s '
      + `\nimport nsw-history a.xlsx: 200 rows read = 190 stored + 5 already known + 3 corrected + 2 rejected (2 ${NSW_BLANK_FUEL})\n`
      + '\rimport nsw-history (2 files) [####################] 100% file 2/2 400 rows 200 rows/s '
      + `\nimport nsw-history b.csv: 200 rows read = 199 stored + 0 already known + 0 corrected + 1 rejected (1 ${NSW_BLANK_FUEL}); resumed after 100 rows\n`
      + `import nsw-history, 2 files (2 imported): 400 rows read = 389 stored + 5 already known + 3 corrected + 3 rejected (3 ${NSW_BLANK_FUEL}); resumed after 100 rows\n`);
  });

  test('summaries of a skipped, a resumed and a failed file', () => {
    assert.equal(summaryLine(outcome({ status: 'already imported', rows: 31 })), 'import nsw-history may.csv: already imported (31 rows), skipped (--restart reads it again)');
    assert.equal(summaryLine(outcome({ rows: 30, resumedAfter: 10, pricesAccepted: 20, pricesIgnored: 0, rejected: [] })),
      'import nsw-history may.csv: 20 rows read = 20 stored + 0 already known + 0 corrected + 0 rejected; resumed after 10 rows');
    assert.equal(summaryLine(outcome({ status: 'failed', error: 'Quote Not Closed', rows: 5000, pricesAccepted: 4990, pricesIgnored: 0, rejected: [{ reason: 'x', count: 10, example: '' }] })),
      'import nsw-history may.csv: FAILED: Quote Not Closed; so far 5000 rows read = 4990 stored + 0 already known + 0 corrected + 10 rejected (10 x)');
    // Where the first row of each reason is: its line.
    assert.equal(summaryLine(outcome({ rows: 3, pricesAccepted: 1, pricesIgnored: 0, firstRejectedLine: { [NSW_BLANK_FUEL]: 2104 }, rejected: [{ reason: NSW_BLANK_FUEL, count: 2, example: '' }] })),
      `import nsw-history may.csv: 3 rows read = 1 stored + 0 already known + 0 corrected + 2 rejected (2 ${NSW_BLANK_FUEL} [first: line 2104])`);
    // A summary that does not add up says so rather than hiding it.
    assert.match(summaryLine(outcome({ pricesAccepted: 1 })), /THESE DO NOT ADD UP/);
  });
});

/** Every stored table that an import writes, for comparing two stores. */
async function tables(store: PriceStore): Promise<string> {
  const names: CopyTable[] = ['stations', 'price_events', 'current_prices', 'station_daily', 'pending_prices', 'feed_cursors'];
  const out: Record<string, unknown> = {};
  for (const name of names) out[name] = (await store.exportTable(name, undefined, 100_000)).rows;
  return JSON.stringify(out);
}

for (const backend of testBackends()) {
  describe(`import on ${backend.name}`, () => {
    const fresh = freshStores(backend);
    const run = (s: PriceStore, format: ImportFormat, path: string, over: Partial<Parameters<typeof importFile>[0]> = {}): Promise<FileOutcome> =>
      importFile({ store: s, format, path, now: NOW, label: 'file.csv', ...over });

    test('nsw-history: rows land on the stations the live feed created, with Sydney times; bad rows are counted by reason', async () => {
      const s = await fresh();
      await seed(s, 'nsw', NSW_STATIONS);
      const outcome = await run(s, nswHistory, NSW_FILE);
      assert.equal(outcome.status, 'imported', outcome.error);
      assert.equal(outcome.rows, 30);
      // Metro Petroleum Marrickville is not a live station: created from its rows, without a position, its id of its name, street
      // and postcode (docs/DATA.md "Ids"); BP Kensington's rows at "Cnr Anzac Parade & Todman Avenue" are another site than the
      // live BP Kensington's 150 Anzac Parade.
      assert.equal(outcome.stationsAdded, 2);
      assert.equal(outcome.pricesAccepted, 27);
      assert.equal(outcome.pricesIgnored, 0);
      assert.deepEqual(byReason(outcome.rejected), {
        'unknown fuel code': 1, [WRONG_FIELD_COUNT]: 1, 'price outside 50-500 c/L for e10': 1,
      });
      assert.deepEqual(await s.station('metro-petroleum-marrickville-310-illawarra-road-2204'), {
        id: 'metro-petroleum-marrickville-310-illawarra-road-2204', name: 'Metro Petroleum Marrickville', brand: 'Metro Fuel',
        address: '310 Illawarra Road, Marrickville NSW 2204', street: '310 Illawarra Road', suburb: 'Marrickville', postcode: '2204',
        state: 'nsw', phone: '', website: '', latitude: false, longitude: false,
      });
      // 03/02 09:00 AEDT = 2 Feb 22:00 UTC.
      assert.deepEqual(await current(s, 'metro-petroleum-marrickville-310-illawarra-road-2204'), [
        { fuel: 'e10', priceTenths: 1779, available: true, reportedAt: utc(2026, 2, 2, 22, 0) },
        { fuel: 'ulp91', priceTenths: 1799, available: true, reportedAt: utc(2026, 2, 2, 22, 0) },
      ]);
      // Times are AEDT (UTC+11) in February: 10/02/2026 04:30 = 9 Feb 17:30 UTC, 01/02 06:05 = 31 Jan 19:05 UTC.
      assert.deepEqual(await current(s, 'ampol-foodary-surry-hills'), [
        { fuel: 'diesel', priceTenths: 1899, available: true, reportedAt: utc(2026, 1, 31, 19, 5) },
        { fuel: 'e10', priceTenths: 1879, available: true, reportedAt: utc(2026, 2, 9, 17, 30) },
        { fuel: 'ulp91', priceTenths: 1899, available: true, reportedAt: utc(2026, 2, 9, 17, 30) },
        { fuel: 'ulp98', priceTenths: 2139, available: true, reportedAt: utc(2026, 1, 31, 19, 5) },
      ]);
      // 10/02 05:00 = 9 Feb 18:00 UTC; 01/02 07:30 = 31 Jan 20:30 UTC. P100 is not a FuelCheck code: rejected.
      assert.deepEqual(await current(s, '7-eleven-newtown'), [
        { fuel: 'ulp91', priceTenths: 1917, available: true, reportedAt: utc(2026, 2, 9, 18, 0) },
        { fuel: 'ulp95', priceTenths: 2057, available: true, reportedAt: utc(2026, 1, 31, 20, 30) },
        { fuel: 'ulp98', priceTenths: 2137, available: true, reportedAt: utc(2026, 1, 31, 20, 30) },
      ]);
      // 11/02 06:00 = 10 Feb 19:00 UTC; 02/02 10:15 = 1 Feb 23:15 UTC. The 1979 c/L E10 and the broken row never landed.
      assert.deepEqual(await current(s, 'shell-reddy-express-rozelle'), [
        { fuel: 'e10', priceTenths: 1869, available: true, reportedAt: utc(2026, 2, 10, 19, 0) },
        { fuel: 'lpg', priceTenths: 1099, available: true, reportedAt: utc(2026, 2, 1, 23, 15) },
        { fuel: 'ulp91', priceTenths: 1889, available: true, reportedAt: utc(2026, 2, 10, 19, 0) },
      ]);
      // Its own site, not the live station of its name: 07/02 06:10 = 6 Feb 19:10 UTC; 12/02 11:11 = 12 Feb 00:11 UTC.
      assert.deepEqual(await current(s, 'bp-kensington'), []);
      assert.deepEqual(await current(s, 'bp-kensington-cnr-anzac-parade-and-todman-avenue-2033'), [
        { fuel: 'diesel', priceTenths: 1879, available: true, reportedAt: utc(2026, 2, 12, 0, 11) },
        { fuel: 'ulp91', priceTenths: 1979, available: true, reportedAt: utc(2026, 2, 6, 19, 10) },
      ]);
      // ACT, Sydney time too: 03/02 08:00 = 2 Feb 21:00 UTC; 08/02 07:00 = 7 Feb 20:00 UTC.
      assert.deepEqual(await current(s, 'caltex-braddon'), [
        { fuel: 'e10', priceTenths: 1799, available: true, reportedAt: utc(2026, 2, 2, 21, 0) },
        { fuel: 'ulp91', priceTenths: 1959, available: true, reportedAt: utc(2026, 2, 7, 20, 0) },
      ]);
      // 185.9 from 31 Jan 19:05 UTC (06:05 local on 1 Feb) to the 5 Feb change: 1 Feb has 17 h 55 min of it.
      const day = localDayFromYmd(2026, 2, 1);
      const days = (await s.stationDays('ampol-foodary-surry-hills', { from: day, to: day })).filter((d) => d.fuel === 'ulp91');
      assert.deepEqual(days.map((d) => [d.weightedTenths, d.seconds]), [[1859 * 64_500, 64_500]]);
      assert.equal(await s.feedCursor(importCursorKey('nsw-history', await fileIdentity(NSW_FILE))), 'done:30');
    });

    test('nsw-history: the early 2016 layout (FuelType, AM/PM times, CRLF)', async () => {
      const s = await fresh();
      await seed(s, 'nsw', NSW_STATIONS);
      const outcome = await run(s, nswHistory, NSW_2016_FILE);
      assert.equal(outcome.status, 'imported', outcome.error);
      assert.deepEqual([outcome.rows, outcome.pricesAccepted, outcome.rejected.length], [4, 4, 0]);
      // 3/08/2016 1:15:00 PM AEST = 03:15 UTC; 1/08/2016 12:02:00 AM = 31 Jul 14:02 UTC.
      assert.deepEqual(await current(s, '7-eleven-newtown'), [
        { fuel: 'ulp91', priceTenths: 1199, available: true, reportedAt: utc(2016, 8, 3, 3, 15) },
        { fuel: 'ulp98', priceTenths: 1299, available: true, reportedAt: utc(2016, 7, 31, 14, 2) },
      ]);
      // 2/08/2016 9:41:27 AM AEST = 1 Aug 23:41:27 UTC.
      assert.deepEqual(await current(s, 'shell-reddy-express-rozelle'), [
        { fuel: 'e10', priceTenths: 1089, available: true, reportedAt: utc(2016, 8, 1, 23, 41) + 27 },
      ]);
    });

    test('nsw-history: importing the same file again changes nothing, with or without its cursor', async () => {
      const s = await fresh();
      await seed(s, 'nsw', NSW_STATIONS);
      assert.equal((await run(s, nswHistory, NSW_FILE)).pricesAccepted, 27);
      const before = await snapshot(s);
      const again = await run(s, nswHistory, NSW_FILE);
      assert.deepEqual([again.status, again.rows, again.pricesAccepted], ['already imported', 30, 0]);
      assert.equal(await snapshot(s), before);
      // Read again from the first row: the writer recognises every report it already has, and the station created then is found again.
      const restarted = await run(s, nswHistory, NSW_FILE, { restart: true });
      assert.deepEqual([restarted.status, restarted.stationsAdded, restarted.pricesAccepted, restarted.pricesIgnored], ['imported', 0, 0, 27]);
      assert.equal(await snapshot(s), before);
    });

    test('wa-history: one price a day at 06:00 WA time on the stations the live feed keys; a station it does not know is created', async () => {
      const s = await fresh();
      await seed(s, 'wa', WA_STATIONS);
      const outcome = await run(s, waHistory, WA_FILE);
      assert.equal(outcome.status, 'imported', outcome.error);
      assert.equal(outcome.rows, 30);
      assert.equal(outcome.stationsAdded, 1);
      assert.equal(outcome.pricesAccepted, 27);
      assert.deepEqual(byReason(outcome.rejected), {
        [WRONG_FIELD_COUNT]: 1, 'price outside 50-500 c/L for ulp91': 1, 'unknown fuel code': 1,
      });
      // Vibe Osborne Park: no live station, so made from its rows (FuelWatchRetail files have no position), keyed as the live feed keys it.
      assert.deepEqual(await s.station('vibe-osborne-park'), {
        id: 'vibe-osborne-park', name: 'Vibe Osborne Park', brand: 'Vibe', address: '420 Scarborough Beach Rd, OSBORNE PARK WA 6017',
        street: '420 Scarborough Beach Rd', suburb: 'OSBORNE PARK', postcode: '6017', state: 'wa', phone: '', website: '', latitude: false, longitude: false,
      });
      assert.deepEqual((await s.feedStations('wa')).filter((f) => f.id === 'vibe-osborne-park').map((f) => f.feedCode),
        [waStationKey('420 Scarborough Beach Road', 'Osborne Park', 'Vibe Osborne Park')]);
      // PUBLISH_DATE 03/02/2026 -> 06:00 AWST (UTC+8) = 2 Feb 22:00 UTC; 02/02 -> 1 Feb 22:00 UTC.
      const day3 = utc(2026, 2, 2, 22, 0);
      assert.deepEqual(await current(s, 'caltex-starmart-northbridge'), [
        { fuel: 'diesel', priceTenths: 1919, available: true, reportedAt: day3 },
        { fuel: 'ulp91', priceTenths: 1979, available: true, reportedAt: day3 },
        { fuel: 'ulp95', priceTenths: 2119, available: true, reportedAt: day3 },
      ]);
      assert.deepEqual(await current(s, 'ampol-foodary-victoria-park'), [
        { fuel: 'lpg', priceTenths: 1159, available: true, reportedAt: utc(2026, 2, 1, 22, 0) },
        { fuel: 'ulp91', priceTenths: 1975, available: true, reportedAt: day3 },
        { fuel: 'ulp98', priceTenths: 2275, available: true, reportedAt: day3 },
      ]);
      assert.deepEqual(await current(s, 'bp-leederville'), [
        { fuel: 'pdiesel', priceTenths: 2039, available: true, reportedAt: day3 },
        { fuel: 'ulp91', priceTenths: 1959, available: true, reportedAt: day3 },
      ]);
      assert.deepEqual(await current(s, 'puma-subiaco'), [{ fuel: 'ulp91', priceTenths: 1849, available: true, reportedAt: day3 }]);
      // The day-2 ULP row is the broken one, so 189.9 holds from 06:00 on 1 Feb to 06:00 on 3 Feb: 1 Feb has 18 h of it.
      const day = localDayFromYmd(2026, 2, 1);
      const days = (await s.stationDays('caltex-starmart-northbridge', { from: day, to: day })).filter((d) => d.fuel === 'ulp91');
      assert.deepEqual(days.map((d) => [d.weightedTenths, d.seconds]), [[1899 * 64_800, 64_800]]);
      const before = await snapshot(s);
      const again = await run(s, waHistory, WA_FILE, { restart: true });
      assert.deepEqual([again.stationsAdded, again.pricesAccepted, again.pricesIgnored], [0, 0, 27]);
      assert.equal(await snapshot(s), before);
    });

    test('qld-history: creates the sites it has not seen, keeps known ones as they are, and reads 9999 as out of stock', async () => {
      const s = await fresh();
      await seed(s, 'qld', [QLD_KNOWN]);
      const outcome = await run(s, qldHistory, QLD_FILE);
      assert.equal(outcome.status, 'imported', outcome.error);
      assert.equal(outcome.rows, 26);
      assert.equal(outcome.stationsAdded, 4);
      assert.equal(outcome.pricesAccepted, 23);
      assert.deepEqual(byReason(outcome.rejected), {
        [WRONG_FIELD_COUNT]: 1, 'price outside 50-500 c/L for e10': 1, 'unknown fuel code': 1,
      });
      // Both position fields empty: a station without a position (never 0,0), its two prices kept.
      assert.deepEqual(await s.station('puma-kangaroo-point'), {
        id: 'puma-kangaroo-point', name: 'Puma Kangaroo Point', brand: 'Puma Energy', address: '410 Main St, Kangaroo Point QLD 4169',
        street: '410 Main St', suburb: 'Kangaroo Point', postcode: '4169', state: 'qld', phone: '', website: '', latitude: false, longitude: false,
      });
      // 05/02/2026 06:00 UTC.
      assert.deepEqual(await current(s, 'puma-kangaroo-point'), [{ fuel: 'ulp91', priceTenths: 2049, available: true, reportedAt: utc(2026, 2, 5, 6, 0) }]);
      assert.deepEqual(await s.station('7-eleven-fortitude-valley'), {
        id: '7-eleven-fortitude-valley', name: '7-Eleven Fortitude Valley', brand: '7-Eleven',
        address: 'Cnr Brunswick St & Ann St, Fortitude Valley QLD 4006', street: 'Cnr Brunswick St & Ann St', suburb: 'Fortitude Valley',
        postcode: '4006', state: 'qld', phone: '', website: '', latitude: '-27.4575', longitude: '153.0355',
      });
      assert.equal((await s.station('bp-connect-bowen-hills'))?.name, 'BP Connect Bowen Hills');
      assert.equal(await s.station('bp-bowen-hills'), undefined);
      assert.deepEqual(await current(s, '7-eleven-fortitude-valley'), [
        { fuel: 'diesel', priceTenths: 1899, available: true, reportedAt: utc(2026, 2, 1, 20, 5) },
        { fuel: 'e10', priceTenths: 2059, available: true, reportedAt: utc(2026, 2, 4, 22, 0) },
        { fuel: 'ulp91', priceTenths: 1979, available: true, reportedAt: utc(2026, 2, 8, 21, 30) },
        { fuel: 'ulp98', priceTenths: 2139, available: true, reportedAt: utc(2026, 2, 1, 20, 5) },
      ]);
      assert.deepEqual(await current(s, 'shell-coles-express-milton'), [
        { fuel: 'diesel', priceTenths: 1949, available: true, reportedAt: utc(2026, 2, 5, 3, 15) },
        { fuel: 'e10', priceTenths: 1959, available: true, reportedAt: utc(2026, 2, 9, 1, 45) },
        { fuel: 'pdiesel', priceTenths: 2029, available: true, reportedAt: utc(2026, 2, 2, 0, 30) },
      ]);
      assert.deepEqual(await current(s, 'bp-connect-bowen-hills'), [
        { fuel: 'diesel', priceTenths: 1919, available: true, reportedAt: utc(2026, 2, 2, 1, 0) },
        { fuel: 'ulp91', priceTenths: 2089, available: true, reportedAt: utc(2026, 2, 5, 5, 30) },
      ]);
      // Fortitude Valley's ULP: 185.9 from 20:05 UTC on 1 Feb (06:05 AEST, 2 Feb) to the end of 2 Feb local: 17 h 55 min.
      const feb = (d: number): number => localDayFromYmd(2026, 2, d);
      const fv = (await s.stationDays('7-eleven-fortitude-valley', { from: feb(2), to: feb(2) })).filter((d) => d.fuel === 'ulp91');
      assert.deepEqual(fv.map((d) => [d.weightedTenths, d.seconds]), [[1859 * 64_500, 64_500]]);
      // Milton's diesel was out (9999) from 2 Feb 00:30 UTC (10:30 AEST) to 5 Feb 03:15 UTC (13:15 AEST): no priced
      // seconds until then, 10 h 45 min at 194.9 on 5 Feb, then whole days (once sealed).
      await s.seal(NOW);
      const milton = (await s.stationDays('shell-coles-express-milton', { from: feb(1), to: feb(6) })).filter((d) => d.fuel === 'diesel');
      assert.deepEqual(milton.map((d) => [d.day, d.weightedTenths, d.seconds]), [[feb(5), 1949 * 38_700, 38_700], [feb(6), 1949 * 86_400, 86_400]]);
    });

    test('resumable: a run stopped after batch k and run again ends as one uninterrupted run', async () => {
      const cases: Array<{ format: ImportFormat; path: string; seed: () => Promise<PriceStore>; batchRows: number; stopAfter: number }> = [
        { format: qldHistory, path: QLD_FILE, batchRows: 4, stopAfter: 2, seed: async () => { const s = await fresh(); await seed(s, 'qld', [QLD_KNOWN]); return s; } },
        // 30 rows in batches of 10: the last batch is full and the final (empty) one only marks the file done.
        { format: nswHistory, path: NSW_FILE, batchRows: 10, stopAfter: 1, seed: async () => { const s = await fresh(); await seed(s, 'nsw', NSW_STATIONS); return s; } },
      ];
      for (const c of cases) {
        const whole = await c.seed();
        const uninterrupted = await run(whole, c.format, c.path, { batchRows: c.batchRows });
        assert.equal(uninterrupted.status, 'imported');

        const broken = await c.seed();
        const crash = new Error('power cut');
        const first = await run(broken, c.format, c.path, {
          batchRows: c.batchRows, afterBatch: (n) => { if (n === c.stopAfter) throw crash; },
        });
        assert.deepEqual([first.status, first.error, first.rows], ['failed', 'power cut', c.batchRows * c.stopAfter]);
        const key = importCursorKey(c.format.id, await fileIdentity(c.path));
        assert.equal(await broken.feedCursor(key), String(c.batchRows * c.stopAfter));
        const second = await run(broken, c.format, c.path, { batchRows: c.batchRows });
        assert.equal(second.status, 'imported', second.error);
        assert.equal(second.resumedAfter, c.batchRows * c.stopAfter);
        assert.equal(first.pricesAccepted + second.pricesAccepted, uninterrupted.pricesAccepted);
        assert.equal(second.pricesIgnored, 0);
        // Counts, not snapshot(): two databases' data versions differ however alike their rows (a random number at each write).
        assert.deepEqual(await broken.counts(), await whole.counts(), c.format.id);
        assert.equal(await tables(broken), await tables(whole), c.format.id);
      }
    });

    test('a file without the required columns fails, naming them, and applies nothing', async () => {
      const s = await fresh();
      const path = tmpFile('wrong.csv', 'SiteId,Site_Name,Site_Brand,Sites_Address_Line_1,Site_Suburb,Site_Post_Code,Site_Latitude,Site_Longitude,Fuel_Type\n61401001,A,B,C,D,4000,-27.4,153.0,Unleaded\n');
      const before = await snapshot(s);
      const outcome = await run(s, qldHistory, path);
      assert.equal(outcome.status, 'failed');
      assert.match(outcome.error ?? '', /not a QLD Fuel Price Reporting file: the header lacks Price, TransactionDateutc/);
      assert.equal(await snapshot(s), before);
      assert.equal(await s.feedCursor(importCursorKey('qld-history', await fileIdentity(path))), undefined);
      const empty = await run(s, qldHistory, tmpFile('empty.csv', ''));
      assert.deepEqual([empty.status, empty.error], ['failed', 'the file is empty']);
    });

    test('a title line above the header is passed over; a quote never closed fails the file after the batches before it', async () => {
      const s = await fresh();
      const header = 'SiteId,Site_Name,Site_Brand,Sites_Address_Line_1,Site_Suburb,Site_State,Site_Post_Code,Site_Latitude,Site_Longitude,Fuel_Type,Price,TransactionDateutc';
      const row = (price: number, minute: number): string => `61401009,Ampol Newstead,Ampol,1 Breakfast Creek Rd,Newstead,QLD,4006,-27.4440,153.0450,Unleaded,${price},02/02/2026 01:${String(minute).padStart(2, '0')}`;
      const path = tmpFile('broken.csv', `Queensland Fuel Prices February 2026\n${header}\n${row(1859, 0)}\n${row(1869, 1)}\n${row(1879, 2)}\n61401009,"Ampol Newstead,Ampol\n`);
      const outcome = await run(s, qldHistory, path, { batchRows: 2 });
      assert.equal(outcome.status, 'failed');
      assert.match(outcome.error ?? '', /Quote Not Closed/);
      assert.deepEqual([outcome.rows, outcome.stationsAdded, outcome.pricesAccepted], [2, 1, 2]);
      assert.deepEqual(await current(s, 'ampol-newstead'), [{ fuel: 'ulp91', priceTenths: 1869, available: true, reportedAt: utc(2026, 2, 2, 1, 1) }]);
    });
  });
}

describe('fuelprice import (command)', () => {
  const config = (dir: string) => loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, FUELPRICE_NOW: '2026-03-02T00:00:00Z' });

  async function captured(work: () => Promise<number>): Promise<{ code: number; text: string }> {
    const original = process.stderr.write.bind(process.stderr);
    let text = '';
    process.stderr.write = (chunk: string | Uint8Array): boolean => { text += String(chunk); return true; };
    try {
      return { code: await work(), text };
    } finally {
      process.stderr.write = original;
    }
  }

  test('usage errors: no format, an unknown format, no files, a missing file, a folder with nothing to import', async () => {
    const cfg = config(mkdtempSync(join(tmp, 'cli-')));
    await assert.rejects(importCommand(cfg, []), UsageError);
    await assert.rejects(importCommand(cfg, ['vic-history', QLD_FILE]), /unknown import format 'vic-history': use nsw-history, wa-history, qld-history/);
    await assert.rejects(importCommand(cfg, ['qld-history']), /name the qld-history files to import/);
    await assert.rejects(importCommand(cfg, ['qld-history', join(tmp, 'nope.csv')]), /no such file: .*nope\.csv/);
    // A folder is read for its importable files: one with none is a usage error too.
    await assert.rejects(importCommand(cfg, ['qld-history', mkdtempSync(join(tmp, 'none-'))]), /no \.csv, \.xlsx, \.json or \.json\.gz files in the folder/);
  });

  test('imports each file with a summary line, skips a finished one, and exits 1 when a file failed', async () => {
    const dir = mkdtempSync(join(tmp, 'cli-'));
    // The database made first, as `fuelprice migrate` does: import opens only an existing SQLite file.
    await (await openStore(config(dir).databaseUrl)).close();
    const first = await captured(() => importCommand(config(dir), ['qld-history', QLD_FILE]));
    assert.equal(first.code, 0);
    assert.equal(first.text.trim(), `import qld-history ${QLD_FILE}: 26 rows read = 23 stored + 0 already known + 0 corrected + 3 rejected `
      // The first rejected row of each reason, by hand from the file: 16 (189), 15 (a field too many), 17 (Premium e5).
      + `(1 price outside 50-500 c/L for e10 [first: line 16]; 1 ${WRONG_FIELD_COUNT} [first: line 15]; 1 unknown fuel code [first: line 17]); 5 stations added`);
    const bad = tmpFile('bad.csv', 'SiteId,Price\n1,2\n');
    const second = await captured(() => importCommand(config(dir), ['qld-history', QLD_FILE, bad]));
    assert.equal(second.code, 1);
    const lines = second.text.trim().split('\n');
    assert.equal(lines[0], `import qld-history ${QLD_FILE}: already imported (26 rows), skipped (--restart reads it again)`);
    assert.match(lines[1] ?? '', /^import qld-history .*bad\.csv: FAILED: not a QLD Fuel Price Reporting file: the header lacks Fuel_Type, TransactionDateutc /);
  });
});
