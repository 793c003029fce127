/**
 * A fake API.NSW Fuel API (FuelCheck v2). GET /oauth/client_credential/accesstoken?grant_type=
 * client_credentials with the right HTTP Basic key:secret answers { access_token, expires_in } (a
 * new token each time; wrong or absent credentials answer 401). The data endpoints need
 * `Authorization: Bearer <a token it issued>` and `apikey: <key>` (401 otherwise), a UUID in
 * `transactionid` and a `requesttimestamp` written dd/MM/yyyy hh:mm:ss AM/PM (400 otherwise).
 *
 * /FuelPriceCheck/v2/fuel/prices answers the current round's snapshot
 * (test/fixtures/feeds/nsw/round-<n>.prices.json) for the states asked for (`states=NSW|TAS`;
 * NSW alone without the parameter). /FuelPriceCheck/v2/fuel/prices/new answers, like the real API
 * per API key, only what changed since the round of that key's previous /prices or /new call: the
 * changed prices and their stations (everything before any call; nothing twice).
 *
 * Round 1 is read at 09:00 Sydney on 12 May 2026. In round 2 (09:30) Ampol Surry Hills lowers
 * E10 and U91, bp Braddon (ACT) runs out of premium diesel (price 0), United Moonah (TAS) lowers
 * diesel, and Speedway Marrickville joins.
 */
import { readFileSync } from 'node:fs';
import { FakeFeedServer, type FakeReply, type FakeRequest } from './server.ts';

const FIXTURES = new URL('../fixtures/feeds/nsw/', import.meta.url);
export const NSW_FAKE_ROUNDS = 2;
export const NSW_TEST_KEY = 'Qm7xK2pL9vR4tY8wZ3nB6cD1fG5hJ0aS';
export const NSW_TEST_SECRET = 'uE4rT7yI2oP5';
/** Round 1's clock: 2026-05-12 09:00 Sydney (AEST, UTC+10) = 2026-05-11T23:00:00Z. */
export const NSW_ROUND_1_NOW = 1_778_540_400;
/** Round 2's clock, 30 minutes later (09:30 Sydney, the same day). */
export const NSW_ROUND_2_NOW = NSW_ROUND_1_NOW + 1_800;
/** Token lifetime the fake announces, as Apigee does (a string of seconds, about 12 hours). */
export const NSW_FAKE_EXPIRES_IN = '43199';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const TIMESTAMP = /^(0[1-9]|[12]\d|3[01])\/(0[1-9]|1[0-2])\/\d{4} (0[1-9]|1[0-2]):[0-5]\d:[0-5]\d (AM|PM)$/;

export function nswFixture(round: number): string {
  return readFileSync(new URL(`round-${round}.prices.json`, FIXTURES), 'utf8');
}

interface Answer {
  stations: Array<Record<string, unknown>>;
  prices: Array<Record<string, unknown>>;
}

const snapshot = (round: number): Answer => JSON.parse(nswFixture(round)) as Answer;
const priceKey = (p: Record<string, unknown>): string => `${String(p['state'])}|${String(p['stationcode'])}|${String(p['fueltype'])}`;

/** The prices of round `to` that are new or different since round `from`, with their stations. */
function changes(from: number, to: number): Answer {
  const before = new Map(snapshot(from).prices.map((p) => [priceKey(p), JSON.stringify(p)]));
  const now = snapshot(to);
  const prices = now.prices.filter((p) => before.get(priceKey(p)) !== JSON.stringify(p));
  const touched = new Set(prices.map((p) => `${String(p['state'])}|${String(p['stationcode'])}`));
  return { stations: now.stations.filter((s) => touched.has(`${String(s['state'])}|${String(s['code'])}`)), prices };
}

function forStates(answer: Answer, states: readonly string[]): Answer {
  return {
    stations: answer.stations.filter((s) => states.includes(String(s['state']))),
    prices: answer.prices.filter((p) => states.includes(String(p['state']))),
  };
}

export interface NswFake {
  readonly url: string;
  readonly server: FakeFeedServer;
  /** 1-based. */
  readonly round: number;
  /** Access tokens issued so far, in order. */
  readonly tokens: readonly string[];
  advance(): void;
  /** Makes every issued token invalid (as if it had expired early). */
  revokeTokens(): void;
  close(): Promise<void>;
}

const json = (status: number, body: unknown): FakeReply => ({ status, body: JSON.stringify(body) });
const errorDetails = (status: number, code: string, description: string): FakeReply => json(status, { errorDetails: [{ code, description }] });

export async function startNswFake(key = NSW_TEST_KEY, secret = NSW_TEST_SECRET): Promise<NswFake> {
  let round = 1;
  const tokens: string[] = [];
  const valid = new Set<string>();
  /** Per API key, the round its last /prices or /new call was answered from. */
  const servedRound = new Map<string, number>();

  const grant = (request: FakeRequest): FakeReply => {
    if (request.query.get('grant_type') !== 'client_credentials') return json(400, { ErrorCode: 'invalid_request', Error: 'Unsupported grant type' });
    const expected = `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
    if (request.headers['authorization'] !== expected) return json(401, { ErrorCode: 'invalid_client', Error: 'ClientId is Invalid' });
    const token = `fakeToken${tokens.length + 1}x${Math.random().toString(36).slice(2, 10)}`;
    tokens.push(token);
    valid.add(token);
    return json(200, { access_token: token, token_type: 'BearerToken', expires_in: NSW_FAKE_EXPIRES_IN, status: 'approved' });
  };

  const handler = (request: FakeRequest): FakeReply => {
    if (request.method !== 'GET') return json(405, { message: 'Method Not Allowed' });
    if (request.path === '/oauth/client_credential/accesstoken') return grant(request);
    const bearer = /^Bearer (\S+)$/.exec(String(request.headers['authorization'] ?? ''));
    if (!bearer || !valid.has(bearer[1] ?? '')) return json(401, { fault: { faultstring: 'Invalid access token', detail: { errorcode: 'oauth.v2.InvalidAccessToken' } } });
    if (request.headers['apikey'] !== key) return json(401, { fault: { faultstring: 'Invalid ApiKey', detail: { errorcode: 'oauth.v2.InvalidApiKey' } } });
    if (!UUID.test(String(request.headers['transactionid'] ?? ''))) return errorDetails(400, 'E0001', 'transactionid header is missing or invalid');
    if (!TIMESTAMP.test(String(request.headers['requesttimestamp'] ?? ''))) return errorDetails(400, 'E0002', 'requesttimestamp must be dd/MM/yyyy hh:mm:ss AM/PM');
    const states = (request.query.get('states') ?? 'NSW').split('|').map((s) => s.trim().toUpperCase());
    const previous = servedRound.get(key);
    if (request.path === '/FuelPriceCheck/v2/fuel/prices') {
      servedRound.set(key, round);
      return json(200, forStates(snapshot(round), states));
    }
    if (request.path === '/FuelPriceCheck/v2/fuel/prices/new') {
      servedRound.set(key, round);
      const answer = previous === undefined ? snapshot(round) : changes(previous, round);
      return json(200, forStates(answer, states));
    }
    return json(404, { message: 'Resource not found' });
  };

  const server = new FakeFeedServer(handler);
  const url = await server.start();
  return {
    url, server, tokens,
    get round() { return round; },
    advance() {
      if (round >= NSW_FAKE_ROUNDS) throw new Error(`the NSW fake has ${NSW_FAKE_ROUNDS} rounds`);
      round++;
    },
    revokeTokens() { valid.clear(); },
    close: () => server.close(),
  };
}
