/**
 * A fake Fair Fuel Open Data API: GET /open-data/v1/fuel/prices and
 * /open-data/v1/fuel/reference-data/brands answer the current round's
 * test/fixtures/feeds/vic/round-<n>.prices.json and round-<n>.brands.json. Like the real API it
 * refuses a call without x-consumer-id (401), with the wrong one (403), or without a UUID in
 * x-transactionid or without a User-Agent (400).
 *
 * Round 1 is read on 2026-05-12 (the data a day old); in round 2 bp changes two prices, Ampol's
 * premium diesel is back in stock, 7-Eleven's LPG runs out, and United Collingwood (a new brand)
 * joins. Liberty Brunswick has no position in either round.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import assert from 'node:assert/strict';
import { FeedHttp } from '../../src/ingest/feed-fetch.ts';
import { vicAdapter } from '../../src/ingest/feeds/vic.ts';
import { runFeed } from '../../src/ingest/runner.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { MemoryLog } from './context.ts';
import { FakeFeedServer, type FakeReply, type FakeRequest, instantRetries } from './server.ts';

const FIXTURES = new URL('../fixtures/feeds/vic/', import.meta.url);
export const VIC_FAKE_ROUNDS = 2;
export const VIC_TEST_CONSUMER_ID = 'f3c1a9e07b2d4c58a6e1d0b9c7f2e4a1';
/** Round 1's clock: 2026-05-12 10:00 Melbourne (UTC+10 in May) = 00:00 UTC. */
export const VIC_ROUND_1_NOW = 1_778_544_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export interface VicFake {
  readonly url: string;
  readonly server: FakeFeedServer;
  readonly consumerId: string;
  /** 1-based. */
  readonly round: number;
  advance(): void;
  close(): Promise<void>;
}

export function vicFixture(round: number, name: 'prices' | 'brands'): string {
  return readFileSync(new URL(`round-${round}.${name}.json`, FIXTURES), 'utf8');
}

/** Real Fair Fuel answers (test/fixtures/feeds/vic/real/, see its README): the prices body of one day, as published. */
export const VIC_REAL_DAYS = ['2026-05-01', '2026-05-02'] as const;
export type VicRealDay = (typeof VIC_REAL_DAYS)[number];

export function vicRealPrices(day: VicRealDay): string {
  return gunzipSync(readFileSync(new URL(`real/prices-${day}.json.gz`, FIXTURES))).toString('utf8');
}

export function vicRealBrands(): string {
  return readFileSync(new URL('real/brands-2026-05-03.json', FIXTURES), 'utf8');
}

/** What a fake answers in place of the rounds' files: real answers, say (each round one body). */
export interface VicBodies {
  prices(round: number): string;
  brands(round: number): string;
  rounds: number;
}

/** The real answers of VIC_REAL_DAYS as rounds 1 and 2, with the brands list the archive holds. */
export function vicRealBodies(): VicBodies {
  const brands = vicRealBrands();
  const days = VIC_REAL_DAYS.map(vicRealPrices);
  return { prices: (round) => days[round - 1] ?? '', brands: () => brands, rounds: days.length };
}

/** 2026-05-01T00:00:00Z (2026-01-01 = 1767225600 plus 120 days), and noon of 3 May in Melbourne: the clock the real days are read at. */
export const VIC_REAL_MAY_1 = 1_777_593_600;
export const VIC_REAL_MAY_3_NOON = VIC_REAL_MAY_1 + 2 * 86_400 + 2 * 3_600;

/** Both real days ingested through the VIC adapter from a fake of the API, one run a day, as `fuelprice ingest vic` would. */
export async function ingestRealVic(store: PriceStore, clock: { now(): number }): Promise<void> {
  const fake = await startVicFake(VIC_TEST_CONSUMER_ID, vicRealBodies());
  try {
    const config = { url: fake.url, credentials: { VIC_FAIRFUEL_CONSUMER_ID: VIC_TEST_CONSUMER_ID } };
    for (let round = 1; round <= 2; round++) {
      if (round === 2) fake.advance();
      const run = await runFeed({ store, adapter: vicAdapter, config, clock, log: new MemoryLog(), http: new FeedHttp(instantRetries()) });
      assert.equal(run.error, undefined);
    }
  } finally {
    await fake.close();
  }
}

const json = (status: number, body: unknown): FakeReply => ({ status, body: JSON.stringify(body) });

export async function startVicFake(consumerId = VIC_TEST_CONSUMER_ID, bodies?: VicBodies): Promise<VicFake> {
  let round = 1;
  const rounds = bodies?.rounds ?? VIC_FAKE_ROUNDS;
  const handler = (request: FakeRequest): FakeReply => {
    const given = request.headers['x-consumer-id'];
    if (given === undefined || given === '') return json(401, { error: 'Unauthorised', message: 'x-consumer-id header is required' });
    if (given !== consumerId) return json(403, { error: 'Forbidden', message: 'consumer id not recognised' });
    const transaction = request.headers['x-transactionid'];
    if (typeof transaction !== 'string' || !UUID.test(transaction)) return json(400, { error: 'Bad Request', message: 'x-transactionid must be a UUID' });
    if (!request.headers['user-agent']) return json(400, { error: 'Bad Request', message: 'User-Agent header is required' });
    if (request.method !== 'GET') return json(405, { error: 'Method Not Allowed' });
    if (request.path === '/open-data/v1/fuel/prices') return { body: bodies ? bodies.prices(round) : vicFixture(round, 'prices') };
    if (request.path === '/open-data/v1/fuel/reference-data/brands') return { body: bodies ? bodies.brands(round) : vicFixture(round, 'brands') };
    return json(404, { error: 'Not Found' });
  };
  const server = new FakeFeedServer(handler);
  const url = await server.start();
  return {
    url, server, consumerId,
    get round() { return round; },
    advance() {
      if (round >= rounds) throw new Error(`the VIC fake has ${rounds} rounds`);
      round++;
    },
    close: () => server.close(),
  };
}
