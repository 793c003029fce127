/**
 * The stall bench (`npm run bench:stall`): how long one request holds the server's event loop,
 * the first time it is asked after a write, per route family. The rule (docs/PERFORMANCE.md): no
 * request holds it longer than 20 ms at national scale (au-10y).
 *
 *   npm run bench:stall -- [--help] [--dataset small|au-10y] [--db PATH] [--postgres URL | --postgres-db URL] [--cities N|all] [--fuels all|reported]
 *                          [--save FILE] [--before FILE] [--max-seconds S] [--only FAMILY,...] [--server-out FILE]
 *
 * 1. Copies the dataset (never written in place), adds a token, and starts `fuelprice serve` as
 *    shipped (from dist/, built first when older than src/, as after `npm install`; its defaults: answer cache on, load shedding at 100 ms, logging at info to a pipe
 *    read and dropped), with the fixed clock of the datasets and bench/stall-probe.mjs loaded
 *    into it (the event-loop delay over a side port). With --postgres the copy goes through
 *    `fuelprice copy` into a new database on that server (dropped at the end). With --postgres-db the
 *    bench uses a database already copied from the same dataset as it is (no copy, not dropped; the
 *    bench's small writes stay in it): at au-10y the copy alone is some 20 minutes.
 * 2. Every URL once, unmeasured (the process warm: code compiled, serialisers made, what outlives a write kept).
 *    Then per route family: one small write (a feed poll's worth: a new report for one station in each
 *    of a few cities, a new data version), then each URL of the family once, one at a time: reset
 *    the probe, ask, read the body, let the loop turn, read the longest delay since the reset.
 *    Two measures (bench/stall-probe.mjs): the longest event-loop delay while the request ran, and the serving
 *    thread's own CPU time while it ran, less what that thread spends with no request for as long (measured
 *    first: mostly the probe's own 1 ms timer). The delay counts waits for a core on a shared machine; the CPU does not.
 * 3. Prints, per family, the longest hold, its URL and what its window held (the serving thread's CPU, GC, involuntary context
 *    switches and major page faults: a delay with little CPU and neither was a sleep that woke late), and the non-200 answers;
 *    beside the idle windows, the longest delay of a bare Node process over the same seconds (the machine's own); --save writes them as
 *    JSON, --before FILE prints a before/after table against a saved run. --server-out FILE keeps the server's
 *    stdout; with FUELPRICE_STALL_V8_FLAGS=--trace-gc-nvp (set by the probe in the server) it holds each collection's phases.
 *    FUELPRICE_STALL_HEAP_PROFILE=FILE: where the serving thread allocates during the families, garbage included
 *    (a sampling heap profile; `node bench/heap-profile-top.mjs FILE` sums it by function), and FILE.heapsnapshot after them.
 *    FUELPRICE_STALL_CPU_PROFILE=FILE: what the serving thread runs from then to its exit (a CPU profile; `node bench/cpu-profile-top.mjs FILE`
 *    lists each stretch of work over a few ms and the functions that took it).
 *
 * Bounded: one request at a time, loopback only, --max-seconds (default 1,800) for the whole run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { FUELS } from '../src/domain/fuels.ts';
import { MAX_RADIUS_KM } from '../src/domain/nearby.ts';
import { encodePolyline } from '../src/domain/route.ts';
import { TIMEFRAMES } from '../src/domain/time.ts';
import { MAX_PATH_CHARACTERS } from '../src/schemas/along.ts';
import { ALONG_MAX_URL_LENGTH } from '../src/http/request/rules.ts';
import { MAX_CHANGES_LIMIT } from '../src/schemas/changes.ts';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import type { PriceStore } from '../src/storage/store.ts';
import { newToken } from '../src/tokens.ts';
import { NOW_ISO, NOW_SEC } from './datasets.ts';
import { humePoints } from './hume.ts';
import { ensureBuilt } from './processes.ts';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'small' }, db: { type: 'string' }, postgres: { type: 'string' }, 'postgres-db': { type: 'string' },
    cities: { type: 'string', default: 'all' }, fuels: { type: 'string', default: 'reported' },
    help: { type: 'boolean' }, save: { type: 'string' }, before: { type: 'string' }, 'max-seconds': { type: 'string', default: '1800' }, only: { type: 'string' }, 'server-out': { type: 'string' },
  },
});
if (values.help) {
  // The usage is this file's opening comment.
  process.stdout.write(`${readFileSync(import.meta.filename, 'utf8').split('\n*/')[0]?.split('*/')[0] ?? ''}\n`);
  process.exit(0);
}
const source = values.db ?? (existsSync(`/work/bench-data/${values.dataset}.db`) ? `/work/bench-data/${values.dataset}.db` : join(ROOT, 'bench', 'out', `${values.dataset}.db`));
if (!existsSync(source)) throw new Error(`no dataset at ${source}: build it with bench/datasets.ts or pass --db`);
const deadline = performance.now() + Number(values['max-seconds']) * 1000;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function run(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'fuelprice.js'), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`fuelprice ${args[0]} exited with ${code}`))));
  });
}

