/**
 * Queensland and South Australia: both fuel price reporting schemes publish through Informed
 * Sources' direct API ("Fuel Prices QLD Direct API (OUT)" v1.6; SA's SAFPIS runs the same service
 * on its own host with its own tokens), so one adapter serves the two feeds.
 *
 * Every call is a GET carrying `Authorization: FPDAPI SubscriberToken=<token>`; countryId=21 is
 * Australia. Lookups: /Subscriber/GetCountryBrands -> { Brands: [{ BrandId, Name }] },
 * /Subscriber/GetCountryFuelTypes -> { Fuels: [{ FuelId, Name }] },
 * /Subscriber/GetCountryGeographicRegions -> { GeographicRegions: [{ GeoRegionLevel, GeoRegionId,
 * Name, Abbrev, GeoRegionParentId }] } (level 1 suburb, 2 city, 3 state). Data, for one state
 * (geoRegionLevel=3, geoRegionId 1 = Queensland, 4 = South Australia):
 * /Subscriber/GetFullSiteDetails -> { S: [{ S (site id), N (name), A (street address), P
 * (postcode), B (brand id), Lat, Lng, G1..G5 (region ids, G1 the suburb), M (modified), GPI }] }
 * and /Price/GetSitesPrices -> { SitePrices: [{ SiteId, FuelId, CollectionMethod,
 * TransactionDateUtc ("2026-11-20T21:15:00", UTC without a zone suffix), Price (tenths of a cent:
 * 1859 = 185.9 c/L; 9999 = not available) }] }.
 *
 * Each poll is a full snapshot (every site, every current price), so the adapter keeps no state:
 * the writer ignores reports it already holds.
 */
import { STATE_ABBREVIATIONS, stationState } from '../../domain/postcodes.ts';
import { roundHalfAwayFromZero } from '../../domain/rounding.ts';
import { formatInstant } from '../../domain/time.ts';
import type { StateId } from '../../domain/states.ts';
import { FeedError, isObject, parseJsonBody } from '../feed-error.ts';
import type { FeedEnv, LiveFeed, PullContext, Pulled } from '../feed.ts';
import type { FuelMap, Normaliser, RawPrice, RawStation } from '../normalise.ts';

export const FPD_COUNTRY_ID = '21';
/** geoRegionLevel of a state; level 1 is a suburb, 2 a city. */
export const FPD_STATE_LEVEL = '3';
const SUBURB_LEVEL = 1;
/** The Price the feed gives a fuel that is not available (out of stock). */
export const FPD_NOT_AVAILABLE = 9999;

export const FPD_PATHS = {
  brands: '/Subscriber/GetCountryBrands',
  fuelTypes: '/Subscriber/GetCountryFuelTypes',
  regions: '/Subscriber/GetCountryGeographicRegions',
  sites: '/Subscriber/GetFullSiteDetails',
  prices: '/Price/GetSitesPrices',
} as const;

/**
 * The feed's FuelId (as text) onto our ids, from GetCountryFuelTypes: 2 Unleaded, 3 Diesel, 4 LPG,
 * 5 Premium Unleaded 95, 6 ULSD, 8 Premium Unleaded 98, 11 LRP, 12 e10, 13 Premium e5,
 * 14 Premium Diesel, 16 Bio-Diesel 20, 19 e85, 21 OPAL, 22 Compressed natural gas,
 * 23 Liquefied natural gas, and the combined codes 999 e10/Unleaded and 1000 Diesel/Premium Diesel.
 */
export const FPD_FUELS: FuelMap = {
  '2': 'ulp91', '3': 'diesel', '4': 'lpg', '5': 'ulp95', '6': 'ulsd', '8': 'ulp98', '11': 'lrp', '12': 'e10',
  '13': 'e5', '14': 'pdiesel', '16': 'b20', '19': 'e85', '21': 'opal', '22': 'cng', '23': 'lng',
  '999': 'ulp-combined', '1000': 'diesel-combined',
};

/** What differs between the two schemes. */
export interface FpdFeed {
  readonly id: 'qld' | 'sa';
  readonly name: string;
  readonly state: StateId;
  /** As written in an address ("QLD 4006"). */
  readonly stateAbbrev: string;
  /** The state's geoRegionId at level 3. */
  readonly geoRegionId: number;
  /** Environment variable holding the subscriber token (src/config.ts). */
  readonly tokenVar: string;
}

