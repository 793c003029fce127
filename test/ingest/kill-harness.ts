/**
 * kill -9 at random points, many times, for test/ingest/kill.test.ts (a few kills) and
 * scripts/chaos.ts (as many as asked). An ingest process is started on a database, killed
 * after a seeded random delay, and the database is then checked: intact (SQLite's
 * integrity_check and foreign_key_check, orphan queries on both backends, the store opens),
 * holding exactly the state of an uninterrupted run cut after some whole batch, never behind
 * what it held before (nothing lost), and, once a run is let finish, equal to the uninterrupted
 * run's end. The states of an uninterrupted run are computed once per scenario, as dumps.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ensureCities } from '../../src/ingest/cities.ts';
import type { FeedAdapter } from '../../src/ingest/feed.ts';
import { qldAdapter } from '../../src/ingest/feeds/fpd.ts';
import { runFeed } from '../../src/ingest/runner.ts';
import { openStore } from '../../src/storage/open.ts';
import { COPY_ORDER, type PriceStore } from '../../src/storage/store.ts';
import { type FpdFake, FPD_TEST_TOKENS, startFpdFake } from '../fakes/fpd.ts';
import { NOW } from '../fixture.ts';
import { BIN, createPostgresDatabase, postgresServerUrl } from '../helpers.ts';
import { BATCHES, crashAdapter, prepare, silentLog } from './crash-feed.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** A small seeded generator (mulberry32): the same seed gives the same kill points. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Every stored row, with station keys (which PostgreSQL's sequences do not give back after a
 * rollback) replaced by station ids: equal dumps mean the same data whatever the keys. The data
 * version is left out: a new random number at each write (storage/versions.ts), it tells that the
 * data changed, and two databases with the same rows have different ones.
 */
