/**
 * The servers the bench starts, each in its own process: spawning one and waiting for the
 * address it announces, stopping it by its own pid, and reading its peak memory. Every child
 * is remembered so that a bench that fails or is interrupted leaves none running.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NOW_ISO } from './datasets.ts';

export const BENCH_DIR = import.meta.dirname;
export const ROOT_DIR = join(BENCH_DIR, '..');

export interface Started {
  child: ChildProcess;
  pid: number;
  address: string;
  /** Milliseconds from spawn to the address being announced. */
  announcedMs: number;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of running) child.kill('SIGKILL');
    process.exit(130);
  });
}

/** The environment of every server: fixed clock, no Redis, little logging. */
export function serverEnv(databasePath: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: `sqlite:${databasePath}`, FUELPRICE_NOW: NOW_ISO, LOG_LEVEL: 'warn' };
  delete env.REDIS_URL;
  return env;
}

/**
 * Spawns `node ARGS` and resolves once `pattern` matches its stdout or stderr (the first
 * group is the address). Fails if the process ends first or says nothing for `timeoutMs`.
 */
export function startProcess(args: string[], env: NodeJS.ProcessEnv, pattern: RegExp, timeoutMs = 120_000, stdoutFd?: number): Promise<Started> {
  const started = performance.now();
  // stdout to a file (a service manager's log) when given: the address is then looked for on stderr only.
  const child = spawn(process.execPath, args, { cwd: ROOT_DIR, env, stdio: ['ignore', stdoutFd ?? 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise<Started>((resolve, reject) => {
    let output = '';
    let done = false;
    const timer = setTimeout(() => fail(new Error(`no address after ${timeoutMs} ms from node ${args.join(' ')}:\n${output}`)), timeoutMs);
    const fail = (error: Error): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      // Keep reading (and dropping) output after the address, so a full pipe never blocks the child.
      if (done) return;
      output += chunk.toString();
      const match = pattern.exec(output);
      if (!match?.[1] || child.pid === undefined) return;
      done = true;
      clearTimeout(timer);
      resolve({ child, pid: child.pid, address: match[1], announcedMs: performance.now() - started });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => fail(new Error(`node ${args.join(' ')} exited (${code ?? signal}) before announcing an address:\n${output}`)));
  });
}

/** bench/server.ts compiled by `npm run build` (tsconfig.build.json), run by plain node as `serve` runs from dist. */
const BUILT_SERVER = join(ROOT_DIR, 'dist', 'bench', 'server.js');
/** The compiled command, which bin/fuelprice.js runs only while it is newer than every source file. */
const BUILT_MAIN = join(ROOT_DIR, 'dist', 'src', 'main.js');
let built = false;

/**
 * Compiles src and bench/server.ts into dist unless dist is newer than every source file
 * already, once per bench process: the server under test then carries no TypeScript compiler
 * (tsx) in its memory or its start time, and never runs code older than the sources. Called
 * again before each server starts, it fails if a source file changed since: bin/fuelprice.js
 * would then run the sources through tsx, and later groups would measure other code.
 */
export function ensureBuilt(): void {
  const newestSource = Math.max(newestMtime(join(ROOT_DIR, 'src')), statSync(join(BENCH_DIR, 'server.ts')).mtimeMs);
  const stale = [BUILT_SERVER, BUILT_MAIN].some((file) => !existsSync(file) || statSync(file).mtimeMs < newestSource);
  if (built) {
    if (stale) {
      throw new Error('a source file changed during the bench (it is newer than dist/): the servers started from now on would not run the build '
        + 'the earlier groups measured (bin/fuelprice.js would run the sources through tsx); start the bench again without editing src/');
    }
    return;
  }
  if (stale) {
    console.log('building dist (npm run build) so that servers run compiled code...');
    execFileSync(process.execPath, [join(ROOT_DIR, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      { cwd: ROOT_DIR, stdio: 'inherit' });
  }
  built = true;
}

/** Whether another checkout's build is at least as new as its sources, as bin/fuelprice.js asks before it runs dist. */
function builtFresh(root: string): boolean {
  const main = join(root, 'dist', 'src', 'main.js');
  return existsSync(main) && statSync(main).mtimeMs >= newestMtime(join(root, 'src'));
}

function newestMtime(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** The compiled bench/server.ts on one dataset, answer cache on or off, load shedding past `maxEventLoopDelayMs` (0: off). */
export function startBenchServer(databasePath: string, cache: boolean, maxEventLoopDelayMs = 0): Promise<Started> {
  ensureBuilt();
  return startProcess([BUILT_SERVER, '--db', databasePath, '--cache', cache ? 'on' : 'off',
    '--max-event-loop-delay-ms', String(maxEventLoopDelayMs)], serverEnv(databasePath), /^(http:\/\/\S+)\n/);
}

/** Resident set size of a live process now, in bytes (VmRSS of /proc/PID/status, Linux only). */
export function rssBytes(pid: number): number | undefined {
  return statusBytes(pid, 'VmRSS');
}

/** A size field of /proc/PID/status in bytes, or undefined when the process or the field is gone. */
function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `fuelprice serve` exactly as shipped: the environment a user gives it (DATABASE_URL) and
 * nothing else of ours, so the default LOG_LEVEL (info: a line a request) and load shedding,
 * with its log (stdout) going to a file as under a service manager. The fixed clock is the one
 * addition, so that its answers are the bytes the ceiling replays; `logLevel` overrides the
 * default for a comparison. `root`: another checkout's build (bench/compare.ts --shipped), run
 * only when its dist/ is at least as new as its src/.
 */
export function startShippedServe(databasePath: string, logPath: string, logLevel?: string, root = ROOT_DIR): Promise<Started> {
  if (root === ROOT_DIR) ensureBuilt();
  else if (!builtFresh(root)) throw new Error(`${root}: its dist/ is older than its src/ (bin/fuelprice.js would run the sources through tsx): run npm run build there first`);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: `sqlite:${databasePath}`, FUELPRICE_NOW: NOW_ISO };
  if (logLevel !== undefined) env.LOG_LEVEL = logLevel;
  const fd = openSync(logPath, 'w');
  return startProcess([join(root, 'bin', 'fuelprice.js'), 'serve', '--port', '0', '--host', '127.0.0.1'], env, /serving on (http:\/\/\S+)/, 120_000, fd)
    .finally(() => closeSync(fd));
}

/** bench/ceiling.ts serving the answers recorded in `answersPath`. */
export function startCeiling(answersPath: string, through: 'node:http' | 'fastify' = 'node:http'): Promise<Started> {
  return startProcess(['--import', 'tsx', join(BENCH_DIR, 'ceiling.ts'), answersPath, ...(through === 'fastify' ? ['--fastify'] : [])],
    { ...process.env }, /^(http:\/\/\S+)\n/);
}

/** `node bin/fuelprice.js serve`, what users run (through tsx, its compile cache off). */
export function startFuelpriceServe(databasePath: string): Promise<Started> {
  ensureBuilt(); // bin/fuelprice.js runs dist when it is fresh, as after `npm install`
  return startProcess([join(ROOT_DIR, 'bin', 'fuelprice.js'), 'serve', '--port', '0', '--host', '127.0.0.1'],
    serverEnv(databasePath), /serving on (http:\/\/\S+)/);
}

/** SIGTERM, then SIGKILL if it has not ended within `graceMs`; resolves once it has exited. */
export async function stopProcess(started: Started, graceMs = 10_000): Promise<void> {
  const { child } = started;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Peak resident set size of a live process, in bytes (VmHWM of /proc/PID/status, Linux only). */
export function peakRssBytes(pid: number): number | undefined {
  return statusBytes(pid, 'VmHWM');
}

/**
 * CPU time (user + system, every thread) a live process has used so far, in ms: fields 14 and
 * 15 of /proc/PID/stat, in clock ticks of 10 ms (Linux only; NaN where it cannot be read).
 */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}
