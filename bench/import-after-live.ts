/**
 * What importing a NSW history month costs after the live feed, against importing it into an
 * empty database (issue 46, item 6: at most 1.5 times). Each round, side by side:
 *
 *   empty: a fresh database, `fuelprice migrate`, then the timed `fuelprice import nsw-history MONTH`;
 *   live:  a copy of a database that first ran `fuelprice ingest nsw` once against the real
 *          FuelCheck answer of 30 June 2024 (../shared/realdata/nsw_fuelcheck_api_prices_json,
 *          served by a fake of the API on a loopback port: 2,849 stations, reports back to 2018,
 *          every state sealed up to the clock's today), then the same timed import.
 *
 * Only the import is timed, by GNU time (user + system CPU, wall, peak RSS). The ratio is taken
 * round by round (live / empty, the two measured one after the other) and its median printed:
 * the machine is shared, so absolute seconds drift between runs while the ratio holds better.
 * The clock is fixed (FUELPRICE_NOW) so that every round seals the same days.
 *
 *   npm run build && npx tsx bench/import-after-live.ts [--rounds 3] [--month FILE] [--postgres URL]
 *
 * --postgres URL (a server URL; a database is created per side and round, and dropped) measures
 * the same on PostgreSQL, and beside the import process's CPU the server's: the CPU of the
 * server processes serving the import's database (user + system, read from /proc every 100 ms
 * while the import runs, so only when the server runs on this machine; a backend's last 100 ms
 * may be missed). The total (import + server) is what the ratio of the total compares.
 * Bounded: at most 9 rounds, each command killed after 600 s.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { createPostgresDatabase, postgresAdmin } from '../test/helpers.ts';
import { FakeFeedServer } from '../test/fakes/server.ts';
import { scriptArgs } from './cli.ts';
import { median } from './stats.ts';

const ROOT = resolve(import.meta.dirname, '..');
const REALDATA = resolve(ROOT, '..', 'shared', 'realdata');
const { usage, numberOption } = scriptArgs('import-after-live', 'npx tsx bench/import-after-live.ts [--rounds N] [--month FILE] [--postgres URL]');
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    month: { type: 'string', default: join(REALDATA, 'nsw_fuelcheck_monthly_xlsx', 'price_history_checks_apr2020.xlsx') },
    postgres: { type: 'string' },
  },
});
const rounds = Math.round(numberOption(values.rounds, 'rounds', 1, 9));
const month = resolve(values.month);
if (!existsSync(month)) usage(`no file ${month}`);
const ANSWER = join(REALDATA, 'nsw_fuelcheck_api_prices_json', 'data.json');
if (!existsSync(ANSWER)) usage(`no ${ANSWER}`);
const BIN = join(ROOT, 'bin', 'fuelprice.js');
const NOW = '2026-11-26T12:00:00Z';
const TIMEOUT_MS = 600_000;
const run = promisify(execFile);

const built = join(ROOT, 'dist', 'src', 'main.js');
if (!existsSync(built) || statSync(built).mtimeMs < newest(join(ROOT, 'src'))) {
  process.stderr.write('import-after-live: dist/ is older than src/ (the command would run the sources through tsx): run `npm run build` first\n');
}

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

interface Timed { cpu: number; wall: number; peakMb: number; summary: string; serverCpu?: number }

/**
 * The CPU seconds (user + system) of the local server processes serving database `name`, sampled
 * every 100 ms until stop(): the most each process reached. Undefined when none was seen (a
 * server on another machine, or /proc not readable).
 */
function serverCpu(name: string): { stop: () => number | undefined } {
  const seen = new Map<number, number>();
  const tick = Number(process.env.CLK_TCK ?? 100);
  const sample = (): void => {
    let pids: string[];
    try { pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p)); } catch { return; }
    for (const pid of pids) {
      try {
        // A backend's title: "postgres: [cluster: ]user database host(port) state".
        const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!title.startsWith('postgres: ') || !title.includes(` ${name} `)) continue;
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        seen.set(Number(pid), (Number(fields[11]) + Number(fields[12])) / tick);
      } catch { /* the process ended */ }
    }
  };
  const timer = setInterval(sample, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return seen.size === 0 ? undefined : [...seen.values()].reduce((a, b) => a + b, 0);
    },
  };
}