export async function dump(store: PriceStore): Promise<string> {
  const ids = new Map<number, string>();
  const out: Record<string, unknown[]> = {};
  for (const table of COPY_ORDER) {
    const rows: unknown[] = [];
    for (let after: Array<string | number> | undefined, done = false; !done;) {
      const chunk = await store.exportTable(table, after, 5_000);
      for (const row of chunk.rows) {
        if (table === 'stations') ids.set(Number(row.key), String(row.id));
        const { key, station_key: stationKey, ...rest } = row;
        rows.push(table === 'stations' ? rest : stationKey === undefined ? { key, ...rest } : { station: ids.get(Number(stationKey)), ...rest });
      }
      done = chunk.rows.length < 5_000 || !chunk.last;
      after = chunk.last;
    }
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  out.meta = (out.meta ?? []).filter((row) => !String(row).includes('"data_version"'));
  return JSON.stringify(out);
}

/**
 * A dump with each city mean cut to 12 significant digits. PostgreSQL's avg() over double
 * precision used to add in scan order, so the same rows laid out differently on disk (after a
 * rolled back transaction, say) could give a mean differing in its last bits; it now adds in
 * station order, as SQLite does (sql/city-means.ts, written once for both). The cut stays as a guard that `npm run chaos` counts
 * apart, so a regression shows as a number; the API rounds means to cents long before that.
 * Everything else is compared exactly.
 */
export function canonical(text: string): string {
  const rows = JSON.parse(text) as Record<string, string[]>;
  rows.city_runs = (rows.city_runs ?? []).map((row) => {
    const parsed = JSON.parse(row) as { mean_tenths: number };
    return JSON.stringify({ ...parsed, mean_tenths: Number(parsed.mean_tenths.toPrecision(12)) });
  }).sort();
  return JSON.stringify(rows);
}

export async function canonicalDump(store: PriceStore): Promise<string> {
  return canonical(await dump(store));
}

export async function dumpOf(url: string): Promise<string> {
  const store = await openStore(url, { migrate: false });
  try {
    return await dump(store);
  } finally {
    await store.close();
  }
}

export type BackendName = 'sqlite' | 'postgres';
export interface Db { url: string; drop(): Promise<void> }

/** A fresh empty database: a file in a temporary folder, or a new database on the test server. */
export async function createDb(backend: BackendName): Promise<Db> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-kill-'));
    return { url: `sqlite:${join(dir, 'kill.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const server = postgresServerUrl();
  if (!server) throw new Error('PostgreSQL was asked for: set FUELPRICE_TEST_POSTGRES (see CONTRIBUTING.md, Test)');
  return createPostgresDatabase(server);
}

/** Rows that point at nothing: none may exist in a consistent database (same SQL on both backends). */
const ORPHAN_QUERIES: ReadonlyArray<readonly [string, string]> = [
  ['price events of no station', 'SELECT count(*) AS n FROM price_events e WHERE NOT EXISTS (SELECT 1 FROM stations s WHERE s.key = e.station_key)'],
  ['current prices of no station', 'SELECT count(*) AS n FROM current_prices c WHERE NOT EXISTS (SELECT 1 FROM stations s WHERE s.key = c.station_key)'],
  ['daily values of no station', 'SELECT count(*) AS n FROM station_daily d WHERE NOT EXISTS (SELECT 1 FROM stations s WHERE s.key = d.station_key)'],
  ['stations of no known city', 'SELECT count(*) AS n FROM stations s WHERE s.city_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM cities c WHERE c.id = s.city_id)'],
  ['city means of no city', 'SELECT count(*) AS n FROM city_runs d WHERE NOT EXISTS (SELECT 1 FROM cities c WHERE c.id = d.city_id)'],
  ['current prices without their report', 'SELECT count(*) AS n FROM current_prices c WHERE NOT EXISTS '
    + '(SELECT 1 FROM price_events e WHERE e.station_key = c.station_key AND e.fuel = c.fuel AND e.at = c.reported_at)'],
];

/** What is wrong with the database after a kill; [] when it is intact and the store opens on it. */
export async function integrityProblems(url: string): Promise<string[]> {
  const problems: string[] = [];
  if (url.startsWith('sqlite:')) {
    // Opening it read-write is what a restarted process does: the WAL is recovered first.
    const db = new Database(url.slice('sqlite:'.length));
    try {
      const check = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
      if (check.length !== 1 || check[0]?.integrity_check !== 'ok') problems.push(`integrity_check: ${JSON.stringify(check).slice(0, 300)}`);
      const foreign = db.pragma('foreign_key_check') as unknown[];
      if (foreign.length > 0) problems.push(`foreign_key_check: ${foreign.length} rows`);
      for (const [what, sql] of ORPHAN_QUERIES) {
        const n = Number((db.prepare(sql).get() as { n: number }).n);
        if (n > 0) problems.push(`${n} ${what}`);
      }
    } finally {
      db.close();
    }
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const [what, sql] of ORPHAN_QUERIES) {
        const n = Number((await client.query<{ n: string }>(sql)).rows[0]?.n);
        if (n > 0) problems.push(`${n} ${what}`);
      }
      const invalid = await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid '
        + "JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = 'public' AND NOT (i.indisvalid AND i.indisready)");
      if (Number(invalid.rows[0]?.n) > 0) problems.push(`${invalid.rows[0]?.n} invalid indexes`);
    } finally {
      await client.end();
    }
  }
  try {
    const store = await openStore(url);
    try {
      await store.ping();
      await store.counts();
    } finally {
      await store.close();
    }
  } catch (error) {
    problems.push(`the store does not open: ${error instanceof Error ? error.message : String(error)}`);
  }
  return problems;
}

/** A child process to kill, and when its work starts (the random delay counts from then). */
export interface Victim {
  child: ChildProcess;
  started: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function victim(child: ChildProcess, startedOn: 'ready-line' | 'spawn'): Victim {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-2_000); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const started = startedOn === 'spawn' ? Promise.resolve() : new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready\n')) resolve();
    });
    void exited.then(({ code }) => reject(new Error(`the ingest process exited (${code}) before it was ready: ${stderr}`)));
  });
  started.catch(() => undefined);
  return { child, started, exited };
}

/**
 * One feed's uninterrupted run, as states to compare a killed run with. A run is made of steps
 * (a feed's rounds, say); a step's run may stop after any batch, so a kill during step s may
 * leave any state from the one before the step to stepEnds[s].
 */
export interface KillScenario {
  readonly name: string;
  /** Dumps: references[i] is the database after i batches of an uninterrupted run. */
  readonly references: readonly string[];
  /** The reference index each step ends at. */
  readonly stepEnds: readonly number[];
  /** Kill points are drawn uniformly in [0, spanMs) after the victim has started (shortened to a run's length when one finishes first). */
  readonly spanMs: number;
  /** Sets a database up for a new round (the feed back at its start). */
  begin(url: string): Promise<void>;
  start(url: string, step: number): Victim;
  /** Runs step to its end, uninterrupted. */
  finish(url: string, step: number): Promise<void>;
  close(): Promise<void>;
}

/** The crash feed (crash-feed.ts): one step of BATCHES batches, each a few hundred stations' week of prices. */
export async function crashScenario(backend: BackendName): Promise<KillScenario> {
  const db = await createDb(backend);
  const references: string[] = [];
  let applyMs = 0;
  try {
    await prepare(db.url);
    references.push(await dumpOf(db.url));
    // One batch a run: the states an uninterrupted run passes through after each commit.
    const oneBatch: FeedAdapter = { ...crashAdapter, async pull(ctx) { return (await crashAdapter.pull(ctx)).slice(0, 1); } };
    const store = await openStore(db.url, { migrate: false });
    try {
      for (let b = 0; b < BATCHES; b++) {
        const started = Date.now();
        const run = await runFeed({ store, adapter: oneBatch, config: { url: '', credentials: {} }, clock: { now: () => NOW }, log: silentLog });
        applyMs += Date.now() - started;
        if (run.error) throw new Error(`reference run failed: ${run.error}`);
        references.push(await dump(store));
      }
    } finally {
      await store.close();
    }
  } finally {
    await db.drop();
  }
  return {
    name: `crash feed on ${backend}`,
    references,
    stepEnds: [BATCHES],
    // About as long as the whole run takes, so kills land before, between and inside batches.
    spanMs: Math.max(200, applyMs),
    begin: (url) => prepare(url),
    start: (url) => victim(spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'ingest', 'kill-child.ts')], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'pipe'],
    }), 'ready-line'),
    async finish(url) {
      const store = await openStore(url, { migrate: false });
      try {
        const run = await runFeed({ store, adapter: crashAdapter, config: { url: '', credentials: {} }, clock: { now: () => NOW }, log: silentLog });
        if (run.error) throw new Error(`finishing run failed: ${run.error}`);
      } finally {
        await store.close();
      }
    },
    close: async () => {},
  };
}

/** `fuelprice ingest qld` as a user runs it, against the FPD fake's current round. */
function ingestQld(url: string, fake: FpdFake): ChildProcess {
  return spawn(process.execPath, [BIN, 'ingest', 'qld'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', DATABASE_URL: url, FUELPRICE_NOW: new Date(fake.now * 1000).toISOString(),
      QLD_FPD_URL: fake.url, QLD_FPD_TOKEN: FPD_TEST_TOKENS.qld,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function ingestToEnd(url: string, fake: FpdFake): Promise<void> {
  const v = victim(ingestQld(url, fake), 'spawn');
  const { code } = await v.exited;
  if (code !== 0) throw new Error(`fuelprice ingest qld exited ${code}`);
}

/**
 * The states `fuelprice ingest qld` passes through, one per transaction it commits, made here
 * step by step as the command makes them: the towns (first run only), the feed's batch, the
 * release of held prices, the sealing of finished days. Returns them and where each round ends.
 */
async function qldReferences(url: string, fake: FpdFake): Promise<{ states: string[]; ends: number[] }> {
  const store = await openStore(url);
  const states = [await dump(store)];
  const ends: number[] = [];
  const push = async (): Promise<void> => {
    const state = await dump(store);
    if (state !== states[states.length - 1]) states.push(state);
  };
  try {
    await ensureCities(store);
    await push();
    for (let round = 1; round <= 2; round++) {
      if (round === 2) fake.advance();
      const now = fake.now;
      const run = await runFeed({
        store, adapter: qldAdapter, config: { url: fake.url, credentials: { QLD_FPD_TOKEN: FPD_TEST_TOKENS.qld } }, clock: { now: () => now }, log: silentLog,
      });
      if (run.error) throw new Error(`reference run failed: ${run.error}`);
      await push();
      await store.releaseDue(now);
      await push();
      await store.seal(now);
      await push();
      ends.push(states.length - 1);
    }
  } finally {
    await store.close();
  }
  return { states, ends };
}

/**
 * A real adapter end to end: `fuelprice ingest qld` (the CLI, in its own process) against the
 * FPD fake, two rounds; killed anywhere from start-up to exit.
 */
export async function qldScenario(backend: BackendName): Promise<KillScenario> {
  const db = await createDb(backend);
  let fake = await startFpdFake({ state: 'qld' });
  let references: { states: string[]; ends: number[] };
  try {
    references = await qldReferences(db.url, fake);
  } finally {
    await db.drop();
  }
  // How long one command takes here, start-up included: kill points are drawn over that.
  const timing = await createDb(backend);
  const startedAt = Date.now();
  try {
    await fake.close();
    fake = await startFpdFake({ state: 'qld' });
    await ingestToEnd(timing.url, fake);
  } finally {
    await timing.drop();
  }
  const runMs = Date.now() - startedAt;
  let round = 0;
  return {
    name: `fuelprice ingest qld on ${backend}`,
    references: references.states,
    stepEnds: references.ends,
    spanMs: Math.max(300, runMs),
    async begin(url) {
      await fake.close();
      fake = await startFpdFake({ state: 'qld' });
      round = 1;
      await (await openStore(url)).close();
    },
    start(url, step) {
      while (round < step + 1) {
        fake.advance();
        round++;
      }
      return victim(ingestQld(url, fake), 'spawn');
    },
    finish: (url) => ingestToEnd(url, fake),
    close: () => fake.close(),
  };
}

/** Which reference state a dump is closest to, and how it differs: the rows of each table found only on one side. */
export function nearest(state: string, references: readonly string[]): string {
  const rows = JSON.parse(state) as Record<string, string[]>;
  let best = { index: -1, distance: Number.POSITIVE_INFINITY, detail: '' };
  references.forEach((reference, index) => {
    const expected = JSON.parse(reference) as Record<string, string[]>;
    let distance = 0;
    const parts: string[] = [];
    for (const table of Object.keys(expected)) {
      const mine = new Set(rows[table] ?? []);
      const theirs = new Set(expected[table] ?? []);
      const extra = [...mine].filter((r) => !theirs.has(r));
      const missing = [...theirs].filter((r) => !mine.has(r));
      distance += extra.length + missing.length;
      if (extra.length + missing.length > 0) parts.push(`${table}: ${extra.length} extra (${(extra[0] ?? '').slice(0, 160)}), ${missing.length} missing (${(missing[0] ?? '').slice(0, 160)})`);
    }
    if (distance < best.distance) best = { index, distance, detail: parts.join('; ') };
  });
  return `closest to state ${best.index}: ${best.detail}`;
}

export interface KillFigures {
  /** Processes killed while running. */
  kills: number;
  /** Processes that had finished before their kill came (not counted as kills). */
  finishedFirst: number;
  integrityFailures: number;
  /** Kills after which the data matched no whole-batch state of an uninterrupted run. */
  halfApplied: number;
  /** Kills (and finished runs) whose data matched a whole-batch state only once city means were cut to 12 significant digits. */
  lastBitMeans: number;
  /** Kills after which fewer batches were stored than before (committed data lost). */
  wentBack: number;
  /** Runs let finish after kills whose data differed from the uninterrupted run's end. */
  finalMismatches: number;
  rounds: number;
  /** The span kill points were last drawn over, in ms. */
  spanMs: number;
  /** How many kills left the database after k batches, by k. */
  killedAfter: Record<number, number>;
  problems: string[];
}

export function emptyFigures(): KillFigures {
  return { kills: 0, finishedFirst: 0, integrityFailures: 0, halfApplied: 0, lastBitMeans: 0, wentBack: 0, finalMismatches: 0, rounds: 0, spanMs: 0, killedAfter: {}, problems: [] };
}

export interface KillOptions {
  backend: BackendName;
  /** Kills wanted in all. */
  kills: number;
  /** Kills per step of a round before the step is let finish (a fresh database each round). */
  killsPerStep: number;
  random: () => number;
  onKill?: (figures: KillFigures) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Kills, checks, resumes; rounds on fresh databases until `kills` processes have been killed. */
export async function killRounds(scenario: KillScenario, options: KillOptions, figures = emptyFigures()): Promise<KillFigures> {
  const target = figures.kills + options.kills;
  const canonicalReferences = scenario.references.map(canonical);
  /** The reference a dump is, exactly or once city means are cut (counted apart); -1 for none. */
  const match = (state: string): number => {
    const exact = scenario.references.indexOf(state);
    if (exact >= 0) return exact;
    const close = canonicalReferences.indexOf(canonical(state));
    if (close >= 0) figures.lastBitMeans++;
    return close;
  };
  // The machine's load changes how long a run takes: a whole step's run that finishes before its kill sets the span to its own length.
  let spanMs = scenario.spanMs;
  while (figures.kills < target) {
    const db = await createDb(options.backend);
    figures.rounds++;
    try {
      await scenario.begin(db.url);
      let at = 0;
      for (let step = 0; step < scenario.stepEnds.length; step++) {
        const end = scenario.stepEnds[step] ?? 0;
        const stepStart = at;
        for (let k = 0; k < options.killsPerStep && figures.kills < target && at < end; k++) {
          const wholeStep = at === stepStart;
          const v = scenario.start(db.url, step);
          await v.started;
          const startedAt = Date.now();
          let finishedAt: number | undefined;
          void v.exited.then(() => { finishedAt ??= Date.now(); });
          await sleep(Math.floor(options.random() * spanMs));
          const killed = v.child.kill('SIGKILL');
          const { code, signal } = await v.exited;
          if (!killed || signal !== 'SIGKILL') {
            figures.finishedFirst++;
            if (code !== 0) figures.problems.push(`${scenario.name}: a run exited with ${code ?? signal} by itself`);
            if (wholeStep) spanMs = Math.max(100, (finishedAt ?? Date.now()) - startedAt);
          } else {
            figures.kills++;
          }
          const problems = await integrityProblems(db.url);
          if (problems.length > 0) {
            figures.integrityFailures++;
            figures.problems.push(`${scenario.name}, kill ${figures.kills}: ${problems.join('; ')}`);
          }
          const state = await dumpOf(db.url);
          const index = match(state);
          if (index < 0) {
            figures.halfApplied++;
            figures.problems.push(`${scenario.name}, kill ${figures.kills}: the data matches no whole-batch state; ${nearest(state, scenario.references)}`);
          } else {
            if (index < at) {
              figures.wentBack++;
              figures.problems.push(`${scenario.name}, kill ${figures.kills}: ${index} batches stored, ${at} before`);
            }
            if (signal === 'SIGKILL') figures.killedAfter[index] = (figures.killedAfter[index] ?? 0) + 1;
            at = index;
          }
          figures.spanMs = spanMs;
          options.onKill?.(figures);
        }
        await scenario.finish(db.url, step);
        if (match(await dumpOf(db.url)) !== end) {
          figures.finalMismatches++;
          figures.problems.push(`${scenario.name}, round ${figures.rounds}: step ${step + 1} finished with data unlike the uninterrupted run's`);
        }
        at = end;
      }
    } finally {
      await db.drop();
    }
  }
  return figures;
}
