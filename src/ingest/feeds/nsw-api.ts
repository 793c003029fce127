/**
 * Calling API.NSW's Fuel API ("FuelCheck"): where the calls go, the OAuth token and the signed
 * data call. The feed itself (when to take a snapshot, the cursor) is nsw.ts; reading the
 * answers is nsw-records.ts.
 *
 * OAuth2 client credentials first: GET <base>/oauth/client_credential/accesstoken?grant_type=
 * client_credentials with `Authorization: Basic base64(key:secret)` answers { access_token,
 * expires_in (seconds, about 12 hours; Apigee sends it as a string) }. Every data call then carries
 * `Authorization: Bearer <token>`, `apikey: <key>`, a fresh UUID in `transactionid`, the UTC time
 * as `requesttimestamp` ("12/05/2026 09:30:00 PM") and `Content-Type: application/json;
 * charset=utf-8`.
 *
 * NSW_FUELCHECK_URL may be the host alone or carry the API's path as API.NSW's pages show it
 * (https://api.onegov.nsw.gov.au/FuelPriceCheck/v2): the calls are the same. The access token
 * (about 12 hours) is kept in the store under `oauth:nsw`, so one-shot runs within its life do not
 * each spend a call of the quota on a new one.
 */
import { createHash, randomUUID } from 'node:crypto';
import { FeedError, isObject, parseJsonBody } from '../feed-error.ts';
import type { FeedResponse } from '../feed-fetch.ts';
import type { PullContext } from '../feed.ts';

export const NSW_URL_VAR = 'NSW_FUELCHECK_URL';
/** The version of the API this adapter speaks (v1 answers NSW alone, without the state of each record). */
export const NSW_API_VERSION = 'v2';
export const NSW_TOKEN_PATH = '/oauth/client_credential/accesstoken';
export const NSW_PRICES_PATH = '/FuelPriceCheck/v2/fuel/prices';
export const NSW_NEW_PRICES_PATH = '/FuelPriceCheck/v2/fuel/prices/new';
/** The v2 `states` parameter is a `|`-separated list; without it only NSW (and the ACT) comes back. */
export const NSW_STATES_PARAM = 'NSW|TAS';

const MAX_TOKEN_CHARS = 4_096;

/** The token of an access-token answer and its lifetime in seconds (a number or, as Apigee sends it, a numeric string). */
export function parseNswToken(body: string): { accessToken: string; expiresInSec: number | undefined } {
  const doc = parseJsonBody(body, 'FuelCheck: the access-token answer');
  if (!isObject(doc) || typeof doc['access_token'] !== 'string' || doc['access_token'] === '' || doc['access_token'].length > MAX_TOKEN_CHARS) {
    throw new FeedError('malformed', 'FuelCheck: the access-token answer has no usable access_token');
  }
  const raw = doc['expires_in'];
  const seconds = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,9}$/.test(raw.trim()) ? Number(raw) : NaN;
  return { accessToken: doc['access_token'], expiresInSec: Number.isInteger(seconds) && seconds > 0 ? seconds : undefined };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `requesttimestamp`: the UTC time as dd/MM/yyyy hh:mm:ss AM/PM ("12/05/2026 09:30:00 PM"). */
export function formatRequestTimestamp(unixSec: number): string {
  const d = new Date(unixSec * 1_000);
  const hour = d.getUTCHours();
  return `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCFullYear(), 4)} `
    + `${pad(hour % 12 === 0 ? 12 : hour % 12)}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${hour < 12 ? 'AM' : 'PM'}`;
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

/** Renew a token this long before the API says it expires. */
const TOKEN_MARGIN_SEC = 300;
const DEFAULT_TOKEN_LIFE_SEC = 3_600;
/** The kept value's name: stored as `oauth:nsw`. */
export const NSW_TOKEN_KEPT = 'oauth';

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
export async function authorisedGet(ctx: PullContext, api: NswApi, key: string, secret: string, url: string): Promise<{ response: FeedResponse; token: 'kept' | 'new' }> {
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
