/**
 * Real traffic: `fuelprice serve` as shipped (access log at info, load shedding on, METRICS_TOKEN
 * set to read its event-loop stalls), in its own process on a copy of a dataset, loaded over
 * loopback from this process with the users the issue names, while a feed writes on an interval:
 *
 * - dashboard sessions: what the dashboard sends for one query (src/web/page/main.ts): cheapest
 *   near a random point (today and tomorrow), the city's history, cycle, spread and out-of-stock
 *   list at once, then the names of up to 5 stations out of stock;
 * - Home Assistant pollers (MIX.haPolls per session): a batch of 5 favourites
 *   (/v1/stations/prices?ids=), then cheapest near home;
 * - apps (MIX.apps per session): cheapest near a point, and on one in four along the Hume;
 * - change-feed listeners: STREAMS event streams open throughout;
 * - a feed: every FEED_EVERY_SEC (60 s, the demo's live feed's interval) this process writes a batch
 *   moving 2% of the stations (as the demo's live feed does) through its own store, as
 *   `fuelprice ingest` would.
 *
 * Open loop: sessions start at the offered rate whatever the answers do. After one unmeasured warm-up
 * step at half a session a second (a server just started computes every city's first answers), from 1 dashboard session
 * a second the rate is doubled while p99 stays under 100 ms with no 5xx (halved while it does
 * not, down to 0.05), then bisected twice (traffic-report.ts); the capacity found is run again at 50% and 100%. Bounded: each step lasts
 * STEP_SEC plus at most DRAIN_SEC, at most MAX_STEPS steps, at most MAX_RATE sessions a second.
 *
 *   npm run traffic -- [--db PATH] [--step-seconds 10] [--feed-seconds 60] [--streams 50] [--backend sqlite|postgres]
 *     sqlite (default): `serve` on a copy of PATH (default the demo dataset, /work/bench-data/small.db)
 *     postgres: the copy copied into a new database on FUELPRICE_BENCH_POSTGRES, `serve --workers 2`
 *               with REDIS_URL=FUELPRICE_BENCH_REDIS; the database is dropped at the end
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/storage/open.ts';
import type { PriceStore } from '../src/storage/store.ts';
import type { PriceEvent } from '../src/storage/store-records.ts';
import { newToken } from '../src/tokens.ts';
import { DEMO_LIVE_INTERVAL_SEC } from '../src/ingest/demo/live.ts';
import { createPostgresDatabase } from '../test/helpers.ts';
import { NOW_ISO, NOW_SEC } from './datasets.ts';
import { HUME_ALONG_PATH } from './hume.ts';
import { percentile } from './stats.ts';
import { ROOT_DIR, type Started, ensureBuilt, rssBytes, startProcess, stopProcess } from './processes.ts';
import { MIX, type StepResult, type StepSummary, capacityOf, nextRate, reportTable, summarise } from './traffic-report.ts';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: '/work/bench-data/small.db' }, 'step-seconds': { type: 'string', default: '10' },
    backend: { type: 'string', default: 'sqlite' }, streams: { type: 'string', default: '50' },
    'feed-seconds': { type: 'string', default: String(DEMO_LIVE_INTERVAL_SEC) },
  },
});
const STEP_SEC = Math.min(60, Math.max(3, Number(values['step-seconds'])));
const DRAIN_SEC = 10;
const MAX_STEPS = 10;
const MAX_RATE = 64;
const TARGET_P99_MS = 100;
const SEARCH = { start: 1, max: MAX_RATE, min: 0.05, refinements: 2 };
const STREAMS = Math.min(1_000, Math.max(0, Number(values.streams)));
/** The feed's interval: the demo's live feed's (a minute) unless told. */
const FEED_EVERY_SEC = Math.max(1, Number(values['feed-seconds']));
const METRICS_TOKEN = 'traffic-bench-metrics-token-0123456789abcdef';
const FUELS = ['ulp91', 'ulp91', 'e10', 'diesel', 'ulp95', 'ulp98'] as const;
const TIMEFRAMES = ['last-week', 'last-month', 'last-month', 'last-year'] as const;
const RADII = [5, 10, 10, 25] as const;

interface City { id: string; latitude: number; longitude: number }
interface Station { id: string; feedCode: string; latitude: number; longitude: number }

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;

