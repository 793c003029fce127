/**
 * New South Wales, the ACT and Tasmania: API.NSW's Fuel API ("FuelCheck"), v2 endpoints.
 *
 * OAuth2 client credentials first: GET <base>/oauth/client_credential/accesstoken?grant_type=
 * client_credentials with `Authorization: Basic base64(key:secret)` answers { access_token,
 * expires_in (seconds, about 12 hours; Apigee sends it as a string) }. Every data call then carries
 * `Authorization: Bearer <token>`, `apikey: <key>`, a fresh UUID in `transactionid`, the UTC time
 * as `requesttimestamp` ("12/05/2026 09:30:00 PM") and `Content-Type: application/json;
 * charset=utf-8`.
 *
 * GET /FuelPriceCheck/v2/fuel/prices?states=NSW|TAS is the full snapshot; /FuelPriceCheck/v2/fuel/
 * prices/new answers what was submitted since this API key's last /prices or /prices/new call "on
 * the current day". Both answer { stations: [{ brandid, stationid, brand, code, name, address
 * ("424 Cleveland St, SURRY HILLS NSW 2010"), location: { latitude, longitude }, state ("NSW" or
 * "TAS"), isAdBlueAvailable }], prices: [{ stationcode, state, fueltype, price (cents a litre),
 * lastupdated ("12/05/2026 07:45:10", Sydney wall-clock time) }] }.
 *
 * NSW_FUELCHECK_URL may be the host alone or carry the API's path as API.NSW's pages show it
 * (https://api.onegov.nsw.gov.au/FuelPriceCheck/v2): the calls are the same. The access token
 * (about 12 hours) is kept in the store under `oauth:nsw`, so one-shot runs within its life do not
 * each spend a call of the quota on a new one.
 *
 * Station codes repeat across states, so a station is keyed by the record's state and its code
 * ("NSW-1021", "TAS-17"). ACT stations come through the NSW feed (FuelCheck has covered the ACT
 * since November 2022) under the NSW key; the station itself is placed in the ACT from its address.
 */
import { createHash, randomUUID } from 'node:crypto';
import { localDayOf, localTimeToUnix } from '../../domain/time.ts';
import { FeedError, isObject, parseJsonBody } from '../feed-error.ts';
import type { FeedResponse } from '../feed-fetch.ts';
import type { FeedAdapter, PullContext, Pulled } from '../feed.ts';
import { type FuelMap, type Normaliser, type RawPrice, type RawStation, centsToTenths } from '../normalise.ts';
import { isNswHistoryCode, nswAdoptions } from '../nsw-identity.ts';
import { nswStationState, splitNswAddress } from './nsw-address.ts';
import type { FeedStation } from '../../storage/store.ts';

export const NSW_KEY_VAR = 'NSW_FUELCHECK_API_KEY';
export const NSW_SECRET_VAR = 'NSW_FUELCHECK_API_SECRET';
export const NSW_URL_VAR = 'NSW_FUELCHECK_URL';
/** The version of the API this adapter speaks (v1 answers NSW alone, without the state of each record). */
export const NSW_API_VERSION = 'v2';
export const NSW_TOKEN_PATH = '/oauth/client_credential/accesstoken';
export const NSW_PRICES_PATH = '/FuelPriceCheck/v2/fuel/prices';
export const NSW_NEW_PRICES_PATH = '/FuelPriceCheck/v2/fuel/prices/new';
/** The v2 `states` parameter is a `|`-separated list; without it only NSW (and the ACT) comes back. */
export const NSW_STATES_PARAM = 'NSW|TAS';
/** A snapshot at least this often, whatever /new says: it heals anything a missed change left behind. */
export const NSW_SNAPSHOT_MAX_AGE_SEC = 86_400;

/**
 * FuelCheck fuel codes (the v2 reference data's fueltypes list): E10 Ethanol 94, U91 Unleaded 91,
 * P95 and P98 Premium 95/98, DL Diesel, PDL Premium Diesel, B20 Biodiesel 20, E85 Ethanol 105,
 * LPG, CNG, LNG, EV (charging, cents a kWh).
 */
