/**
 * Side by side: two or more server processes answering one path, loaded alternately from this
 * process (autocannon over loopback, bounded as the bench's runs are; each round starts with the
 * next side), with the CPU time each server process spent per answer (user + system,
 * /proc/PID/stat, Linux only). For measuring a change against the commit before it in the same
 * run, as docs/PERFORMANCE.md does:
 *
 *   git worktree add /tmp/before HEAD~1 && ln -s "$PWD/node_modules" /tmp/before/
 *   (cd /tmp/before && npx tsc -p tsconfig.build.json) && npm run build
 *   node --import tsx bench/compare.ts --dataset au-10y --path /v1/cities -- \
 *     --import tsx bench/ceiling.ts '$ANSWERS' -- \
 *     /tmp/before/dist/bench/server.js --db '$DB' --cache on -- \
 *     dist/bench/server.js --db '$DB' --cache on
 *
 * Each side is node's arguments; `$DB` stands for the dataset's file and `$ANSWERS` for the
 * answers the last `npm run bench` recorded on it (what the ceiling serves). The first side is
 * the reference of the ratios. On this shared machine the same build measures up to a third
 * apart from one minute to the next: only sides measured in the same run compare.
 *
 * `--starts K` starts every side K times, one after the other, each time for `--rounds`
 * rounds: on some machines two builds compare one way in one run and the other way in the next,
 * each run steady over its rounds (along on 2026-11-28: 318 against 218 µs of CPU an answer, then
 * 205 against 240), which one start cannot tell from the change being measured. The medians are
 * then over every round of every start, and each start's own ratios are printed too.
 *
 * `--path` may be given several times: every round then loads each path on every side in turn.
 * A `{n}` in a path is a number no other request of the run has had there, so that each
 * request asks a URL of its own (never answered from the answer cache): an uncached search,
 * e.g. `/v1/prices/cheapest?fuel=ulp91&near=-33.8688,151.2{n}`.
 *
 * `--shipped`: each side is a checkout (one word: its folder) whose `fuelprice serve` is run
 * as shipped (bench/processes.ts startShippedServe: LOG_LEVEL unset, so a line a request, to a
 * file in bench/out/), from its build: `npm run build` in each first. Two builds side by side:
 *
 *   git worktree add /tmp/before main && ln -s "$PWD/node_modules" /tmp/before/
 *   (cd /tmp/before && npm run build) && npm run build
 *   node --import tsx bench/compare.ts --shipped --dataset au-10y --starts 2 \
 *     --path /v1/cities --path '/v1/prices/cheapest?fuel=ulp91&near=-33.8688,151.2{n}' -- /tmp/before -- .
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { scriptArgs } from './cli.ts';
import { DATASETS, type DatasetName, ensureDataset } from './datasets.ts';
import { loadRun, timedRun } from './load.ts';
import { median } from './stats.ts';
import { BENCH_DIR, type Started, serverEnv, startProcess, startShippedServe, stopProcess } from './processes.ts';

const { usage, numberOption } = scriptArgs('compare',
  "node --import tsx bench/compare.ts [--dataset NAME] [--path PATH]... [--rounds N] [--starts K] [--seconds S] [--connections N] [--shipped] -- SIDE [-- SIDE]...\n"
  + '  (SIDE: node arguments; with --shipped, a checkout whose fuelprice serve runs as shipped)');
const { values, positionals } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'small' }, path: { type: 'string', multiple: true, default: ['/v1/cities'] }, shipped: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '5' }, starts: { type: 'string', default: '1' }, seconds: { type: 'string', default: '3' }, connections: { type: 'string', default: '10' },
  },
  allowPositionals: true,
});
const name = values.dataset as DatasetName;
if (!(name in DATASETS)) usage(`--dataset must be one of ${Object.keys(DATASETS).join(', ')}, got '${values.dataset}'`);
const paths = values.path;
for (const path of paths) if (!path.startsWith('/')) usage(`--path must start with /, got '${path}'`);
const rounds = numberOption(values.rounds, 'rounds', 1, 50);
const starts = numberOption(values.starts, 'starts', 1, 10);
const settings = { seconds: numberOption(values.seconds, 'seconds', 1, 60), connections: numberOption(values.connections, 'connections', 1, 100), maxRequests: 400_000 };

const sides: string[][] = [[]];
for (const word of positionals) {
  if (word === '--') sides.push([]);
  else sides[sides.length - 1]?.push(word);
}
const wanted = sides.filter((side) => side.length > 0);
if (wanted.length < 2) usage('give at least two sides, each as node arguments, separated by --');
if (values.shipped && wanted.some((side) => side.length !== 1)) usage('with --shipped, each side is one folder: a checkout with its build');
const roots = values.shipped ? wanted.map((side) => resolve(side[0] as string)) : [];

const outDir = join(BENCH_DIR, 'out');
const dataset = await ensureDataset(outDir, name);
const answers = join(outDir, `answers-${name}.json`);
if (wanted.some((side) => side.includes('$ANSWERS')) && !existsSync(answers)) usage(`no ${answers}: run the bench's cached group on ${name} first`);

/** Per path, per side: requests a second and CPU µs an answer, one value a round. */
const rates: number[][][] = paths.map(() => wanted.map(() => []));
const cpu: number[][][] = paths.map(() => wanted.map(() => []));
const of = (table: number[][][], p: number, i: number, from = 0): number => median(table[p]?.[i]?.slice(from) ?? []);
for (let start = 0; start < starts; start++) {
  const first = rates[0]?.[0]?.length ?? 0;
  await measureStart(start);
  if (starts > 1) {
    for (const [p, path] of paths.entries()) {
      const reference = of(rates, p, 0, first);
      console.log(`start ${start + 1}, ${path}: ${wanted.map((_, i) => `${i + 1}: ${(of(rates, p, i, first) / reference).toFixed(2)}, ${of(cpu, p, i, first).toFixed(1)} µs`).join(' | ')}`);
    }
  }
}
for (const [i, side] of wanted.entries()) console.log(`side ${i + 1}: ${values.shipped ? `fuelprice serve as shipped, from ${roots[i]}` : `node ${side.join(' ')}`}`);
for (const [p, path] of paths.entries()) {
  const reference = of(rates, p, 0);
  const referenceCpu = of(cpu, p, 0);
  console.log(path);
  for (const i of wanted.keys()) {
    const rate = of(rates, p, i);
    const used = of(cpu, p, i);
    console.log(`  side ${i + 1}: median ${Math.round(rate)} req/s (${(rate / reference).toFixed(2)} of side 1), ${used.toFixed(1)} µs CPU/answer (${(used / referenceCpu).toFixed(3)} of side 1)${starts > 1 ? `, over ${starts} starts` : ''}`);
  }
}

