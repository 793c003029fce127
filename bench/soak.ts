/**
 * `npm run soak`: does the server stay healthy under steady load, and what does load shedding
 * do past capacity?
 *
 *   npm run soak -- [--minutes 5] [--connections 50] [--overload-connections 200]
 *                   [--max-event-loop-delay-ms 100] [--p99-bound-ms 250] [--no-overload]
 *
 * The server is bench/server.ts (buildApp, answer cache on, load shedding as `serve` sets it
 * up) on the small demo dataset (bench/datasets.ts), in its own process, loaded over loopback
 * by autocannon from this one. The mix: nine requests in ten go to the nine endpoints for the
 * eight capitals and a station in each (cached after their first answer), one in ten to the
 * same endpoints with an ignored query parameter (`soak=N`) that the answer cache keys on,
 * from a cycle longer than the cache holds: always a miss, so always the full path.
 *
 * 0. The cache is first filled to its bound with such URLs (its steady state under this mix).
 * 1. Maximum throughput of the mix: an unmeasured warm-up, then three runs, median req/s.
 * 2. The soak: `--minutes` at 80% of that rate (autocannon overallRate), sampling every 10 s
 *    the requests, non-2xx answers and errors, p50 and p99 of that interval, and the server's RSS.
 * 3. Past capacity: `--overload-connections` connections as fast as they go, against a server
 *    with shedding on and one with it off, for the mix and for the mix with the answer cache
 *    off (every request on the full path): share of 503s, p50 and p99 of the 200s.
 *
 * Prints a summary and writes bench/out/soak.json. Verdict: no errors, every interval's p99
 * under --p99-bound-ms, and the last minute's RSS floor (lowest sample) no more than 10% above
 * the second minute's: the collector makes RSS a sawtooth, and a leak raises its floor.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect, parseArgs } from 'node:util';
import { scriptArgs } from './cli.ts';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { DEFAULT_CACHE_LIMITS } from '../src/http/cache/answer-store.ts';
import { type Dataset, ensureDataset } from './datasets.ts';
import { median, percentile } from './stats.ts';
import { BENCH_DIR, type Started, rssBytes, startBenchServer, stopProcess } from './processes.ts';

const INTERVAL_SEC = 10;
const CAPITALS = ['sydney', 'melbourne', 'brisbane', 'perth', 'adelaide', 'hobart', 'darwin', 'canberra'];
/** One request in this many goes to a URL never seen before. */
const COLD_EVERY = 10;
const SOAK_SHARE_OF_MAX = 0.8;

const { numberOption } = scriptArgs('soak',
  'npm run soak -- [--minutes N] [--connections N] [--overload-connections N] [--max-event-loop-delay-ms N] [--p99-bound-ms N] [--no-overload]');

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' },
    'overload-connections': { type: 'string', default: '200' }, 'max-event-loop-delay-ms': { type: 'string', default: '100' },
    'p99-bound-ms': { type: 'string', default: '250' }, 'no-overload': { type: 'boolean', default: false },
  },
});
const minutes = numberOption(values.minutes, 'minutes', 0.5, 240);
const connections = Math.round(numberOption(values.connections, 'connections', 1, 1000));
const overloadConnections = Math.round(numberOption(values['overload-connections'], 'overload-connections', 1, 5000));
const shedMs = Math.round(numberOption(values['max-event-loop-delay-ms'], 'max-event-loop-delay-ms', 1, 60_000));
const p99BoundMs = numberOption(values['p99-bound-ms'], 'p99-bound-ms', 1, 60_000);

/** The nine endpoints for one city and one of its stations. */
function nineEndpoints(city: string, state: string, station: string): string[] {
  return [
    `/v1/cities?state=${state}`, `/v1/cities/${city}`, `/v1/cities/${city}/history`, `/v1/cities/${city}/unavailable`,
    `/v1/cities/${city}/spread`, `/v1/cities/${city}/average`, `/v1/stations?state=${state}`, `/v1/stations/${station}`,
    `/v1/stations/${station}/history`,
  ];
}

