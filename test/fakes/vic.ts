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
import { FakeFeedServer, type FakeReply, type FakeRequest } from './server.ts';

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

const json = (status: number, body: unknown): FakeReply => ({ status, body: JSON.stringify(body) });

export async function startVicFake(consumerId = VIC_TEST_CONSUMER_ID): Promise<VicFake> {
  let round = 1;
  const handler = (request: FakeRequest): FakeReply => {
    const given = request.headers['x-consumer-id'];
    if (given === undefined || given === '') return json(401, { error: 'Unauthorised', message: 'x-consumer-id header is required' });
    if (given !== consumerId) return json(403, { error: 'Forbidden', message: 'consumer id not recognised' });
    const transaction = request.headers['x-transactionid'];
    if (typeof transaction !== 'string' || !UUID.test(transaction)) return json(400, { error: 'Bad Request', message: 'x-transactionid must be a UUID' });
    if (!request.headers['user-agent']) return json(400, { error: 'Bad Request', message: 'User-Agent header is required' });
    if (request.method !== 'GET') return json(405, { error: 'Method Not Allowed' });
    if (request.path === '/open-data/v1/fuel/prices') return { body: vicFixture(round, 'prices') };
    if (request.path === '/open-data/v1/fuel/reference-data/brands') return { body: vicFixture(round, 'brands') };
    return json(404, { error: 'Not Found' });
  };
  const server = new FakeFeedServer(handler);
  const url = await server.start();
  return {
    url, server, consumerId,
    get round() { return round; },
    advance() {
      if (round >= VIC_FAKE_ROUNDS) throw new Error(`the VIC fake has ${VIC_FAKE_ROUNDS} rounds`);
      round++;
    },
    close: () => server.close(),
  };
}
