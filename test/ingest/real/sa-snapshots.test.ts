/**
 * SA on real values (issue 48): the eight real SA Fuel Pricing Information Scheme snapshots of
 * 2024, whole state (730 sites, about 2,600 prices each; test/fixtures/real/sa-fpis/dump, sources
 * in its README), served by a fake of the FPD API as the answers the collector stored them from,
 * and `fuelprice ingest sa` run on each in turn, in commit order, in its own process.
 *
 * Checked against a reference read here from the rows: every station's name, street, suburb,
 * address, postcode, state and position; every current price, availability (9999) and time (per site and fuel, the
 * row with the latest TransactionDateUtc of the snapshots so far); every row of every answer
 * accounted for (stored, already known, corrected, or rejected with its reason, each count
 * worked out here); every stored price event; and the daily values of the days the snapshots
 * prove. A snapshot holds only each price's last change, so a day's value is known only when the
 * whole day lies between a change and a snapshot that still shows it (the price cannot have
 * moved in between); the days between one snapshot and the next change are not in the data.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FakeFeedServer, type FakeReply, type FakeRequest } from '../../fakes/server.ts';
import { type E2eDatabase, e2eBackends, ingest } from '../e2e/harness.ts';
import { allRows } from '../../helpers.ts';
import { openStore } from '../../../src/storage/open.ts';
import { fuelAt } from '../../../src/storage/sql/row-mappers.ts';

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'real', 'sa-fpis');
const TOKEN = 'C41E7B09-2D5A-4C8E-9F13-B6A0E52D8C71';
/** Each snapshot and the time its collector committed it (MANIFEST.tsv of the collection), in UTC, in commit order. */
const SNAPSHOTS: ReadonlyArray<readonly [string, string]> = [
  ['2024-03-17_eb6f9acc', '2024-03-16T23:28:09Z'],
  ['2024-03-17_1660e1a5', '2024-03-17T02:17:03Z'],
  ['2024-03-19_cd875849', '2024-03-19T10:24:19Z'],
  ['2024-03-19_3517742a', '2024-03-19T11:28:29Z'],
  ['2024-03-22_0f2469fa', '2024-03-22T12:53:36Z'],
  ['2024-03-23_79a0f7f6', '2024-03-23T02:56:53Z'],
  ['2024-03-23_6137870d', '2024-03-23T03:06:31Z'],
  ['2024-04-23_cfd6df70', '2024-04-23T08:33:52Z'],
];
/** GetCountryFuelTypes ids of these rows onto ours (the QLD list of the same API: realdata's fuel_types.json, copied beside the snapshots). */
const FUELS: Readonly<Record<number, string>> = { 2: 'ulp91', 3: 'diesel', 4: 'lpg', 5: 'ulp95', 8: 'ulp98', 12: 'e10', 14: 'pdiesel', 19: 'e85' };
/** Plausible prices in tenths of a cent (docs/INGEST: outside them a report is a typo): LPG 30-300 c/L, e85 40-500, the rest 50-500. */
const SANE: Readonly<Record<string, readonly [number, number]>> = { lpg: [300, 3000], e85: [400, 5000] };
const NOT_AVAILABLE = 9999;