function hotPaths(dataset: Dataset): string[] {
  const db = new Database(dataset.path, { readonly: true });
  try {
    return CAPITALS.flatMap((city) => {
      const row = db.prepare('SELECT c.state AS state, s.id AS station FROM cities c JOIN stations s ON s.city_id = c.id WHERE c.id = ? ORDER BY s.id LIMIT 1')
        .get(city) as { state: string; station: string } | undefined;
      if (!row) throw new Error(`the dataset has no station in ${city}`);
      return nineEndpoints(city, row.state, row.station);
    });
  } finally {
    db.close();
  }
}

/**
 * Never-seen URLs come from a cycle longer than the answer cache holds, so every one is a
 * miss (the least recently used goes first) and the cache stays at its bound rather than
 * growing through the soak.
 */
const COLD_CYCLE = DEFAULT_CACHE_LIMITS.maxEntries + 5_000;

/** The k-th never-seen URL of the cycle. */
function coldPath(hot: readonly string[], k: number): string {
  const path = hot[k % hot.length] as string;
  return `${path}${path.includes('?') ? '&' : '?'}soak=${k % COLD_CYCLE}`;
}

/** The mix, a deterministic walk: every run sends the same sequence. `cold` is shared, so the cycle carries on between runs. */
function mix(hot: readonly string[], cold: { next: number }, coldEvery = COLD_EVERY): () => string {
  let n = 0;
  return () => {
    n++;
    return n % coldEvery === 0 ? coldPath(hot, cold.next++) : hot[(n * 7919) % hot.length] as string;
  };
}

interface Interval {
  atSec: number;
  requests: number;
  non2xx: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  rssMb: number | undefined;
}

interface RunResult {
  requests: number;
  seconds: number;
  requestsPerSec: number;
  statuses: Record<string, number>;
  errors: number;
  ok: { p50Ms: number; p99Ms: number };
  intervals: Interval[];
}

/**
 * One autocannon run of the mix; `onInterval` every INTERVAL_SEC with that interval's figures.
 * `rate` (requests a second over all connections) paces it; without one it goes as fast as it can.
 */
async function run(address: string, token: string, next: () => string, options: { seconds: number; amount?: number; connections: number; rate?: number; pid?: number; onInterval?: (i: Interval) => void }): Promise<RunResult> {
  const statuses: Record<string, number> = {};
  const okLatencies: number[] = [];
  let window: number[] = [];
  let windowRequests = 0;
  let windowNon2xx = 0;
  let windowErrors = 0;
  let requests = 0;
  let errors = 0;
  const intervals: Interval[] = [];
  const started = performance.now();
  let lastAt = started;
  const flush = (): void => {
    const sorted = Float64Array.from(window).sort();
    const interval: Interval = {
      atSec: Math.round((performance.now() - started) / 1000), requests: windowRequests, non2xx: windowNon2xx, errors: windowErrors,
      p50Ms: round2(percentile(sorted, 0.5)), p99Ms: round2(percentile(sorted, 0.99)),
      rssMb: options.pid === undefined ? undefined : round2((rssBytes(options.pid) ?? NaN) / 1048576),
    };
    intervals.push(interval);
    options.onInterval?.(interval);
    window = [];
    windowRequests = 0;
    windowNon2xx = 0;
    windowErrors = 0;
  };
  const timer = setInterval(flush, INTERVAL_SEC * 1000);
  await new Promise<void>((resolve, reject) => {
    const instance = autocannon({
      url: address, connections: options.connections, duration: options.seconds, timeout: 30,
      ...(options.amount ? { amount: options.amount } : {}),
      ...(options.rate ? { overallRate: options.rate } : {}),
      headers: { authorization: `Bearer ${token}` },
      requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: next() }) }],
    }, (error: unknown) => {
      clearInterval(timer);
      if (error) reject(error instanceof Error ? error : new Error(`autocannon failed: ${inspect(error)}`));
      else resolve();
    });
    instance.on('response', (_client, statusCode: number, _bytes: number, responseTime: number) => {
      requests++;
      windowRequests++;
      lastAt = performance.now();
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      if (statusCode < 200 || statusCode > 299) windowNon2xx++;
      else okLatencies.push(responseTime);
      window.push(responseTime);
    });
    instance.on('reqError', () => {
      errors++;
      windowErrors++;
    });
  });
  const sortedOk = Float64Array.from(okLatencies).sort();
  const seconds = (lastAt - started) / 1000;
  return {
    requests, seconds: round2(seconds), requestsPerSec: Math.round(requests / seconds), statuses, errors,
    ok: { p50Ms: round2(percentile(sortedOk, 0.5)), p99Ms: round2(percentile(sortedOk, 0.99)) }, intervals,
  };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The second minute and the last minute (for short runs, the second and last thirds). */
