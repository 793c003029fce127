/**
 * End to end without the internet: `fuelprice ingest FEED` in its own process, pointed at a
 * feed's fake (test/fakes/<feed>.ts) through the feed's URL variable, with the clock fixed by
 * FUELPRICE_NOW; then the public API, on a real port, over the database it wrote.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../src/storage/open.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { type CliRun, createPostgresDatabase, fixedClock, get, postgresServerUrl, runCli, startServer } from '../../helpers.ts';

export interface E2eDatabase {
  url: string;
  drop(): Promise<void>;
}

/** SQLite always; PostgreSQL too when the suite was asked to use it. */
export function e2eBackends(): Array<{ name: string; create(): Promise<E2eDatabase> }> {
  const list = [{
    name: 'sqlite',
    async create(): Promise<E2eDatabase> {
      const dir = mkdtempSync(join(tmpdir(), 'fuelprice-e2e-'));
      const url = `sqlite:${join(dir, 'e2e.db')}`;
      // Made first, as an operator runs `fuelprice migrate` before `ingest`: the CLI opens only an existing SQLite file.
      await (await openStore(url)).close();
      return { url, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  }];
  const server = postgresServerUrl();
  if (server) list.push({ name: 'postgres', create: () => createPostgresDatabase(server) });
  return list;
}

export function isoAt(sec: number): string {
  return new Date(sec * 1000).toISOString();
}

/** `fuelprice ingest FEED` once, at `nowSec`, with the feed's variables in `env`. */
export function ingest(feed: string, databaseUrl: string, nowSec: number, env: Record<string, string>): Promise<CliRun> {
  return runCli(['ingest', feed], { DATABASE_URL: databaseUrl, FUELPRICE_NOW: isoAt(nowSec), LOG_LEVEL: 'warn', ...env });
}

/** The API's answers (status and parsed body) for `paths` at `nowSec`, through a real port. */
export async function apiAnswers(databaseUrl: string, nowSec: number, paths: readonly string[]): Promise<Record<string, { status: number; body: unknown }>> {
  const store: PriceStore = await openStore(databaseUrl);
  const server = await startServer(store, fixedClock(nowSec));
  try {
    const out: Record<string, { status: number; body: unknown }> = {};
    for (const path of paths) {
      const response = await get(server, path);
      out[path] = { status: response.status, body: response.body };
    }
    return out;
  } finally {
    await server.close();
    await store.close();
  }
}

/** One fuel's entry of a per-fuel answer (spread, average, unavailable, history). */
export function fuelEntry(body: unknown, fuel: string): unknown {
  const list = Array.isArray(body) ? body : (body as { data?: unknown[] } | undefined)?.data;
  return (list as Array<{ fuel?: string }> | undefined)?.find((e) => e.fuel === fuel);
}