type Attr = Record<string, { S?: string; N?: string; M?: Record<string, { M: Attr }>; L?: unknown[] }>;
/** A table of a snapshot as the collector stored it, one DynamoDB item a line; undefined when the snapshot has none. */
function table(snapshot: string, name: string): Attr[] | undefined {
  const file = join(DIR, 'dump', `${snapshot}.${name}.jsonl.gz`);
  if (!existsSync(file)) return undefined;
  return gunzipSync(readFileSync(file)).toString('utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Attr);
}
const value = (a: Attr, ...names: string[]): string => {
  for (const n of names) { const v = a[n]; if (v?.S !== undefined) return v.S; if (v?.N !== undefined) return v.N; }
  return '';
};

interface PriceRow { site: number; fuel: number; at: string; price: number; method: string }

/**
 * A snapshot's price rows in each of the collector's storage shapes: the API's names (17 March,
 * first), short names (P, D, M), short names keyed "site:fuel" (23 March, first), or one item per
 * site with a map of its fuels (23 April).
 */
function priceRows(snapshot: string): PriceRow[] {
  const out: PriceRow[] = [];
  for (const row of table(snapshot, 'current_fuel_prices') ?? []) {
    const [siteText, fuelInKey] = value(row, 'SiteId').split(':');
    const fuels = row['FuelTypes']?.M;
    const items: Attr[] = fuels ? Object.values(fuels).map((f) => f.M) : [row];
    for (const f of items) {
      const fuel = Number(value(f, 'FuelId'));
      if (fuelInKey !== undefined) assert.equal(Number(fuelInKey), fuel, `${snapshot}: key ${value(row, 'SiteId')}`);
      out.push({ site: Number(siteText), fuel, at: value(f, 'TransactionDateUtc', 'D'), price: Number(value(f, 'Price', 'P')), method: value(f, 'CollectionMethod', 'M') });
    }
  }
  return out;
}

interface Site { S: number; N: string; A: string; P: string; B: number; Lat: number; Lng: number }
/** A snapshot's sites as GetFullSiteDetails answers them; the 17 March snapshots stored none, and get the earliest stored (19 March). */
function sitesOf(index: number): Site[] {
  for (const [snapshot] of SNAPSHOTS.slice(index)) {
    const rows = table(snapshot, 'safpis_fuel_sites');
    if (rows) {
      return rows.map((s) => ({
        S: Number(value(s, 'SiteId')), N: value(s, 'N'), A: value(s, 'A'), P: value(s, 'P'), B: Number(value(s, 'B')),
        Lat: Number(value(s, 'Lt')), Lng: Number(value(s, 'Lg')),
      }));
    }
  }
  throw new Error('no sites table');
}

/** UTC without a zone, fractions cut: whole seconds. */
const unix = (text: string): number => Math.floor(Date.parse(`${text.slice(0, 19)}Z`) / 1000);
/** Runs of white space (a no-break space among them) as one space, and none at the ends: how every text field is stored. */
const tidy = (text: string): string => text.replace(/\s+/g, ' ').trim();
/**
 * The street, suburb and address of a site: its A as the street, with the state and postcode after it;
 * but "9 Railway Terrace, Karoonda SA 5307, Australia" (three sites) is written out in full, the
 * country after it: that street, in that suburb. No regions answer was captured, so no other site has a suburb.
 */
function placeOf(site: Site): [string, string, string] {
  const full = /^(.+), ([^,]+) SA \d{4}, Australia$/.exec(tidy(site.A));
  if (full?.[1] && full[2]) return [full[1], full[2], `${full[1]}, ${full[2]} SA ${site.P}`];
  return [tidy(site.A), '', `${tidy(site.A)}, SA ${site.P}`];
}
/** Positions as the store shows them: four decimals (about 11 m). */
const four = (x: number): number => Math.round(x * 10_000) / 10_000;

const ADELAIDE = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Australia/Adelaide', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
});
const local = (sec: number): string => {
  const p = Object.fromEntries(ADELAIDE.formatToParts(new Date(sec * 1000)).map((x) => [x.type, x.value]));
  return `${p['year']}-${p['month']}-${p['day']} ${p['hour']}:${p['minute']}:${p['second']}`;
};
/** The instant Adelaide's local day `day` (days since 1970-01-01 of the local date) begins: the UTC midnight less 10:30 or 9:30, whichever reads 00:00:00 there. */
function midnight(day: number): number {
  const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
  for (const offset of [37_800, 34_200]) if (local(day * 86_400 - offset) === `${date} 00:00:00`) return day * 86_400 - offset;
  throw new Error(`no midnight on ${date}`);
}
/** The whole local days within [from, to], with their lengths (23, 24 or 25 hours). */
function wholeDays(from: number, to: number): Array<{ day: number; seconds: number }> {
  const out: Array<{ day: number; seconds: number }> = [];
  let day = Math.floor(from / 86_400) - 1;
  while (midnight(day) < from) day++;
  for (let start = midnight(day), end = midnight(day + 1); end <= to; day++, start = end, end = midnight(day + 1)) out.push({ day, seconds: end - start });
  return out;
}

interface Event { tenths: number; available: boolean; provenUntil: number }