// 1. The copy, its token, the stations the writes report for.
const dir = mkdtempSync(join(tmpdir(), 'fuelprice-stall-'));
const copy = join(dir, 'stall.db');
// With --postgres-db the dataset is only read (its cities and stations): no copy of its gigabytes.
if (!values['postgres-db']) {
  console.log(`copying ${source}...`);
  copyFileSync(source, copy);
  if (existsSync(`${source}-wal`)) copyFileSync(`${source}-wal`, `${copy}-wal`);
}
let databaseUrl = `sqlite:${copy}`;
let dropDatabase: (() => Promise<void>) | undefined;
if (values['postgres-db']) {
  databaseUrl = values['postgres-db'];
} else if (values.postgres) {
  const { createPostgresDatabase } = await import('../test/helpers.ts');
  const created = await createPostgresDatabase(values.postgres);
  databaseUrl = created.url;
  dropDatabase = created.drop;
  console.log('copying into PostgreSQL (fuelprice copy)...');
  try {
    await run(['copy', '--from', `sqlite:${copy}`, '--to', databaseUrl], {});
  } catch (error) {
    // A failed copy leaves neither its database (up to tens of GB at au-10y) nor the SQLite copy behind.
    await created.drop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
const onPostgres = values.postgres !== undefined || values['postgres-db'] !== undefined;
const store: PriceStore = onPostgres
  ? new (await import('../src/storage/postgres/postgres-store.ts')).PostgresStore({ connectionString: databaseUrl, max: 2 })
  : new SqliteStore(copy);
await store.migrate();
const created = newToken('stall', NOW_SEC, { rateLimit: 1_000_000_000 });
await store.createToken(created.record);

const db = new Database(values['postgres-db'] ? source : copy, { readonly: true });
/** Cities by their number of stations, most first. */
const cities = db.prepare('SELECT c.id AS id, count(s.key) AS n FROM cities c LEFT JOIN stations s ON s.city_id = c.id GROUP BY c.id ORDER BY n DESC, c.id').all() as Array<{ id: string; n: number }>;
const writers = db.prepare(`SELECT s.feed AS feed, s.feed_code AS code, s.city_id AS city FROM stations s
  WHERE s.city_id IN ('sydney', 'melbourne', 'perth', 'brisbane', 'adelaide') GROUP BY s.city_id`).all() as Array<{ feed: string; code: string; city: string }>;
const ids = db.prepare("SELECT id FROM stations WHERE state = 'nsw' ORDER BY id LIMIT 100").all() as Array<{ id: string }>;
db.close();
const cycleCities = values.cities === 'all' ? cities.map((c) => c.id) : cities.slice(0, Number(values.cities)).map((c) => c.id);
const cycleFuels: readonly string[] = values.fuels === 'all' ? FUELS : ['ulp91', 'e10', 'diesel', 'ulp95', 'ulp98'];

let writes = 0;
/** A feed poll's worth: one new report a little before now for one station of each of five cities (a new data version). */
async function write(): Promise<void> {
  writes++;
  await store.applyBatch({
    stations: [],
    prices: writers.map((w) => ({ feed: w.feed, feedCode: w.code, fuel: 'ulp91' as const, at: NOW_SEC - 900 + writes, priceTenths: 1800 + (writes % 50), available: true })),
  });
}

// 2. The server as shipped, with the probe: from the build, as after `npm install` (bin/fuelprice.js runs the sources through tsx while dist/ is older than src/).
ensureBuilt();
const port = await freePort();
let probePort = await freePort();
while (probePort === port) probePort = await freePort();
const server: ChildProcess = spawn(process.execPath, [join(ROOT, 'bin', 'fuelprice.js'), 'serve'], {
  env: {
    ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), FUELPRICE_NOW: NOW_ISO,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${join(ROOT, 'bench', 'stall-probe.mjs')}`.trim(),
    FUELPRICE_STALL_PROBE_PORT: String(probePort),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (values['server-out']) server.stdout?.pipe(createWriteStream(values['server-out']));
else server.stdout?.resume();
const base = `http://127.0.0.1:${port}`;
for (let started = performance.now(); ; await new Promise((r) => setTimeout(r, 200))) {
  if (await fetch(`${base}/ready`).then((r) => r.ok, () => false)) break;
  if (performance.now() - started > 120_000) throw new Error('the server did not become ready in 120 s');
}

async function probe(path: string): Promise<string> {
  return (await fetch(`http://127.0.0.1:${probePort}${path}`)).text();
}

/** What the probe reads since its reset (bench/stall-probe.mjs). */
interface ProbeRead {
  delayMs: number; cpuMs: number; gcMs?: number; gcMaxMs?: number; gcMaxKind?: number; gcMaxFlags?: number; heapUsedMb?: number; externalMb?: number;
  /** Linux: the serving thread's major page faults and involuntary context switches (a wait for a page, for a core). */
  majorFaults?: number; switchesInvoluntary?: number;
}
/** The longest delay's window, as the probe saw it: a delay with little CPU, no involuntary switch and no major fault was a sleep that woke late. */
interface DelayWindow { cpuMs: number; gcMs: number; majorFaults: number; switchesInvoluntary: number }
const windowOf = (read: ProbeRead): DelayWindow => ({ cpuMs: read.cpuMs, gcMs: read.gcMs ?? 0, majorFaults: read.majorFaults ?? 0, switchesInvoluntary: read.switchesInvoluntary ?? 0 });
const describeWindow = (w: DelayWindow | undefined): string => (w === undefined ? ''
  : `in it: CPU ${w.cpuMs.toFixed(1)} ms, GC ${w.gcMs.toFixed(1)} ms, ${w.switchesInvoluntary} involuntary switches, ${w.majorFaults} major faults`);

interface Hold {
  family: string; requests: number; maxMs: number; url: string; medianMs: number; failures: number; wallMaxMs: number;
  cpuMaxMs: number; cpuUrl: string; cpuMedianMs: number; cpuP90Ms: number;
  /** Garbage collection on the serving thread during the request with the most CPU (the probe's 'gc' entries), and the longest pause of the family. */
  cpuMaxGcMs?: number; gcMaxMs?: number;
  /** The longest pause's kind (perf_hooks: 1 minor, 4 major, 8 incremental, 16 weak callbacks) and the serving thread's heap after the family (MB). */
  gcMaxKind?: number; gcMaxFlags?: number; heapUsedMb?: number; externalMb?: number;
  /** The request with the most CPU: its wall time and its CPU before the idle rate was taken off (a long wait takes off much, and the idle rate varies). */
  cpuWallMs?: number; cpuRawMs?: number;
  /** The longest delay's request or window. */
  delayWindow?: DelayWindow;
  /** Idle windows: the longest delay of a bare Node process over the same seconds (the machine's own). */
  bareDelayMs?: number;
}
async function family(name: string, paths: readonly string[], headers: Record<string, string> = {}): Promise<Hold> {
  await write();
  await new Promise((r) => setTimeout(r, 50)); // the server sees a new version 10 ms after a write by another process
  const holds: number[] = [];
  const cpus: number[] = [];
  let worst: { ms: number; url: string; window?: DelayWindow } = { ms: -1, url: '' };
  let cpuWorst = { ms: -1, url: '', gcMs: 0, wallMs: 0, rawMs: 0 };
  let gcMaxMs = 0;
  let gcMaxKind = 0;
  let gcMaxFlags = 0;
  let heap = { heapUsedMb: 0, externalMb: 0 };
  let failures = 0;
  let wallMaxMs = 0;
  for (const path of paths) {
    if (performance.now() > deadline) { console.log(`  ${name}: stopped at --max-seconds after ${holds.length} of ${paths.length}`); break; }
    const opened = performance.now();
    await probe('/reset');
    const started = performance.now();
    const answer = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${created.token}`, ...headers } });
    await answer.arrayBuffer();
    const wallMs = performance.now() - started;
    wallMaxMs = Math.max(wallMaxMs, wallMs);
    if (answer.status !== 200 && failures++ === 0) console.log(`  ${name}: ${answer.status} for ${path.slice(0, 80)}`);
    await new Promise((r) => setTimeout(r, 5));
    const read = JSON.parse(await probe('/max')) as ProbeRead;
    heap = { heapUsedMb: read.heapUsedMb ?? 0, externalMb: read.externalMb ?? 0 };
    const ms = read.delayMs;
    // Net of what the serving thread spends with no request for as long (the probe's 1 ms timer mostly: idleCpuMsPerSec).
    const cpuMs = Math.max(0, read.cpuMs - (idleCpuMsPerSec * (performance.now() - opened)) / 1000);
    holds.push(ms);
    cpus.push(cpuMs);
    if (ms > worst.ms) worst = { ms, url: path, window: windowOf(read) };
    if (cpuMs > cpuWorst.ms) cpuWorst = { ms: cpuMs, url: path, gcMs: read.gcMs ?? 0, wallMs, rawMs: read.cpuMs };
    if ((read.gcMaxMs ?? 0) > gcMaxMs) { gcMaxMs = read.gcMaxMs ?? 0; gcMaxKind = read.gcMaxKind ?? 0; gcMaxFlags = read.gcMaxFlags ?? 0; }
  }
  const sorted = [...holds].sort((a, b) => a - b);
  const cpuSorted = [...cpus].sort((a, b) => a - b);
  const hold = { family: name, requests: holds.length, maxMs: worst.ms, url: worst.url, medianMs: sorted[sorted.length >> 1] ?? 0, failures, wallMaxMs, cpuMaxMs: cpuWorst.ms, cpuUrl: cpuWorst.url,
    cpuMedianMs: cpuSorted[cpuSorted.length >> 1] ?? 0, cpuP90Ms: cpuSorted[Math.floor(cpuSorted.length * 0.9)] ?? 0, cpuMaxGcMs: cpuWorst.gcMs, gcMaxMs, gcMaxKind, gcMaxFlags, ...heap, cpuWallMs: cpuWorst.wallMs, cpuRawMs: cpuWorst.rawMs, ...(worst.window ? { delayWindow: worst.window } : {}) };
  console.log(`  ${name}: longest hold ${hold.maxMs.toFixed(1)} ms (${hold.url.slice(0, 90)}; ${describeWindow(worst.window)}), median ${hold.medianMs.toFixed(1)} ms, `
    + `serving-thread CPU median ${hold.cpuMedianMs.toFixed(1)}, p90 ${hold.cpuP90Ms.toFixed(1)}, most ${hold.cpuMaxMs.toFixed(1)} ms (${hold.cpuUrl.slice(0, 60)}; of it in GC pauses ${cpuWorst.gcMs.toFixed(1)} ms; answered in ${cpuWorst.wallMs.toFixed(0)} ms, ${cpuWorst.rawMs.toFixed(1)} ms before the idle rate was taken off), longest GC pause ${gcMaxMs.toFixed(1)} ms (kind ${gcMaxKind}, flags ${gcMaxFlags}), heap ${heap.heapUsedMb.toFixed(0)} MB + ${heap.externalMb.toFixed(0)} MB external, `
    + `${hold.requests} requests, slowest answer ${wallMaxMs.toFixed(0)} ms${failures ? `, ${failures} not 200` : ''}`);
  return hold;
}

// The longest route allowed: the Hume with as many points as fit MAX_PATH_CHARACTERS, the widest corridor.
let points = 1000;
const fits = (n: number): boolean => encodePolyline(humePoints(n)).length <= MAX_PATH_CHARACTERS && encodeURIComponent(encodePolyline(humePoints(n))).length <= ALONG_MAX_URL_LENGTH - 1000;
while (!fits(points)) points -= 10;
const along = `/v1/prices/along?fuel=ulp91&corridor=20&path=${encodeURIComponent(encodePolyline(humePoints(points)))}`;
const capitals = ['sydney', 'melbourne', 'brisbane', 'perth', 'adelaide', 'hobart', 'darwin', 'canberra'].filter((c) => cities.some((x) => x.id === c));
const places = ['-33.8688,151.2093', '-37.8136,144.9631', '-27.4698,153.0251', '-31.9505,115.8605'];

const families: Array<[string, string[], Record<string, string>?]> = [
  ['cycle', cycleCities.flatMap((c) => cycleFuels.map((f) => `/v1/cities/${c}/cycle?fuel=${f}`))],
  ['history', capitals.flatMap((c) => TIMEFRAMES.map((t) => `/v1/cities/${c}/history?timeframe=${t}`))],
  ['history csv', capitals.slice(0, 2).flatMap((c) => TIMEFRAMES.map((t) => `/v1/cities/${c}/history?timeframe=${t}&format=csv`))],
  ['station history', ids.slice(0, 3).flatMap((s) => TIMEFRAMES.map((t) => `/v1/stations/${s.id}/history?timeframe=${t}`))],
  ['spread', capitals.map((c) => `/v1/cities/${c}/spread`)],
  ['average', capitals.map((c) => `/v1/cities/${c}/average`)],
  ['summaries', ['/v1/prices', ...['nsw', 'vic', 'qld', 'wa', 'sa', 'tas', 'act', 'nt'].map((s) => `/v1/prices?state=${s}`)]],
  ['cheapest', [
    ...places.map((p) => `/v1/prices/cheapest?fuel=ulp91&near=${p}&radius=${MAX_RADIUS_KM}&limit=100`),
    ...capitals.slice(0, 4).map((c) => `/v1/prices/cheapest?fuel=ulp91&city=${c}`), '/v1/prices/cheapest?fuel=ulp91&state=nsw',
  ]],
  ['near', places.map((p) => `/v1/stations?near=${p}&radius=${MAX_RADIUS_KM}&limit=100`)],
  ['along', [along, along.replace('fuel=ulp91', 'fuel=diesel')]],
  ['batch', [`/v1/stations/prices?ids=${ids.map((s) => s.id).join(',')}`]],
  ['changes', ['/v1/prices/changes', `/v1/prices/changes?since=0&limit=${MAX_CHANGES_LIMIT}`]],
  ['csv lists', ['/v1/stations?state=nsw&limit=100&format=csv', '/v1/prices/cheapest?fuel=ulp91&state=nsw&format=csv', '/v1/cities?format=csv']],
];

/**
 * The machine alone, for as long as `seconds`: the longest event-loop delay of a bare Node process that does nothing
 * (monitorEventLoopDelay at 1 ms, as the probe), run beside the server's idle windows. What the server shows beyond it is the server's.
 */
function bareDelay(seconds: number): Promise<number> {
  const code = `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 1 }); h.enable();
    setTimeout(() => { process.stdout.write(String(h.max / 1e6)); }, ${Math.round(seconds * 1000)});`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.once('exit', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`the bare process exited with ${code}`))));
  });
}

/** The server alone: 1 s windows with no request (the probe's own timer, the minute's sealing of days, the collector); CPU as measured, not net. */
async function idle(windows: number, name = 'idle (1 s, no request)'): Promise<Hold> {
  const delays: number[] = [];
  const cpus: number[] = [];
  let gcMaxMs = 0;
  let gcMaxKind = 0;
  let gcMaxFlags = 0;
  let cpuMaxGcMs = 0;
  let delayWindow: DelayWindow | undefined;
  const bare = bareDelay(windows);
  for (let i = 0; i < windows && performance.now() < deadline; i++) {
    await probe('/reset');
    await new Promise((r) => setTimeout(r, 1000));
    const read = JSON.parse(await probe('/max')) as ProbeRead;
    const { delayMs, cpuMs, gcMs, gcMaxMs: pause, gcMaxKind: kind, gcMaxFlags: flags } = read;
    if (delays.every((d) => delayMs > d)) delayWindow = windowOf(read);
    if (cpus.every((c) => cpuMs > c)) cpuMaxGcMs = gcMs ?? 0;
    if ((pause ?? 0) > gcMaxMs) { gcMaxMs = pause ?? 0; gcMaxKind = kind ?? 0; gcMaxFlags = flags ?? 0; }
    delays.push(delayMs);
    cpus.push(cpuMs);
  }
  const [d, c] = [[...delays].sort((a, b) => a - b), [...cpus].sort((a, b) => a - b)];
  const hold = { family: name, requests: 0, maxMs: d.at(-1) ?? 0, url: '', medianMs: d[d.length >> 1] ?? 0, failures: 0, wallMaxMs: 0,
    cpuMaxMs: c.at(-1) ?? 0, cpuUrl: '', cpuMedianMs: c[c.length >> 1] ?? 0, cpuP90Ms: c[Math.floor(c.length * 0.9)] ?? 0, cpuMaxGcMs, gcMaxMs, gcMaxKind, gcMaxFlags,
    ...(delayWindow ? { delayWindow } : {}), bareDelayMs: await bare };
  console.log(`  ${name}: ${delays.length} windows, longest delay ${hold.maxMs.toFixed(1)} ms (${describeWindow(delayWindow)}; a bare Node process beside it: ${hold.bareDelayMs.toFixed(1)} ms), serving-thread CPU median ${hold.cpuMedianMs.toFixed(1)}, `
    + `most ${hold.cpuMaxMs.toFixed(1)} ms (of it in GC pauses ${cpuMaxGcMs.toFixed(1)} ms), longest GC pause ${gcMaxMs.toFixed(1)} ms (kind ${gcMaxKind}, flags ${gcMaxFlags})`);
  return hold;
}

/** The serving thread's CPU a second with no request, measured first (10 windows of 1 s, the median). */
let idleCpuMsPerSec = 0;

const only = values.only?.split(',');
const chosen = families.filter(([name]) => !only || only.includes(name));
console.log(`stall bench: ${values.dataset} (${onPostgres ? 'PostgreSQL' : 'SQLite'}), serve as shipped, first request after a write, one at a time`);
const results: Hold[] = [];
try {
  // Every URL once first (code compiled, each route's serialiser made, what is kept across writes kept): what is measured is what a write costs.
  const baseline = await idle(10, 'baseline (1 s, no request)');
  idleCpuMsPerSec = baseline.cpuMedianMs;
  console.log(`  the serving thread's CPU with no request: ${idleCpuMsPerSec.toFixed(1)} ms a second, taken off each request's`);
  for (const [, paths, headers] of chosen) {
    for (const path of paths) await (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${created.token}`, ...headers } })).arrayBuffer();
  }
  if (process.env.FUELPRICE_STALL_HEAP_PROFILE || process.env.FUELPRICE_STALL_CPU_PROFILE) await probe('/profile-start');
  for (const [name, paths, headers] of chosen) results.push(await family(name, paths, headers));
  if (process.env.FUELPRICE_STALL_HEAP_PROFILE) await probe('/heap-snapshot');
  if (!only || only.includes('idle')) results.push(await idle(65));
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await store.close();
  await dropDatabase?.();
  rmSync(dir, { recursive: true, force: true });
}

