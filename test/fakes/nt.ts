/**
 * A fake MyFuel NT site: GET /Home/Results answers the current round's
 * test/fixtures/feeds/nt/round-<n>.html, an ASP.NET-style page whose hidden #serverJson input
 * holds the HTML-encoded JSON of every outlet (as the community documentation describes).
 *
 * Round 1 (read at 2026-05-12 12:00 Darwin): Ampol Stuart Park, BP Parap (premium 95 out of
 * stock), United Winnellie, Liberty Coconut Grove without a position, Puma Berrimah inactive.
 * Round 2: Ampol's unleaded drops 2 c/L, BP's premium 95 is back, United runs out of diesel,
 * and Shell Coconut Grove joins.
 */
import { readFileSync } from 'node:fs';
import { FakeFeedServer, type FakeReply, type FakeRequest } from './server.ts';

const FIXTURES = new URL('../fixtures/feeds/nt/', import.meta.url);
export const NT_FAKE_ROUNDS = 2;
/** Round 1's clock: 2026-05-12 12:00 Darwin (UTC+9:30) = 02:30 UTC. */
export const NT_ROUND_1_NOW = 1_778_553_000;

export interface NtFake {
  readonly url: string;
  readonly server: FakeFeedServer;
  /** 1-based. */
  readonly round: number;
  advance(): void;
  close(): Promise<void>;
}

export function ntFixture(round: number): string {
  return readFileSync(new URL(`round-${round}.html`, FIXTURES), 'utf8');
}

export async function startNtFake(): Promise<NtFake> {
  let round = 1;
  const handler = (request: FakeRequest): FakeReply => {
    if (request.method !== 'GET' || request.path !== '/Home/Results') return { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><body>Not found</body></html>' };
    return { headers: { 'content-type': 'text/html; charset=utf-8' }, body: ntFixture(round) };
  };
  const server = new FakeFeedServer(handler);
  const url = await server.start();
  return {
    url, server,
    get round() { return round; },
    advance() {
      if (round >= NT_FAKE_ROUNDS) throw new Error(`the NT fake has ${NT_FAKE_ROUNDS} rounds`);
      round++;
    },
    close: () => server.close(),
  };
}
