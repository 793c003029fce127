/**
 * GET /v1/prices/changes across processes: `fuelprice serve --workers 2` in processes of its
 * own, and the ingest made by this test process through its own store on the same SQLite file
 * (as `fuelprice ingest` is another process). Waiting requests spread over both workers and an
 * event stream are all woken by the one write, and each answers the change (worked by hand from
 * test/fixture.ts: its batch numbers changes 1 to 6; beta-sydney's ulp91 at 176.0 is change 7).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import { NOW, loadFixture } from '../fixture.ts';
import { type ServeProcess, runCli, startServe } from '../helpers.ts';

/** One GET on a connection of its own (so that requests spread over the workers), with its status and body. */
function getText(url: string, token: string, headers: Record<string, string> = {}, until?: (body: string) => boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { authorization: `Bearer ${token}`, ...headers }, timeout: 25_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
        if (until?.(body)) { resolve({ status: res.statusCode ?? 0, body }); req.destroy(); }
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 25 s')));
    req.on('error', reject);
    req.end();
  });
}

const CHANGE = { cursor: '7', station_id: 'beta-sydney', fuel: 'ulp91', price: '176.0', available: true, updated_at: NOW + 60 };

describe('the changes feed with serve --workers 2 and an ingest in another process', () => {
  let dir: string;
  let path: string;
  let server: ServeProcess | undefined;
  let token: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fuelprice-changes-workers-'));
    path = join(dir, 'changes.db');
    const store = new SqliteStore(path);
    await store.migrate();
    await loadFixture(store);
    await store.close();
    const env = { DATABASE_URL: `sqlite:${path}` };
    token = (await runCli(['tokens', 'create', '--name', 'changes'], env)).stdout.trim();
    server = await startServe(['--workers', '2', '--port', '0'], env);
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test('every waiting request and the stream answer the change stored by another process', async () => {
    const address = server?.address ?? assert.fail('no server');
    const polls = Array.from({ length: 4 }, () => getText(`${address}/v1/prices/changes?since=6&wait=20`, token));
    const stream = getText(`${address}/v1/prices/changes?since=6`, token, { accept: 'text/event-stream' }, (body) => body.includes('event: change') && body.endsWith('\n\n'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ingest = new SqliteStore(path);
    try {
      await ingest.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'ulp91', at: NOW + 60, priceTenths: 1760, available: true }] });
    } finally { await ingest.close(); }
    for (const poll of await Promise.all(polls)) {
      assert.equal(poll.status, 200, poll.body);
      assert.deepEqual(JSON.parse(poll.body), { data: [CHANGE], next: '7', more: false });
    }
    const events = await stream;
    assert.equal(events.status, 200);
    assert.equal(events.body, `id: 6\nevent: cursor\ndata: {"next":"6"}\n\nid: 7\nevent: change\ndata: ${JSON.stringify(CHANGE)}\n\n`);
  });
});
