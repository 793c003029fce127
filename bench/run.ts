/**
 * Load test of the nine endpoints: builds (or reuses) a demo dataset, starts the real server in
 * its own process, and loads it from this process over loopback with autocannon, each run
 * bounded in time and requests. Prints a table and writes bench/out/results.json.
 *
 *   npm run bench -- [--scale small|au] [--seconds 5] [--connections 10]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { writeDemo } from '../src/ingest/demo.ts';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import { newToken } from '../src/tokens.ts';

const { values } = parseArgs({ options: { scale: { type: 'string', default: 'small' }, seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' } } });
const scale = values.scale === 'au' ? 'au' : 'small';
const seconds = Math.min(60, Math.max(1, Number(values.seconds)));
const connections = Math.min(100, Math.max(1, Number(values.connections)));
const NOW = '2026-11-23T12:00:00+11:00';
const nowSec = Math.floor(Date.parse(NOW) / 1000);

const outDir = join(import.meta.dirname, 'out');
mkdirSync(outDir, { recursive: true });
const dbPath = join(outDir, `${scale}.db`);
const store = new SqliteStore(dbPath);
await store.migrate();
if ((await store.counts()).stations === 0) {
  const started = Date.now();
  const result = await writeDemo(store, { seed: 1, years: scale === 'au' ? 10 : 2, scale, nowSec });
  console.log(`dataset ${scale}: ${result.stations} stations, ${result.prices} price changes, built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
const created = newToken('bench', nowSec, { rateLimit: 1_000_000_000 });
await store.createToken(created.record);
const city = await store.city('sydney');
const station = (await store.listStations({ state: 'nsw', limit: 1, offset: 100 })).items[0];
await store.close();
if (!city || !station) throw new Error('dataset has no sydney or no station');

const server = spawn(process.execPath, [join(import.meta.dirname, '..', 'bin', 'fuelprice.js'), 'serve', '--port', '0'], {
  env: { ...process.env, DATABASE_URL: `sqlite:${dbPath}`, FUELPRICE_NOW: NOW, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'pipe'],
});
const address = await new Promise<string>((resolve, reject) => {
  let stderr = '';
  server.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    const match = /serving on (http:\/\/[^\s]+)/.exec(stderr);
    if (match?.[1]) resolve(match[1]);
  });
  server.on('close', () => reject(new Error(`server exited: ${stderr}`)));
});

const paths = [
  '/v1/cities', '/v1/cities/sydney', '/v1/cities/sydney/history', '/v1/cities/sydney/unavailable', '/v1/cities/sydney/spread',
  '/v1/cities/sydney/average', '/v1/stations', `/v1/stations/${station.id}`, `/v1/stations/${station.id}/history`,
  '/v1/cities/sydney/history?timeframe=all-time', '/v1/stations?offset=1400',
];
const rows: Array<{ path: string; requestsPerSec: number; p50Ms: number; p99Ms: number; errors: number; non2xx: number }> = [];
try {
  for (const path of paths) {
    const result = await autocannon({
      url: `${address}${path}`, connections, duration: seconds, maxOverallRequests: 200_000,
      headers: { authorization: `Bearer ${created.token}` },
    });
    rows.push({ path, requestsPerSec: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, errors: result.errors, non2xx: result.non2xx });
  }
} finally {
  server.kill('SIGTERM');
}

console.log(`\n${scale} dataset, ${connections} connections, ${seconds} s per endpoint, server and load on one machine (${process.version})\n`);
console.log('endpoint'.padEnd(52), 'req/s'.padStart(8), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'errors'.padStart(7));
for (const r of rows) {
  console.log(r.path.replace(station.id, ':station').padEnd(52), String(r.requestsPerSec).padStart(8), String(r.p50Ms).padStart(8), String(r.p99Ms).padStart(8), String(r.errors + r.non2xx).padStart(7));
}
const file = join(outDir, 'results.json');
writeFileSync(file, `${JSON.stringify({ scale, seconds, connections, node: process.version, rows }, null, 2)}\n`);
console.log(`\nwritten ${file}${existsSync(file) ? '' : ' (failed)'}`);
