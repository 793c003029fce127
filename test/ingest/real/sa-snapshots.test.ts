/**
 * SA on real values (issue 48): four of the real SA Fuel Pricing Information Scheme snapshots of
 * 2024 (test/fixtures/real/sa-fpis, 40 sites, sources in its README), served by a fake of the
 * FPD API as the answers the collector stored them from, and `fuelprice ingest sa` run on each in
 * turn in its own process. Every station, position, current price and time is checked against a
 * reference read here from the snapshot rows: per site and fuel, the row with the latest
 * TransactionDateUtc of the snapshots so far (9999 = not available); every row accounted for.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeFeedServer, type FakeReply, type FakeRequest } from '../../fakes/server.ts';
import { type E2eDatabase, e2eBackends, ingest } from '../e2e/harness.ts';
import { openStore } from '../../../src/storage/open.ts';

const DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'real', 'sa-fpis');
const TOKEN = 'C41E7B09-2D5A-4C8E-9F13-B6A0E52D8C71';
/** Each snapshot and the time its collector committed it (MANIFEST.tsv of the collection), in UTC. */
const SNAPSHOTS: ReadonlyArray<[string, string]> = [
  ['2024-03-17_eb6f9acc', '2024-03-16T23:28:09Z'],
  ['2024-03-19_cd875849', '2024-03-19T10:24:19Z'],
  ['2024-03-22_0f2469fa', '2024-03-22T12:53:36Z'],
  ['2024-04-23_cfd6df70', '2024-04-23T08:33:52Z'],
];
/** GetCountryFuelTypes ids of these rows onto ours (the QLD list of the same API: realdata's fuel_types.json, copied beside the snapshots). */
const FUELS: Readonly<Record<string, string>> = { 2: 'ulp91', 3: 'diesel', 4: 'lpg', 5: 'ulp95', 8: 'ulp98', 12: 'e10', 14: 'pdiesel', 19: 'e85' };

type Attr = Record<string, { S?: string; N?: string; M?: Record<string, unknown>; L?: unknown[] }>;
const lines = (file: string): Attr[] => readFileSync(join(DIR, file), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Attr);
const value = (a: Attr, ...names: string[]): string => {
  for (const n of names) { const v = a[n]; if (v?.S !== undefined) return v.S; if (v?.N !== undefined) return v.N; }
  return '';
};

interface PriceRow { site: number; fuel: number; at: string; price: number; method: string }

/** A snapshot's price rows in any of the collector's three shapes: long names, short (P, D, M), or per site with a map of fuels. */
function priceRows(snapshot: string): PriceRow[] {
  const out: PriceRow[] = [];
  for (const row of lines(`${snapshot}.prices.jsonl`)) {
    const site = Number(value(row, 'SiteId'));
    const fuels = row['FuelTypes']?.M as Record<string, { M: Attr }> | undefined;
    const items: Attr[] = fuels ? Object.values(fuels).map((f) => f.M) : [row];
    for (const f of items) {
      out.push({ site, fuel: Number(value(f, 'FuelId')), at: value(f, 'TransactionDateUtc', 'D'), price: Number(value(f, 'Price', 'P')), method: value(f, 'CollectionMethod', 'M') });
    }
  }
  return out;
}

const SITES = lines('sites.jsonl').map((s) => ({
  S: Number(value(s, 'SiteId')), A: value(s, 'A'), N: value(s, 'N'), B: Number(value(s, 'B')), P: value(s, 'P'),
  Lat: Number(value(s, 'Lt')), Lng: Number(value(s, 'Lg')),
}));

/** UTC without a zone, fractions cut: whole seconds. */
const unix = (text: string): number => Math.floor(Date.parse(`${text.slice(0, 19)}Z`) / 1000);

