/**
 * New South Wales, the ACT and Tasmania: API.NSW's Fuel API ("FuelCheck"), v2 endpoints. This
 * file is the feed: which call a poll makes and what it keeps between polls. nsw-api.ts makes the
 * calls (the URLs, the OAuth token kept in the store, the signed data call); nsw-records.ts reads
 * the answers into stations and prices (nsw-address.ts their addresses).
 *
 * GET /FuelPriceCheck/v2/fuel/prices?states=NSW|TAS is the full snapshot; /FuelPriceCheck/v2/fuel/
 * prices/new answers what was submitted since this API key's last /prices or /prices/new call "on
 * the current day".
 */
import { localDayOf } from '../../domain/time.ts';
import { FeedError, isObject } from '../feed-error.ts';
import type { LiveFeed, PullContext, Pulled } from '../feed.ts';
import type { FuelMap } from '../normalise.ts';
import { authorisedGet, nswApi, NSW_API_VERSION } from './nsw-api.ts';
import { addNswAnswer, type NswPollKind, parseNswAnswer } from './nsw-records.ts';

export const NSW_KEY_VAR = 'NSW_FUELCHECK_API_KEY';
export const NSW_SECRET_VAR = 'NSW_FUELCHECK_API_SECRET';
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

/** Per base URL and API key, in memory only: when this process last received an answer. */
const lastFetches = new Map<string, number>();

/** Forgets every fetch time (tests: as a new process would). */
export function forgetNswSessions(): void {
  lastFetches.clear();
}

export const nswAdapter: LiveFeed = {
  id: 'nsw',
  name: 'NSW FuelCheck (NSW, ACT, TAS)',
  env: { url: ['NSW_FUELCHECK_URL', 'https://api.onegov.nsw.gov.au'], credentials: { [NSW_KEY_VAR]: 'FuelCheck API key (with the secret)', [NSW_SECRET_VAR]: 'FuelCheck API secret' } },
  attribution: 'NSW, ACT and TAS prices: NSW FuelCheck, © State of New South Wales (Department of Customer Service).',
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
