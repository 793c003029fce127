/**
 * `npm run bench`: every figure a ratio of two things measured side by side in the same run
 * (this machine is shared and noisy; absolute figures do not carry from one run to the next).
 *
 *   npm run bench -- [--scale small|au] [--rounds 3] [--seconds 3] [--connections 10]
 *                    [--only cached,uncached,find,way,shipped,floor,offset,windows,ingest,startup,memory,postgres]
 *                    [--max-requests 200000] [--ingest-batches N] [--shipped-starts 5] [--write-results]
 *
 * Datasets are built once into bench/out/ (datasets.ts); servers run in their own processes
 * (server.ts, ceiling.ts); loads and medians are in load.ts, ingest in ingest.ts, and the
 * table, results.json, chart and RESULTS.md in report.ts. See bench/RESULTS.md for a run.
 *
 * `--only postgres` (not run by default) needs FUELPRICE_BENCH_POSTGRES, a PostgreSQL server URL
 * on which it creates a database, copies the small dataset into it (`fuelprice copy`), serves both
 * copies uncached and drops the database at the end.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createPostgresDatabase } from '../test/helpers.ts';
import { scriptArgs } from './cli.ts';
import type { CannedAnswer } from './ceiling.ts';
import { DATASETS, type Dataset, type DatasetName, NOW_ISO, ensureDataset } from './datasets.ts';
import { FIXED_PATH } from './fixed.ts';
import { HUME_ALONG_NAME, HUME_ALONG_PATH } from './hume.ts';
import { type IngestResult, compareIngest, ingestSample } from './ingest.ts';
import { type Comparison, type LoadSettings, type Side, compare, hardLimitSec, loadRun, mergeStarts } from './load.ts';
import { median } from './stats.ts';
import {
  BENCH_DIR, ROOT_DIR, type Started, peakRssBytes, startBenchServer, startCeiling, startFuelpriceServe, startShippedServe, stopProcess,
} from './processes.ts';
import {
  BARE_FASTIFY, type ChartPoint, DEFAULT_GROUPS, GROUPS, type Group, type Row, SHIPPED_LEVELS, accessLineRowName, describeMachine, latencySvg, machine, resultsMarkdown, withHandWritten,
  shippedRowName, textTable, whyNotMet,
} from './report.ts';

const { usage, numberOption } = scriptArgs('bench',
  `npm run bench -- [--scale small|au] [--rounds N] [--seconds S] [--connections N] [--only ${GROUPS.join(',')}] [--max-requests N] [--ingest-batches N] [--shipped-starts K] [--write-results]`);

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'small' }, rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' }, only: { type: 'string' }, 'max-requests': { type: 'string', default: '200000' },
    'ingest-batches': { type: 'string' }, 'shipped-starts': { type: 'string', default: '5' }, 'write-results': { type: 'boolean', default: false },
  },
});
if (values.scale !== 'small' && values.scale !== 'au') usage(`--scale must be small or au, got '${values.scale}'`);
const scale = values.scale;
const rounds = Math.round(numberOption(values.rounds, 'rounds', 1, 21));
const settings: LoadSettings = {
  seconds: numberOption(values.seconds, 'seconds', 0.5, 60),
  connections: Math.round(numberOption(values.connections, 'connections', 1, 200)),
  maxRequests: Math.round(numberOption(values['max-requests'], 'max-requests', 1000, 10_000_000)),
};
/**
 * The shipped group starts its three processes (serve at info, serve at warn, the ceiling) this
 * many times, `rounds` rounds each start, and takes its medians over every round of every start:
 * one process of the same build measured 0.75 of the ceiling and another, started beside it,
 * 0.86 (2026-11-29, bench/RESULTS.md), so one start says as much about the process as about
 * the code. Five by default: in one run of five starts the spread at info went from 0.79 to 0.99
 * a start, and a run of three had one start at 0.71 with both of its sides slow (53 and 40 µs of
 * CPU an answer, against about 30 and 25 in the others): bench/RESULTS.md, "The shipped bar on
 * a machine with cheaper system calls". The group then takes about 11 minutes at `--rounds 3`.
 */
const shippedStarts = Math.round(numberOption(values['shipped-starts'], 'shipped-starts', 1, 10));
const only = new Set<Group>((values.only ?? DEFAULT_GROUPS.join(',')).split(',').map((name) => {
  if (!GROUPS.includes(name as Group)) usage(`--only takes some of ${GROUPS.join(',')}, got '${name}'`);
  return name as Group;
}));
// Default: a few million events at au scale (first 16 batches of au-1y), all of small's 1.3 million at small.
const ingestBatches = values['ingest-batches'] === undefined ? (scale === 'au' ? 16 : undefined) : Math.round(numberOption(values['ingest-batches'], 'ingest-batches', 1, 10_000));