class Client {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });
  latencies: number[] = [];
  statuses: number[] = [];
  /** Latencies by route (its pattern), for the slowest routes of a step. */
  byRoute = new Map<string, number[]>();
  inFlight = 0;
  constructor(private readonly base: string, private readonly token: string) {}

  /** GET path; resolves with the status and body (JSON parsed when asked), recording both. */
  get(path: string, json = false): Promise<{ status: number; body: unknown }> {
    const started = performance.now();
    this.inFlight++;
    return new Promise((resolve) => {
      const req = request(`${this.base}${path}`, { agent: this.agent, headers: { authorization: `Bearer ${this.token}`, 'accept-encoding': 'identity' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          this.inFlight--;
          const ms = performance.now() - started;
          this.latencies.push(ms);
          const route = routeOf(path);
          this.byRoute.set(route, [...(this.byRoute.get(route) ?? []), ms]);
          this.statuses.push(res.statusCode ?? 0);
          let body: unknown;
          if (json && res.statusCode === 200) try { body = JSON.parse(Buffer.concat(chunks).toString()); } catch { body = undefined; }
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.on('error', () => { this.inFlight--; this.statuses.push(0); resolve({ status: 0, body: undefined }); });
      req.end();
    });
  }

  take(): { latencies: number[]; statuses: number[] } {
    const taken = { latencies: this.latencies, statuses: this.statuses };
    this.latencies = [];
    this.statuses = [];
    this.byRoute = new Map();
    return taken;
  }

  /** The `count` routes with the highest p99 so far in this step, as text. */
  slowest(count: number): string {
    return [...this.byRoute].map(([route, ms]) => ({ route, n: ms.length, p99: percentile(ms.sort((a, b) => a - b), 0.99) }))
      .sort((a, b) => b.p99 - a.p99).slice(0, count).map((r) => `${r.route} p99 ${r.p99.toFixed(0)} ms (${r.n})`).join('; ');
  }
}

/** A request's route pattern, as the metrics name it. */
function routeOf(path: string): string {
  return (path.split('?')[0] ?? '').replace(/^\/v1\/cities\/[^/]+/, '/v1/cities/:id').replace(/^\/v1\/stations\/(?!prices$)[^/]+/, '/v1/stations/:id');
}

/** One dashboard query, as main.ts sends it. */
async function dashboard(client: Client, cities: readonly City[]): Promise<void> {
  const city = pick(cities);
  const near = `${(city.latitude + (Math.random() - 0.5) * 0.1).toFixed(4)},${(city.longitude + (Math.random() - 0.5) * 0.1).toFixed(4)}`;
  const fuel = pick(FUELS);
  const radius = pick(RADII);
  const [, , , , , unavailable] = await Promise.all([
    client.get(`/v1/prices/cheapest?fuel=${fuel}&near=${near}&radius=${radius}&limit=100`),
    client.get(`/v1/prices/cheapest?fuel=${fuel}&near=${near}&radius=${radius}&limit=100&day=tomorrow`),
    client.get(`/v1/cities/${city.id}/history?timeframe=${pick(TIMEFRAMES)}`),
    client.get(`/v1/cities/${city.id}/cycle?fuel=${fuel}`),
    client.get(`/v1/cities/${city.id}/spread`),
    client.get(`/v1/cities/${city.id}/unavailable`, true),
  ]);
  const lists = (unavailable.body as { data?: { unavailable?: Array<{ stations?: string[] | false }> } } | undefined)?.data?.unavailable ?? [];
  const ids = [...new Set(lists.flatMap((u) => (Array.isArray(u.stations) ? u.stations : [])))].slice(0, 5);
  await Promise.all(ids.map((id) => client.get(`/v1/stations/${encodeURIComponent(id)}`)));
}

/** One Home Assistant poll: the favourites, then cheapest near home. */
async function homeAssistant(client: Client, stations: readonly Station[]): Promise<void> {
  const home = pick(stations);
  const ids = [home.id, ...Array.from({ length: 4 }, () => pick(stations).id)];
  await client.get(`/v1/stations/prices?ids=${[...new Set(ids)].join(',')}`);
  await client.get(`/v1/prices/cheapest?fuel=${pick(FUELS)}&near=${home.latitude.toFixed(4)},${home.longitude.toFixed(4)}&radius=5`);
}

/** One app session: cheapest near, and on one in four, along the Hume. */
async function app(client: Client, stations: readonly Station[]): Promise<void> {
  const at = pick(stations);
  await client.get(`/v1/prices/cheapest?fuel=${pick(FUELS)}&near=${at.latitude.toFixed(4)},${at.longitude.toFixed(4)}&radius=10`);
  if (Math.random() < 0.25) await client.get(HUME_ALONG_PATH);
}

/** STREAMS event streams on the change feed, open until stopped; counts the change events received. */
function listen(base: string, token: string, count: number): { events(): number; stop(): void } {
  let events = 0;
  const requests = Array.from({ length: count }, () => {
    const req = request(`${base}/v1/prices/changes`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      res.on('data', (chunk: Buffer) => { events += chunk.toString('latin1').split('event: change').length - 1; });
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.end();
    return req;
  });
  return { events: () => events, stop: () => { for (const req of requests) req.destroy(); } };
}

/** A feed writing every FEED_EVERY_SEC: 2% of the stations move by a few tenths, each report a second later than the last write's. */
function feed(store: PriceStore, stations: readonly Station[], prices: Map<string, PriceEvent>): { stop(): Promise<void>; writes(): number; failed(): string[] } {
  let at = NOW_SEC;
  let writes = 0;
  const failed: string[] = [];
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    at += 1;
    const batch: PriceEvent[] = [];
    for (let i = 0; i < Math.max(1, Math.round(stations.length * 0.02)); i++) {
      const station = pick(stations);
      for (const [key, price] of prices) {
        if (!key.startsWith(`${station.feedCode}|`)) continue;
        const moved = { ...price, at, priceTenths: price.priceTenths + (Math.random() < 0.5 ? 5 : -5) };
        prices.set(key, moved);
        batch.push(moved);
      }
    }
    running = running.then(() => store.applyBatch({ stations: [], prices: batch })).then(() => { writes++; }, (error: unknown) => { failed.push(String(error)); });
  }, FEED_EVERY_SEC * 1000);
  return { stop: async () => { clearInterval(timer); await running; }, writes: () => writes, failed: () => failed };
}

/** The longest event-loop stall since the last scrape (prom-client's nodejs_eventloop_lag_max_seconds; with workers, their mean). */
async function stallMs(client: Client, base: string): Promise<number | undefined> {
  const text = await new Promise<string>((resolve) => {
    const req = request(`${base}/metrics`, { agent: client.agent, headers: { authorization: `Bearer ${METRICS_TOKEN}` } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      res.on('end', () => resolve(body));
    });
    req.on('error', () => resolve(''));
    req.end();
  });
  const match = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]) * 1000;
}

