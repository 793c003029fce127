/**
 * A fake FPD API (Fuel Prices QLD Direct API / SAFPIS) for one state. GET
 * /Subscriber/GetCountryBrands, /Subscriber/GetCountryFuelTypes and
 * /Subscriber/GetCountryGeographicRegions (countryId=21) answer test/fixtures/feeds/fpd/<state>/
 * brands.json, fuel-types.json and regions.json; /Subscriber/GetFullSiteDetails and
 * /Price/GetSitesPrices (countryId=21, geoRegionLevel=3, geoRegionId 1 for QLD, 4 for SA) answer
 * the current round's round-<n>.sites.json and round-<n>.prices.json. Like the real API it answers
 * 401 unless `Authorization: FPDAPI SubscriberToken=<token>` carries the right token, and 400 for
 * other parameters.
 *
 * QLD: round 1 has four sites (Brisbane, Toowoomba, Gold Coast; BP Toowoomba's LPG out of stock).
 * In round 2 7-Eleven Fortitude Valley's petrol jumps (cycle rise), BP Toowoomba's LPG is back,
 * United Southport's diesel runs out and Liberty Kedron joins.
 * SA: round 1 has four sites (Adelaide, Gawler; Shell Norwood's LPG out of stock). In round 2 OTR
 * Kilburn's petrol rises, BP Unley's LPG runs out, Shell Norwood's LPG is back and Liberty
 * Prospect joins.
 */
import { readFileSync } from 'node:fs';
import { FakeFeedServer, type FakeReply, type FakeRequest } from './server.ts';

export type FpdState = 'qld' | 'sa';
export const FPD_FAKE_ROUNDS = 2;
export const FPD_TEST_TOKENS: Readonly<Record<FpdState, string>> = {
  qld: '8D3F1C2A-5B7E-4F90-A1C4-6E2B9D0F7A35',
  sa: 'C41E7B09-2D5A-4C8E-9F13-B6A0E52D8C71',
};
const GEO_REGION_ID: Readonly<Record<FpdState, string>> = { qld: '1', sa: '4' };
/**
 * The clock of each round: 2026-11-21T00:00:00Z (10:00 Brisbane, 10:30 Adelaide) = 1_795_219_200
 * (2026-01-01 = 1_767_225_600, + 324 days * 86_400), then six hours later.
 */
export const FPD_ROUND_NOW: readonly [number, number] = [1_795_219_200, 1_795_240_800];

const FIXTURES = new URL('../fixtures/feeds/fpd/', import.meta.url);

export type FpdFixture = 'brands' | 'fuel-types' | 'regions' | 'sites' | 'prices';

/** A fixture's text; sites and prices are per round. */
export function fpdFixture(state: FpdState, name: FpdFixture, round = 1): string {
  const file = name === 'sites' || name === 'prices' ? `round-${round}.${name}.json` : `${name}.json`;
  return readFileSync(new URL(`${state}/${file}`, FIXTURES), 'utf8');
}

export interface FpdFake {
  readonly url: string;
  readonly server: FakeFeedServer;
  readonly state: FpdState;
  readonly token: string;
  /** 1-based. */
  readonly round: number;
  /** The clock to pull the current round at. */
  readonly now: number;
  advance(): void;
  close(): Promise<void>;
}

const message = (status: number, text: string): FakeReply => ({ status, body: JSON.stringify({ Message: text }) });

export async function startFpdFake(options: { state: FpdState; token?: string }): Promise<FpdFake> {
  const { state } = options;
  const token = options.token ?? FPD_TEST_TOKENS[state];
  let round = 1;
  const handler = (request: FakeRequest): FakeReply => {
    if (request.headers['authorization'] !== `FPDAPI SubscriberToken=${token}`) return message(401, 'Authorization has been denied for this request.');
    if (request.method !== 'GET') return message(405, 'The requested resource does not support this method.');
    if (request.query.get('countryId') !== '21') return message(400, 'The request is invalid.');
    const stateWide = request.query.get('geoRegionLevel') === '3' && request.query.get('geoRegionId') === GEO_REGION_ID[state];
    switch (request.path) {
      case '/Subscriber/GetCountryBrands': return { body: fpdFixture(state, 'brands') };
      case '/Subscriber/GetCountryFuelTypes': return { body: fpdFixture(state, 'fuel-types') };
      case '/Subscriber/GetCountryGeographicRegions': return { body: fpdFixture(state, 'regions') };
      case '/Subscriber/GetFullSiteDetails': return stateWide ? { body: fpdFixture(state, 'sites', round) } : message(400, 'The request is invalid.');
      case '/Price/GetSitesPrices': return stateWide ? { body: fpdFixture(state, 'prices', round) } : message(400, 'The request is invalid.');
      default: return message(404, 'No HTTP resource was found that matches the request URI.');
    }
  };
  const server = new FakeFeedServer(handler);
  const url = await server.start();
  return {
    url, server, state, token,
    get round() { return round; },
    get now() { return FPD_ROUND_NOW[round - 1] ?? FPD_ROUND_NOW[1]; },
    advance() {
      if (round >= FPD_FAKE_ROUNDS) throw new Error(`the FPD fake has ${FPD_FAKE_ROUNDS} rounds`);
      round++;
    },
    close: () => server.close(),
  };
}
