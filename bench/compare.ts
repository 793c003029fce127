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
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { scriptArgs } from './cli.ts';
import { DATASETS, type DatasetName, ensureDataset } from './datasets.ts';
import { loadRun, timedRun } from './load.ts';
import { median } from './stats.ts';
import { BENCH_DIR, type Started, serverEnv, startProcess, stopProcess } from './processes.ts';

const { usage, numberOption } = scriptArgs('compare',
  "node --import tsx bench/compare.ts [--dataset NAME] [--path PATH] [--rounds N] [--starts K] [--seconds S] [--connections N] -- NODE-ARGS [-- NODE-ARGS]...");
const { values, positionals } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'small' }, path: { type: 'string', default: '/v1/cities' },
    rounds: { type: 'string', default: '5' }, starts: { type: 'string', default: '1' }, seconds: { type: 'string', default: '3' }, connections: { type: 'string', default: '10' },
  },
  allowPositionals: true,
});
const name = values.dataset as DatasetName;
if (!(name in DATASETS)) usage(`--dataset must be one of ${Object.keys(DATASETS).join(', ')}, got '${values.dataset}'`);
if (!values.path.startsWith('/')) usage(`--path must start with /, got '${values.path}'`);
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

const outDir = join(BENCH_DIR, 'out');
const dataset = await ensureDataset(outDir, name);
const answers = join(outDir, `answers-${name}.json`);
if (wanted.some((side) => side.includes('$ANSWERS')) && !existsSync(answers)) usage(`no ${answers}: run the bench's cached group on ${name} first`);

const rates: number[][] = wanted.map(() => []);
const cpu: number[][] = wanted.map(() => []);
for (let start = 0; start < starts; start++) {
  const first = rates[0]?.length ?? 0;
  await measureStart(start);
  if (starts > 1) {
    const reference = median(rates[0]?.slice(first) ?? []);
    console.log(`start ${start + 1}: ${wanted.map((_, i) => `${i + 1}: ${(median(rates[i]?.slice(first) ?? []) / reference).toFixed(2)}, ${median(cpu[i]?.slice(first) ?? []).toFixed(1)} µs`).join(' | ')}`);
  }
}
const reference = median(rates[0] ?? []);
for (const [i, side] of wanted.entries()) {
  const rate = median(rates[i] ?? []);
  console.log(`side ${i + 1} (node ${side.join(' ')}): median ${Math.round(rate)} req/s (${(rate / reference).toFixed(2)} of side 1), ${median(cpu[i] ?? []).toFixed(1)} µs CPU/answer${starts > 1 ? `, over ${starts} starts` : ''}`);
}

/** Every side started afresh, warmed, loaded `rounds` times in rotation, then stopped. */
async function measureStart(start: number): Promise<void> {
  const started: Started[] = [];
  try {
    for (const side of wanted) {
      const args = side.map((arg) => arg.replace('$DB', dataset.path).replace('$ANSWERS', answers));
      started.push(await startProcess(args, serverEnv(dataset.path), /^(http:\/\/\S+)\n/));
    }
    for (const server of started) await loadRun(`${server.address}${values.path}`, dataset.token, { ...settings, seconds: 1 });
    for (let round = 0; round < rounds; round++) {
      const line: string[] = new Array<string>(started.length);
      // Each round starts with the next side, so that a drift in the machine's speed falls on every side alike.
      for (let k = 0; k < started.length; k++) {
        const i = (round + k) % started.length;
        const server = started[i] as Started;
        const { run, cpuUs: usPerAnswer } = await timedRun({ label: `side ${i + 1}`, url: `${server.address}${values.path}`, token: dataset.token, pid: server.pid }, settings);
        if (run.non200 > 0 || run.errors > 0) throw new Error(`side ${i + 1}: ${run.non200} answers not 200, ${run.errors} errors`);
        rates[i]?.push(run.requestsPerSec);
        cpu[i]?.push(usPerAnswer);
        line[i] = `${i + 1}: ${Math.round(run.requestsPerSec)} req/s, p99 ${run.p99Ms.toFixed(2)} ms, ${usPerAnswer.toFixed(1)} µs CPU/answer`;
      }
      console.log(`${starts > 1 ? `start ${start + 1}, ` : ''}round ${round + 1}  ${line.join(' | ')}`);
    }
  } finally {
    for (const server of started) await stopProcess(server);
  }
}
