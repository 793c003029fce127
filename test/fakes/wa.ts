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

/** The real site API capture (test/fixtures/real/wa-api/): taken 2026-03-30 06:48:55 UTC = 14:48:55 WA, after tomorrow's publication. */
export const WA_API_CAPTURED = Date.parse('2026-03-30T06:48:55Z') / 1000;
const API_FIXTURES = new URL('../fixtures/real/wa-api/', import.meta.url);
/** The products the capture has; the site API's others answer an empty list here. */
export const WA_API_CAPTURED_PRODUCTS = ['ULP', 'DSL', '98R'] as const;

/** The captured sites of one product (the fixture parsed), [] for a product not captured. */
export function waApiSites(fuelType: string): Array<Record<string, unknown>> {
  const file = new URL(`sites_${fuelType}.json`, API_FIXTURES);
  return existsSync(file) && /^[A-Z0-9]{3}$/.test(fuelType) ? JSON.parse(readFileSync(file, 'utf8')) as Array<Record<string, unknown>> : [];
}

/**
 * With `api`, the fake also plays the site API: GET /api/sites?fuelType=X answers the real capture
 * of X (test/fixtures/real/wa-api/sites_X.json), or [] for a product it has none of. Without it,
 * /api/sites is a 404, as on a host that has only the RSS.
 */
export async function startWaFake(options: { api?: boolean } = {}): Promise<WaFake> {
  let round = 1;
  const handler = (request: FakeRequest): FakeReply => {
    if (options.api && request.method === 'GET' && request.path === '/api/sites') {
      const fuelType = request.query.get('fuelType') ?? '';
      if (!['ULP', 'PUP', 'DSL', 'BDL', 'LPG', '98R', 'E85'].includes(fuelType)) return { status: 400, body: '{"message":"bad fuelType"}' };
      const file = new URL(`sites_${fuelType}.json`, API_FIXTURES);
      return { headers: { 'content-type': 'application/json; charset=utf-8' }, body: existsSync(file) ? readFileSync(file, 'utf8') : '[]' };
    }
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