const benchStarted = performance.now();
const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
const outDir = join(BENCH_DIR, 'out');
mkdirSync(outDir, { recursive: true });
const mainName: DatasetName = scale === 'au' ? 'au-10y' : 'small';
const shortName: DatasetName = scale === 'au' ? 'au-1y' : 'small-1y';
/** At au scale the small demo (2 years) adds a third history length to the chart, marked as another scale. */
const extraName: DatasetName | undefined = scale === 'au' ? 'small' : undefined;
const ingestSpec = scale === 'au' ? DATASETS['au-1y'] : DATASETS.small;

const needsMain = [...only].some((g) => g !== 'ingest' && g !== 'postgres');
const needed: DatasetName[] = [...new Set<DatasetName>([
  ...(only.has('windows') && extraName ? [extraName] : []),
  ...(only.has('windows') ? [shortName] : []),
  ...(needsMain ? [mainName] : []),
  ...(only.has('postgres') ? ['small' as const] : []),
])];
const postgresServer = process.env.FUELPRICE_BENCH_POSTGRES;
if (only.has('postgres') && !postgresServer) {
  usage('--only postgres needs FUELPRICE_BENCH_POSTGRES: a PostgreSQL server URL (postgres://user@host:5432/db) on which the bench may create and drop a database');
}
const datasets = new Map<DatasetName, Dataset>();
for (const name of needed) datasets.set(name, await ensureDataset(outDir, name));

const rows: Row[] = [];
const raw: Array<{ group: Group; name: string; comparison: Comparison }> = [];
const notes: string[] = [];
/** Rows some of whose runs went past --seconds to collect enough answers. */
const extended: string[] = [];
const chart: ChartPoint[] = [];
const started: Started[] = [];
let ingest: IngestResult | undefined;
const startups: Record<string, number[]> = {};
const memory: Record<string, number | undefined> = {};

/** Shown in tables and results with the station id replaced, so rows read the same whatever the dataset. */
function display(path: string, dataset: Dataset): string {
  return path.replaceAll(dataset.sydneyStation, '{station}');
}

async function start(what: Promise<Started>): Promise<Started> {
  const s = await what;
  started.push(s);
  return s;
}

type Target = { text: string; met: (c: Comparison) => boolean };

async function measure(group: Group, name: string, a: Side, b: Side, target: Target | undefined, path?: string): Promise<Comparison> {
  return keep(group, name, a, b, target, await compare(a, b, rounds, settings), path);
}

/** A row from a comparison measured (or merged from several starts, mergeStarts). */
function keep(group: Group, name: string, a: Side, b: Side, target: Target | undefined, comparison: Comparison, path?: string): Comparison {
  raw.push({ group, name, comparison });
  if (comparison.rounds.some((r) => r.a.extended || r.b.extended)) extended.push(`${group} ${name}`);
  const m = comparison.median;
  rows.push({
    group, name, a: a.label, b: b.label, unit: 'req/s', aValue: m.aRequestsPerSec, bValue: m.bRequestsPerSec, ratio: m.requestsRatio,
    aP99Ms: m.aP99Ms, bP99Ms: m.bP99Ms, p99Ratio: m.p99Ratio, aCpuUs: m.aCpuUs, bCpuUs: m.bCpuUs,
    target: target?.text ?? '', met: target?.met(comparison), failures: comparison.failures, ...(path === undefined ? {} : { path }),
  });
  console.log(`  ${group} ${name}: ${Math.round(m.aRequestsPerSec)} vs ${Math.round(m.bRequestsPerSec)} req/s (ratio ${m.requestsRatio.toFixed(2)}), p99 ${m.aP99Ms.toFixed(2)} vs ${m.bP99Ms.toFixed(2)} ms, CPU ${m.aCpuUs.toFixed(1)} vs ${m.bCpuUs.toFixed(1)} µs/answer${comparison.failures ? `, ${comparison.failures} FAILURES` : ''}`);
  return comparison;
}

/** Finding fuel near Sydney's centre (radius 5 km, the default), and the nation's summary. */
const FIND_PATHS = ['/v1/stations?near=-33.8688,151.2093', '/v1/prices/cheapest?fuel=ulp91&near=-33.8688,151.2093', '/v1/prices'];

