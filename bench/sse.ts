/**
 * CLIENTS event streams on GET /v1/prices/changes (Accept: text/event-stream, no filter) during a
 * full-state ingest: every current price of every station of the demo dataset reported again in
 * one batch, CHANGED of them with a new price (as a state's full-state feed poll does: all
 * stations, a few changes). The ingest is made by this process through its own store on a copy
 * of the SQLite file (the server is another process, as `fuelprice ingest` is); the time is from
 * the batch's commit to each client receiving the batch's last change. Bounded: one batch, every
 * client ends within TIMEOUT_MS.
 *
 *   npx tsx bench/sse.ts [CLIENTS] [CHANGED] [--db PATH]     (defaults: 1000, 300, /work/bench-data/small.db
 *                                                            or bench/out/small.db: the demo dataset)
 */
import { fork } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PriceEvent } from '../src/storage/store-records.ts';

interface Usage { rss: number; cpuMs: number }
type FromServer = { address: string; token: string } | { usage: Usage };

const args = process.argv.slice(2);
const dbAt = args.indexOf('--db');
const DB = dbAt >= 0 ? args[dbAt + 1] ?? '' : [join('/work/bench-data', 'small.db'), join(import.meta.dirname, 'out', 'small.db')].find(existsSync) ?? '';
const positional = args.filter((a, i) => !a.startsWith('--') && (dbAt < 0 || i !== dbAt + 1));
const CLIENTS = Math.min(5_000, Math.max(1, Number(positional[0] ?? 1_000)));
const CHANGED = Math.max(1, Number(positional[1] ?? 300));
const TIMEOUT_MS = 60_000;

if (args[0] === '--serve') await serve(args[1] ?? '');
else await main();

/** The server process: a real server on a loopback port over the copy, its usage on request. */
async function serve(path: string): Promise<void> {
  const { SqliteStore } = await import('../src/storage/sqlite/sqlite-store.ts');
  const { startServer, fixedClock } = await import('../test/helpers.ts');
  const store = new SqliteStore(path);
  const server = await startServer(store, fixedClock(Math.floor(Date.now() / 1000)), { maxChangeWaiters: 5_000, defaultRateLimit: 1_000_000_000 });
  const send = (message: FromServer) => process.send?.(message);
  send({ address: server.baseUrl, token: server.token });
  process.on('message', (message) => {
    if (message === 'usage') {
      const cpu = process.cpuUsage();
      send({ usage: { rss: process.memoryUsage().rss, cpuMs: (cpu.user + cpu.system) / 1000 } });
    } else if (message === 'stop') void server.close().then(() => store.close()).then(() => process.exit(0));
  });
}

/** One event stream: resolves with when it received `id: <target>` (once `target` is set), or rejects. */
function follow(url: URL, token: string, agent: Agent, started: () => void, target: () => string | undefined): { ended: Promise<number>; stop(): void } {
  let stop = (): void => undefined;
  const ended = new Promise<number>((resolve, reject) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      let tail = '';
      let cursorSeen = false;
      res.on('data', (chunk: Buffer) => {
        const text = tail + chunk.toString('latin1');
        if (!cursorSeen && text.includes('event: cursor')) { cursorSeen = true; started(); }
        const wanted = target();
        if (wanted !== undefined && text.includes(`id: ${wanted}\n`)) { resolve(performance.now()); req.destroy(); return; }
        tail = text.slice(-64);
      });
      res.on('error', () => undefined);
    });
    req.on('error', (error) => reject(error));
    req.end();
    stop = () => req.destroy();
  });
  return { ended, stop };
}