/** The lookups a snapshot is read against. */
export interface FpdLookups {
  readonly brands: ReadonlyMap<number, string>;
  readonly fuels: ReadonlyMap<number, string>;
  /** Region name by `${GeoRegionLevel}:${GeoRegionId}` (ids are only unique within a level). */
  readonly regions: ReadonlyMap<string, string>;
}

export interface FpdSnapshot extends FpdLookups {
  readonly sites: readonly unknown[];
  readonly prices: readonly unknown[];
}

/** A price as handed to the Normaliser; the feed's fuel name rides along so a rejection's example names the fuel. */
export type FpdPrice = RawPrice & { fuelName: string };


function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : typeof value === 'number' ? String(value) : '';
}

/**
 * The list under `key` in a JSON answer, a byte-order mark allowed. FeedError('malformed') when
 * the answer is not JSON (cut short, an HTML error page) or lacks the list, so nothing of the
 * poll is applied.
 */
export function readFpdList(body: string, path: string, key: string): unknown[] {
  const doc = parseJsonBody(body, `FPD API ${path}: the answer`);
  const list = isObject(doc) ? doc[key] : undefined;
  if (!Array.isArray(list)) throw new FeedError('malformed', `FPD API ${path}: the answer has no ${key} list`);
  return list;
}

/** Id -> name from Brands (BrandId) or Fuels (FuelId); entries without both are left out. */
export function readNames(list: readonly unknown[], idKey: 'BrandId' | 'FuelId'): Map<number, string> {
  const names = new Map<number, string>();
  for (const entry of list) {
    if (isObject(entry) && isId(entry[idKey]) && typeof entry['Name'] === 'string') names.set(entry[idKey], text(entry['Name']));
  }
  return names;
}

/** `${level}:${id}` -> name from GeographicRegions. */
export function readRegions(list: readonly unknown[]): Map<string, string> {
  const regions = new Map<string, string>();
  for (const entry of list) {
    if (isObject(entry) && isId(entry['GeoRegionLevel']) && isId(entry['GeoRegionId']) && typeof entry['Name'] === 'string') {
      regions.set(`${entry['GeoRegionLevel']}:${entry['GeoRegionId']}`, text(entry['Name']));
    }
  }
  return regions;
}

const UTC_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,7})?Z?$/;

/**
 * Unix seconds of a TransactionDateUtc ("2026-11-20T21:15:00", fractions allowed and cut). The
 * feed writes UTC without a zone suffix; a trailing Z is accepted too. Undefined when unreadable.
 */
export function parseFpdTime(value: unknown): number | undefined {
  const match = typeof value === 'string' ? UTC_TIME.exec(value.trim()) : null;
  if (!match) return undefined;
  const [y, mo, d, h, mi, s] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  return date.getTime() / 1000;
}