/** Every side started afresh, each path warmed on each, loaded `rounds` times in rotation, then stopped. */
async function measureStart(start: number): Promise<void> {
  const started: Started[] = [];
  try {
    for (const [i, side] of wanted.entries()) {
      if (values.shipped) {
        const log = join(outDir, `compare-side${i + 1}-start${start + 1}.log`);
        started.push(await startShippedServe(dataset.path, log, undefined, roots[i]));
      } else {
        const args = side.map((arg) => arg.replace('$DB', dataset.path).replace('$ANSWERS', answers));
        started.push(await startProcess(args, serverEnv(dataset.path), /^(http:\/\/\S+)\n/));
      }
    }
    for (const server of started) for (const path of paths) await loadRun(`${server.address}${path}`, dataset.token, { ...settings, seconds: 1 });
    for (let round = 0; round < rounds; round++) {
      for (const [p, path] of paths.entries()) {
        const line: string[] = new Array<string>(started.length);
        // Each round starts with the next side, so that a drift in the machine's speed falls on every side alike.
        for (let k = 0; k < started.length; k++) {
          const i = (round + k) % started.length;
          const server = started[i] as Started;
          const { run, cpuUs: usPerAnswer } = await timedRun({ label: `side ${i + 1}`, url: `${server.address}${path}`, token: dataset.token, pid: server.pid }, settings);
          if (run.non200 > 0 || run.errors > 0) throw new Error(`side ${i + 1}, ${path}: ${run.non200} answers not 200, ${run.errors} errors`);
          rates[p]?.[i]?.push(run.requestsPerSec);
          cpu[p]?.[i]?.push(usPerAnswer);
          line[i] = `${i + 1}: ${Math.round(run.requestsPerSec)} req/s, p99 ${run.p99Ms.toFixed(2)} ms, ${usPerAnswer.toFixed(1)} µs CPU/answer`;
        }
        console.log(`${starts > 1 ? `start ${start + 1}, ` : ''}round ${round + 1}, ${path}  ${line.join(' | ')}`);
      }
    }
  } finally {
    for (const server of started) await stopProcess(server);
  }
}
