import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { type Server, type Socket, createServer, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import pg from 'pg';
import { type AppOptions, buildApp } from '../src/app.ts';
import type { Clock } from '../src/config.ts';
import { cityHistory } from '../src/domain/history.ts';
import type { CurrentPrice, FuelSums } from '../src/domain/price-rows.ts';
import { cityUnavailable, fuelTotals } from '../src/domain/today.ts';
import { type FuelId, outputsOf } from '../src/domain/fuels.ts';
import { STATES, type StateId } from '../src/domain/states.ts';
import { localDayOf, splitByLocalDay, timeframeWindow } from '../src/domain/time.ts';
import { PostgresStore } from '../src/storage/postgres/postgres-store.ts';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import { fuelAt } from '../src/storage/sql/row-mappers.ts';
import type { CopyKey, CopyRow, CopyTable, PriceStore, TableChunk } from '../src/storage/store.ts';
import { newToken } from '../src/tokens.ts';

export interface TestBackend {
  name: string;
  /** A fresh, migrated, empty store, and how to throw it away. */
  create(): Promise<{ store: PriceStore; drop: () => Promise<void> }>;
}

/** SQLite always; PostgreSQL when FUELPRICE_TEST_POSTGRES (or a postgres:// DATABASE_URL) names a server (see CONTRIBUTING.md, Test). */
export function testBackends(): TestBackend[] {
  const backends: TestBackend[] = [{
    name: 'sqlite',
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'fuelprice-test-'));
      const store = new SqliteStore(join(dir, 'test.db'));
      await store.migrate();
      return { store, drop: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
    },
  }];
  const postgresUrl = postgresServerUrl();
  if (postgresUrl) backends.push(postgresBackend(postgresUrl));
  return backends;
}

/**
 * A fresh store of the backend for each call, all of them dropped after the describe block it is
 * called in (so call it in the block's body, not in a test).
 */
export function freshStores(backend: TestBackend): () => Promise<PriceStore> {
  const drops: Array<() => Promise<void>> = [];
  after(async () => {
    for (const drop of drops) await drop();
  });
  return async () => {
    const created = await backend.create();
    drops.push(created.drop);
    return created.store;
  };
}

/** Two stores on one new database of the backend, as two processes would have them, and how to throw both away. */
export async function twoStores(backend: string): Promise<{ reader: PriceStore; writer: PriceStore; drop: () => Promise<void> }> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-two-'));
    const [reader, writer] = [new SqliteStore(join(dir, 'test.db')), new SqliteStore(join(dir, 'test.db'))];
    return { reader, writer, drop: async () => { await reader.close(); await writer.close(); rmSync(dir, { recursive: true, force: true }); } };
  }
  const database = await createPostgresDatabase(postgresServerUrl() ?? '');
  const [reader, writer] = [new PostgresStore({ connectionString: database.url, max: 2 }), new PostgresStore({ connectionString: database.url, max: 2 })];
  return { reader, writer, drop: async () => { await reader.close(); await writer.close(); await database.drop(); } };
}