/** A region name written in capitals ("MOUNT GRAVATT EAST") in the usual case; other names as given. */
export function displayName(name: string): string {
  return /[a-z]/.test(name) ? name : name.toLowerCase().replace(/(^|[\s'-])([a-z])/g, (_, gap: string, letter: string) => gap + letter.toUpperCase());
}

/**
 * An address written out in full: "590 Gympie Rd, KEDRON QLD 4031", or with the country after it,
 * "9 Railway Terrace, Karoonda SA 5307, Australia" (three SA sites of 2024). Its street and
 * suburb, or undefined for a street alone ("180 Wickham St").
 */
export function writtenOut(address: string, stateAbbrev: string): { street: string; suburb: string } | undefined {
  const match = new RegExp(`^(.+?),\\s*([^,]+?)\\s+${stateAbbrev}\\s+\\d{4}(?:,\\s*Australia)?$`, 'i').exec(address);
  return match?.[1] && match[2] ? { street: match[1], suburb: displayName(match[2]) } : undefined;
}

/**
 * Sites carry no suburb field: G1 is the id of their suburb (geographic region level 1), named by
 * GetCountryGeographicRegions. Failing that, an address written out in full ("12 Main St,
 * Kedron QLD 4031") gives it; otherwise the suburb stays empty rather than guessed.
 */
export function suburbOf(site: Record<string, unknown>, regions: ReadonlyMap<string, string>, stateAbbrev: string): string {
  const region = isId(site['G1']) ? regions.get(`${SUBURB_LEVEL}:${site['G1']}`) : undefined;
  if (region) return displayName(region);
  return writtenOut(text(site['A']), stateAbbrev)?.suburb ?? '';
}

/** The site id as our station key ("61401001"); empty when the site has none. */
export function siteCode(value: unknown): string {
  return isId(value) ? String(value) : '';
}

/** One GetFullSiteDetails record as a station, or the reason it cannot be one. */
export function mapFpdSite(record: unknown, lookups: FpdLookups, feed: FpdFeed): RawStation | string {
  if (!isObject(record)) return 'site record of the wrong shape';
  const latitude = record['Lat'];
  const longitude = record['Lng'];
  if (typeof latitude !== 'number' || typeof longitude !== 'number') return 'site without a position';
  const given = text(record['A']);
  const postcode = text(record['P']);
  // The scheme lists sites over its border too (Banora Point NSW 2486 in QLD's): the postcode says where.
  const state = stationState(postcode, feed.state);
  const abbrev = STATE_ABBREVIATIONS[state];
  const suburb = suburbOf(record, lookups.regions, abbrev);
  // A street written out with its suburb, state, postcode (and country) is the street part of it.
  const street = writtenOut(given, abbrev)?.street ?? given;
  // "180 Wickham St, Fortitude Valley QLD 4006", unless the street ends with a postcode another way.
  const locality = [suburb, abbrev, postcode].filter(Boolean).join(' ');
  const address = /\b\d{4}$/.test(street) ? street : [street, locality].filter(Boolean).join(', ');
  return {
    code: siteCode(record['S']),
    name: text(record['N']),
    brand: isId(record['B']) ? lookups.brands.get(record['B']) ?? '' : '',
    address, street, suburb, postcode, state, latitude, longitude,
  };
}

/**
 * One SitePrices record as a price, or undefined when it is not of the documented shape. Price is
 * in tenths of a cent (rounded to a whole tenth); 9999 means not available. An unreadable
 * TransactionDateUtc becomes NaN, which the Normaliser rejects as a price without a valid time.
 */
export function mapFpdPrice(record: unknown, fuels: ReadonlyMap<number, string>): FpdPrice | undefined {
  if (!isObject(record)) return undefined;
  const siteId = record['SiteId'];
  const fuelId = record['FuelId'];
  const price = record['Price'];
  if (!isId(siteId) || !isId(fuelId) || typeof price !== 'number' || !Number.isFinite(price)) return undefined;
  const available = price !== FPD_NOT_AVAILABLE;
  return {
    code: String(siteId), fuelCode: String(fuelId), fuelName: fuels.get(fuelId) ?? '',
    at: parseFpdTime(record['TransactionDateUtc']) ?? Number.NaN,
    priceTenths: available ? roundHalfAwayFromZero(price) : 0, available,
  };
}

/**
 * Feeds one snapshot through a Normaliser: sites first, then prices. A price whose site is not in
 * the site details (or whose site was rejected) is kept out of the batch and counted, since a
 * price the writer cannot place on a station is of no use. Returns the newest accepted price time.
 */
export function normaliseFpdSnapshot(normaliser: Normaliser, snapshot: FpdSnapshot, feed: FpdFeed): number | undefined {
  const listed = new Set<string>();
  for (const record of snapshot.sites) {
    if (isObject(record)) listed.add(siteCode(record['S']));
    const station = mapFpdSite(record, snapshot, feed);
    if (typeof station === 'string') normaliser.rejectStation(station, record);
    else normaliser.station(station);
  }
  let newest: number | undefined;
  for (const record of snapshot.prices) {
    const price = mapFpdPrice(record, snapshot.fuels);
    if (!price) {
      normaliser.reject('price record of the wrong shape', record);
    } else if (!normaliser.hasStation(price.code)) {
      normaliser.reject(listed.has(price.code) ? 'price for a site that was rejected' : 'price for a site missing from the site details', record);
    } else if (normaliser.price(price) && (newest === undefined || price.at > newest)) {
      newest = price.at;
    }
  }
  return newest;
}

/**
 * The cursor stored with a batch: the newest TransactionDateUtc accepted, as an ISO instant. It is
 * informational (`ingest status` shows how fresh the feed is) and never read back: every poll
 * is a full snapshot, so there is nothing to resume from. Undefined keeps the stored one.
 */
export function fpdCursor(newest: number | undefined): string | undefined {
  return newest === undefined ? undefined : JSON.stringify({ lastTransactionUtc: formatInstant(newest) });
}

async function pullFpd(feed: FpdFeed, ctx: PullContext): Promise<Pulled[]> {
  const token = ctx.config.credentials[feed.tokenVar];
  if (!token) throw new FeedError('auth', `${feed.tokenVar} is not set`);
  const headers = { Authorization: `FPDAPI SubscriberToken=${token}`, 'Content-Type': 'application/json' };
  const country = { countryId: FPD_COUNTRY_ID };
  const state = { countryId: FPD_COUNTRY_ID, geoRegionLevel: FPD_STATE_LEVEL, geoRegionId: String(feed.geoRegionId) };
  // One call after another: gentler on the feed, and the lookups fail fast before the big answers.
  const list = async (path: string, query: Record<string, string>, key: string): Promise<unknown[]> =>
    readFpdList((await ctx.http.request(`${ctx.config.url}${path}`, { headers, query })).text, path, key);
  const brands = readNames(await list(FPD_PATHS.brands, country, 'Brands'), 'BrandId');
  const fuels = readNames(await list(FPD_PATHS.fuelTypes, country, 'Fuels'), 'FuelId');
  const regions = readRegions(await list(FPD_PATHS.regions, country, 'GeographicRegions'));
  const sites = await list(FPD_PATHS.sites, state, 'S');
  const prices = await list(FPD_PATHS.prices, state, 'SitePrices');
  const normaliser = ctx.normaliser();
  const newest = normaliseFpdSnapshot(normaliser, { brands, fuels, regions, sites, prices }, feed);
  return [{ normaliser, cursor: fpdCursor(newest) }];
}

/**
 * One adapter per scheme. Poll every 10 minutes: the API guide asks for GetSitesPrices at most
 * once a minute and recommends the lookups and site details once a day; a poll fetches all five
 * (so a new site and its prices arrive together), and 144 polls a day keep prices within 10
 * minutes of the feed (retailers report within 30) while leaving room for retries.
 */
export function createFpdAdapter(feed: FpdFeed, env: FeedEnv, attribution: string): LiveFeed {
  return {
    id: feed.id, name: feed.name, states: [feed.state], intervalSec: 600, env, attribution,
    requires: [feed.tokenVar], fuels: FPD_FUELS,
    pull: (ctx) => pullFpd(feed, ctx),
  };
}

export const QLD_FPD: FpdFeed = {
  id: 'qld', name: 'Fuel Prices QLD (FPD API)', state: 'qld', stateAbbrev: 'QLD', geoRegionId: 1, tokenVar: 'QLD_FPD_TOKEN',
};
export const SA_FPD: FpdFeed = {
  id: 'sa', name: 'SA Fuel Pricing Information Scheme (FPD API)', state: 'sa', stateAbbrev: 'SA', geoRegionId: 4, tokenVar: 'SA_FPD_TOKEN',
};

export const qldAdapter = createFpdAdapter(QLD_FPD, {
  url: ['QLD_FPD_URL', 'https://fppdirectapi-prod.fuelpricesqld.com.au'], credentials: { QLD_FPD_TOKEN: 'Fuel Price Reporting subscriber token' },
}, 'QLD prices: Queensland Government Fuel Price Reporting scheme.');
export const saAdapter = createFpdAdapter(SA_FPD, {
  url: ['SA_FPD_URL', 'https://fppdirectapi-prod.safuelpricinginformation.com.au'], credentials: { SA_FPD_TOKEN: 'Fuel Pricing Information subscriber token' },
}, 'SA prices: SA Government Fuel Pricing Information scheme (Consumer and Business Services).');