export const NSW_FUELS: FuelMap = {
  E10: 'e10', U91: 'ulp91', P95: 'ulp95', P98: 'ulp98', DL: 'diesel', PDL: 'pdiesel',
  LPG: 'lpg', E85: 'e85', B20: 'b20', EV: 'ev', CNG: 'cng', LNG: 'lng',
};

function malformed(message: string): FeedError {
  return new FeedError('malformed', `FuelCheck: ${message}`);
}


function parseJson(body: string, what: string): unknown {
  return parseJsonBody(body, `FuelCheck: ${what}`);
}

const MAX_TOKEN_CHARS = 4_096;

/** The token of an access-token answer and its lifetime in seconds (a number or, as Apigee sends it, a numeric string). */
export function parseNswToken(body: string): { accessToken: string; expiresInSec: number | undefined } {
  const doc = parseJson(body, 'the access-token answer');
  if (!isObject(doc) || typeof doc['access_token'] !== 'string' || doc['access_token'] === '' || doc['access_token'].length > MAX_TOKEN_CHARS) {
    throw malformed('the access-token answer has no usable access_token');
  }
  const raw = doc['expires_in'];
  const seconds = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,9}$/.test(raw.trim()) ? Number(raw) : NaN;
  return { accessToken: doc['access_token'], expiresInSec: Number.isInteger(seconds) && seconds > 0 ? seconds : undefined };
}

export interface NswAnswer {
  stations: unknown[];
  prices: unknown[];
}

/**
 * The station and price records of a /prices or /prices/new answer. A snapshot without both lists
 * is malformed; an answer of changes may leave out `stations` (none of its stations changed).
 */
