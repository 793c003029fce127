/**
 * Load runs (autocannon over loopback) and the side-by-side comparisons built from them.
 * On a shared, noisy machine an absolute figure says little from one run to the next, so every
 * figure is a ratio of two servers loaded alternately in the same run: A then B, `rounds`
 * times, and the median of the per-round ratios.
 */
import { inspect } from 'node:util';
import autocannon from 'autocannon';
import { cpuMs } from './processes.ts';
import { median, percentile, ratio } from './stats.ts';

export interface LoadSettings {
  seconds: number;
  connections: number;
  /** Each run also stops after this many requests, whichever comes first. */
  maxRequests: number;
}

/**
 * A run goes on past `seconds` until it has this many answers per connection, so that an
 * endpoint taking most of a second still gets a p99 from more than a handful of answers...
 */
const MIN_ANSWERS_PER_CONNECTION = 5;
/** ...but never past this, whatever it has. */
export function hardLimitSec(settings: LoadSettings): number {
  return Math.min(120, Math.max(30, settings.seconds * 10));
}

export interface LoadRun {
  requests: number;
  seconds: number;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers that were not 200, and connection errors or timeouts: any of either spoils the run. */
  non200: number;
  errors: number;
  /** True when the run went past `seconds` to collect enough answers (see MIN_ANSWERS_PER_CONNECTION). */
  extended: boolean;
}

/**
 * One run against one URL. Throughput is counted here (answers over the time to the last one)
 * rather than from autocannon's one-second samples, and latencies are kept unrounded, since
 * autocannon's histogram rounds to whole milliseconds and most answers here take less than one.
 * `minAnswers` (default: 5 per connection) extends the run past `seconds`, up to hardLimitSec.
 */
export async function loadRun(url: string, token: string, settings: LoadSettings, minAnswers = settings.connections * MIN_ANSWERS_PER_CONNECTION): Promise<LoadRun> {
  const { origin, pathname, search } = new URL(url.replaceAll(UNIQUE, UNIQUE_MARK));
  const target = `${pathname}${search}`.replaceAll(UNIQUE_MARK, UNIQUE);
  // `{n}` in the URL: each request its own number there, so that no two requests of the bench ask the same URL (an answer never kept).
  const requests: autocannon.Request[] | undefined = target.includes(UNIQUE)
    ? [{ setupRequest: (request: autocannon.Request) => ({ ...request, path: uniquePath(target) }) }] : undefined;
  const latencies = new Float64Array(settings.maxRequests + settings.connections);
  let count = 0;
  let non200 = 0;
  let lastAt = 0;
  let extended = false;
  const startedAt = performance.now();
  const run = await new Promise<LoadRun>((resolve, reject) => {
    const instance = autocannon({
      url: requests ? origin : url, connections: settings.connections, amount: settings.maxRequests, ...(requests ? { requests } : {}),
      // `amount` turns autocannon's own time limit off: the timer below is the time bound.
      duration: settings.seconds, sampleInt: 100,
      // autocannon's default 10 s would count a slow answer queued behind nine others as an error.
      timeout: hardLimitSec(settings),
      headers: { authorization: `Bearer ${token}` },
    }, (error: unknown, result) => {
      clearInterval(timer);
      if (error) {
        reject(error instanceof Error ? error : new Error(`autocannon failed: ${inspect(error)}`));
        return;
      }
      const sorted = latencies.subarray(0, Math.min(count, latencies.length)).sort();
      const seconds = (lastAt - startedAt) / 1000;
      resolve({
        requests: count, seconds, requestsPerSec: count > 0 ? count / seconds : 0,
        p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), non200, errors: result.errors, extended,
      });
    });
    const timer = setInterval(() => {
      const elapsedSec = (performance.now() - startedAt) / 1000;
      if (elapsedSec < settings.seconds) return;
      if (count < minAnswers && elapsedSec < hardLimitSec(settings)) {
        extended = true;
        return;
      }
      clearInterval(timer);
      instance.stop();
    }, 50);
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (count < latencies.length) latencies[count] = responseTime;
      count++;
      lastAt = performance.now();
      if (statusCode !== 200) non200++;
    });
  });
  await settle(requests ? `${origin}${uniquePath(target)}` : url, token);
  return run;
}

/** In a URL given to loadRun, stands for a number no other request of this process has had there. */
export const UNIQUE = '{n}';
const UNIQUE_MARK = 'UNIQUE-N';
let uniqueCount = 0;

function uniquePath(target: string): string {
  return target.replaceAll(UNIQUE, String(uniqueCount++));
}

/**
 * Stopping a run drops the requests in flight, but the server still works them out. One more
 * request to the same URL, queued behind them, returns once that work is done, so it is not
 * charged to whatever is measured next (the other side of a comparison).
 */