/** RSS of the server and of its workers (children), in bytes. */
function serverRss(pid: number): number | undefined {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch { /* none */ }
  const all = [pid, ...children].map((p) => rssBytes(p));
  return all.some((r) => r === undefined) ? undefined : all.reduce<number>((sum, r) => sum + (r ?? 0), 0);
}

/** One step: `rate` dashboard sessions a second (and the MIX's others) for STEP_SEC, then a drain of at most DRAIN_SEC. */
async function step(rate: number, client: Client, base: string, pid: number, cities: readonly City[], stations: readonly Station[]): Promise<StepResult> {
  await stallMs(client, base); // resets the maximum
  client.take();
  const started = performance.now();
  const kinds: Array<{ every: number; run: () => Promise<void>; next: number }> = [
    { every: 1000 / rate, run: () => dashboard(client, cities), next: 0 },
    { every: 1000 / (rate * MIX.haPolls), run: () => homeAssistant(client, stations), next: 0 },
    { every: 1000 / (rate * MIX.apps), run: () => app(client, stations), next: 0 },
  ];
  const sessions: Array<Promise<void>> = [];
  while (performance.now() - started < STEP_SEC * 1000) {
    const now = performance.now() - started;
    for (const kind of kinds) {
      while (kind.next <= now) {
        sessions.push(kind.run());
        kind.next += kind.every;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const drained = await Promise.race([Promise.all(sessions).then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), DRAIN_SEC * 1000))]);
  const unanswered = drained ? 0 : client.inFlight;
  console.log(`    slowest routes at ${rate}/s: ${client.slowest(3)}`);
  const { latencies, statuses } = client.take();
  return { rate, latenciesMs: latencies, statuses, unanswered, stallMs: await stallMs(client, base), rssBytes: serverRss(pid) };
}