export function parseNswAnswer(body: string, kind: NswPollKind): NswAnswer {
  const doc = parseJson(body, 'the prices answer');
  if (!isObject(doc) || !Array.isArray(doc['prices'])) throw malformed('the prices answer has no prices list');
  const stations = doc['stations'];
  if (Array.isArray(stations)) return { stations, prices: doc['prices'] };
  if (kind === 'new' && stations === undefined) return { stations: [], prices: doc['prices'] };
  throw malformed('the prices answer has no stations list');
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `requesttimestamp`: the UTC time as dd/MM/yyyy hh:mm:ss AM/PM ("12/05/2026 09:30:00 PM"). */
export function formatRequestTimestamp(unixSec: number): string {
  const d = new Date(unixSec * 1_000);
  const hour = d.getUTCHours();
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCFullYear(), 4)} `
    + `${pad(hour % 12 === 0 ? 12 : hour % 12)}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${hour < 12 ? 'AM' : 'PM'}`;
}

const DAY_FIRST = /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2})$/;
const YEAR_FIRST = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,7})?$/;

/**
 * Unix seconds of a `lastupdated` ("12/05/2026 07:45:10"; the nearby endpoints write
 * "2026-05-12 07:45:10"), a Sydney wall-clock time. Tasmanian stations' times are read the same
 * way: Hobart and Sydney have kept the same offsets and DST dates since 2008, and the ACT keeps
 * Sydney's. Undefined when it is not a real date and time.
 */
export function parseLastUpdated(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const trimmed = text.trim();
  let parts: number[];
  const dayFirst = DAY_FIRST.exec(trimmed);
  const yearFirst = dayFirst ? null : YEAR_FIRST.exec(trimmed);
  if (dayFirst) {
    const [d, mo, y, h, mi, s] = dayFirst.slice(1, 7).map(Number) as [number, number, number, number, number, number];
    parts = [y, mo, d, h, mi, s];
  } else if (yearFirst) {
    parts = yearFirst.slice(1, 7).map(Number);
  } else {
    return undefined;
  }
  const [y, mo, d, h, mi, s] = parts as [number, number, number, number, number, number];
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  return localTimeToUnix('nsw', y, mo, d, h, mi, s);
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '');

function coordinate(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && /^-?\d{1,3}(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
}

/** The feed's own key for a station: the record's state (NSW when it names none, as v1 records) and code. */
export function nswStationKey(feedState: unknown, code: unknown): string | undefined {
  const c = text(code);
  if (c === '') return undefined;
  return `${(text(feedState) || 'NSW').toUpperCase()}-${c}`;
}

/** One station record, or why it cannot be used. */
export function readNswStation(record: unknown): RawStation | { rejected: string } {
  if (!isObject(record)) return { rejected: 'station record that is not an object' };
  const key = nswStationKey(record['state'], record['code']);
  if (key === undefined) return { rejected: 'station without a usable code' };
  const location = isObject(record['location']) ? record['location'] : {};
  const latitude = coordinate(location['latitude']);
  const longitude = coordinate(location['longitude']);
  if (Number.isNaN(latitude) || Number.isNaN(longitude)) return { rejected: 'station without coordinates' };
  const address = text(record['address']).replace(/\s+/g, ' ');
  const parts = splitNswAddress(address);
  return {
    code: key, name: text(record['name']), brand: text(record['brand']), address,
    street: parts.street, suburb: parts.suburb, postcode: parts.postcode,
    state: nswStationState(text(record['state']), parts), latitude, longitude,
  };
}

/**
 * One price record, or why it cannot be used. FuelCheck documents no out-of-stock flag; a price of
 * 0 is never a real price, so it is read as the fuel not being available.
 */
export function readNswPrice(record: unknown): RawPrice | { rejected: string } {
  if (!isObject(record)) return { rejected: 'price record that is not an object' };
  const key = nswStationKey(record['state'], record['stationcode']);
  if (key === undefined) return { rejected: 'price without a usable station code' };
  if (typeof record['fueltype'] !== 'string') return { rejected: 'price without a fuel type' };
  const at = parseLastUpdated(record['lastupdated']);
  if (at === undefined) return { rejected: 'price without a valid time' };
  const tenths = centsToTenths(record['price']);
  if (tenths === undefined) return { rejected: 'price that is not a number' };
  return { code: key, fuelCode: record['fueltype'].trim(), at, priceTenths: tenths, available: tenths > 0 };
}

/**
 * Adds one answer's records to a batch; each bad record is rejected alone. Given the stations
 * stored, a new station takes over the history station history files made of its site
 * (nswAdoptions, StationInput.adopts): history imported before the live feed joins it.
 */
export function addNswAnswer(normaliser: Normaliser, answer: NswAnswer, stored: readonly FeedStation[] = []): void {
  const stations: RawStation[] = [];
  for (const record of answer.stations) {
    const station = readNswStation(record);
    if ('rejected' in station) normaliser.rejectStation(station.rejected, record);
    else stations.push(station);
  }
  const adoptions = stored.some((s) => isNswHistoryCode(s.feedCode)) ? nswAdoptions(stations, stored) : new Map<string, string>();
  for (const station of stations) {
    const adopts = adoptions.get(station.code);
    normaliser.station(adopts === undefined ? station : { ...station, adopts });
  }
  for (const record of answer.prices) {
    const price = readNswPrice(record);
    if ('rejected' in price) normaliser.reject(price.rejected, record);
    else normaliser.price(price);
  }
}

/** What the adapter keeps between polls (stored by the runner with each applied batch). */
export interface NswCursor {
  /** When the last full snapshot was taken, Unix seconds. */
  snapshotAt: number;
  /** When the last applied answer (snapshot or changes) was fetched. */
  lastAt: number;
}

export function parseNswCursor(value: string | undefined): NswCursor | undefined {
  if (value === undefined) return undefined;
  try {
    const doc: unknown = JSON.parse(value);
    if (isObject(doc) && Number.isInteger(doc['snapshotAt']) && Number.isInteger(doc['lastAt'])) {
      return { snapshotAt: doc['snapshotAt'] as number, lastAt: doc['lastAt'] as number };
    }
  } catch {
    // An unreadable cursor only costs a snapshot.
  }
  return undefined;
}

export type NswPollKind = 'snapshot' | 'new';

/**
 * A snapshot on a first run, when the last one is a day old, when the last applied call was on an
 * earlier Sydney day (/new only counts from calls made "on the current day"), or when this process
 * fetched an answer after the cursor that was never applied (the API moved on without us), or
 * when the feed's last recorded run failed (a /new the API answered may not have been applied,
 * even by another process); /new otherwise.
 */
export function nswPollKind(cursor: NswCursor | undefined, now: number, lastFetchAt: number | undefined, previousRunFailed = false): NswPollKind {
  if (cursor === undefined || previousRunFailed) return 'snapshot';
  if (now - cursor.snapshotAt >= NSW_SNAPSHOT_MAX_AGE_SEC) return 'snapshot';
  if (localDayOf('nsw', cursor.lastAt) !== localDayOf('nsw', now)) return 'snapshot';
  if (lastFetchAt !== undefined && lastFetchAt > cursor.lastAt) return 'snapshot';
  return 'new';
}

/** Where the feed's calls go. */
export interface NswApi {
  /** Scheme, host and any path before the API's own (a proxy's), without a trailing slash. */
  base: string;
  tokenUrl: string;
  pricesUrl: string;
  newPricesUrl: string;
}

/**
 * The API's URLs from NSW_FUELCHECK_URL: the host alone (https://api.onegov.nsw.gov.au) or with the
 * API's path (…/FuelPriceCheck/v2, or a whole endpoint's URL), any case. Another version of the
 * API is a configuration error, said in one line.
 */
export function nswApi(url: string): NswApi {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FeedError('config', `${NSW_URL_VAR} is not a URL`);
  }
  const api = /^(.*?)\/fuelpricecheck(?:\/([^/]*))?(?:\/.*)?$/i.exec(parsed.pathname);
  const version = api?.[2]?.toLowerCase() ?? '';
  if (version !== '' && version !== NSW_API_VERSION) {
    throw new FeedError('config', `${NSW_URL_VAR} names FuelPriceCheck/${version.slice(0, 12)}: this feed speaks ${NSW_API_VERSION} `
      + `(NSW, ACT and TAS); give the host alone, e.g. https://api.onegov.nsw.gov.au`);
  }
  const base = `${parsed.origin}${(api?.[1] ?? parsed.pathname).replace(/\/+$/, '')}`;
  return { base, tokenUrl: `${base}${NSW_TOKEN_PATH}`, pricesUrl: `${base}${NSW_PRICES_PATH}`, newPricesUrl: `${base}${NSW_NEW_PRICES_PATH}` };
}

