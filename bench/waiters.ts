/**
 * 1,000 clients waiting on GET /v1/prices/changes (long polling, wait=30), on loopback: what
 * they cost the server while idle (its memory and CPU over a quiet spell, against the same
 * server before they came), and the time from an ingest, made by this process through its own
 * store on the same SQLite file (the server is another process, as `fuelprice ingest` is), to
 * every client answered. Bounded: CLIENTS requests of at most 30 s each, one run.
 *
 *   npx tsx bench/waiters.ts [CLIENTS] [IDLE_SECONDS]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NOW, loadFixture } from '../test/fixture.ts';

interface Usage { rss: number; cpuMs: number }
type FromServer = { address: string; token: string } | { usage: Usage; waiting: number };

const CLIENTS = Math.min(5_000, Math.max(1, Number(process.argv[2] ?? 1_000)));
const IDLE_SEC = Math.min(60, Math.max(1, Number(process.argv[3] ?? 5)));
/** The server's cap on waiters: above any CLIENTS this script takes. */
const CLIENTS_CAP = 5_000;

if (process.argv[2] === '--serve') await serve(process.argv[3] ?? '');
else await main();

/** The server process: the fixture's database, a real server on a loopback port, its usage on request. */
async function serve(path: string): Promise<void> {
  const { SqliteStore } = await import('../src/storage/sqlite/sqlite-store.ts');
  const { startServer, fixedClock } = await import('../test/helpers.ts');
  const store = new SqliteStore(path);
  await store.migrate();
  const server = await startServer(store, fixedClock(NOW), { maxChangeWaiters: CLIENTS_CAP, defaultRateLimit: 1_000_000 });
  const send = (message: FromServer) => process.send?.(message);
  send({ address: server.baseUrl, token: server.token });
  process.on('message', (message) => {
    if (message === 'usage') {
      const cpu = process.cpuUsage();
      send({ usage: { rss: process.memoryUsage().rss, cpuMs: (cpu.user + cpu.system) / 1000 }, waiting: 0 });
    } else if (message === 'stop') void server.close().then(() => store.close()).then(() => process.exit(0));
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-waiters-'));
  const path = join(dir, 'bench.db');
  const { SqliteStore } = await import('../src/storage/sqlite/sqlite-store.ts');
  const ingest = new SqliteStore(path);
  await ingest.migrate();
  await loadFixture(ingest);
  const child = fork(import.meta.filename, ['--serve', path], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () => new Promise<FromServer>((resolve) => child.once('message', (m) => resolve(m as FromServer)));
  const usage = async (): Promise<Usage> => { const r = next(); child.send('usage'); return ((await r) as { usage: Usage }).usage; };
  try {
    const { address, token } = (await next()) as { address: string; token: string };
    const url = new URL('/v1/prices/changes?since=6&wait=30', address);
    const before = await usage();
    await sleep(IDLE_SEC * 1000);
    const alone = await usage();
    const agent = new Agent({ keepAlive: false, maxSockets: CLIENTS });
    let answered = 0;
    let changes = 0;
    const done: Array<Promise<number>> = Array.from({ length: CLIENTS }, () => new Promise((resolve, reject) => {
      const req = request(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => { body += chunk.toString(); });
        res.on('end', () => {
          answered++;
          if (res.statusCode === 200 && (JSON.parse(body) as { data: unknown[] }).data.length > 0) changes++;
          resolve(performance.now());
        });
      });
      req.on('error', reject);
      req.end();
    }));
    await sleep(2_000);
    const waiting = await usage();
    await sleep(IDLE_SEC * 1000);
    const idle = await usage();
    const ingestAt = performance.now();
    await ingest.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'ulp91', at: NOW + 60, priceTenths: 1760, available: true }] });
    const ends = await Promise.all(done);
    const last = Math.max(...ends) - ingestAt;
    const sorted = ends.map((t) => t - ingestAt).sort((a, b) => a - b);
    const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
    const cpuShare = (a: Usage, b: Usage, sec: number) => `${(((b.cpuMs - a.cpuMs) / (sec * 1000)) * 100).toFixed(2)} %`;
    console.log(`clients: ${CLIENTS} long polls (wait=30) on loopback; idle spells of ${IDLE_SEC} s`);
    console.log(`server RSS: ${mb(alone.rss)} MB alone, ${mb(idle.rss)} MB with ${CLIENTS} waiting (${((idle.rss - alone.rss) / CLIENTS / 1024).toFixed(1)} KB a client)`);
    console.log(`server CPU while idle: ${cpuShare(before, alone, IDLE_SEC)} alone, ${cpuShare(waiting, idle, IDLE_SEC)} with ${CLIENTS} waiting`);
    console.log(`ingest to answers: first ${sorted[0]?.toFixed(0)} ms, median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0)} ms, last ${last.toFixed(0)} ms; ${answered} answered, ${changes} with the change`);
    agent.destroy();
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
    await ingest.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
