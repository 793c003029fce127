/**
 * Station identity on the real NSW files (docs/DATA.md, "One station per site"), printed:
 *
 * 1. April 2020's workbook imported before and after the live FuelCheck answer (data.json, put
 *    through the NSW adapter's own reading, addNswAnswer, and stored as `ingest nsw` stores it):
 *    stations in each order, the sites doubled (a history-made station at a live station's site:
 *    its address and postcode), and the history-made stations of a live station's name elsewhere.
 * 2. Every workbook of the folder in date order and in three other orders, after the live
 *    answer: the stations (feed code, id, name, address) and each station's history (every
 *    stored report and daily value) compared with date order.
 *
 * On SQLite, and on PostgreSQL too when FUELPRICE_TEST_POSTGRES names a server.
 *
 *   npx tsx scripts/nsw-identity-figures.ts [WORKBOOK_DIR] [ANSWER.json]
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { NSW_FUELS } from '../src/ingest/feeds/nsw.ts';
import { addNswAnswer, parseNswAnswer } from '../src/ingest/feeds/nsw-records.ts';
import { demoCities } from '../src/ingest/demo.ts';
import { nswHistory } from '../src/ingest/import/nsw-history.ts';
import { importFile } from '../src/ingest/import/run.ts';
import { Normaliser } from '../src/ingest/normalise.ts';
import { isNswHistoryCode, nswNameKey, nswSiteKey } from '../src/ingest/nsw-identity.ts';
import { applyNormalised } from '../src/ingest/runner.ts';
import { openStore } from '../src/storage/open.ts';
import type { PriceStore } from '../src/storage/store.ts';

const root = resolve(import.meta.dirname, '..');
const realdata = join(root, '..', 'shared', 'realdata');
const dir = process.argv[2] ?? join(realdata, 'nsw_fuelcheck_monthly_xlsx');
const answerPath = process.argv[3] ?? join(realdata, 'nsw_fuelcheck_api_prices_json', 'data.json');
const NOW = Date.UTC(2026, 10, 1) / 1000;
const MONTHS: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12, july: 7 };

/** A workbook's month from its name ("price_history_dec_2018.xlsx", "...-july-2018.xlsx"), for date order. */
function monthOf(file: string): number {
  const m = /(jan|feb|mar|apr|may|jun|july|jul|aug|sep|oct|nov|dec)[a-z]*[-_]?(\d{4})/i.exec(file);
  return m ? Number(m[2]) * 12 + (MONTHS[(m[1] ?? '').toLowerCase()] ?? 0) : 0;
}
const workbooks = readdirSync(dir).filter((f) => f.endsWith('.xlsx')).sort((a, b) => monthOf(a) - monthOf(b));
const answer = readFileSync(answerPath, 'utf8');