/** Per base URL and API key, in memory only: when this process last received an answer. */
const lastFetches = new Map<string, number>();
/** Renew a token this long before the API says it expires. */
const TOKEN_MARGIN_SEC = 300;
const DEFAULT_TOKEN_LIFE_SEC = 3_600;
/** The kept value's name: stored as `oauth:nsw`. */
export const NSW_TOKEN_KEPT = 'oauth';

/** Forgets every fetch time (tests: as a new process would). */
export function forgetNswSessions(): void {
  lastFetches.clear();
}

/**
 * Whose token a kept one is: a digest of the base URL, key and secret (never them), so a token
 * is not used with other settings, and changed credentials are tried at once.
 */
export function nswTokenOwner(base: string, key: string, secret: string): string {
  return createHash('sha256').update(`${base}\n${key}\n${secret}`).digest('hex').slice(0, 16);
}

/** The kept token when it is this owner's, readable and not yet expired; undefined otherwise. */
export function keptNswToken(kept: string | undefined, owner: string, now: number): string | undefined {
  if (kept === undefined || kept.length > 2 * MAX_TOKEN_CHARS) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(kept);
  } catch {
    return undefined;
  }
  if (!isObject(doc) || doc['for'] !== owner || typeof doc['token'] !== 'string' || doc['token'] === '') return undefined;
  const expiresAt = doc['expiresAt'];
  return typeof expiresAt === 'number' && Number.isInteger(expiresAt) && expiresAt > now ? doc['token'] : undefined;
}

