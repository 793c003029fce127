/**
 * `fuelprice serve` killed with SIGKILL under load, for test/ingest/kill.test.ts (one round)
 * and scripts/chaos.ts (many): the server runs on a SQLite file while an ingest process
 * (kill-child.ts, the crash feed) writes to the same file and concurrent clients read; after
 * the kill the file must pass its integrity checks, and a restarted server must answer 200
 * everywhere, with exactly the bodies it gave before for data the writer does not touch.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { openStore } from '../../src/storage/open.ts';
import { newToken } from '../../src/tokens.ts';
import { NOW, loadFixture } from '../fixture.ts';
import { type ServeProcess, startServe } from '../helpers.ts';
import { createDb, integrityProblems } from './kill-harness.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** Fixture data the crash feed never touches (its stations are all in Sydney): the same answer before and after. */
export const SEALED_PATHS = [
  '/v1/stations/alpha-sydney/history?timeframe=all-time', '/v1/stations/beta-sydney/history?timeframe=all-time',
  '/v1/stations/gamma-perth/history?timeframe=all-time', '/v1/cities/perth/history?timeframe=all-time',
  '/v1/cities/perth/spread', '/v1/stations/alpha-sydney',
];
/** Answers that move while the feed writes. */
const MOVING_PATHS = ['/v1/cities/sydney/spread', '/v1/cities/sydney/history?timeframe=last-month', '/v1/stations?limit=100', '/v1/cities'];

export interface ApiKillFigures {
  kills: number;
  /** Answers received before the kill; how many were load shed (503 unavailable with Retry-After); how many were anything else but 200. */
  answered: number;
  shed: number;
  non200: number;
  integrityFailures: number;
  /** Restarts after which every path answered 200. */
  cleanRestarts: number;
  /** Restarts after which a sealed path answered a different body. */
  changedAnswers: number;
  problems: string[];
}

export function emptyApiFigures(): ApiKillFigures {
  return { kills: 0, answered: 0, shed: 0, non200: 0, integrityFailures: 0, cleanRestarts: 0, changedAnswers: 0, problems: [] };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Load shedding's answer (src/http: over capacity), not a failure. */
function isShed(r: { status: number; text: string }): boolean {
  return r.status === 503 && r.text.includes('over capacity');
}

function startWriter(url: string): { child: ChildProcess; ready: Promise<void>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'ingest', 'kill-child.ts')], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => { if (chunk.toString().includes('ready')) resolve(); });
    void exited.then((code) => reject(new Error(`the writer exited (${code}) before it was ready`)));
  });
  return { child, ready, exited };
}

/** One round: load, kill, check, restart, compare. Adds to `figures`. */
export async function apiKillRound(options: { random: () => number; concurrency: number }, figures: ApiKillFigures): Promise<void> {
  const db = await createDb('sqlite');
  const created = newToken('chaos', NOW, { rateLimit: 1_000_000 });
  const env = { DATABASE_URL: db.url, FUELPRICE_NOW: new Date(NOW * 1000).toISOString() };
  const children: ChildProcess[] = [];
  try {
    const store = await openStore(db.url);
    try {
      await loadFixture(store);
      await store.createToken(created.record);
    } finally {
      await store.close();
    }
    let serve: ServeProcess = await startServe(['--port', '0'], env);
    children.push(serve.child);
    const fetchText = async (server: ServeProcess, path: string): Promise<{ status: number; text: string }> => {
      const response = await fetch(`${server.address}${path}`, { headers: { authorization: `Bearer ${created.token}` } });
      return { status: response.status, text: await response.text() };
    };
    /** A 200, waiting out load shedding (a loaded machine makes a starting server shed): 503 with Retry-After is its documented answer. */
    const settled = async (server: ServeProcess, path: string): Promise<{ status: number; text: string }> => {
      for (let attempt = 1; ; attempt++) {
        const r = await fetchText(server, path);
        if (!isShed(r) || attempt >= 50) return r;
        await sleep(200);
      }
    };
    const before = new Map<string, string>();
    for (const path of SEALED_PATHS) {
      const r = await settled(serve, path);
      if (r.status !== 200) throw new Error(`${path} answered ${r.status} before any fault: ${r.text}`);
      before.set(path, r.text);
    }

    const writer = startWriter(db.url);
    children.push(writer.child);
    await writer.ready;
    let killed = false;
    const paths = [...SEALED_PATHS, ...MOVING_PATHS];
    const loops = Array.from({ length: options.concurrency }, async (_, i) => {
      for (let n = i; !killed; n++) {
        const path = paths[n % paths.length] ?? '/v1/cities';
        try {
          const r = await fetchText(serve, path);
          if (killed) return;
          figures.answered++;
          if (isShed(r)) {
            figures.shed++;
          } else if (r.status !== 200) {
            figures.non200++;
            figures.problems.push(`${path} answered ${r.status} under load: ${r.text.slice(0, 200)}`);
          } else if (before.has(path) && r.text !== before.get(path)) {
            figures.changedAnswers++;
            figures.problems.push(`${path} changed under load`);
          }
        } catch (error) {
          // Connections refused or reset are what a killed server gives; before the kill they are failures.
          if (!killed) figures.problems.push(`${path}: ${error instanceof Error ? error.message : String(error)} before the kill`);
          return;
        }
      }
    });
    await sleep(50 + Math.floor(options.random() * 400));
    killed = true;
    serve.child.kill('SIGKILL');
    await serve.exited;
    figures.kills++;
    await Promise.all(loops);
    await writer.exited;

    const problems = await integrityProblems(db.url);
    if (problems.length > 0) {
      figures.integrityFailures++;
      figures.problems.push(`API kill ${figures.kills}: ${problems.join('; ')}`);
    }
    serve = await startServe(['--port', '0'], env);
    children.push(serve.child);
    let all200 = true;
    for (const path of paths) {
      const r = await settled(serve, path);
      if (r.status !== 200) {
        all200 = false;
        figures.problems.push(`after the restart ${path} answered ${r.status}: ${r.text.slice(0, 200)}`);
      }
      if (before.has(path) && r.text !== before.get(path)) {
        figures.changedAnswers++;
        figures.problems.push(`after the restart ${path} answered a different body`);
      }
    }
    if (all200) figures.cleanRestarts++;
    serve.child.kill('SIGTERM');
    await serve.exited;
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await db.drop();
  }
}