/** The PostgreSQL server the tests were asked to use, if any. */
export function postgresServerUrl(): string | undefined {
  const databaseUrl = process.env.DATABASE_URL;
  return process.env.FUELPRICE_TEST_POSTGRES || (databaseUrl && /^postgres(ql)?:\/\//.test(databaseUrl) ? databaseUrl : undefined);
}

/** Each store is a fresh database on the server, dropped afterwards; a server out of reach fails the run. */
function postgresBackend(serverUrl: string): TestBackend {
  return {
    name: 'postgres',
    async create() {
      const database = await createPostgresDatabase(serverUrl);
      const store = new PostgresStore({ connectionString: database.url, max: 4, applicationName: 'fuelprice-tests' });
      const drop = async (): Promise<void> => {
        await store.close();
        await database.drop();
      };
      try {
        await store.migrate();
      } catch (error) {
        await drop();
        throw error;
      }
      return { store, drop };
    },
  };
}

/** A new empty database (`fuelprice_test_<random>`) on the server, optionally with an ICU locale, and how to drop it. */
export async function createPostgresDatabase(serverUrl: string, options: { icuLocale?: string } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `fuelprice_test_${randomBytes(6).toString('hex')}`;
  const locale = options.icuLocale ? ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE ${pg.escapeLiteral(options.icuLocale)} LOCALE 'C'` : '';
  await postgresAdmin(serverUrl, (client) => client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}${locale}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => postgresAdmin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Runs `work` on a connection to the server named by FUELPRICE_TEST_POSTGRES, failing clearly when it is out of reach. */
export async function postgresAdmin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl, application_name: 'fuelprice-tests', connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`PostgreSQL tests were asked for, but the server at ${redacted(serverUrl)} cannot be reached: ${reason}`, { cause: error });
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

/** The Redis server the tests were asked to use (FUELPRICE_TEST_REDIS, else REDIS_URL), if any (see CONTRIBUTING.md, Test). */
export function redisServerUrl(): string | undefined {
  return process.env.FUELPRICE_TEST_REDIS || process.env.REDIS_URL || undefined;
}

/** A client of the test Redis server; a server out of reach fails the run with a clear message, never a skip. */
export async function redisAdmin(serverUrl: string): Promise<Redis> {
  const client = new Redis(serverUrl, { lazyConnect: true, connectTimeout: 3_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let lastError: Error | undefined;
  client.on('error', (error: Error) => { lastError = error; });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    const reason = lastError?.message ?? (error instanceof Error ? error.message : String(error));
    throw new Error(`Redis tests were asked for, but the server at ${redacted(serverUrl)} cannot be reached: ${reason}`, { cause: error });
  }
  return client;
}

/** A key prefix of its own for one test, so that tests never see each other's counters. */
export function redisTestPrefix(): string {
  return `fuelprice-test-${randomBytes(6).toString('hex')}:`;
}

/** Deletes every key under `prefix`; returns how many there were. */
export async function deleteRedisKeys(client: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await client.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

export function fixedClock(nowSec: number): Clock & { set(sec: number): void } {
  let now = nowSec;
  return { now: () => now, set: (sec: number) => { now = sec; } };
}

export interface RunningServer {
  baseUrl: string;
  app: FastifyInstance;
  token: string;
  close: () => Promise<void>;
}

/** The real app on a real port (127.0.0.1, random port), with one valid token; `hook` adds to the app before it listens. */
export async function startServer(store: PriceStore, clock: Clock, options: Partial<AppOptions> = {}, hook?: (app: FastifyInstance) => void): Promise<RunningServer> {
  const created = newToken('test', clock.now());
  await store.createToken(created.record);
  const app = await buildApp({ store, clock, ...options });
  hook?.(app);
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return { baseUrl, app, token: created.token, close: () => app.close() };
}

/**
 * For the suite it is called in: a fresh store of `backend`, filled by `fill`, served on a real
 * port from the suite's first test to its end (its before and after hooks are registered here).
 * `server` stands for the running server once the suite has started; `store()` gives the store;
 * `throughFastify()` counts the answers Fastify sent (the full path, fresh or from the answer
 * cache), which the fast path's are not. `versionReuseMs` lets a versions reading last that long:
 * requests in a test are milliseconds apart, and the fast path answers only on a reused reading
 * (writes through the store still reset it).
 */
export function servedStore(backend: TestBackend, clock: Clock, fill: (store: PriceStore) => Promise<void>, options: { versionReuseMs?: number } = {}): {
  server: RunningServer; store: () => PriceStore; throughFastify: () => number;
} {
  let running: RunningServer | undefined;
  let created: { store: PriceStore; drop: () => Promise<void> } | undefined;
  let sent = 0;
  const started = (): RunningServer => running ?? assert.fail('the suite has not started its server');
  before(async () => {
    created = await backend.create();
    await fill(created.store);
    if (options.versionReuseMs !== undefined) created.store.setVersionReuseMs(options.versionReuseMs);
    running = await startServer(created.store, clock, {}, (app) => app.addHook('onSend', async () => { sent++; }));
  });
  after(async () => {
    await running?.close();
    await created?.drop();
  });
  const server: RunningServer = {
    get baseUrl() { return started().baseUrl; },
    get app() { return started().app; },
    get token() { return started().token; },
    close: () => started().close(),
  };
  return { server, store: () => created?.store ?? assert.fail('the suite has not created its store'), throughFastify: () => sent };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export async function get(server: RunningServer, path: string, init: { token?: string | null; headers?: Record<string, string>; method?: string } = {}): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...init.headers };
  const token = init.token === undefined ? server.token : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${server.baseUrl}${path}`, { method: init.method ?? 'GET', headers });
  const text = await response.text();
  let body: unknown;
  try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
  return { status: response.status, headers: response.headers, body, text };
}