let made = 0;
const scratch = mkdtempSync(join(tmpdir(), 'fuelprice-identity-'));
async function freshStore(backend: string): Promise<{ store: PriceStore; drop: () => Promise<void> }> {
  made++;
  if (backend === 'sqlite') {
    const store = await openStore(`sqlite:${join(scratch, `s${made}.db`)}`);
    await store.upsertCities(demoCities());
    return { store, drop: () => store.close() };
  }
  const server = process.env.FUELPRICE_TEST_POSTGRES ?? '';
  const name = `fuelprice_identity_${process.pid}_${made}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  const store = await openStore(url.toString());
  await store.upsertCities(demoCities());
  return {
    store,
    drop: async () => {
      await store.close();
      const again = new pg.Client({ connectionString: server });
      await again.connect();
      await again.query(`DROP DATABASE ${name}`);
      await again.end();
    },
  };
}

async function live(store: PriceStore): Promise<void> {
  const normaliser = new Normaliser('nsw', NSW_FUELS, NOW);
  addNswAnswer(normaliser, parseNswAnswer(answer, 'snapshot'), await store.feedStations('nsw'));
  await applyNormalised(store, normaliser, { now: NOW });
}

async function history(store: PriceStore, file: string): Promise<void> {
  const outcome = await importFile({ store, format: nswHistory, path: join(dir, file), now: NOW, label: file });
  if (outcome.status !== 'imported') throw new Error(`${file}: ${outcome.error ?? outcome.status}`);
}

interface Shown { stations: Map<string, string>; history: Map<string, string>; count: number; doubled: number; named: number; examples: string[] }

/** Every station by its feed code, with its history; and how many history-made stations stand at a live station's site or name. */
async function show(store: PriceStore): Promise<Shown> {
  const stations = await store.feedStations('nsw');
  const byKey = new Map<number, string>();
  const out: Shown = { stations: new Map(), history: new Map(), count: stations.length, doubled: 0, named: 0, examples: [] };
  const liveSites = new Map<string, string>();
  const liveNames = new Map<string, string>();
  for (const s of stations) {
    if (isNswHistoryCode(s.feedCode)) continue;
    liveSites.set(nswSiteKey(s.name, s.address, s.suburb, s.postcode), `${s.name}, ${s.address}`);
    liveNames.set(nswNameKey(s.name, s.postcode), `${s.name}, ${s.address}`);
  }
  for (const s of stations) {
    out.stations.set(s.feedCode, JSON.stringify([s.id, s.name, s.brand, s.address, s.suburb, s.postcode]));
    if (!isNswHistoryCode(s.feedCode)) continue;
    const atSite = liveSites.get(nswSiteKey(s.name, s.address, s.suburb, s.postcode));
    const named = liveNames.get(nswNameKey(s.name, s.postcode));
    if (atSite === undefined && named !== undefined) out.named++;
    const twin = atSite ?? named;
    if (atSite === undefined) continue;
    out.doubled++;
    if (out.examples.length < Number(process.env.EXAMPLES ?? 0)) out.examples.push(`${s.name}, ${s.address} ~ live ${twin ?? ''}`);
  }
  const keys = (await store.exportTable('stations', undefined, 100_000)).rows;
  for (const row of keys) byKey.set(Number(row['key']), String(row['feed_code']));
  for (const table of ['price_events', 'station_daily'] as const) {
    const parts = new Map<string, string[]>();
    let after: Parameters<PriceStore['exportTable']>[1];
    for (;;) {
      const chunk = await store.exportTable(table, after, 50_000);
      for (const row of chunk.rows) {
        const code = byKey.get(Number(row['station_key'])) ?? '?';
        const { station_key: _, ...rest } = row;
        let list = parts.get(code);
        if (!list) parts.set(code, (list = []));
        list.push(JSON.stringify(rest));
      }
      if (chunk.last === undefined || chunk.rows.length < 50_000) break;
      after = chunk.last;
    }
    for (const [code, rows] of parts) out.history.set(`${table}:${code}`, rows.sort().join('\n'));
  }
  return out;
}

function differences(a: Shown, b: Shown): { stations: number; ids: number; histories: number } {
  let stations = 0;
  let ids = 0;
  for (const code of new Set([...a.stations.keys(), ...b.stations.keys()])) {
    const [x, y] = [a.stations.get(code), b.stations.get(code)];
    if (x === undefined || y === undefined) stations++;
    else if (x !== y) ids++;
  }
  let histories = 0;
  for (const key of new Set([...a.history.keys(), ...b.history.keys()])) if (a.history.get(key) !== b.history.get(key)) histories++;
  return { stations, ids, histories };
}

/** Three other orders, each different from date order and from each other (for three files or more): reversed, and rotated by one and by two. */
function otherOrders(list: readonly string[]): string[][] {
  return [[...list].reverse(), [...list.slice(1), ...list.slice(0, 1)], [...list.slice(2), ...list.slice(0, 2)]];
}

const backends = ['sqlite', ...(process.env.FUELPRICE_TEST_POSTGRES ? ['postgres'] : [])];
const april = workbooks.find((f) => /apr/i.test(f)) ?? workbooks[workbooks.length - 1] ?? '';
try {
  for (const backend of backends) {
    console.log(`## ${backend}`);
    const before = await freshStore(backend);
    await history(before.store, april);
    await live(before.store);
    const historyFirst = await show(before.store);
    await before.drop();
    const after = await freshStore(backend);
    await live(after.store);
    await history(after.store, april);
    const liveFirst = await show(after.store);
    await after.drop();
    const diff = differences(historyFirst, liveFirst);
    console.log(`${april} then the live answer: ${historyFirst.count} stations; the live answer then ${april}: ${liveFirst.count} stations`);
    console.log(`  sites doubled (a history-made station at a live station's site: its address and postcode): ${historyFirst.doubled} of ${historyFirst.count} `
      + `(${(100 * historyFirst.doubled / historyFirst.count).toFixed(2)}%) history first, ${liveFirst.doubled} live first`);
    console.log(`  history-made stations of a live station's name and postcode at another address (not joined): ${historyFirst.named} history first, ${liveFirst.named} live first`);
    for (const e of historyFirst.examples) console.log(`    ${e}`);
    console.log(`  between the two orders: ${diff.stations} stations in one only, ${diff.ids} with another id or fields, ${diff.histories} station histories differ`);

    if (process.env.ONLY_FIRST) continue;
    const orders = [workbooks, ...otherOrders(workbooks)];
    let reference: Shown | undefined;
    for (const [i, order] of orders.entries()) {
      const run = await freshStore(backend);
      await live(run.store);
      for (const file of order) await history(run.store, file);
      const shown = await show(run.store);
      await run.drop();
      if (!reference) {
        reference = shown;
        console.log(`date order (${order.join(', ')}): ${shown.count} stations, ${shown.history.size} station histories`);
        continue;
      }
      const d = differences(reference, shown);
      console.log(`order ${i} (${order.join(', ')}): ${shown.count} stations; against date order ${d.stations} stations in one only, `
        + `${d.ids} with another id or fields, ${d.histories} of ${shown.history.size} station histories differ`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
