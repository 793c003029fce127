/**
 * The long run of the schema-driven fuzzer (the short one is in npm test, test/http/fuzz.test.ts):
 *
 *   npm run fuzz [-- --requests 100000 --seed 1 --concurrency 8 --cache on|off --only 17,4242]
 *
 * The server is the real app (bench/server.ts: buildApp on the bench's demo dataset, fixed clock,
 * no rate limit within reach) in its own process; requests come from this one over loopback.
 * Requests are generated from the OpenAPI document the server serves and every answer is
 * checked against it (test/fuzz/). Prints the requests sent, the count per status, 5xx,
 * timeouts and each violation with the seed and index that replay it (`--only`); writes
 * bench/out/fuzz.json. Exit code 1 when anything was wrong.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import { Checker, createFuzzTokens, describeViolation, fetchDocument, knownIds, runFuzz, target } from '../test/fuzz/api-fuzz.ts';
import { NOW_SEC, ensureDataset } from './datasets.ts';
import { BENCH_DIR, startBenchServer, stopProcess } from './processes.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '8' },
    cache: { type: 'string', default: 'on' },
    'timeout-ms': { type: 'string', default: '10000' },
    only: { type: 'string' },
  },
});
const requests = Number(values.requests);
const seed = Number(values.seed);
const concurrency = Number(values.concurrency);
const timeoutMs = Number(values['timeout-ms']);
const only = values.only?.split(',').map(Number);
if (![requests, seed, concurrency, timeoutMs].every(Number.isSafeInteger) || requests < 1 || concurrency < 1
  || (values.cache !== 'on' && values.cache !== 'off') || only?.some((i) => !Number.isSafeInteger(i))) {
  process.stderr.write('usage: npm run fuzz -- [--requests N] [--seed S] [--concurrency C] [--cache on|off] [--timeout-ms MS] [--only I,J]\n');
  process.exit(2);
}

const outDir = join(BENCH_DIR, 'out');
mkdirSync(outDir, { recursive: true });
const dataset = await ensureDataset(outDir, 'small');
const store = new SqliteStore(dataset.path);
const tokens = await createFuzzTokens(store, NOW_SEC);
await store.close();

const server = await startBenchServer(dataset.path, values.cache === 'on');
try {
  const doc = await fetchDocument(server.address);
  const checker = new Checker(doc);
  const ids = await knownIds(server.address, tokens.valid);
  const operations = checker.operations.length;
  console.log(`fuzzing ${server.address} (pid ${server.pid}, dataset ${dataset.name}, cache ${values.cache}): `
    + `${operations} operations from /v1/openapi.json, ${only ? `requests ${only.join(', ')}` : `${requests} requests`}, seed ${seed}, ${concurrency} at a time`);
  const to = target(server.address, { timeoutMs, connections: concurrency });
  const report = await runFuzz(to, checker, { tokens, ids }, {
    requests, seed, concurrency, only,
    onProgress: (r) => console.log(`  ${r.sent} sent, ${r.violations.length} violations, ${r.serverErrors} 5xx, ${r.timeouts} timeouts`),
  });
  to.agent.destroy();

  const byStatus = Object.entries(report.byStatus).sort(([a], [b]) => a.localeCompare(b));
  console.log(`\nrequests sent: ${report.sent} in ${report.seconds.toFixed(1)} s (${(report.sent / report.seconds).toFixed(0)} a second)`);
  console.log(`per status:    ${byStatus.map(([status, count]) => `${status}: ${count}`).join(', ')}`);
  console.log(`per path:      ${Object.entries(report.byPath).sort(([a], [b]) => a.localeCompare(b)).map(([path, count]) => `${path}: ${count}`).join(', ')}`);
  console.log(`5xx:           ${report.serverErrors}`);
  console.log(`timeouts:      ${report.timeouts} (client timeout ${timeoutMs} ms; slowest answer ${report.slowest.ms.toFixed(0)} ms, #${report.slowest.index})`);
  console.log(`violations:    ${report.violations.length}`);
  for (const violation of report.violations.slice(0, 50)) console.log(`  ${describeViolation(violation, seed).slice(0, 600)}`);
  if (report.violations.length > 50) console.log(`  ... and ${report.violations.length - 50} more (bench/out/fuzz.json)`);

  writeFileSync(join(outDir, 'fuzz.json'), `${JSON.stringify({
    at: new Date().toISOString(), seed, requests: report.sent, concurrency, cache: values.cache, dataset: dataset.name, operations,
    seconds: report.seconds, byStatus: report.byStatus, byPath: report.byPath, serverErrors: report.serverErrors, timeouts: report.timeouts, slowest: report.slowest,
    violations: report.violations.map((v) => describeViolation(v, seed)),
  }, null, 2)}\n`);
  process.exitCode = report.violations.length > 0 || report.serverErrors > 0 || report.timeouts > 0 ? 1 : 0;
} finally {
  await stopProcess(server);
}