async function main(): Promise<void> {
  const backend = values.backend === 'postgres' ? 'postgres' : 'sqlite';
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-traffic-'));
  const path = join(dir, 'traffic.db');
  copyFileSync(values.db ?? '', path);
  let database: { url: string; drop(): Promise<void> } | undefined;
  let server: Started | undefined;
  let store: PriceStore | undefined;
  try {
    let url = `sqlite:${path}`;
    if (backend === 'postgres') {
      const pg = process.env.FUELPRICE_BENCH_POSTGRES;
      if (!pg || !process.env.FUELPRICE_BENCH_REDIS) throw new Error('--backend postgres needs FUELPRICE_BENCH_POSTGRES and FUELPRICE_BENCH_REDIS');
      database = await createPostgresDatabase(pg);
      console.log('copying the dataset into PostgreSQL (fuelprice copy)...');
      execFileSync(process.execPath, [join(ROOT_DIR, 'bin', 'fuelprice.js'), 'copy', '--from', url, '--to', database.url], { stdio: ['ignore', 'ignore', 'inherit'] });
      url = database.url;
    }
    store = await openStore(url, { migrate: true });
    const created = newToken('traffic', NOW_SEC, { rateLimit: 1_000_000_000 });
    await store.createToken(created.record);
    const token = created.token;
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: url, FUELPRICE_NOW: NOW_ISO, METRICS_TOKEN,
      ...(backend === 'postgres' ? { REDIS_URL: process.env.FUELPRICE_BENCH_REDIS, FUELPRICE_REDIS_PREFIX: `fuelprice-traffic-${process.pid}:` } : {}),
    };
    ensureBuilt(); // serve runs the compiled code, as after `npm install`
    const log = join(dir, 'serve.log');
    const { openSync, closeSync } = await import('node:fs');
    const fd = openSync(log, 'w');
    server = await startProcess([join(ROOT_DIR, 'bin', 'fuelprice.js'), 'serve', '--port', '0', '--host', '127.0.0.1', ...(backend === 'postgres' ? ['--workers', '2'] : [])],
      env, /serving on (http:\/\/\S+)/, 120_000, fd);
    closeSync(fd);
    const base = server.address;
    const client = new Client(base, token);
    const cities: City[] = (await store.listCities({ state: undefined, limit: 1_000, offset: 0 })).items
      .map((c) => ({ id: c.id, latitude: Number(c.latitude), longitude: Number(c.longitude) }));
    const stations: Station[] = [];
    const prices = new Map<string, PriceEvent>();
    for (const station of await store.feedStations('demo')) {
      const info = await store.station(station.id);
      if (!info || info.latitude === false || info.longitude === false) continue;
      stations.push({ id: station.id, feedCode: station.feedCode, latitude: Number(info.latitude), longitude: Number(info.longitude) });
      for (const price of await store.currentForStation(station.id)) {
        prices.set(`${station.feedCode}|${price.fuel}`, { feed: 'demo', feedCode: station.feedCode, fuel: price.fuel, at: price.reportedAt, priceTenths: price.priceTenths, available: price.available });
      }
    }
    const streams = listen(base, token, STREAMS);
    const writer = feed(store, stations, prices);
    console.log(`traffic on ${backend === 'postgres' ? 'PostgreSQL + Redis, serve --workers 2' : 'SQLite, serve'}: ${values.db} (${stations.length} stations, ${cities.length} cities), `
      + `${STREAMS} event streams, a feed write every ${FEED_EVERY_SEC} s, steps of ${STEP_SEC} s; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    // One step unmeasured first, at half the starting rate: what a server that has just started computes once
    // (every city's first cycle and history, serialisers, the search worker's indexes) is not its capacity.
    const warm = summarise(await step(SEARCH.start / 2, client, base, server.pid, cities, stations), TARGET_P99_MS);
    console.log(`  warm-up at ${SEARCH.start / 2} sessions/s (not counted): ${warm.requests} requests, p99 ${warm.p99Ms.toFixed(1)} ms, 5xx ${warm.errors5xx}, 503 ${warm.unavailable503}, stall ${warm.stallMs?.toFixed(0)} ms`);
    const search: StepSummary[] = [];
    for (let rate = nextRate(search, SEARCH); rate !== undefined && search.length < MAX_STEPS; rate = nextRate(search, SEARCH)) {
      const summary = summarise(await step(rate, client, base, server.pid, cities, stations), TARGET_P99_MS);
      console.log(`  ${rate} sessions/s: ${summary.requests} requests, p99 ${summary.p99Ms.toFixed(1)} ms, 5xx ${summary.errors5xx}, 503 ${summary.unavailable503}, stall ${summary.stallMs?.toFixed(0)} ms`);
      search.push(summary);
    }
    const capacity = capacityOf(search);
    const checks: StepSummary[] = [];
    for (const share of [0.5, 1]) {
      if (capacity > 0) checks.push(summarise(await step(Math.round(capacity * share * 100) / 100, client, base, server.pid, cities, stations), TARGET_P99_MS));
    }
    await writer.stop();
    const events = streams.events();
    streams.stop();
    client.agent.destroy();
    console.log('');
    console.log(reportTable(`${backend === 'postgres' ? 'PostgreSQL + Redis, `serve --workers 2`' : 'SQLite, `serve`'}, ${values.db}`, search, checks));
    const failedWrites = writer.failed();
    if (failedWrites.length > 0) console.log(`feed writes that failed: ${failedWrites.length} (first: ${failedWrites[0]})`);
    console.log(`feed writes: ${writer.writes()}; change events received by the ${STREAMS} streams: ${events}; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')} (a shared machine: see the note in bench/RESULTS.md)`);
  } finally {
    if (server) await stopProcess(server);
    await store?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
