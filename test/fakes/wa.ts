/**
 * A fake FuelWatch: GET /fuelwatch/fuelWatchRSS?Product=<code>&Day=today|tomorrow answers the
 * current round's test/fixtures/feeds/wa/round-<n>.<day>-<product>.xml, or a channel with no
 * items when the round has no list for that product and day (as FuelWatch does for tomorrow
 * before its 14:30 publication). Product 4 (diesel) always comes with a byte-order mark, as
 * FuelWatch's answers sometimes do.
 *
 * Round 1 is 2026-05-12 after 14:30 WA time (today = the 12th, tomorrow = the 13th); round 2 is a
 * day later: tomorrow's lists became today's, new prices for the 14th, and 7-Eleven Rivervale
 * joins. FuelWatch has no out-of-stock flag, so no round can mark a fuel unavailable.
 */
import { existsSync, readFileSync } from 'node:fs';
import { FakeFeedServer, type FakeReply, type FakeRequest } from './server.ts';

const FIXTURES = new URL('../fixtures/feeds/wa/', import.meta.url);
export const WA_FAKE_ROUNDS = 2;
/** Round 1's clock: 2026-05-12 15:00 WA time (UTC+8) = 07:00 UTC. */
export const WA_ROUND_1_NOW = 1_778_569_200;
export const WA_BOM_PRODUCT = '4';

export interface WaFake {
  readonly url: string;
  readonly server: FakeFeedServer;
  /** 1-based. */
  readonly round: number;
  /** Moves to the next round of fixtures. */
  advance(): void;
  close(): Promise<void>;
}

/** The fixture text for a round, day and product, or undefined when that round has no such list. */
export function waFixture(round: number, day: string, product: string): string | undefined {
  const file = new URL(`round-${round}.${day}-${product}.xml`, FIXTURES);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

function emptyChannel(): string {
  return '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n<channel>\n<title>FuelWatch Prices</title>\n'
    + '<ttl>720</ttl>\n<link>https://www.fuelwatch.wa.gov.au</link>\n<language>en-us</language>\n</channel>\n</rss>\n';
}

export async function startWaFake(): Promise<WaFake> {
  let round = 1;
  const handler = (request: FakeRequest): FakeReply => {
    if (request.method !== 'GET' || request.path !== '/fuelwatch/fuelWatchRSS') return { status: 404, body: 'not found' };
    const product = request.query.get('Product') ?? '';
    const day = request.query.get('Day') ?? '';
    if (!/^\d{1,2}$/.test(product) || (day !== 'today' && day !== 'tomorrow')) return { status: 400, body: 'bad Product or Day' };
    const body = waFixture(round, day, product) ?? emptyChannel();
    return { headers: { 'content-type': 'text/xml; charset=UTF-8' }, body: product === WA_BOM_PRODUCT ? `\uFEFF${body}` : body };
  };
  const server = new FakeFeedServer(handler);
  const url = await server.start();
  return {
    url, server,
    get round() { return round; },
    advance() {
      if (round >= WA_FAKE_ROUNDS) throw new Error(`the WA fake has ${WA_FAKE_ROUNDS} rounds`);
      round++;
    },
    close: () => server.close(),
  };
}