/** Cached answers of `fuelprice serve` as shipped (the shipped group): the two routes the logging measurement was made on. */
const SHIPPED_PATHS = ['/v1/cities/sydney/spread', '/v1/stations?state=vic'];

/** The nine endpoints, then city history over all time, then the find-fuel routes. */
function endpointPaths(dataset: Dataset): string[] {
  const station = dataset.sydneyStation;
  return [
    '/v1/cities', '/v1/cities/sydney', '/v1/cities/sydney/history', '/v1/cities/sydney/unavailable', '/v1/cities/sydney/spread',
    '/v1/cities/sydney/average', '/v1/stations', `/v1/stations/${station}`, `/v1/stations/${station}/history`,
    '/v1/cities/sydney/history?timeframe=all-time', ...FIND_PATHS,
  ];
}

/** The history queries compared across history lengths (and drawn in the chart). */
function historyQueries(dataset: Dataset): Array<{ label: string; path: string; judged: boolean }> {
  return [
    { label: 'city last-week', path: '/v1/cities/sydney/history?timeframe=last-week', judged: true },
    { label: 'city last-month', path: '/v1/cities/sydney/history?timeframe=last-month', judged: true },
    { label: 'station last-month', path: `/v1/stations/${dataset.sydneyStation}/history?timeframe=last-month`, judged: true },
    { label: 'city all-time', path: '/v1/cities/sydney/history?timeframe=all-time', judged: false },
  ];
}

/** The postgres group's routes: one station and its prices, a list, a city's figures, near a point. */
function postgresPaths(dataset: Dataset): string[] {
  const station = dataset.sydneyStation;
  return [`/v1/stations/${station}`, `/v1/stations/${station}/prices`, '/v1/stations?state=vic', '/v1/cities/sydney/spread',
    '/v1/cities/sydney/unavailable', `/v1/stations/${station}/history`, '/v1/prices/cheapest?fuel=ulp91&city=sydney', '/v1/stations?near=-33.8688,151.2093'];
}

/** Headers node:http writes on its own (the ceiling's server adds them as ours does). */
const NODE_ADDS: ReadonlySet<string> = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** Fetches each path once and keeps the answer as the ceiling will replay it. */
async function record(address: string, token: string, paths: readonly string[]): Promise<Record<string, CannedAnswer>> {
  const answers: Record<string, CannedAnswer> = {};
  for (const path of paths) {
    const response = await fetch(`${address}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${body.toString().slice(0, 300)}`);
    // Every header as sent (this request's X-Request-Id and RateLimit values too, which keep their length), but
    // those node:http adds itself: the ceiling sends the very same bytes, so the load generator parses the same.
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers) if (!NODE_ADDS.has(name)) headers[name] = value;
    answers[path] = { status: response.status, headers, bodyBase64: body.toString('base64') };
  }
  return answers;
}

