import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { type AppOptions, buildApp } from '../src/app.ts';
import type { Clock } from '../src/config.ts';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import type { PriceStore } from '../src/storage/store.ts';
import { newToken } from '../src/tokens.ts';

export interface TestBackend {
  name: string;
  /** A fresh, migrated, empty store, and how to throw it away. */
  create(): Promise<{ store: PriceStore; drop(): Promise<void> }>;
}

/** SQLite always; further backends join this list when their issue lands (see README, Testing). */
export function testBackends(): TestBackend[] {
  return [{
    name: 'sqlite',
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'fuelprice-test-'));
      const store = new SqliteStore(join(dir, 'test.db'));
      await store.migrate();
      return { store, drop: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
    },
  }];
}

export function fixedClock(nowSec: number): Clock & { set(sec: number): void } {
  let now = nowSec;
  return { now: () => now, set: (sec: number) => { now = sec; } };
}

export interface RunningServer {
  baseUrl: string;
  app: FastifyInstance;
  token: string;
  close(): Promise<void>;
}

/** The real app on a real port (127.0.0.1, random port), with one valid token. */
export async function startServer(store: PriceStore, clock: Clock, options: Partial<AppOptions> = {}): Promise<RunningServer> {
  const created = newToken('test', clock.now());
  await store.createToken(created.record);
  const app = await buildApp({ store, clock, ...options });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return { baseUrl, app, token: created.token, close: () => app.close() };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export async function get(server: RunningServer, path: string, init: { token?: string | null; headers?: Record<string, string>; method?: string } = {}): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...init.headers };
  const token = init.token === undefined ? server.token : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${server.baseUrl}${path}`, { method: init.method ?? 'GET', headers });
  const text = await response.text();
  let body: unknown;
  try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
  return { status: response.status, headers: response.headers, body, text };
}

/** Asserts nothing stored changed: same data version and counts before and after. */
export async function snapshot(store: PriceStore): Promise<string> {
  return JSON.stringify({ version: await store.dataVersion(), counts: await store.counts() });
}