for (const backend of e2eBackends()) {
  describe(`SA on the eight real 2024 snapshots on ${backend.name}`, () => {
    let db: E2eDatabase;
    let current = 0;
    const message = (status: number, text: string): FakeReply => ({ status, body: JSON.stringify({ Message: text }) });
    const server = new FakeFeedServer((request: FakeRequest): FakeReply => {
      if (request.headers['authorization'] !== `FPDAPI SubscriberToken=${TOKEN}`) return message(401, 'Authorization has been denied for this request.');
      if (request.query.get('countryId') !== '21') return message(400, 'The request is invalid.');
      const snapshot = SNAPSHOTS[current]?.[0] ?? '';
      switch (request.path) {
        // No brands or regions answer was captured: brands and suburbs stay empty.
        case '/Subscriber/GetCountryBrands': return { body: JSON.stringify({ Brands: [] }) };
        case '/Subscriber/GetCountryFuelTypes': return { body: readFileSync(join(DIR, 'fuel_types.json'), 'utf8') };
        case '/Subscriber/GetCountryGeographicRegions': return { body: JSON.stringify({ GeographicRegions: [] }) };
        case '/Subscriber/GetFullSiteDetails': return { body: JSON.stringify({ S: sitesOf(current) }) };
        case '/Price/GetSitesPrices': return {
          body: JSON.stringify({
            SitePrices: priceRows(snapshot).map((r) => ({ SiteId: r.site, FuelId: r.fuel, CollectionMethod: r.method, TransactionDateUtc: r.at, Price: r.price })),
          }),
        };
        default: return message(404, 'No HTTP resource was found that matches the request URI.');
      }
    });
    let url = '';
    before(async () => {
      db = await backend.create();
      url = await server.start();
    });
    after(async () => {
      await server.close();
      await db.drop();
    });

    test('every snapshot in turn, whole state: stations, positions, each price and its time as published, every row accounted for; then every event and the proven days', async (t) => {
      /** The reference store: per site and fuel, each report by its second. */
      const events = new Map<string, Map<number, Event>>();
      const latest = new Map<string, { at: number; tenths: number; available: boolean }>();
      let previous: Map<number, string> | undefined;
      const totals = { read: 0, stored: 0, rejected: new Map<string, number>() };
      for (const [i, [snapshot, at]] of SNAPSHOTS.entries()) {
        current = i;
        const rows = priceRows(snapshot);
        const sites = sitesOf(i);
        const served = new Map(sites.map((s) => [s.S, s]));
        // The reference's account of every row, and what is proven: the fetch was no earlier than the newest change it shows.
        const fetchedAfter = Math.max(...rows.map((r) => unix(r.at)));
        const want = { stored: 0, known: 0, corrected: 0, rejected: new Map<string, number>() };
        const reject = (reason: string): void => { want.rejected.set(reason, (want.rejected.get(reason) ?? 0) + 1); };
        for (const r of rows) {
          const fuel = FUELS[r.fuel];
          if (fuel === undefined) { reject('unknown fuel code'); continue; }
          if (!served.has(r.site)) { reject('price for a site missing from the site details'); continue; }
          const available = r.price !== NOT_AVAILABLE;
          const [low, high] = SANE[fuel] ?? [500, 5000];
          if (available && (r.price < low || r.price > high)) { reject(`price outside ${low / 10}-${high / 10} c/L for ${fuel}`); continue; }
          const key = `${r.site}:${fuel}`;
          const second = unix(r.at);
          const tenths = available ? r.price : 0;
          const byAt = events.get(key) ?? new Map<number, Event>();
          events.set(key, byAt);
          const before = byAt.get(second);
          if (!before) want.stored++;
          else if (before.tenths === tenths && before.available === available) want.known++;
          else want.corrected++;
          byAt.set(second, { tenths, available, provenUntil: before && before.tenths === tenths && before.available === available ? Math.max(before.provenUntil, fetchedAfter) : fetchedAfter });
          const last = latest.get(key);
          if (!last || second >= last.at) latest.set(key, { at: second, tenths, available });
        }

        const run = await ingest('sa', db.url, Date.parse(at) / 1000, { SA_FPD_URL: url, SA_FPD_TOKEN: TOKEN });
        assert.equal(run.code, 0, run.stderr);
        const line = /stations \+(\d+) ~(\d+)(?: \((\d+) refused\))?, prices (\d+) read: (\d+) stored, (\d+) already known, (\d+) corrected, (\d+) held, (\d+) rejected/.exec(run.stdout);
        assert.ok(line, run.stdout);
        const [added, updated, refused, read, stored, known, corrected, held, rejected] = line.slice(1, 10).map((n) => Number(n ?? 0)) as
          [number, number, number, number, number, number, number, number, number];
        // Stations: every site new on the first answer; afterwards those whose name, street, postcode or position moved.
        const shown = new Map(sites.map((s) => [s.S, JSON.stringify([s.N, tidy(s.A), s.P, s.Lat, s.Lng])]));
        const moved = previous ? [...shown].filter(([s, v]) => previous?.get(s) !== v).length : 0;
        assert.deepEqual([added, updated, refused], [previous ? 0 : sites.length, moved, 0], `${snapshot}: ${run.stdout}`);
        previous = shown;
        const store = await openStore(db.url, { migrate: false });
        try {
          // The reasons, as `ingest status` lists them: the run's record.
          const [record] = await store.feedRuns({ feed: 'sa', limit: 1 });
          const reasons = new Map((record?.rejections ?? []).filter((r) => r.of !== 'stations').map((r) => [r.reason, r.count]));
          assert.deepEqual(
            { read, stored, known, corrected, held, rejected, reasons: [...reasons].sort() },
            { read: rows.length, stored: want.stored, known: want.known, corrected: want.corrected, held: 0, rejected: [...want.rejected.values()].reduce((a, b) => a + b, 0), reasons: [...want.rejected].sort() },
            `${snapshot}: ${run.stdout}`,
          );
          totals.read += read;
          totals.stored += stored;
          for (const [reason, n] of reasons) totals.rejected.set(reason, (totals.rejected.get(reason) ?? 0) + n);
          const stations = new Map((await store.feedStations('sa')).map((s) => [s.feedCode, s]));
          assert.equal(stations.size, sites.length, snapshot);
          for (const site of sites) {
            const station = stations.get(String(site.S));
            assert.ok(station, `site ${site.S}`);
            const got = await store.station(station.id);
            assert.deepEqual(
              [got?.name, got?.street, got?.suburb, got?.address, got?.postcode, got?.state, Number(got?.latitude), Number(got?.longitude)],
              [tidy(site.N), ...placeOf(site), site.P, 'sa', four(site.Lat), four(site.Lng)], `${snapshot}: site ${site.S}`,
            );
            const expected = Object.values(FUELS).flatMap((fuel) => {
              const l = latest.get(`${site.S}:${fuel}`);
              return l ? [{ fuel, priceTenths: l.tenths, available: l.available, reportedAt: l.at }] : [];
            }).sort((a, b) => a.fuel.localeCompare(b.fuel));
            const prices = (await store.currentForStation(station.id)).map(({ fuel, priceTenths, available, reportedAt }) => ({ fuel: String(fuel), priceTenths, available, reportedAt }))
              .sort((a, b) => a.fuel.localeCompare(b.fuel));
            assert.deepEqual(prices, expected, `${snapshot}: site ${site.S} ${site.N}`);
          }
        } finally {
          await store.close();
        }
      }

      const store = await openStore(db.url, { migrate: false });
      try {
        // Every stored report is one of the rows, and every accepted row is stored.
        const codes = new Map((await allRows(store, 'stations')).map((s) => [Number(s.key), String(s.feed_code)]));
        const stored = (await allRows(store, 'price_events'))
          .map((e) => `${codes.get(Number(e.station_key))}:${fuelAt(e.fuel)}:${Number(e.at)}:${Number(e.price_tenths)}:${Boolean(Number(e.available))}`).sort();
        const reference = [...events].flatMap(([key, byAt]) => [...byAt].map(([second, e]) => `${key}:${second}:${e.tenths}:${e.available}`)).sort();
        assert.deepEqual(stored, reference);
        assert.equal(stored.length, totals.stored);

        // The days proven: whole local days from a change to the newest change of a snapshot that still shows it.
        const proven = { priced: 0, unavailable: 0 };
        for (const [code, station] of new Map((await store.feedStations('sa')).map((s) => [s.feedCode, s]))) {
          const days = new Map((await store.stationDays(station.id, { from: null, to: 1_000_000 })).map((d) => [`${d.fuel}:${d.day}`, d]));
          const open = new Map((await store.currentForStation(station.id)).map((c) => [String(c.fuel), c.openFrom]));
          for (const fuel of Object.values(FUELS)) {
            const byAt = [...(events.get(`${code}:${fuel}`) ?? new Map<number, Event>())].sort(([a], [b]) => a - b);
            for (const [k, [from, e]] of byAt.entries()) {
              const next = byAt[k + 1]?.[0];
              // The last report's days are stored up to its open interval; after that they are the current price, checked above.
              const until = Math.min(e.provenUntil, next ?? open.get(fuel) ?? from);
              for (const { day, seconds } of wholeDays(from, until)) {
                const d = days.get(`${fuel}:${day}`);
                proven[e.available ? 'priced' : 'unavailable']++;
                if (e.available) assert.deepEqual([d?.weightedTenths, d?.seconds], [e.tenths * seconds, seconds], `site ${code} ${fuel} day ${day}`);
                else assert.ok(!d || d.seconds === 0, `site ${code} ${fuel} day ${day}: unavailable, yet ${JSON.stringify(d)}`);
              }
            }
          }
        }
        t.diagnostic(`rows read ${totals.read}, reports stored ${totals.stored}, rejected ${JSON.stringify([...totals.rejected])}, station-fuel-days proven and checked ${JSON.stringify(proven)}`);
        assert.ok(proven.priced > 0 && proven.unavailable > 0);
      } finally {
        await store.close();
      }
    });
  });
}
