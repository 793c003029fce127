import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Redis } from 'ioredis';
import { NOW } from '../fixture.ts';
import {
  type ServeProcess, createPostgresDatabase, deleteRedisKeys, postgresServerUrl, redisAdmin, redisServerUrl, redisTestPrefix, runCli, startServe,
} from '../helpers.ts';

const postgresUrl = postgresServerUrl();
const redisUrl = redisServerUrl();
const skip = postgresUrl && redisUrl
  ? false
  : 'needs both PostgreSQL and Redis: set FUELPRICE_TEST_POSTGRES and FUELPRICE_TEST_REDIS to run these (see CONTRIBUTING.md, Test)';

const ROOT = join(import.meta.dirname, '..', '..');

/** Runs test/storage/write-process.ts in a process of its own; resolves once it has exited 0. */
function writer(mode: 'fixture' | 'price', databaseUrl: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'storage', 'write-process.ts'), mode], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, TSX_DISABLE_CACHE: '1' }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${mode} exited ${code}: ${stderr}`))));
  });
}

async function get(server: ServeProcess, path: string, token: string, headers: Record<string, string> = {}): Promise<{ status: number; etag: string | null; body: string }> {
  const response = await fetch(`${server.address}${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  return { status: response.status, etag: response.headers.get('etag'), body: await response.text() };
}

describe('several fuelprice processes on one PostgreSQL database and one Redis', { skip }, () => {
  let database: { url: string; drop(): Promise<void> };
  let admin: Redis;
  let env: Record<string, string>;
  const prefix = redisTestPrefix();
  const servers: ServeProcess[] = [];
  const serverAt = (i: number): ServeProcess => {
    const server = servers[i];
    assert.ok(server, `server ${i} was started`);
    return server;
  };

  async function token(rateLimit: number): Promise<string> {
    const created = await runCli(['tokens', 'create', '--name', `limit-${rateLimit}`, '--rate-limit', String(rateLimit)], env);
    assert.equal(created.code, 0, created.stderr);
    return created.stdout.trim();
  }

  before(async () => {
    admin = await redisAdmin(redisUrl ?? '');
    database = await createPostgresDatabase(postgresUrl ?? '');
    env = {
      DATABASE_URL: database.url, REDIS_URL: redisUrl ?? '', FUELPRICE_REDIS_PREFIX: prefix,
      FUELPRICE_NOW: new Date(NOW * 1000).toISOString(), LOG_LEVEL: 'silent',
    };
    await writer('fixture', database.url);
    for (let i = 0; i < 2; i++) servers.push(await startServe(['--port', '0'], env));
    assert.notEqual(servers[0]?.address, servers[1]?.address);
  });
  after(async () => {
    for (const server of servers) {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    }
    await database?.drop();
    if (admin) {
      await deleteRedisKeys(admin, prefix);
      admin.disconnect();
    }
  });

  test('a rate limit is shared: exactly 6 answers across both servers, then 429 on both', async () => {
    const shared = await token(6);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await get(serverAt(i % 2), '/v1/cities', shared)).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
    const keys = await admin.keys(`${prefix}*`);
    assert.equal(keys.length, 1, 'the counter lives under FUELPRICE_REDIS_PREFIX');
    assert.equal(await admin.get(keys[0] ?? ''), '6');
  });

  test('data is shared: a price written by another process is answered by both servers at once, with a new ETag', async () => {
    const reader = await token(1000);
    const path = '/v1/cities/sydney/spread';
    const before = await Promise.all(servers.map((s) => get(s, path, reader)));
    for (const r of before) assert.equal(r.status, 200);
    assert.equal(before[0]?.body, before[1]?.body);
    assert.equal(before[0]?.etag, before[1]?.etag);

    await writer('price', database.url);

    // No cache to invalidate: ETags are a hash of the body, computed on every answer.
    const afterWrite = await Promise.all(servers.map((s) => get(s, path, reader, { 'if-none-match': before[0]?.etag ?? '' })));
    for (const r of afterWrite) {
      assert.equal(r.status, 200, 'the old ETag no longer matches');
      assert.notEqual(r.body, before[0]?.body);
      assert.match(r.body, /"fuel":"ulp91","average":"[0-9.]+","min":"160.0"/, 'the new price is the minimum');
      assert.notEqual(r.etag, before[0]?.etag);
    }
    assert.equal(afterWrite[0]?.body, afterWrite[1]?.body);
    assert.equal(afterWrite[0]?.etag, afterWrite[1]?.etag);
    for (const s of servers) assert.equal((await get(s, path, reader, { 'if-none-match': afterWrite[0]?.etag ?? '' })).status, 304);
  });

  test('a token revoked by `fuelprice tokens revoke` is refused by both servers on the next request', async () => {
    const revoked = await token(1000);
    for (const s of servers) assert.equal((await get(s, '/v1/cities', revoked)).status, 200);
    const r = await runCli(['tokens', 'revoke', revoked.slice(3, 11)], env);
    assert.equal(r.code, 0, r.stderr);
    for (const s of servers) assert.equal((await get(s, '/v1/cities', revoked)).status, 401);
  });

  test('no process needs the others: one server killed, the other keeps answering', async () => {
    const reader = await token(1000);
    const gone = serverAt(0);
    const kept = serverAt(1);
    gone.child.kill('SIGKILL');
    await gone.exited;
    for (let i = 0; i < 5; i++) assert.equal((await get(kept, '/v1/cities/sydney/spread', reader)).status, 200);
    const ready = await fetch(`${kept.address}/ready`);
    assert.deepEqual(await ready.json(), { status: 'ready', backend: 'postgres', redis: 'ok' });
  });
});
