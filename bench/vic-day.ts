/**
 * A VIC day's answer through `fuelprice ingest vic` as a user runs it (issue 28: "a VIC day's
 * answer ingests in under 1 s"): a local HTTP server answers the Fair Fuel paths with the real
 * answer of 1 May 2026 and the brands list, and the built command (bin/fuelprice.js, Node's start
 * included) polls it once into a fresh SQLite database at noon that day. Wall time, CPU time
 * (user + system) and peak RSS from GNU time, the run's line from `ingest status`; RUNS times
 * (default 3), each into a fresh database.
 *
 *   npx tsx bench/vic-day.ts [PRICES.json[.gz]] [BRANDS.json] [RUNS]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { VIC_BRANDS_PATH, VIC_PRICES_PATH } from '../src/ingest/feeds/vic.ts';

const root = resolve(import.meta.dirname, '..');
const vic = join(root, '..', 'shared', 'realdata', 'vic_fairfuel_api_raw_json');
const pricesFile = process.argv[2] || join(vic, 'prices', 'prices-2026-05-01.json.gz');
const brandsFile = process.argv[3] || join(vic, 'reference', 'brands-2026-05-03.json');
const runs = Number(process.argv[4] || 3);
const read = (path: string): Buffer => (path.endsWith('.gz') ? gunzipSync(readFileSync(path)) : readFileSync(path));
const answers = new Map([[VIC_PRICES_PATH, read(pricesFile)], [VIC_BRANDS_PATH, read(brandsFile)]]);
const day = /(\d{4}-\d{2}-\d{2})/.exec(pricesFile)?.[1] ?? '2026-05-01';

const server = createServer((req, res) => {
  const body = answers.get((req.url ?? '').split('?')[0] ?? '');
  res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(body ?? '{}');
});
await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
const { port } = server.address() as AddressInfo;
const dir = mkdtempSync(join(tmpdir(), 'vic-day-'));
const bin = join(root, 'bin', 'fuelprice.js');

/** The command in a child process, asynchronously: this process must go on answering its requests. */
async function run(args: string[], env: NodeJS.ProcessEnv, timed = false): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const command = timed ? '/usr/bin/time' : process.execPath;
  const argv = timed ? ['-f', 'TIME %e %U %S %M', process.execPath, bin, ...args] : [bin, ...args];
  return new Promise((done) => {
    const child = spawn(command, argv, { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

try {
  console.log(`load average before: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  for (let i = 1; i <= runs; i++) {
    const env = {
      DATABASE_URL: `sqlite:${join(dir, `vic-${i}.db`)}`, FUELPRICE_NOW: `${day}T12:00:00+10:00`, LOG_LEVEL: 'error',
      VIC_FAIRFUEL_URL: `http://127.0.0.1:${port}`, VIC_FAIRFUEL_CONSUMER_ID: 'bench',
    };
    await run(['migrate'], env);
    const r = await run(['ingest', 'vic'], env, true);
    const time = r.stderr.split('\n').find((l) => l.startsWith('TIME '));
    const [wall, user, sys, kb] = (time ?? 'TIME NaN NaN NaN NaN').split(' ').slice(1).map(Number);
    const status = await run(['ingest', 'status', '--feed', 'vic', '--limit', '1'], env);
    const line = status.stdout.split('\n').find((l) => l.includes(' vic ') && l.includes('prices')) ?? '(no run recorded)';
    console.log(`run ${i}: exit ${r.code}, wall ${wall?.toFixed(2)} s, CPU ${user?.toFixed(2)} s user + ${sys?.toFixed(2)} s system, peak RSS ${((kb ?? NaN) / 1024).toFixed(0)} MB`);
    console.log(`   ${line.trim()}`);
  }
  console.log(`load average after: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