for (const backend of e2eBackends()) {
  describe(`SA on the real 2024 snapshots on ${backend.name}`, () => {
    let db: E2eDatabase;
    let current = 0;
    const message = (status: number, text: string): FakeReply => ({ status, body: JSON.stringify({ Message: text }) });
    const server = new FakeFeedServer((request: FakeRequest): FakeReply => {
      if (request.headers['authorization'] !== `FPDAPI SubscriberToken=${TOKEN}`) return message(401, 'Authorization has been denied for this request.');
      if (request.query.get('countryId') !== '21') return message(400, 'The request is invalid.');
      switch (request.path) {
        case '/Subscriber/GetCountryBrands': return { body: JSON.stringify({ Brands: [] }) };
        case '/Subscriber/GetCountryFuelTypes': return { body: readFileSync(join(DIR, 'fuel_types.json'), 'utf8') };
        case '/Subscriber/GetCountryGeographicRegions': return { body: JSON.stringify({ GeographicRegions: [] }) };
        case '/Subscriber/GetFullSiteDetails': return { body: JSON.stringify({ S: SITES }) };
        case '/Price/GetSitesPrices': return {
          body: JSON.stringify({
            SitePrices: priceRows(SNAPSHOTS[current]?.[0] ?? '').map((r) => ({ SiteId: r.site, FuelId: r.fuel, CollectionMethod: r.method, TransactionDateUtc: r.at, Price: r.price })),
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

    test('every snapshot in turn: stations at their positions, each price and its time as published, every row accounted for', async () => {
      const latest = new Map<string, PriceRow>();
      for (const [i, [snapshot, at]] of SNAPSHOTS.entries()) {
        current = i;
        const rows = priceRows(snapshot);
        const run = await ingest('sa', db.url, Date.parse(at) / 1000, { SA_FPD_URL: url, SA_FPD_TOKEN: TOKEN });
        assert.equal(run.code, 0, run.stderr);
        // read = stored + already known + corrected + held + rejected, over every row of the answer.
        const m = /prices (\d+) read: (\d+) stored, (\d+) already known, (\d+) corrected, (\d+) held, (\d+) rejected/.exec(run.stdout);
        assert.ok(m, run.stdout);
        const [read, stored, known, corrected, held, rejected] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
        assert.equal(read, rows.length, `${snapshot}: rows read`);
        assert.equal(stored + known + corrected + held + rejected, read, `${snapshot}: ${run.stdout}`);
        for (const r of rows) {
          const key = `${r.site}:${r.fuel}`;
          const before = latest.get(key);
          if (!before || unix(r.at) >= unix(before.at)) latest.set(key, r);
        }
        const store = await openStore(db.url, { migrate: false });
        try {
          const stations = await store.feedStations('sa');
          assert.equal(stations.length, SITES.length, snapshot);
          for (const site of SITES) {
            const station = stations.find((s) => s.feedCode === String(site.S));
            assert.ok(station, `site ${site.S}`);
            const shown = await store.station(station.id);
            // Positions as the API answers them: four decimals (about 11 m).
            const four = (x: number): number => Math.round(x * 10_000) / 10_000;
            assert.deepEqual([shown?.name, Number(shown?.latitude), Number(shown?.longitude), shown?.postcode], [site.N, four(site.Lat), four(site.Lng), site.P], `site ${site.S}`);
            const expected = [...latest.values()].filter((r) => r.site === site.S && FUELS[r.fuel] !== undefined)
              .map((r) => ({ fuel: FUELS[r.fuel], priceTenths: r.price === 9999 ? 0 : r.price, available: r.price !== 9999, reportedAt: unix(r.at) }))
              .sort((a, b) => String(a.fuel).localeCompare(String(b.fuel)));
            const got = (await store.currentForStation(station.id)).map(({ fuel, priceTenths, available, reportedAt }) => ({ fuel, priceTenths, available, reportedAt }))
              .sort((a, b) => a.fuel.localeCompare(b.fuel));
            assert.deepEqual(got, expected, `${snapshot}: site ${site.S} ${site.N}`);
          }
        } finally {
          await store.close();
        }
      }
    });
  });
}