/** Asserts nothing stored changed: same data version and counts before and after. */
export async function snapshot(store: PriceStore): Promise<string> {
  return JSON.stringify({ version: await store.dataVersion(), counts: await store.counts() });
}

/** Fixture routes whose answers depend on every part of the writer. */
export const FIXTURE_PATHS = [
  '/v1/cities/sydney/history?timeframe=all-time', '/v1/cities/sydney/spread', '/v1/cities/sydney/unavailable',
  '/v1/stations/alpha-sydney/history?timeframe=all-time', '/v1/stations/beta-sydney/history?timeframe=all-time', '/v1/stations',
  '/v1/stations/alpha-sydney/prices', '/v1/stations/beta-sydney/prices',
  '/v1/prices', '/v1/prices?state=nsw', '/v1/prices?city=sydney', '/v1/stations?near=-33.87,151.2&radius=20',
  '/v1/prices/cheapest?fuel=ulp-combined&state=nsw', '/v1/prices/cheapest?fuel=ulp91&near=-33.87,151.2&order=desc',
];

/** The bodies the app answers for these paths on this store at this clock, for comparing two stores. */
export async function answers(store: PriceStore, nowSec: number, paths: readonly string[] = FIXTURE_PATHS): Promise<string[]> {
  const created = newToken('cmp', nowSec);
  await store.createToken(created.record);
  const app = await buildApp({ store, clock: fixedClock(nowSec) });
  try {
    const out: string[] = [];
    for (const url of paths) out.push((await app.inject({ url, headers: { authorization: `Bearer ${created.token}` } })).body);
    return out;
  } finally {
    await app.close();
  }
}

/** The fuelprice executable, as a user runs it. */
export const BIN = join(import.meta.dirname, '..', 'bin', 'fuelprice.js');

export interface CliRun { code: number | null; stdout: string; stderr: string }

/** Runs `fuelprice args...` in its own process with only PATH, quiet logs and `env` set. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A port nobody listens on: bound by the system, then released. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface TcpProxy {
  port: number;
  /** The target URL with its host and port replaced by the proxy's. */
  url: string;
  /** Closes every connection and stops listening: clients see the server vanish. */
  down: () => Promise<void>;
  /** Listens again on the same port. */
  up: () => Promise<void>;
}

/** A TCP proxy in front of a server (Redis, PostgreSQL) that a test can take away and bring back on the same port. */
export async function tcpProxy(target: URL, defaultPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const up = async (): Promise<void> => {
    server = createServer((client) => {
      const upstream = tcpConnect(Number(target.port || defaultPort), target.hostname);
      sockets.add(client);
      sockets.add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      for (const socket of [client, upstream]) {
        socket.on('error', end);
        socket.on('close', end);
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    const listening = server;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => resolve());
    });
    const address = listening.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    port = address.port;
  };
  const down = async (): Promise<void> => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  await up();
  const url = new URL(target.toString());
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return { port, url: url.toString(), down, up };
}

export interface ServeProcess {
  child: ChildProcess;
  /** The address from the "serving on" line. */
  address: string;
  /** Everything written so far (stdout: JSON log lines with LOG_LEVEL=info). */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** JSON log lines of stdout matching `msg`. */
  logs(msg: string): Array<Record<string, unknown>>;
}