/** Milliseconds from spawning a server to its first 200 on /v1/cities. */
async function timeToFirst200(launch: () => Promise<Started>, token: string): Promise<number> {
  const t0 = performance.now();
  const server = await launch();
  try {
    for (;;) {
      const response = await fetch(`${server.address}/v1/cities`, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
      await response?.arrayBuffer();
      if (response?.status === 200) return performance.now() - t0;
      if (performance.now() - t0 > 60_000) throw new Error(`no 200 on /v1/cities within 60 s (last status ${response?.status})`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    await stopProcess(server);
  }
}

try {
  const main = datasets.get(mainName);
  if (main && (only.has('cached') || only.has('uncached') || only.has('find') || only.has('way') || only.has('shipped') || only.has('floor') || only.has('offset') || only.has('windows') || only.has('memory'))) {
    const paths = endpointPaths(main);
    const wantCached = only.has('cached') || only.has('memory');
    const wantUncached = only.has('uncached') || only.has('find') || only.has('way') || only.has('floor') || only.has('offset') || only.has('windows') || only.has('memory');
    const cachedServer = wantCached ? await start(startBenchServer(main.path, true)) : undefined;
    const uncachedServer = wantUncached ? await start(startBenchServer(main.path, false)) : undefined;
    const cachedSide = cachedServer && { label: `server, cache on, ${main.name}`, url: '', token: main.token };
    const uncachedSide = uncachedServer && { label: `server, cache off, ${main.name}`, url: '', token: main.token };
    const at = (side: Side | undefined, server: Started | undefined, path: string): Side => {
      if (!side || !server) throw new Error('server not started');
      return { ...side, url: `${server.address}${path}`, pid: server.pid };
    };

    if (only.has('cached') || only.has('uncached') || only.has('floor')) {
      const reference = cachedServer ?? uncachedServer;
      if (!reference) throw new Error('no server to record answers from');
      const answers = await record(reference.address, main.token, [...paths, ...(only.has('floor') ? [FIXED_PATH] : [])]);
      if (cachedServer && uncachedServer) {
        // The cache must not change a byte of any answer.
        const uncachedAnswers = await record(uncachedServer.address, main.token, paths);
        for (const path of paths) {
          const cachedBody = answers[path]?.bodyBase64;
          if (cachedBody !== uncachedAnswers[path]?.bodyBase64) notes.push(`${display(path, main)}: cached and uncached answers differ`);
          if (answers[path]?.headers.etag !== uncachedAnswers[path]?.headers.etag) notes.push(`${display(path, main)}: cached and uncached ETags differ`);
        }
      }
      const answersPath = join(outDir, `answers-${main.name}.json`);
      writeFileSync(answersPath, JSON.stringify(answers));
      const ceiling = await start(startCeiling(answersPath));
      const ceilingSide = (path: string): Side => ({ label: 'ceiling (same bytes, bare node:http)', url: `${ceiling.address}${path}`, token: main.token, pid: ceiling.pid });

      if (only.has('cached')) {
        console.log(`cached vs ceiling on ${main.name}...`);
        for (const path of paths) {
          await measure('cached', display(path, main), at(cachedSide, cachedServer, path), ceilingSide(path), {
            text: 'req ≥0.80, p99 ≤1.5', met: (c) => c.median.requestsRatio >= 0.8 && c.median.p99Ratio <= 1.5,
          });
        }
      }
      if (only.has('uncached')) {
        console.log(`uncached vs ceiling on ${main.name}...`);
        for (const path of paths) {
          const floor = path.endsWith('all-time') ? 0.5 : 0.6;
          await measure('uncached', display(path, main), at(uncachedSide, uncachedServer, path), ceilingSide(path), {
            text: `req ≥${floor.toFixed(2)}`, met: (c) => c.median.requestsRatio >= floor,
          });
        }
      }
      if (only.has('floor')) {
        // What is spent before any route's own work: the app's hooks over Fastify, and Fastify itself, on the same bytes.
        console.log(`floor: fixed bytes through the app's hooks and through bare Fastify, vs ceiling...`);
        await measure('floor', `${FIXED_PATH}: fixed bytes through every hook, no storage read but the versions`,
          at(uncachedSide, uncachedServer, FIXED_PATH), ceilingSide(FIXED_PATH), undefined);
        const bare = await start(startCeiling(answersPath, 'fastify'));
        await measure('floor', `${FIXED_PATH}: the same bytes through bare Fastify (A here: one route, no hooks, no plugins)`,
          { label: BARE_FASTIFY, url: `${bare.address}${FIXED_PATH}`, token: main.token, pid: bare.pid }, ceilingSide(FIXED_PATH), undefined);
        await stopProcess(bare);
      }
      await stopProcess(ceiling);
    }

    if (only.has('find')) {
      // The bar: a near search (and cheapest near a point) at least half as fast as one station by
      // id, both uncached, on the same server in the same run. The national summary is shown
      // beside them, without a target: its bar is reading totals kept on write, not every price.
      const byId = `/v1/stations/${main.sydneyStation}`;
      console.log(`find fuel vs ${display(byId, main)}, both uncached, on ${main.name}...`);
      for (const path of FIND_PATHS) {
        const a = { ...at(uncachedSide, uncachedServer, path), label: `cache off, ${main.name}` };
        const b = { ...at(uncachedSide, uncachedServer, byId), label: `${display(byId, main)}, cache off` };
        const judged = path.includes('near=');
        await measure('find', `${path} vs ${display(byId, main)}`, a, b, judged ? { text: 'req ≥0.50', met: (c) => c.median.requestsRatio >= 0.5 } : undefined);
      }
      // Along a route (issue 31): Sydney to Melbourne, 500 points, a 2 km corridor, at least 0.3 of a station by id.
      await measure('find', `${HUME_ALONG_NAME} vs ${display(byId, main)}`,
        { ...at(uncachedSide, uncachedServer, HUME_ALONG_PATH), label: `cache off, ${main.name}` },
        { ...at(uncachedSide, uncachedServer, byId), label: `${display(byId, main)}, cache off` },
        { text: 'req ≥0.30', met: (c) => c.median.requestsRatio >= 0.3 }, HUME_ALONG_PATH);
    }

    if (only.has('way')) {
      // On the way (issue 31): the batch route with 100 ids, uncached, at least 0.2 of one station by id.
      const byId = `/v1/stations/${main.sydneyStation}`;
      if (!uncachedServer) throw new Error('server not started');
      const listed = await fetch(`${uncachedServer.address}/v1/stations?state=nsw&limit=100`, { headers: { authorization: `Bearer ${main.token}` } });
      const ids = ((await listed.json()) as { data: Array<{ id: string }> }).data.map((s) => s.id);
      if (ids.length !== 100) throw new Error(`the batch row needs 100 NSW stations, ${main.name} listed ${ids.length}`);
      const batch = `/v1/stations/prices?ids=${ids.join(',')}`;
      console.log(`on the way vs ${display(byId, main)}, both uncached, on ${main.name}...`);
      await measure('way', `/v1/stations/prices?ids= (100 NSW ids) vs ${display(byId, main)}`,
        { ...at(uncachedSide, uncachedServer, batch), label: `cache off, ${main.name}` },
        { ...at(uncachedSide, uncachedServer, byId), label: `${display(byId, main)}, cache off` },
        { text: 'req ≥0.20', met: (c) => c.median.requestsRatio >= 0.2 });
      // One station's prices, which each of the batch's entries is: what the batch saves against asking 100 times.
      await measure('way', `${display(`/v1/stations/${main.sydneyStation}/prices`, main)} vs ${display(byId, main)}`,
        { ...at(uncachedSide, uncachedServer, `/v1/stations/${main.sydneyStation}/prices`), label: `cache off, ${main.name}` },
        { ...at(uncachedSide, uncachedServer, byId), label: `${display(byId, main)}, cache off` }, undefined);
      // The same answer's bytes from the ceiling (bare node:http, nothing computed), against the same station by id:
      // what any server could reach on this machine with this answer, so what the 0.2 above is measured within.
      const recorded = await record(uncachedServer.address, main.token, [batch]);
      const bytes = Buffer.from(recorded[batch]?.bodyBase64 ?? '', 'base64').length;
      const answersPath = join(outDir, 'answers-batch.json');
      writeFileSync(answersPath, JSON.stringify(recorded));
      const ceiling = await start(startCeiling(answersPath));
      await measure('way', `the same answer (${bytes} bytes) from the ceiling vs ${display(byId, main)}`,
        { label: 'ceiling (same bytes, bare node:http)', url: `${ceiling.address}${batch}`, token: main.token, pid: ceiling.pid },
        { ...at(uncachedSide, uncachedServer, byId), label: `${display(byId, main)}, cache off` }, undefined);
      await stopProcess(ceiling);
    }

    if (only.has('shipped')) {
      // What users run: `fuelprice serve` with its defaults (every request logged at info, to a
      // file), cached answers against the ceiling; the same with LOG_LEVEL=warn (no access lines)
      // against the ceiling; and the two side by side, which is what the access line costs. Each
      // of the three processes is started `shippedStarts` times (see shippedStarts).
      const serve = async (level: 'info' | 'warn', attempt: number): Promise<{ started: Started; side: (path: string) => Side }> => {
        const logName = `shipped-serve-${level === 'info' ? 'default' : level}${attempt === 0 ? '' : `-${attempt + 1}`}.log`;
        const s = await start(startShippedServe(main.path, join(outDir, logName), level === 'info' ? undefined : level));
        const label = `fuelprice serve (${SHIPPED_LEVELS[level]}, log to a file), cache on, ${main.name}`;
        return { started: s, side: (path) => ({ label, url: `${s.address}${path}`, token: main.token, pid: s.pid }) };
      };
      const answersPath = join(outDir, 'answers-shipped.json');
      const target: Target = { text: 'req ≥0.90, p99 ≤1.5', met: (c) => c.median.requestsRatio >= 0.9 && c.median.p99Ratio <= 1.5 };
      const pairs: Array<{ name: string; path: string; target?: Target; which: (p: { info: Side; warn: Side; ceiling: Side }) => [Side, Side]; runs: Comparison[] }> = [
        ...SHIPPED_PATHS.map((path) => ({ name: shippedRowName(path, 'info'), path, target, which: (p: { info: Side; ceiling: Side }) => [p.info, p.ceiling] as [Side, Side], runs: [] })),
        ...SHIPPED_PATHS.map((path) => ({ name: shippedRowName(path, 'warn'), path, which: (p: { warn: Side; ceiling: Side }) => [p.warn, p.ceiling] as [Side, Side], runs: [] })),
        ...SHIPPED_PATHS.map((path) => ({ name: accessLineRowName(path), path, which: (p: { info: Side; warn: Side }) => [p.info, p.warn] as [Side, Side], runs: [] })),
      ];
      for (let k = 0; k < shippedStarts; k++) {
        const info = await serve('info', k);
        const warn = await serve('warn', k);
        const recorded = await record(info.started.address, main.token, SHIPPED_PATHS); // also fills its answer and token caches
        await record(warn.started.address, main.token, SHIPPED_PATHS);
        if (k === 0) writeFileSync(answersPath, JSON.stringify(recorded));
        const ceiling = await start(startCeiling(answersPath));
        const ceilingSide = (path: string): Side => ({ label: 'ceiling (same bytes, bare node:http)', url: `${ceiling.address}${path}`, token: main.token, pid: ceiling.pid });
        console.log(`fuelprice serve as shipped (info), the same at warn, and the ceiling, cached, on ${main.name} (start ${k + 1} of ${shippedStarts})...`);
        for (const pair of pairs) {
          const [a, b] = pair.which({ info: info.side(pair.path), warn: warn.side(pair.path), ceiling: ceilingSide(pair.path) });
          const run = await compare(a, b, rounds, settings);
          pair.runs.push(run);
          console.log(`  start ${k + 1}: ${pair.name}: ratio ${run.median.requestsRatio.toFixed(2)}, CPU ${run.median.aCpuUs.toFixed(1)} vs ${run.median.bCpuUs.toFixed(1)} µs/answer`);
        }
        for (const s of [ceiling, warn.started, info.started]) await stopProcess(s);
      }
      // Rows with the same A and B together, so that each run of them gets one heading in the table.
      for (const pair of pairs) {
        const merged = mergeStarts(pair.runs);
        keep('shipped', pair.name, merged.a, merged.b, pair.target, merged, pair.path);
      }
      if (shippedStarts > 1) {
        notes.push(`shipped: each process started ${shippedStarts} times, ${rounds} rounds a start; medians over all ${shippedStarts * rounds} rounds. `
          + `Per start, ${pairs.map((p) => `${p.name}: ${p.runs.map((r) => r.median.requestsRatio.toFixed(2)).join(', ')}`).join('; ')}.`);
      }
    }

    if (only.has('offset')) {
      const deep = Math.max(0, main.stationCount - 100);
      console.log(`deep offset on ${main.name}...`);
      const deepPath = `/v1/stations?offset=${deep}&limit=100`;
      const firstPath = '/v1/stations?limit=100';
      const a = { ...at(uncachedSide, uncachedServer, deepPath), label: `${deepPath}, cache off, ${main.name}` };
      const b = { ...at(uncachedSide, uncachedServer, firstPath), label: firstPath };
      await measure('offset', `${deepPath} vs first page`, a, b, {
        text: 'cost ≤1.5×: req ≥0.67, p99 ≤1.5', met: (c) => c.median.requestsRatio >= 1 / 1.5 && c.median.p99Ratio <= 1.5,
      });
    }

    if (only.has('windows')) {
      const short = datasets.get(shortName);
      if (!short) throw new Error(`dataset ${shortName} missing`);
      const shortServer = await start(startBenchServer(short.path, false));
      console.log(`history windows: ${main.name} vs ${short.name}, uncached...`);
      for (const query of historyQueries(main)) {
        const a = at(uncachedSide, uncachedServer, query.path);
        const b: Side = { label: `server, cache off, ${short.name}`, url: `${shortServer.address}${query.path}`, token: short.token, pid: shortServer.pid };
        const c = await measure('windows', display(query.path, main), a, b, query.judged
          ? { text: `cost ≤1.2×: req ≥0.83, p99 ≤1.2`, met: (x) => x.median.requestsRatio >= 1 / 1.2 && x.median.p99Ratio <= 1.2 }
          : undefined);
        chart.push({ query: query.label, dataset: main.name, years: main.years, p50Ms: c.median.aP50Ms, p99Ms: c.median.aP99Ms, sameScale: true });
        chart.push({ query: query.label, dataset: short.name, years: short.years, p50Ms: c.median.bP50Ms, p99Ms: c.median.bP99Ms, sameScale: true });
      }
      await stopProcess(shortServer);
      const extra = extraName ? datasets.get(extraName) : undefined;
      if (extra) {
        const extraServer = await start(startBenchServer(extra.path, false));
        console.log(`history on ${extra.name} for the chart, uncached...`);
        for (const query of historyQueries(extra)) {
          const url = `${extraServer.address}${query.path}`;
          await loadRun(url, extra.token, { ...settings, seconds: Math.min(1, settings.seconds) }, settings.connections);
          const runs = [];
          for (let i = 0; i < rounds; i++) runs.push(await loadRun(url, extra.token, settings));
          chart.push({ query: query.label, dataset: extra.name, years: extra.years, p50Ms: median(runs.map((r) => r.p50Ms)), p99Ms: median(runs.map((r) => r.p99Ms)), sameScale: false });
        }
        await stopProcess(extraServer);
      }
    }

    if (only.has('memory')) {
      if (!only.has('cached') && !only.has('uncached')) {
        // Peak memory means something only after load: one run per endpoint on each server.
        for (const server of [cachedServer, uncachedServer]) {
          for (const path of paths) if (server) await loadRun(`${server.address}${path}`, main.token, settings);
        }
      }
      for (const [label, server] of [['cache on', cachedServer], ['cache off', uncachedServer]] as const) {
        if (!server) continue;
        const bytes = peakRssBytes(server.pid);
        memory[label] = bytes;
        rows.push({
          group: 'memory', name: `peak RSS (VmHWM), server ${label}, ${main.name}, after its load`, a: 'bench/server.ts', b: '', unit: 'MB',
          aValue: bytes === undefined ? NaN : bytes / 2 ** 20, target: '<200 MB', met: bytes !== undefined && bytes < 200 * 2 ** 20,
        });
      }
    }
    for (const server of [cachedServer, uncachedServer]) if (server) await stopProcess(server);
  }

  if (only.has('ingest')) {
    console.log(`ingest: sample of ${ingestSpec.name}...`);
    const sample = ingestSample(ingestSpec, ingestBatches);
    console.log(`  ${sample.events} price events in ${sample.batches} batches (+ stations)`);
    ingest = await compareIngest(sample, rounds, join(outDir, 'ingest'));
    const m = ingest.median;
    rows.push({
      group: 'ingest', name: `${sample.events.toLocaleString('en-AU')} events of ${sample.dataset} (${sample.batches} batches)`,
      a: 'store.applyBatch + seal (aggregates)', b: 'bare better-sqlite3 inserts, plain table', unit: 'events/s',
      aValue: m.realEventsPerSec, bValue: m.bareEventsPerSec, ratio: m.ratio, target: 'ratio ≥0.5, A ≥200,000/s',
      met: m.ratio >= 0.5 && m.realEventsPerSec >= 200_000,
    });
  }

  const small = datasets.get('small');
  if (only.has('postgres') && small && postgresServer) {
    // The same routes uncached on PostgreSQL and on SQLite, the same data (small, copied), side by side.
    console.log(`postgres: ${small.name} copied into a new database, uncached, against the same on SQLite...`);
    const database = await createPostgresDatabase(postgresServer);
    try {
      const copied = performance.now();
      execFileSync(process.execPath, [join(ROOT_DIR, 'bin', 'fuelprice.js'), 'copy', '--from', `sqlite:${small.path}`, '--to', database.url], { stdio: ['ignore', 'ignore', 'inherit'] });
      console.log(`  copied in ${((performance.now() - copied) / 1000).toFixed(1)} s`);
      const onPostgres = await start(startBenchServer(database.url, false));
      const onSqlite = await start(startBenchServer(small.path, false));
      for (const path of postgresPaths(small)) {
        await measure('postgres', display(path, small),
          { label: `PostgreSQL, cache off, ${small.name}`, url: `${onPostgres.address}${path}`, token: small.token, pid: onPostgres.pid },
          { label: `SQLite, cache off, ${small.name}`, url: `${onSqlite.address}${path}`, token: small.token, pid: onSqlite.pid }, undefined, path);
      }
      for (const s of [onPostgres, onSqlite]) await stopProcess(s);
    } finally {
      await database.drop();
    }
  }

  const startupSet = datasets.get(mainName);
  if (only.has('startup') && startupSet) {
    console.log(`startup on ${startupSet.name}...`);
    const launches = {
      'bench/server.ts (compiled: node dist/bench/server.js)': () => startBenchServer(startupSet.path, true),
      'node bin/fuelprice.js serve': () => startFuelpriceServe(startupSet.path),
    };
    for (let i = 0; i < 3; i++) {
      for (const [label, launch] of Object.entries(launches)) (startups[label] ??= []).push(await timeToFirst200(launch, startupSet.token));
    }
    for (const [label, times] of Object.entries(startups)) {
      const ms = median(times);
      console.log(`  ${label}: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
      rows.push({ group: 'startup', name: `${label}, ${startupSet.name}: spawn to first 200`, a: 'median of 3', b: '', unit: 'ms', aValue: ms, target: '<1000 ms', met: ms < 1000 });
    }
  }
} finally {
  for (const server of started) await stopProcess(server);
}

const durationSec = (performance.now() - benchStarted) / 1000;
const date = new Date().toISOString();
const host = machine();
const settingsText = `${scale} scale, ${rounds} round(s), ${settings.seconds} s and at most ${settings.maxRequests.toLocaleString('en-AU')} requests per run, ${settings.connections} connections, clock fixed at ${NOW_ISO}`;
const datasetLines = [...datasets.values()].map((d) =>
  `\`${d.name}\`: demo, seed 1, ${d.scale} scale, ${d.years} year(s), ${d.stationCount.toLocaleString('en-AU')} stations, ${d.build.prices.toLocaleString('en-AU')} price reports; built in ${d.build.builtSec.toFixed(1)} s${d.builtNow ? ' (this run)' : ` (${d.build.builtAt})`}; station {station} = \`${d.sydneyStation}\``);
if (extended.length > 0) {
  notes.push(`Slow endpoints: runs went on past ${settings.seconds} s (up to ${hardLimitSec(settings)} s) until they had 5 answers per connection: ${extended.map((e) => `\`${e}\``).join(', ')}.`);
}
if (rows.some((r) => r.failures)) notes.push('Some runs had non-200 answers or errors: their rows say FAILED and their figures are not to be trusted.');

console.log(`\n${settingsText}; ${describeMachine(host)}\n`);
console.log(textTable(rows));
for (const line of datasetLines) console.log(`dataset ${line.replaceAll('`', '')}`);
for (const note of notes) console.log(`note: ${note}`);
const reasons = whyNotMet(rows, ingest?.median);
if (reasons.length > 0) console.log(`\nnot met, by how much and why (this run's measurements):\n${reasons.map((r) => `- ${r.replaceAll('**', '').replaceAll('`', '')}`).join('\n')}`);

const shortYears = DATASETS[shortName].years;
const chartNote = [
  `Median p50 (solid) and p99 (dashed) latency under load (${settings.connections} connections), answer cache off, of Sydney's city history`,
  `over the last week, the last month and all time, and of one Sydney station's last month, against the length of the stored history:`,
  `${shortName} (${shortYears} y) and ${mainName} (${DATASETS[mainName].years} y), measured side by side in the fixed-window comparison.`,
  extraName ? `The hollow points at 2 y are the small demo (fewer stations per city, so not the same workload; not joined), measured on their own in the same run.` : '',
  'The fixed windows should stay flat; all-time grows with the history by design.',
].filter(Boolean).join(' ');
const chartFile = join(outDir, 'latency-vs-history.svg');
if (chart.length > 0) writeFileSync(chartFile, latencySvg(chart, `History latency against history length (${scale} scale, cache off)`));

const resultsFile = join(outDir, 'results.json');
writeFileSync(resultsFile, `${JSON.stringify({
  date, command, durationSec, machine: host, settings: { scale, rounds, ...settings, only: [...only], ingestBatches, now: NOW_ISO },
  datasets: [...datasets.values()].map(({ token: _token, ...d }) => d),
  rows, runs: raw, ingest, startupMs: startups, peakRssBytes: memory, chart, notes, reasons,
}, null, 2)}\n`);
console.log(`\nwritten ${resultsFile}${chart.length > 0 ? ` and ${chartFile}` : ''}`);

if (values['write-results']) {
  if (chart.length > 0) copyFileSync(chartFile, join(BENCH_DIR, 'latency-vs-history.svg'));
  const page = resultsMarkdown({
    date, command, machine: host, settings: settingsText, durationSec, datasets: datasetLines, rows,
    chartFile: chart.length > 0 ? 'latency-vs-history.svg' : undefined, chartNote, notes, reasons,
  });
  // The run's page replaces the generated part only: what is written by hand below the marker stays.
  const resultsPath = join(BENCH_DIR, 'RESULTS.md');
  const previous = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : '';
  writeFileSync(resultsPath, withHandWritten(page, previous));
  console.log(`written ${join(BENCH_DIR, 'RESULTS.md')}`);
}
console.log(`bench took ${durationSec.toFixed(0)} s`);