/** One fuelprice command (run asynchronously: the fake FuelCheck answers from this process); timed by GNU time when `timed`. */
async function fuelprice(databaseUrl: string, args: string[], env: Record<string, string> = {}, timed = false): Promise<Timed> {
  const command = timed ? ['/usr/bin/time', '-f', '%e %U %S %M', process.execPath, BIN, ...args] : [process.execPath, BIN, ...args];
  let stderr: string;
  const server = timed && databaseUrl.startsWith('postgres') ? serverCpu(new URL(databaseUrl).pathname.slice(1)) : undefined;
  let serverSeconds: number | undefined;
  try {
    ({ stderr } = await run(command[0] as string, command.slice(1), {
      env: { ...process.env, ...env, DATABASE_URL: databaseUrl, FUELPRICE_NOW: NOW, LOG_LEVEL: 'warn' },
      encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: TIMEOUT_MS,
    }));
  } catch (error) {
    const output = (error as { stderr?: unknown }).stderr;
    const said = typeof output === 'string' ? output.slice(-2000) : '';
    throw new Error(`fuelprice ${args.join(' ')} failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)} ${said}`, { cause: error });
  } finally {
    serverSeconds = server?.stop();
  }
  const lines = stderr.trim().split('\n');
  const summary = lines.filter((l) => l.includes(' rows read = ')).pop() ?? '';
  if (!timed) return { cpu: 0, wall: 0, peakMb: 0, summary };
  const [wall = 'NaN', user = 'NaN', system = 'NaN', kb = 'NaN'] = (lines.pop() ?? '').split(' ');
  return { cpu: Number(user) + Number(system), wall: Number(wall), peakMb: Number(kb) / 1024, summary, ...(serverSeconds === undefined ? {} : { serverCpu: serverSeconds }) };
}

/** The fake FuelCheck: a token for any credentials, and the captured answer for /prices and /prices/new. */
async function startFuelCheck(): Promise<FakeFeedServer> {
  const body = readFileSync(ANSWER, 'utf8');
  const server = new FakeFeedServer((request) => {
    if (request.path === '/oauth/client_credential/accesstoken') return { body: JSON.stringify({ access_token: 'bench', expires_in: '43199' }) };
    if (request.path.startsWith('/FuelPriceCheck/v2/fuel/prices')) return { body };
    return { status: 404, body: '{}' };
  });
  await server.start();
  return server;
}

