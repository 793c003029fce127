/**
 * Which source files one request runs through, and how often it comes back to them:
 *
 *   node --import tsx bench/request-files.ts --db PATH [--path URL] [--repeat]
 *
 * Builds the app as bench/server.ts does on a copy-free SQLite dataset (a token is created in
 * it), listens on loopback, sends one request to a warm-up path, then the request under study,
 * and reads V8's precise coverage (call counts per function) taken around that one request:
 * for each file of src/, how many of its functions ran and how often they were called, and how
 * many times the versions (store.versions, versionsNow, dataVersion) were read. The same path
 * with `&page=2` is asked first, so that what storage keeps per data version (the position
 * index) is warm and the request is still answered anew; `--repeat` asks the very path first
 * instead, so that a cached answer is measured. Issue 30's before and after figures
 * (bench/RESULTS.md) were made with it.
 */
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import { newToken } from '../src/tokens.ts';
import { NOW_SEC } from './datasets.ts';

const { values } = parseArgs({
  options: {
    db: { type: 'string' }, path: { type: 'string', default: '/v1/prices/cheapest?fuel=ulp91&near=-33.8688,151.2093' },
    repeat: { type: 'boolean', default: false },
  },
});
if (!values.db) {
  process.stderr.write('usage: node --import tsx bench/request-files.ts --db PATH [--path URL] [--repeat]\n');
  process.exit(2);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const store = new SqliteStore(values.db);
await store.migrate();
const { token, record } = newToken('request-files', NOW_SEC, { rateLimit: 1_000_000_000 });
await store.createToken(record);
const app = await buildApp({ store, clock: { now: () => NOW_SEC }, logger: false, defaultRateLimit: 1e9 });
const address = await app.listen({ port: 0, host: '127.0.0.1' });
const get = async (path: string): Promise<number> => (await fetch(`${address}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;

await get('/v1/cities');
await get(values.repeat ? values.path : `${values.path}${values.path.includes('?') ? '&' : '?'}page=2`);
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
await session.post('Profiler.takePreciseCoverage'); // resets the counts: only the request below is counted
const status = await get(values.path);
const { result } = await session.post('Profiler.takePreciseCoverage');
await session.post('Profiler.stopPreciseCoverage');
session.disconnect();
await app.close();
await store.close();

const byFile = new Map<string, { functions: number; calls: number }>();
let versionReads = 0;
for (const script of result) {
  if (!script.url.startsWith('file:')) continue;
  const file = relative(root, fileURLToPath(script.url));
  if (!file.startsWith('src/')) continue;
  for (const fn of script.functions) {
    // A function's first range is the whole function, its count how many times it was called; a module's own body is not counted.
    const calls = fn.ranges[0]?.count ?? 0;
    if (calls === 0 || (fn.functionName === '' && fn.ranges[0]?.startOffset === 0)) continue;
    const seen = byFile.get(file) ?? { functions: 0, calls: 0 };
    seen.functions++;
    seen.calls += calls;
    byFile.set(file, seen);
    if (file.startsWith('src/storage/') && ['versions', 'versionsNow', 'dataVersion'].includes(fn.functionName)) versionReads += calls;
  }
}
const sorted = [...byFile].sort((a, b) => b[1].functions - a[1].functions || a[0].localeCompare(b[0]));
let functions = 0;
for (const [file, seen] of sorted) {
  functions += seen.functions;
  console.log(`${String(seen.functions).padStart(4)} functions ${String(seen.calls).padStart(8)} calls  ${file}`);
}
const http = sorted.filter(([file]) => file.startsWith('src/http/') || file === 'src/app.ts');
console.log(`${values.path} -> ${status}: ${sorted.length} files (${http.length} of src/http and app.ts), ${functions} functions run `
  + `(${http.reduce((sum, [, seen]) => sum + seen.functions, 0)} of them there); the versions read ${versionReads} times`);