function windows(intervals: readonly Interval[]): { early: Interval[]; late: Interval[] } {
  const perMinute = 60 / INTERVAL_SEC;
  const span = intervals.length >= 3 * perMinute ? perMinute : Math.max(1, Math.floor(intervals.length / 3));
  const earlyStart = intervals.length >= 3 * perMinute ? perMinute : span;
  return { early: intervals.slice(earlyStart, earlyStart + span), late: intervals.slice(-span) };
}

const outDir = join(BENCH_DIR, 'out');
const running: Started[] = [];
try {
  const dataset = await ensureDataset(outDir, 'small');
  const hot = hotPaths(dataset);
  console.log(`mix: ${hot.length} hot URLs (nine endpoints x eight capitals), 1 in ${COLD_EVERY} requests to a never-seen URL`);

  const server = await startBenchServer(dataset.path, true, shedMs);
  running.push(server);
  console.log(`server pid ${server.pid} at ${server.address}, load shedding past ${shedMs} ms of event-loop delay`);

  // 0. The answer cache filled to its bound with never-seen URLs, so that what follows finds it in its steady state.
  const cold = { next: 0 };
  const fill = await run(server.address, dataset.token, mix(hot, cold, 1), { seconds: 600, amount: COLD_CYCLE, connections });
  console.log(`answer cache filled: ${fill.requests} never-seen URLs in ${fill.seconds} s, RSS ${round2((rssBytes(server.pid) ?? NaN) / 1048576)} MB`);

  // 1. Maximum throughput.
  const next = mix(hot, cold);
  await run(server.address, dataset.token, next, { seconds: 10, connections });
  const maxRuns: RunResult[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await run(server.address, dataset.token, next, { seconds: 10, connections });
    maxRuns.push(r);
    console.log(`  max run ${i + 1}: ${r.requestsPerSec} req/s, p99 ${r.ok.p99Ms} ms, statuses ${JSON.stringify(r.statuses)}, errors ${r.errors}`);
  }
  const maxPerSec = median(maxRuns.map((r) => r.requestsPerSec));
  const rate = Math.round(maxPerSec * SOAK_SHARE_OF_MAX);
  console.log(`maximum throughput (median of 3 x 10 s, ${connections} connections): ${maxPerSec} req/s; soaking at ${rate} req/s for ${minutes} min`);

  // 2. The soak.
  const rssStartMb = round2((rssBytes(server.pid) ?? NaN) / 1048576);
  const soak = await run(server.address, dataset.token, next, {
    seconds: Math.round(minutes * 60), connections, rate, pid: server.pid,
    onInterval: (i) => console.log(`  ${String(i.atSec).padStart(4)} s  ${String(i.requests).padStart(6)} req  non-2xx ${i.non2xx}  errors ${i.errors}  p50 ${i.p50Ms} ms  p99 ${i.p99Ms} ms  RSS ${i.rssMb} MB`),
  });
  const rssValues = soak.intervals.map((i) => i.rssMb ?? NaN);
  const rssEndMb = round2((rssBytes(server.pid) ?? NaN) / 1048576);
  const { early, late } = windows(soak.intervals);
  const earlyRss = mean(early.map((i) => i.rssMb ?? NaN));
  const lateRss = mean(late.map((i) => i.rssMb ?? NaN));
  // V8's collector makes RSS a sawtooth (here ±30% within a minute); the floor after each collection is what a leak raises.
  const earlyFloor = Math.min(...early.map((i) => i.rssMb ?? NaN));
  const lateFloor = Math.min(...late.map((i) => i.rssMb ?? NaN));
  const failures = soak.errors + Object.entries(soak.statuses).filter(([s]) => !/^2/.test(s)).reduce((n, [, c]) => n + c, 0);
  const worstP99 = Math.max(...soak.intervals.map((i) => i.p99Ms));
  const checks = {
    zeroErrors: failures === 0,
    p99Bounded: worstP99 <= p99BoundMs,
    rssFlat: lateFloor <= 1.1 * earlyFloor,
  };
  await stopProcess(server);
  running.splice(running.indexOf(server), 1);

  // 3. Past capacity, shedding on and off: the same mix (mostly fast path), then every request on the full path (cache off).
  const overload: Record<string, RunResult & { share503: number }> = {};
  if (!values['no-overload']) {
    for (const [scenario, cache] of [['mix', true], ['uncached', false]] as const) {
      for (const [label, ms] of [['shedding on', shedMs], ['shedding off', 0]] as const) {
        const s = await startBenchServer(dataset.path, cache, ms);
        running.push(s);
        const walk = mix(hot, { next: 0 });
        await run(s.address, dataset.token, walk, { seconds: 5, connections: overloadConnections });
        const r = await run(s.address, dataset.token, walk, { seconds: 20, connections: overloadConnections });
        const share503 = round2((r.statuses['503'] ?? 0) / Math.max(1, r.requests));
        overload[`${scenario}, ${label}`] = { ...r, share503, intervals: [] };
        console.log(`  ${scenario}, ${overloadConnections} connections, ${label}: ${r.requestsPerSec} answers/s, 503 share ${share503}, `
          + `200s p50 ${r.ok.p50Ms} ms p99 ${r.ok.p99Ms} ms, statuses ${JSON.stringify(r.statuses)}, errors ${r.errors}`);
        await stopProcess(s);
        running.splice(running.indexOf(s), 1);
      }
    }
  }

  const result = {
    command: `npm run soak -- ${process.argv.slice(2).join(' ')}`.trim(),
    at: new Date().toISOString(),
    dataset: { name: dataset.name, stations: dataset.stationCount },
    mix: { hotUrls: hot.length, coldShare: 1 / COLD_EVERY },
    maxThroughput: { connections, requestsPerSec: maxPerSec, runs: maxRuns.map((r) => ({ requestsPerSec: r.requestsPerSec, p99Ms: r.ok.p99Ms, statuses: r.statuses, errors: r.errors })) },
    soak: {
      minutes, rate, connections, maxEventLoopDelayMs: shedMs,
      requests: soak.requests, requestsPerSec: soak.requestsPerSec, statuses: soak.statuses, errors: failures,
      p50Ms: soak.ok.p50Ms, p99Ms: soak.ok.p99Ms, worstIntervalP99Ms: worstP99,
      rssMb: { start: rssStartMb, end: rssEndMb, max: Math.max(...rssValues.filter(Number.isFinite)), secondMinuteMean: round2(earlyRss), lastMinuteMean: round2(lateRss), secondMinuteFloor: earlyFloor, lastMinuteFloor: lateFloor },
      intervals: soak.intervals,
    },
    overload,
    verdict: { ...checks, p99BoundMs, pass: checks.zeroErrors && checks.p99Bounded && checks.rssFlat },
  };
  writeFileSync(join(outDir, 'soak.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nsoak: ${soak.requests} requests in ${minutes} min at ${rate} req/s (80% of ${maxPerSec}), ${failures} errors, p50 ${soak.ok.p50Ms} ms, p99 ${soak.ok.p99Ms} ms (worst 10 s: ${worstP99} ms)`);
  console.log(`RSS: start ${rssStartMb} MB, end ${rssEndMb} MB, max ${result.soak.rssMb.max} MB; second minute mean ${round2(earlyRss)} MB (floor ${earlyFloor}), last minute mean ${round2(lateRss)} MB (floor ${lateFloor})`);
  console.log(`verdict: ${result.verdict.pass ? 'PASS' : 'FAIL'} (zero errors ${checks.zeroErrors}, p99 under ${p99BoundMs} ms ${checks.p99Bounded}, `
    + `last minute's RSS floor within 10% of the second minute's ${checks.rssFlat}); written to bench/out/soak.json`);
  process.exitCode = result.verdict.pass ? 0 : 1;
} finally {
  for (const s of running) await stopProcess(s);
}