/** Starts `fuelprice serve args...` in its own process and waits for its "serving on" line. */
export function startServe(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const logs = (msg: string): Array<Record<string, unknown>> => stdout.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      return parsed.msg === msg ? [parsed] : [];
    } catch {
      return [];
    }
  });
  return new Promise<ServeProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not announce its address within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving on (http:\/\/[^\s]+)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, address: match[1], stdout: () => stdout, stderr: () => stderr, exited, logs });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited early (${code}): ${stderr}`));
    });
  });
}

/** True once nothing listens on 127.0.0.1:`port` any more. */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = tcpConnect(port, '127.0.0.1');
    probe.once('connect', () => { probe.destroy(); resolve(false); });
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** One GET on a connection of its own (no keep-alive), so that each request is handed to a worker anew; its status. */
export function getOnce(url: string, token?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

/** One read of a non-blocking descriptor into `buffer`: the bytes read (0 at end of file), or -1 when none wait yet (EAGAIN). */
export function readNow(fd: number, buffer: Buffer): number {
  try {
    return readSync(fd, buffer);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    return -1;
  }
}

/** JSON lines, each of which must be whole: one cut short or mixed with another fails the test. */
export function wholeJsonLines<T>(text: string): T[] {
  return text.split('\n').filter((l) => l !== '').map((l) => {
    try {
      return JSON.parse(l) as T;
    } catch {
      return assert.fail(`a line cut short or mixed with another: ${l.slice(0, 120)}...`);
    }
  });
}

/** Waits until `condition` holds, polling; fails the test after `timeoutMs`. */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The stations out of stock per output fuel, ids ascending, worked out from every current price
 * of a city, independently of storage's statement (cityOutOfStockSql): a station is out of stock
 * for an output when every report of it counting towards that output says unavailable.
 */
export function unavailableOf(current: readonly CurrentPrice[]): Map<FuelId, string[]> {
  const state = new Map<FuelId, Map<string, boolean>>();
  for (const price of current) {
    for (const output of outputsOf(price.fuel)) {
      let stations = state.get(output);
      if (!stations) state.set(output, (stations = new Map<string, boolean>()));
      stations.set(price.stationId, (stations.get(price.stationId) ?? true) && !price.available);
    }
  }
  const out = new Map<FuelId, string[]>();
  for (const [fuel, stations] of state) {
    const ids = [...stations].filter(([, unavailable]) => unavailable).map(([id]) => id).sort();
    if (ids.length > 0) out.set(fuel, ids);
  }
  return out;
}

/**
 * What storage keeps per state on write (count, sum, min and max of available prices per fuel:
 * state_current and the state index) equals what the current prices of the state's stations say,
 * for every state and for the nation.
 */
export async function assertStateTotalsMatchPrices(store: PriceStore, step = ''): Promise<void> {
  const byFuel = <T extends FuelSums>(t: T[]): T[] => [...t].sort((a, b) => a.fuel.localeCompare(b.fuel));
  const everywhere: CurrentPrice[] = [];
  for (const state of STATES) {
    const stations = await store.listStations({ state, limit: 100, offset: 0 });
    assert.ok(stations.total <= 100, 'a test dataset of at most 100 stations a state');
    const current = (await Promise.all(stations.items.map((s) => store.currentForStation(s.id)))).flat();
    assert.deepEqual(byFuel(await store.stateTotals(state)), byFuel(fuelTotals(current)), `${step}: ${state}`);
    everywhere.push(...current);
  }
  assert.deepEqual(byFuel(await store.stateTotals(undefined)), byFuel(fuelTotals(everywhere)), `${step}: the nation`);
}

/**
 * What storage keeps per city on write (count, sum, min and max of available prices per fuel,
 * also read without the extremes; the stations out of stock) equals what the city's current
 * prices say, for each city.
 */
export async function assertCityTotalsMatchPrices(store: PriceStore, cityIds: readonly string[], step = ''): Promise<void> {
  const byFuel = <T extends FuelSums>(t: T[]): T[] => [...t].sort((a, b) => a.fuel.localeCompare(b.fuel));
  for (const id of cityIds) {
    const current = await store.currentForCity(id);
    const totals = byFuel(fuelTotals(current));
    assert.deepEqual(byFuel(await store.cityTotals(id)), totals, `${step}: ${id}`);
    assert.deepEqual(byFuel(await store.citySums(id)), totals.map(({ fuel, count, sumTenths }) => ({ fuel, count, sumTenths })), `${step}: ${id}`);
    assert.deepEqual(cityUnavailable(await store.cityOutOfStock(id)), unavailableOf(current), `${step}: ${id}`);
  }
}

/**
 * Today's city means as storage totals them in one statement (parts.liveDay) equal those worked
 * out in JS from every station's rows (the parts read without a clock), fuel by fuel; the two
 * add the same doubles in another order, so they may differ in the last bits only. Returns how
 * many of the cities storage totalled (today was their only live day).
 */
export async function assertLiveDayMatchesRows(store: PriceStore, cityIds: readonly string[], nowSec: number, step = ''): Promise<number> {
  let totalledDays = 0;
  for (const id of cityIds) {
    const city = await store.city(id);
    assert.ok(city, `${step}: ${id}`);
    const range = timeframeWindow('last-week', localDayOf(city.state, nowSec));
    const totalled = await store.cityHistoryParts(id, range, nowSec);
    const fromRows = await store.cityHistoryParts(id, range);
    assert.equal(fromRows.liveDay, undefined);
    if (totalled.liveDay) totalledDays++;
    // In fuel id order: the answer lists fuels in FUELS order (history-json.ts), whatever order the maps hold them in.
    const series = (parts: typeof totalled): Array<[string, Array<[number, number]>]> =>
      [...cityHistory(city.state, parts, range, nowSec)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([fuel, days]) => [fuel, days.map((d) => [d.day, d.meanTenths])]);
    const a = series(totalled);
    const b = series(fromRows);
    assert.deepEqual(a.map(([fuel, days]) => [fuel, days.map(([day]) => day)]), b.map(([fuel, days]) => [fuel, days.map(([day]) => day)]), `${step}: ${id}`);
    a.forEach(([fuel, days], i) => days.forEach(([day, mean], j) => {
      const expected = b[i]?.[1][j]?.[1] ?? NaN;
      assert.ok(Math.abs(mean - expected) <= 1e-9 * Math.abs(expected), `${step}: ${id} ${fuel} day ${day}: ${mean} vs ${expected}`);
    }));
  }
  return totalledDays;
}

/** Every row of a table through the copy export, in key order. */
export async function allRows(store: PriceStore, table: CopyTable): Promise<CopyRow[]> {
  const all: CopyRow[] = [];
  for (let after: CopyKey | undefined, chunk: TableChunk; ; after = chunk.last) {
    chunk = await store.exportTable(table, after, 10_000);
    all.push(...chunk.rows);
    if (!chunk.last) return all;
  }
}

/**
 * The stored days of every station (station_daily rows and station_runs' whole days, as
 * stationDays gives them) against their definition worked out here from the stored reports:
 * each report's interval, to the next report or to the open interval's start, split by local
 * day, counted while available. Also that no day is stored twice (a row and a run, or two runs).
 * Returns how many station_runs rows there are.
 */
export async function assertDaysMatchReports(store: PriceStore, step = ''): Promise<number> {
  const stations = new Map((await allRows(store, 'stations')).map((s) => [Number(s.key), { id: String(s.id), state: s.state as StateId }]));
  const openFrom = new Map((await allRows(store, 'current_prices')).map((c) => [`${Number(c.station_key)}:${Number(c.fuel)}`, Number(c.open_from)]));
  const events = await allRows(store, 'price_events');
  const expected = new Map<string, Map<string, { weighted: number; seconds: number }>>();
  for (const [i, e] of events.entries()) {
    const next = events[i + 1];
    const group = `${Number(e.station_key)}:${Number(e.fuel)}`;
    const end = next && `${Number(next.station_key)}:${Number(next.fuel)}` === group ? Number(next.at) : openFrom.get(group);
    const station = stations.get(Number(e.station_key));
    assert.ok(station && end !== undefined, `${step}: ${group}`);
    if (Number(e.available) !== 1) continue;
    let days = expected.get(station.id);
    if (!days) expected.set(station.id, (days = new Map<string, { weighted: number; seconds: number }>()));
    for (const slice of splitByLocalDay(station.state, Number(e.at), end)) {
      const key = `${fuelAt(e.fuel)}:${slice.day}`;
      const sum = days.get(key) ?? { weighted: 0, seconds: 0 };
      sum.weighted += Number(e.price_tenths) * slice.seconds;
      sum.seconds += slice.seconds;
      days.set(key, sum);
    }
  }
  for (const { id } of stations.values()) {
    const stored = new Map<string, { weighted: number; seconds: number }>();
    for (const d of await store.stationDays(id, { from: null, to: 1_000_000 })) {
      const key = `${d.fuel}:${d.day}`;
      assert.ok(!stored.has(key), `${step}: ${id} ${key} is stored twice`);
      if (d.seconds > 0) stored.set(key, { weighted: d.weightedTenths, seconds: d.seconds });
    }
    const want = [...(expected.get(id) ?? new Map<string, { weighted: number; seconds: number }>())].sort(([a], [b]) => a.localeCompare(b));
    assert.deepEqual([...stored].sort(([a], [b]) => a.localeCompare(b)), want, `${step}: ${id}`);
  }
  return (await allRows(store, 'station_runs')).length;
}

/** The item at `index`, failing the test when there is none (instead of a non-null `!`). */
export function itemAt<T>(items: readonly T[], index: number): T {
  const item = items[index];
  assert.ok(item !== undefined, `no item at ${index} of ${items.length}`);
  return item;
}