/** A new access token (one call of the quota), kept for later runs; failing to keep it only costs a call next time. */
async function newToken(ctx: PullContext, api: NswApi, key: string, secret: string, owner: string): Promise<string> {
  const response = await ctx.http.request(api.tokenUrl, {
    query: { grant_type: 'client_credentials' },
    headers: { authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`, accept: 'application/json' },
  });
  const { accessToken, expiresInSec } = parseNswToken(response.text);
  const expiresAt = ctx.now + (expiresInSec ?? DEFAULT_TOKEN_LIFE_SEC) - TOKEN_MARGIN_SEC;
  try {
    await ctx.kept.write(NSW_TOKEN_KEPT, JSON.stringify({ token: accessToken, expiresAt, for: owner }));
  } catch (error) {
    ctx.log.warn({ feed: 'nsw', error: error instanceof Error ? error.message : String(error) }, 'could not keep the access token: the next run asks for another');
  }
  return accessToken;
}

/**
 * A data call with a valid token: the kept one while it lasts, else a new one. A kept token the
 * API refuses is replaced once and the call made again.
 */
async function authorisedGet(ctx: PullContext, api: NswApi, key: string, secret: string, url: string): Promise<{ response: FeedResponse; token: 'kept' | 'new' }> {
  const owner = nswTokenOwner(api.base, key, secret);
  const kept = keptNswToken(await ctx.kept.read(NSW_TOKEN_KEPT), owner, ctx.now);
  const call = (token: string) => ctx.http.request(url, {
    query: { states: NSW_STATES_PARAM },
    headers: {
      authorization: `Bearer ${token}`, apikey: key, transactionid: randomUUID(),
      requesttimestamp: formatRequestTimestamp(ctx.now), 'content-type': 'application/json; charset=utf-8', accept: 'application/json',
    },
  });
  if (kept === undefined) return { response: await call(await newToken(ctx, api, key, secret, owner)), token: 'new' };
  try {
    return { response: await call(kept), token: 'kept' };
  } catch (error) {
    if (!(error instanceof FeedError && error.kind === 'auth')) throw error;
    return { response: await call(await newToken(ctx, api, key, secret, owner)), token: 'new' };
  }
}

export const nswAdapter: FeedAdapter = {
  id: 'nsw',
  name: 'NSW FuelCheck (NSW, ACT, TAS)',
  states: ['nsw', 'act', 'tas'],
  // The free tier allows 2,500 calls a month (about 82 a day), and the token call is counted too.
  // Every 30 minutes is 48 data calls a day (one of them the daily snapshot) plus 2 or 3 tokens
  // (they last about 12 hours, and are kept in the store, so restarts and one-shot runs reuse them):
  // about 1,550 a month, leaving room for FeedHttp's retries and early re-polls after failures.
  intervalSec: 1_800,
  requires: [NSW_KEY_VAR, NSW_SECRET_VAR],
  fuels: NSW_FUELS,
  async pull(ctx: PullContext): Promise<Pulled[]> {
    const key = ctx.config.credentials[NSW_KEY_VAR];
    const secret = ctx.config.credentials[NSW_SECRET_VAR];
    if (!key || !secret) throw new FeedError('auth', `${NSW_KEY_VAR} and ${NSW_SECRET_VAR} must both be set`);
    const api = nswApi(ctx.config.url);
    const session = `${api.base}\n${key}`;
    const cursor = parseNswCursor(ctx.cursor);
    const kind = nswPollKind(cursor, ctx.now, lastFetches.get(session), ctx.previousRunFailed);
    const url = kind === 'snapshot' ? api.pricesUrl : api.newPricesUrl;
    const { response, token } = await authorisedGet(ctx, api, key, secret, url);
    // From here the API counts this call as made: /new will not repeat what it just answered.
    lastFetches.set(session, ctx.now);
    const answer = parseNswAnswer(response.text, kind);
    const normaliser = ctx.normaliser();
    addNswAnswer(normaliser, answer, ctx.storedStations ? await ctx.storedStations() : []);
    const next: NswCursor = { snapshotAt: kind === 'snapshot' || cursor === undefined ? ctx.now : cursor.snapshotAt, lastAt: ctx.now };
    ctx.log.info({
      feed: 'nsw', api: `FuelCheck ${NSW_API_VERSION}`, url, kind, token, stations: answer.stations.length, prices: answer.prices.length,
    }, 'FuelCheck answer read');
    return [{ normaliser, cursor: JSON.stringify(next) }];
  },
};