async function settle(url: string, token: string): Promise<void> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
  await response?.arrayBuffer().catch(() => undefined);
}

export interface Side {
  label: string;
  url: string;
  token: string;
  /** The process answering, when the bench started it: its CPU time per answer is measured too. */
  pid?: number;
}

export interface Round {
  a: LoadRun;
  b: LoadRun;
  requestsRatio: number;
  p99Ratio: number;
  /** CPU time (user + system) the side's process spent per answer in its run; NaN without a pid. */
  aCpuUs: number;
  bCpuUs: number;
}

export interface Comparison {
  a: Side;
  b: Side;
  rounds: Round[];
  /** Medians over the rounds; the ratios are medians of the per-round ratios, not ratios of medians. */
  median: {
    aRequestsPerSec: number; bRequestsPerSec: number; requestsRatio: number;
    aP50Ms: number; bP50Ms: number; aP99Ms: number; bP99Ms: number; p99Ratio: number;
    aCpuUs: number; bCpuUs: number;
  };
  /** Non-200 answers and errors over every run of either side. */
  failures: number;
}

/** Median summary of a list of rounds. */
export function summarise(rounds: readonly Round[]): Comparison['median'] {
  const of = (pick: (round: Round) => number): number => median(rounds.map(pick));
  return {
    aRequestsPerSec: of((r) => r.a.requestsPerSec), bRequestsPerSec: of((r) => r.b.requestsPerSec), requestsRatio: of((r) => r.requestsRatio),
    aP50Ms: of((r) => r.a.p50Ms), bP50Ms: of((r) => r.b.p50Ms), aP99Ms: of((r) => r.a.p99Ms), bP99Ms: of((r) => r.b.p99Ms), p99Ratio: of((r) => r.p99Ratio),
    aCpuUs: of((r) => r.aCpuUs), bCpuUs: of((r) => r.bCpuUs),
  };
}

/**
 * A against B: a short unmeasured warm-up of each (fills caches, JIT, connections), then
 * `rounds` alternations, A then B in even rounds and B then A in odd ones: the machine's speed
 * drifts within a run (it speeds up under sustained load, other tenants come and go), and a
 * fixed order put that drift on whichever side always went first.
 */
export async function compare(a: Side, b: Side, rounds: number, settings: LoadSettings): Promise<Comparison> {
  const warmUp = { ...settings, seconds: Math.min(1, settings.seconds / 2) };
  await loadRun(a.url, a.token, warmUp, 2 * settings.connections);
  await loadRun(b.url, b.token, warmUp, 2 * settings.connections);
  const done: Round[] = [];
  for (let i = 0; i < rounds; i++) {
    const first = i % 2 === 0 ? a : b;
    const second = first === a ? b : a;
    const runFirst = await timedRun(first, settings);
    const runSecond = await timedRun(second, settings);
    const [runA, runB] = first === a ? [runFirst, runSecond] : [runSecond, runFirst];
    done.push({
      a: runA.run, b: runB.run, requestsRatio: ratio(runA.run.requestsPerSec, runB.run.requestsPerSec), p99Ratio: ratio(runA.run.p99Ms, runB.run.p99Ms),
      aCpuUs: runA.cpuUs, bCpuUs: runB.cpuUs,
    });
  }
  const failures = done.reduce((sum, r) => sum + r.a.non200 + r.a.errors + r.b.non200 + r.b.errors, 0);
  return { a, b, rounds: done, median: summarise(done), failures };
}

/**
 * The comparisons of the same two sides from several starts of their processes as one: every
 * round of every start, medians over all of them (the sides' labels are the first start's).
 */
export function mergeStarts(starts: readonly Comparison[]): Comparison {
  const first = starts[0];
  if (!first) throw new Error('mergeStarts: no comparison to merge');
  const rounds = starts.flatMap((c) => c.rounds);
  return { a: first.a, b: first.b, rounds, median: summarise(rounds), failures: starts.reduce((sum, c) => sum + c.failures, 0) };
}

/**
 * One run of a side, with the CPU time its process spent per answer (the settling request
 * included, one in thousands): what ratios of requests a second hide, since the load generator
 * shares the machine's cores with the server and its own cost caps both sides alike. Used by
 * compare() here and by bench/compare.ts.
 */
export async function timedRun(side: Side, settings: LoadSettings): Promise<{ run: LoadRun; cpuUs: number }> {
  const before = side.pid === undefined ? NaN : cpuMs(side.pid);
  const run = await loadRun(side.url, side.token, settings);
  const after = side.pid === undefined ? NaN : cpuMs(side.pid);
  return { run, cpuUs: run.requests > 0 ? (after - before) * 1000 / run.requests : NaN };
}
