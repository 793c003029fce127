/**
 * Which station a row belongs to is a function of the rows and answers, not of their order
 * (issue 48): real extracts of the three NSW workbooks and of the live FuelCheck answer
 * (test/fixtures/import/identity, sources in its README), with generated rows at the same
 * real stations written the other ways the files write them (capitals, "Road"/"Rd", "NSW
 * AUSTRALIA", a blank suburb), imported in any order, with the live answer anywhere among them,
 * give the same stations (by feed code, with the same id and every field), the same history per
 * station, and every id ever answered still answering its station. On every backend.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { NSW_FUELS } from '../../src/ingest/feeds/nsw.ts';
import { addNswAnswer, parseNswAnswer } from '../../src/ingest/feeds/nsw-records.ts';
import { demoCities } from '../../src/ingest/demo.ts';
import { NSW_BLANK_FUEL, nswHistory } from '../../src/ingest/import/nsw-history.ts';
import { accountedFor } from '../../src/ingest/import/progress.ts';
import { importFile } from '../../src/ingest/import/run.ts';
import { Normaliser } from '../../src/ingest/normalise.ts';
import { applyNormalised } from '../../src/ingest/runner.ts';
import type { CopyTable, PriceStore } from '../../src/storage/store.ts';
import { fixedClock, get, startServer, testBackends } from '../helpers.ts';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'import', 'identity');
const FILES = ['nsw-2018-07-extract.csv', 'nsw-2018-12-extract.csv', 'nsw-2020-04-extract.csv'];
const LIVE = readFileSync(join(DIR, 'nsw-live-extract.json'), 'utf8');
const NOW = Date.UTC(2026, 10, 1) / 1000;

/** A CSV line's fields (the extracts quote fields with commas, never quotes inside). */
function fields(line: string): string[] {
  return [...line.matchAll(/("([^"]*)"|[^,]*)(,|$)/g)].slice(0, 8).map((m) => m[2] ?? m[1] ?? '');
}

/** The stations the extracts name, as written (name, address, suburb, postcode, brand), once each. */
const SITES: ReadonlyArray<readonly string[]> = (() => {
  const seen = new Map<string, string[]>();
  for (const file of FILES) {
    for (const line of readFileSync(join(DIR, file), 'utf8').split('\n').slice(1)) {
      const f = fields(line);
      if ((f[0] ?? '') === '' || (f[1] ?? '') === '') continue;
      seen.set(`${f[0]}|${f[1]}`, f.slice(0, 5));
    }
  }
  return [...seen.values()];
})();

interface Generated { site: number; spelling: number; fuel: string; minute: number; tenths: number }

const generatedArb: fc.Arbitrary<Generated[]> = fc.array(fc.record({
  site: fc.integer({ min: 0, max: SITES.length - 1 }),
  spelling: fc.integer({ min: 0, max: 4 }),
  fuel: fc.constantFrom('U91', 'E10', 'DL', 'P98'),
  // March 2019, a month none of the extracts covers, on the minute.
  minute: fc.integer({ min: 0, max: 30 * 24 * 60 }),
  tenths: fc.integer({ min: 1000, max: 2200 }),
}), { minLength: 1, maxLength: 40 });

/** One real station's fields written another way the published files write them. */
function spelt([name = '', address = '', suburb = '', postcode = '', brand = '']: readonly string[], spelling: number): string[] {
  switch (spelling) {
    case 1: return [name.toUpperCase(), address.toUpperCase(), suburb.toUpperCase(), postcode, brand];
    case 2: return [name, address.replace(/\bRd\b/g, 'Road').replace(/\bSt\b/g, 'Street'), suburb, postcode, brand];
    case 3: return [name, address.replace(/ NSW (\d{4})$/, ' NSW AUSTRALIA $1'), suburb, postcode, brand];
    case 4: return [name, address, '', '', brand];
    default: return [name, address, suburb, postcode, brand];
  }
}

function generatedCsv(rows: readonly Generated[]): string {
  const quote = (v: string): string => (v.includes(',') ? `"${v}"` : v);
  const lines = rows.map((r) => {
    const at = new Date(Date.UTC(2019, 2, 1) + r.minute * 60_000).toISOString().slice(0, 19);
    return [...spelt(SITES[r.site] ?? [], r.spelling), r.fuel, at, (r.tenths / 10).toFixed(1)].map(quote).join(',');
  });
  return ['ServiceStationName,Address,Suburb,Postcode,Brand,FuelCode,PriceUpdatedDate,Price', ...lines].join('\n');
}

async function ingestLive(store: PriceStore): Promise<void> {
  const normaliser = new Normaliser('nsw', NSW_FUELS, NOW);
  addNswAnswer(normaliser, parseNswAnswer(LIVE, 'snapshot'), await store.feedStations('nsw'));
  await applyNormalised(store, normaliser, { now: NOW });
}

/** Per station feed code: its reports and daily values; and the feed codes. */
async function shown(store: PriceStore): Promise<{ codes: string[]; stations: Record<string, string>; history: Record<string, string> }> {
  const stations = (await store.exportTable('stations', undefined, 100_000)).rows;
  const codeOf = new Map(stations.map((r) => [Number(r['key']), String(r['feed_code'])]));
  // Each station's id and every field shown, by feed code (the key is the order of arrival).
  const fieldsOf = Object.fromEntries(stations.map((r): [string, string] => [String(r['feed_code']), JSON.stringify(Object.entries(r).filter(([column]) => column !== 'key'))]));
  const history: Record<string, string[]> = {};
  for (const table of ['price_events', 'station_daily', 'current_prices'] as CopyTable[]) {
    for (const row of (await store.exportTable(table, undefined, 100_000)).rows) {
      // The change number counts the writes, which differ with the order; every other column must not.
      const rest = Object.entries(row).filter(([column]) => column !== 'station_key' && column !== 'change_seq');
      (history[`${table} ${codeOf.get(Number(row['station_key'])) ?? '?'}`] ??= []).push(JSON.stringify(rest));
    }
  }
  return {
    codes: [...codeOf.values()].sort(),
    stations: fieldsOf,
    history: Object.fromEntries(Object.entries(history).map(([k, v]): [string, string] => [k, v.sort().join('\n')]).sort()),
  };
}

for (const backend of testBackends()) {
  describe(`station identity, any order, on ${backend.name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-identity-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** A fresh store through the steps in this order: 'live' or a file's path. */
    async function run(steps: readonly string[]): Promise<{ codes: string[]; stations: Record<string, string>; history: Record<string, string>; store: PriceStore; drop: () => Promise<void> }> {
      const { store, drop } = await backend.create();
      await store.upsertCities(demoCities());
      /** Every id a station answered after any step, and that station's key. */
      const answered = new Map<string, number>();
      for (const step of steps) {
        if (step === 'live') {
          await ingestLive(store);
        } else {
          const outcome = await importFile({ store, format: nswHistory, path: step, now: NOW });
          assert.equal(outcome.status, 'imported', outcome.error);
          // Every row accounted for; the one rejection is April 2020's row 215 as published (a named row with no FuelCode).
          assert.ok(accountedFor(outcome));
          assert.deepEqual(outcome.rejected.map((r) => r.reason).filter((r) => r !== NSW_BLANK_FUEL), [], step);
        }
        for (const r of (await store.exportTable('stations', undefined, 100_000)).rows) answered.set(String(r['id']), Number(r['key']));
      }
      // Every id ever answered still answers its station: as its id, or as an alias of its id now.
      const idOf = new Map((await store.exportTable('stations', undefined, 100_000)).rows.map((r) => [Number(r['key']), String(r['id'])]));
      for (const [id, key] of answered) {
        const now = idOf.get(key);
        assert.equal(now === id ? id : await store.stationAlias(id), now, `${id} after ${steps.join(' ')}`);
      }
      return { ...(await shown(store)), store, drop };
    }

    test('real rows and generated rows at real stations, in any order with the live answer anywhere: the same stations and histories', async () => {
      let n = 0;
      await fc.assert(fc.asyncProperty(generatedArb, fc.shuffledSubarray([0, 1, 2, 3, 4], { minLength: 5, maxLength: 5 }), async (rows, order) => {
        const generated = join(dir, `generated-${++n}.csv`);
        writeFileSync(generated, generatedCsv(rows));
        const steps = ['live', ...FILES.map((f) => join(DIR, f)), generated];
        const first = await run(steps);
        await first.drop();
        const other = await run(order.map((i) => steps[i] ?? ''));
        await other.drop();
        assert.deepEqual(other.codes, first.codes);
        assert.deepEqual(other.stations, first.stations);
        assert.deepEqual(other.history, first.history);
      }), { numRuns: backend.name === 'sqlite' ? 5 : 2 });
    });

    test('the issue\'s cases, in both orders: Figtree\'s rebrand and "Rd"/"Road" one site, BP Clovelly\'s blank suburb and Dee Why\'s rebrand join the live station', async () => {
      for (const steps of [['live', ...FILES.map((f) => join(DIR, f))], [...FILES.map((f) => join(DIR, f)).reverse(), 'live']]) {
        const { store, drop } = await run(steps);
        try {
          const stations = await store.feedStations('nsw');
          // "Caltex Figtree, 99 Bellevue Rd" (December 2018) and "Metro Figtree, 99 Bellevue Road" (April 2020): one history
          // station; the live Metro Figtree is at 103 Bellevue Rd, another site.
          const liveFigtree = (JSON.parse(LIVE) as { stations: Array<{ code: string; name: string }> }).stations.find((st) => st.name === 'Metro Figtree');
          const figtree = stations.filter((s) => /bellevue/i.test(s.address) && s.postcode === '2525').map((s) => s.feedCode).sort();
          assert.deepEqual(figtree, [`NSW-${liveFigtree?.code ?? '?'}`, 'history:99 bellevue rd|2525'].sort());
          // BP Clovelly: its April 2020 rows leave Suburb and Postcode blank; one station, the live one, with the rows of both months that show it (December 2018, April 2020).
          const clovelly = stations.filter((s) => /clovelly/i.test(s.name));
          assert.deepEqual(clovelly.map((s) => s.feedCode.startsWith('history:')), [false]);
          const days = await store.stationDays(clovelly[0]?.id ?? '', { from: 17_713, to: 18_383 });
          const months = new Set(days.map((d) => new Date(d.day * 86_400_000).toISOString().slice(0, 7)));
          assert.ok(['2018-12', '2020-04'].every((m) => months.has(m)), [...months].join(' '));
          // A rename joined, in both orders: "Caltex Dee Why" (July 2018) and "Caltex Star Mart Dee Why" (December 2018, 2020) at 793-797
          // Pittwater Rd are the live "Ampol Foodary Dee Why" (NSW-17781), with every file's rows. Imported before the
          // live answer, the station takes the live station's id, and the id the history gave it keeps answering (an alias).
          const deeWhy = stations.find((s) => s.feedCode === 'NSW-17781');
          const historyFirst = steps[0] !== 'live';
          assert.equal(deeWhy?.id, 'ampol-foodary-dee-why');
          assert.equal(await store.stationAlias('caltex-star-mart-dee-why-793-797-pittwater-rd-2099'), historyFirst ? 'ampol-foodary-dee-why' : undefined);
          assert.equal(await store.stationAlias('ampol-foodary-dee-why'), undefined);
          const answered = await store.station(deeWhy?.id ?? '');
          assert.deepEqual([answered?.name, answered?.latitude !== false], ['Ampol Foodary Dee Why', true]);
          if (historyFirst) {
            // The old id answers, with a redirect (the query kept) to the id now, on a real port.
            const server = await startServer(store, fixedClock(NOW));
            try {
              for (const rest of ['', '/history?timeframe=all-time', '/prices']) {
                const moved = await fetch(`${server.baseUrl}/v1/stations/caltex-star-mart-dee-why-793-797-pittwater-rd-2099${rest}`, {
                  headers: { authorization: `Bearer ${server.token}` }, redirect: 'manual',
                });
                assert.deepEqual([moved.status, moved.headers.get('location')], [301, `/v1/stations/ampol-foodary-dee-why${rest}`], rest);
                const [followed, direct] = [await get(server, `/v1/stations/caltex-star-mart-dee-why-793-797-pittwater-rd-2099${rest}`), await get(server, `/v1/stations/ampol-foodary-dee-why${rest}`)];
                assert.deepEqual([followed.status, followed.text], [200, direct.text], rest);
              }
              assert.equal((await get(server, '/v1/stations/caltex-star-mart-dee-why-9999')).status, 404);
              // In a batch, the old id is answered where it was asked, by the station now; asked with the id now too, once.
              const old = 'caltex-star-mart-dee-why-793-797-pittwater-rd-2099';
              const batch = await get(server, `/v1/stations/prices?ids=nowhere,${old}`);
              const one = await get(server, '/v1/stations/ampol-foodary-dee-why/prices');
              assert.deepEqual([batch.status, batch.body], [200, { data: [(one.body as { data: unknown }).data], unknown: ['nowhere'] }]);
              const both = await get(server, `/v1/stations/prices?ids=ampol-foodary-dee-why,${old}`);
              assert.deepEqual(both.body, { data: [(one.body as { data: unknown }).data], unknown: [] });
            } finally {
              await server.close();
            }
          }
          const deeWhyDays = await store.stationDays(deeWhy?.id ?? '', { from: 17_713, to: 18_383 });
          const deeWhyMonths = new Set(deeWhyDays.map((d) => new Date(d.day * 86_400_000).toISOString().slice(0, 7)));
          assert.ok(['2018-07', '2018-12', '2020-04'].every((m) => deeWhyMonths.has(m)), [...deeWhyMonths].join(' '));
          assert.equal(stations.filter((s) => /dee why/i.test(s.name) && s.address.startsWith('793')).length, 1);
        } finally {
          await drop();
        }
      }
    });
  });
}