if (values.save) writeFileSync(values.save, `${JSON.stringify({ dataset: values.dataset, backend: onPostgres ? 'postgres' : 'sqlite', results }, null, 2)}\n`);
const before = values.before ? (JSON.parse(readFileSync(values.before, 'utf8')) as { results: Hold[] }).results : undefined;
const ms = (value: number | undefined): string => (value === undefined ? '-' : `${value.toFixed(1)} ms`);
const cut = (url: string): string => (url.length > 60 ? `${url.slice(0, 60)}...` : url);
console.log(`\n| route family | requests | longest loop delay${before ? ' before | after' : ''} | serving-thread CPU, p90 / most${before ? ' before | after' : ''} | GC in the most / longest GC pause | its URL |`);
console.log(`|---|---:|${before ? '---:|' : ''}---:|${before ? '---:|' : ''}---:|---:|---|`);
for (const r of results) {
  const b = before?.find((x) => x.family === r.family);
  const delay = before ? `${ms(b?.maxMs)} | ${ms(r.maxMs)}` : ms(r.maxMs);
  const both = (h: Hold | undefined): string => (h ? `${h.cpuP90Ms.toFixed(1)} / ${h.cpuMaxMs.toFixed(1)} ms` : '-');
  const cpu = before ? `${both(b)} | ${both(r)}` : both(r);
  console.log(`| ${r.family} | ${r.requests} | ${delay} | ${cpu} | ${ms(r.cpuMaxGcMs)} / ${ms(r.gcMaxMs)} | ${cut(r.cpuUrl)} |`);
}
const over = results.filter((r) => r.requests > 0 && r.maxMs > 20);
console.log(over.length === 0 ? '\nevery family within 20 ms' : `\nover 20 ms: ${over.map((r) => r.family).join(', ')}`);
