import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import { loadFixture } from '../fixture.ts';
import { type ServeProcess, getOnce, runCli, startServe, waitFor } from '../helpers.ts';

/** One GET on a connection of its own, with its status and body. */
function getText(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The value of one sample line in the Prometheus text format, e.g. `name{route="/health",status="200"}`. */
function sampleValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const pidsOf = (lines: Array<Record<string, unknown>>, field: string): Set<number> =>
  new Set(lines.map((line) => line[field]).filter((pid): pid is number => typeof pid === 'number'));

describe('serve --workers N', () => {
  let dir: string;
  let env: Record<string, string>;
  let token: string;
  const running: ServeProcess[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fuelprice-workers-'));
    const path = join(dir, 'workers.db');
    env = { DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'debug' }; // debug: the probes' access lines too
    const store = new SqliteStore(path);
    await store.migrate();
    await loadFixture(store);
    await store.close();
    const created = await runCli(['tokens', 'create', '--name', 'workers'], env);
    assert.equal(created.code, 0, created.stderr);
    token = created.stdout.trim();
  });
  after(() => {
    for (const server of running) server.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  test('two workers share one port, requests reach both, a killed worker is replaced, SIGTERM exits 0', async () => {
    const server = await startServe(['--workers', '2', '--port', '0'], env);
    running.push(server);
    assert.match(server.address, /^http:\/\/127\.0\.0\.1:\d+$/);
    await waitFor('two workers ready', () => server.logs('worker ready').length === 2, 20_000);
    const ready = server.logs('worker ready');
    const workerPids = pidsOf(ready, 'workerPid');
    assert.equal(workerPids.size, 2, 'two worker processes');
    assert.ok(!workerPids.has(server.child.pid ?? -1), 'the primary serves nothing itself');
    for (const line of ready) assert.equal(line.address, server.address, 'every worker listens on the one port');
    assert.equal(server.stderr().match(/serving on/g)?.length, 1, 'the address is announced once');

    // Several hundred requests, each on its own connection: all answered, by both workers.
    const statuses = await Promise.all(Array.from({ length: 300 }, (_, i) => getOnce(`${server.address}${i % 2 ? '/health' : '/v1/cities'}`, token)));
    assert.ok(statuses.every((status) => status === 200), JSON.stringify(statuses.filter((s) => s !== 200)));
    await waitFor('the request logs', () => server.logs('request').length >= 300);
    const servedBy = pidsOf(server.logs('request'), 'pid');
    assert.deepEqual([...servedBy].sort(), [...workerPids].sort(), 'requests landed on both workers');

    // A worker killed outright: the other keeps answering, and a new worker takes its place.
    const [victim, survivor] = [...workerPids];
    process.kill(victim ?? 0, 'SIGKILL');
    await waitFor('the primary to notice', () => server.logs('worker exited unexpectedly: replacing it').length === 1);
    for (let i = 0; i < 20; i++) assert.equal(await getOnce(`${server.address}/health`), 200);
    await waitFor('a replacement worker', () => server.logs('worker ready').length === 3, 20_000);
    const replacement = server.logs('worker ready')[2]?.workerPid;
    assert.equal(typeof replacement, 'number');
    assert.ok(!workerPids.has(replacement as number), 'a new process');
    // Counted by their own route: each worker writes its log through a buffer (out at least every
    // second), so lines of the probes above may still arrive after a count taken here.
    const stationLines = (): Array<Record<string, unknown>> => server.logs('request').filter((line) => line.route === '/v1/stations');
    const again = await Promise.all(Array.from({ length: 100 }, () => getOnce(`${server.address}/v1/stations`, token)));
    assert.ok(again.every((status) => status === 200));
    await waitFor('the request logs', () => stationLines().length === 100);
    const servedAfter = pidsOf(stationLines(), 'pid');
    assert.deepEqual([...servedAfter].sort(), [survivor, replacement].sort(), 'the survivor and the replacement share the work');
    assert.equal(server.stderr().match(/serving on/g)?.length, 1);

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.equal(server.logs('worker stopped').length, 2);
    assert.equal(server.logs('all workers stopped').length, 1);
  });

  test('with METRICS_TOKEN, a scrape of any worker answers every worker\'s counts, added up by the primary', async () => {
    const metricsToken = 'm'.repeat(32);
    const server = await startServe(['--workers', '2', '--port', '0'], { ...env, METRICS_TOKEN: metricsToken });
    running.push(server);
    await waitFor('two workers ready', () => server.logs('worker ready').length === 2, 20_000);
    const statuses = await Promise.all(Array.from({ length: 200 }, () => getOnce(`${server.address}/health`)));
    assert.ok(statuses.every((status) => status === 200));
    await waitFor('the request logs', () => server.logs('request').length >= 200);
    assert.equal(pidsOf(server.logs('request'), 'pid').size, 2, 'both workers answered some');

    // Each scrape on a connection of its own, so successive scrapes land on either worker: every one sees all 200
    // probes, and the scrapes before it (a scrape is counted once answered).
    for (let scrape = 0; scrape < 6; scrape++) {
      const { status, body } = await getText(`${server.address}/metrics`, metricsToken);
      assert.equal(status, 200, body);
      assert.equal(sampleValue(body, 'fuelprice_http_requests_total{route="/health",status="200"}'), 200, `scrape ${scrape}`);
      assert.equal(sampleValue(body, 'fuelprice_http_requests_total{route="/metrics",status="200"}'), scrape === 0 ? undefined : scrape);
      assert.equal(sampleValue(body, 'fuelprice_http_request_duration_seconds_count{route="/health"}'), 200);
      assert.equal(sampleValue(body, 'fuelprice_storage_backend_info{backend="sqlite"}'), 1, 'a gauge every worker reads the same is not added up');
    }
    const scrapes = () => server.logs('request').filter((line) => line.route === '/metrics');
    await waitFor('the scrapes\' request logs', () => scrapes().length === 6);
    assert.equal(pidsOf(scrapes(), 'pid').size, 2, 'scrapes landed on both workers');
    assert.equal((await getText(`${server.address}/metrics`, token)).status, 401, 'an API token cannot read them');

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });

  test('workers that cannot start stop the primary with exit 1 instead of restarting forever', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    assert.ok(address !== null && typeof address !== 'string');
    try {
      const r = await runCli(['serve', '--workers', '2', '--port', String(address.port)], { DATABASE_URL: env.DATABASE_URL ?? '' });
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`^fuelprice: worker \\d+: port ${address.port} is in use \\(from --port\\); choose a free port with --port N or PORT=N \\(--port wins over PORT\\)$`, 'm'));
      assert.doesNotMatch(r.stderr, /serving on/);
    } finally {
      taken.close();
    }
  });

  test('--workers is checked: 1 to 64, and not with an in-memory database', async () => {
    for (const [workers, message] of [['0', /--workers must be a whole number from 1 to 64/], ['65', /--workers must be a whole number from 1 to 64/]] as const) {
      const r = await runCli(['serve', '--workers', workers], { DATABASE_URL: env.DATABASE_URL ?? '' });
      assert.equal(r.code, 2);
      assert.match(r.stderr, message);
    }
    const memory = await runCli(['serve', '--workers', '2'], { DATABASE_URL: 'sqlite::memory:' });
    assert.equal(memory.code, 2);
    assert.match(memory.stderr, /needs a database the workers share/);
  });
});