async function main(): Promise<void> {
  if (!DB) throw new Error('no dataset: give --db PATH (bench/datasets.ts builds bench/out/small.db)');
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-sse-'));
  const path = join(dir, 'bench.db');
  copyFileSync(DB, path);
  const { SqliteStore } = await import('../src/storage/sqlite/sqlite-store.ts');
  const ingest = new SqliteStore(path);
  await ingest.migrate();
  const child = fork(import.meta.filename, ['--serve', path], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = () => new Promise<FromServer>((resolve) => child.once('message', (m) => resolve(m as FromServer)));
  const usage = async (): Promise<Usage> => { const r = next(); child.send('usage'); return ((await r) as { usage: Usage }).usage; };
  const streams: Array<{ stop(): void }> = [];
  try {
    const { address, token } = (await next()) as { address: string; token: string };
    // The full state: every station's current prices, CHANGED of them moved by 1.0 c/L, reported a minute after the latest.
    const feeds = ['demo'];
    const prices: PriceEvent[] = [];
    let latest = 0;
    const current: Array<{ feedCode: string; fuel: PriceEvent['fuel']; priceTenths: number; available: boolean }> = [];
    for (const feed of feeds) {
      for (const station of await ingest.feedStations(feed)) {
        for (const price of await ingest.currentForStation(station.id)) {
          latest = Math.max(latest, price.reportedAt);
          current.push({ feedCode: station.feedCode, fuel: price.fuel, priceTenths: price.priceTenths, available: price.available });
        }
      }
    }
    const every = Math.max(1, Math.floor(current.length / CHANGED));
    current.forEach((c, i) => prices.push({
      feed: 'demo', feedCode: c.feedCode, fuel: c.fuel, at: latest + 60, available: c.available,
      priceTenths: c.priceTenths + (i % every === 0 && i / every < CHANGED && c.available ? 10 : 0),
    }));
    const url = new URL('/v1/prices/changes', address);
    const agent = new Agent({ keepAlive: false, maxSockets: CLIENTS });
    let connected = 0;
    let target: string | undefined;
    let allConnected = (): void => undefined;
    const ready = new Promise<void>((resolve) => { allConnected = resolve; });
    for (let i = 0; i < CLIENTS; i++) {
      streams.push(follow(url, token, agent, () => { if (++connected === CLIENTS) allConnected(); }, () => target));
    }
    const ends = streams.map((s) => (s as ReturnType<typeof follow>).ended);
    await Promise.race([ready, sleep(TIMEOUT_MS).then(() => { throw new Error(`${connected} of ${CLIENTS} streams started`); })]);
    await sleep(1_000);
    const before = await usage();
    const changeBefore = await ingest.lastChange();
    const ownBefore = process.cpuUsage();
    const t0 = performance.now();
    const result = await ingest.applyBatch({ stations: [], prices });
    const committed = performance.now();
    const last = await ingest.lastChange();
    target = String(last);
    const timeout = sleep(TIMEOUT_MS).then(() => { throw new Error('not every client received the last change in time'); });
    const times = await Promise.race([Promise.all(ends), timeout]);
    const own = process.cpuUsage(ownBefore);
    const after = await usage();
    const sorted = times.map((t) => t - committed).sort((a, b) => a - b);
    const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN).toFixed(0);
    console.log(`dataset: ${DB} (copied); ${CLIENTS} event streams on loopback, no filter`);
    console.log(`full-state batch: ${prices.length} prices (${result.pricesAccepted} accepted), ${last - changeBefore} changes; written in ${(committed - t0).toFixed(0)} ms`);
    console.log(`commit to last change received: first ${at(0)} ms, median ${at(0.5)} ms, p90 ${at(0.9)} ms, last ${sorted.at(-1)?.toFixed(0)} ms`);
    console.log(`server CPU from commit to the last client: ${(after.cpuMs - before.cpuMs).toFixed(0)} ms; RSS ${(after.rss / 1048576).toFixed(0)} MB`);
    console.log(`this process's CPU (the batch, then ${CLIENTS} clients reading): ${((own.user + own.system) / 1000).toFixed(0)} ms; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    agent.destroy();
  } finally {
    for (const s of streams) s.stop();
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
    await ingest.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