/** Where each side's databases come from: SQLite files in a temporary folder, or databases on a PostgreSQL server. */
interface Backend {
  /** A new, migrated, empty database. */
  empty(): Promise<{ url: string; drop: () => Promise<void> }>;
  /** A copy of `template`. */
  copy(template: string): Promise<{ url: string; drop: () => Promise<void> }>;
  close(): Promise<void>;
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-import-after-live-'));
  let n = 0;
  const file = (): string => join(dir, `db-${++n}.db`);
  return {
    empty: async () => {
      const path = file();
      await fuelprice(`sqlite:${path}`, ['migrate']);
      return { url: `sqlite:${path}`, drop: () => Promise.resolve(rmSync(path, { force: true })) };
    },
    copy: (template) => {
      const path = file();
      copyFileSync(template.replace(/^sqlite:/, ''), path);
      return Promise.resolve({ url: `sqlite:${path}`, drop: () => Promise.resolve(rmSync(path, { force: true })) });
    },
    close: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

function postgresBackend(server: string): Backend {
  return {
    empty: async () => {
      const db = await createPostgresDatabase(server);
      await fuelprice(db.url, ['migrate']);
      return db;
    },
    copy: async (template) => {
      const name = `fuelprice_bench_${Math.random().toString(16).slice(2, 14)}`;
      const from = new URL(template).pathname.slice(1);
      await postgresAdmin(server, (c) => c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(from)}`));
      const url = new URL(server);
      url.pathname = `/${name}`;
      return { url: url.toString(), drop: () => postgresAdmin(server, (c) => c.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)).then(() => undefined) };
    },
    close: () => Promise.resolve(),
  };
}

/** The import's CPU and, when measured, its server's. */
function total(t: Timed): number {
  return t.cpu + (t.serverCpu ?? 0);
}

const backend = values.postgres ? postgresBackend(values.postgres) : sqliteBackend();
const fake = await startFuelCheck();
const live = await backend.empty();
try {
  const feed = { NSW_FUELCHECK_URL: fake.url, NSW_FUELCHECK_API_KEY: 'bench', NSW_FUELCHECK_API_SECRET: 'bench' };
  await fuelprice(live.url, ['ingest', 'nsw'], feed);
  const load = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const rows: Array<{ empty: Timed; live: Timed; load: string }> = [];
  for (let round = 1; round <= rounds; round++) {
    const before = load();
    const a = await backend.empty();
    const b = await backend.copy(live.url);
    try {
      const empty = await fuelprice(a.url, ['import', 'nsw-history', month], {}, true);
      const after = await fuelprice(b.url, ['import', 'nsw-history', month], {}, true);
      rows.push({ empty, live: after, load: before });
      const server = (t: Timed): string => (t.serverCpu === undefined ? '' : ` + server ${t.serverCpu.toFixed(2)} s`);
      console.log(`round ${round} (load ${before}): empty ${empty.cpu.toFixed(2)} s CPU${server(empty)} (${empty.wall.toFixed(1)} s wall), `
        + `after live ${after.cpu.toFixed(2)} s CPU${server(after)} (${after.wall.toFixed(1)} s wall): ${(after.cpu / empty.cpu).toFixed(2)}x`
        + `${empty.serverCpu !== undefined && after.serverCpu !== undefined ? `, total ${(total(after) / total(empty)).toFixed(2)}x` : ''}`);
    } finally {
      await a.drop();
      await b.drop();
    }
  }
  const last = rows[rows.length - 1];
  console.log(`\n${values.postgres ? 'PostgreSQL' : 'SQLite'}, ${month.split('/').pop()}, ${rounds} rounds, CPU = user + system of the import process:`);
  console.log(`  into an empty database: median ${median(rows.map((r) => r.empty.cpu)).toFixed(2)} s CPU, ${median(rows.map((r) => r.empty.wall)).toFixed(1)} s wall, ${median(rows.map((r) => r.empty.peakMb)).toFixed(0)} MB peak`);
  console.log(`  after the live feed:    median ${median(rows.map((r) => r.live.cpu)).toFixed(2)} s CPU, ${median(rows.map((r) => r.live.wall)).toFixed(1)} s wall, ${median(rows.map((r) => r.live.peakMb)).toFixed(0)} MB peak`);
  console.log(`  ratio (round by round, median): ${median(rows.map((r) => r.live.cpu / r.empty.cpu)).toFixed(2)}x CPU, ${median(rows.map((r) => r.live.wall / r.empty.wall)).toFixed(2)}x wall`);
  if (rows.every((r) => r.empty.serverCpu !== undefined && r.live.serverCpu !== undefined)) {
    console.log(`  server CPU (its processes serving the import's database): median ${median(rows.map((r) => r.empty.serverCpu ?? 0)).toFixed(2)} s empty, ${median(rows.map((r) => r.live.serverCpu ?? 0)).toFixed(2)} s after the live feed`);
    console.log(`  ratio of the total (import + server CPU, round by round, median): ${median(rows.map((r) => total(r.live) / total(r.empty))).toFixed(2)}x`);
  }
  console.log(`  empty:      ${last?.empty.summary ?? ''}`);
  console.log(`  after live: ${last?.live.summary ?? ''}`);
} finally {
  await live.drop();
  await backend.close();
  await fake.close();
}
