/**
 * WA FuelWatch, from one of its two interfaces on the same host (WA_FUELWATCH_URL), chosen by
 * WA_FUELWATCH_SOURCE: `api` its JSON site API (wa-api.ts: FuelWatch's own station ids, tomorrow's
 * prices, out-of-stock marks), `rss` its public RSS (below), or `auto` (the default): the site
 * API, and for a poll whose site API fails in any way (an error status, no answer, a changed or cut
 * answer) the RSS, with a warning naming what failed. A poll reads one interface whole, never a mix.
 *
 * Stations are keyed by FuelWatch's id from the site API and by an address key from the RSS
 * (waStationKey). So that one station stays one whichever interface reports it, a station whose
 * own key is not stored yet takes the key of the stored station of the same address key (street,
 * suburb and trading name), if there is exactly one: the RSS read during a site-API outage updates
 * the id-keyed stations, and a database filled from the RSS keeps its stations under the site API.
 *
 * The RSS (read by wa-rss.ts): <base>/fuelwatch/fuelWatchRSS?Product=<code>&Day=today|tomorrow.
 *
 * One request per product per day; each answer is RSS 2.0 (sometimes with a byte-order mark)
 * whose items carry title, description, brand, date (YYYY-MM-DD), price (c/L), trading-name,
 * location (the suburb), address (street only), phone, latitude, longitude, site-features.
 * Retailers notify FuelWatch by 14:00 and the prices are published at about 14:30 WA time; a
 * price holds for 24 hours from 06:00 on the item's date, so each report's `at` is 06:00 WA
 * time that day. Before 14:30 the tomorrow request answers a channel with no items.
 * FuelWatch gives no station code: stations are keyed on their normalised address, suburb and
 * trading name (waStationKey), which the historical-file importer reuses (its ADDRESS, LOCATION
 * and TRADING_NAME). The trading name is in the key because two stations can share an address
 * (7-Eleven Brabham and EG Ampol Brabham at 3 Marvel Ent, Brabham, on every day of April and May
 * 2026); the brand is only a field, so a change of brand alone keeps the station, while a new
 * trading name starts a new one. FuelWatch has no out-of-stock flag: a station that stops selling
 * a product simply leaves that product's list.
 */
import { createHash } from 'node:crypto';
import { localTimeToUnix } from '../../domain/time.ts';
import { FeedError } from '../feed-error.ts';
import { type WaItem, parseFuelWatchRss } from './wa-rss.ts';
import type { FeedStation } from '../../storage/store.ts';
import type { LiveFeed, PullContext, Pulled } from '../feed.ts';
import { WA_API_PATH, WA_API_PRODUCTS, parseWaSites, readWaSite } from './wa-api.ts';
import { type FuelMap, type Normaliser, type RawPrice, type RawStation, centsToTenths } from '../normalise.ts';

export const WA_RSS_PATH = '/fuelwatch/fuelWatchRSS';
export const WA_DAYS = ['today', 'tomorrow'] as const;
export type WaDay = (typeof WA_DAYS)[number];

/** FuelWatch product codes (the Product= parameter); every code here is requested on each poll. */
export const WA_FUELS: FuelMap = {
  '1': 'ulp91', // Unleaded Petrol
  '2': 'ulp95', // Premium Unleaded
  '4': 'diesel',
  '5': 'lpg',
  '6': 'ulp98', // 98 RON
  '10': 'e85',
  '11': 'pdiesel', // Brand diesel: the branded premium diesels
};

/** One RSS item: its child elements by name, text decoded. */
/** Street words written out and abbreviated both occur in FuelWatch and its historical files; keys use the short form. */
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  ROAD: 'RD', STREET: 'ST', HIGHWAY: 'HWY', HWAY: 'HWY', AVENUE: 'AVE', AV: 'AVE', DRIVE: 'DR', DRV: 'DR',
  PARADE: 'PDE', TERRACE: 'TCE', TERR: 'TCE', PLACE: 'PL', COURT: 'CT', CRESCENT: 'CRES', BOULEVARD: 'BLVD',
  BVD: 'BLVD', LANE: 'LN', CLOSE: 'CL', CIRCUIT: 'CCT', SQUARE: 'SQ', ESPLANADE: 'ESP', CORNER: 'CNR',
  MOUNT: 'MT',
};

/** Upper case, punctuation to spaces, "12 - 14" as "12-14", abbreviations unified, spaces collapsed. */
export function normaliseWaPlace(text: string): string {
  return text
    .toUpperCase()
    .replace(/[.,;:()'"`]/g, ' ')
    .replace(/\s*-\s*/g, '-')
    .split(/\s+/)
    .filter((word) => word !== '')
    .map((word) => ABBREVIATIONS[word] ?? word)
    .join(' ');
}

const MAX_KEY = 100;

/**
 * A FuelWatch station's key from its address, suburb and trading name, each normalised, so that
 * the historical-file importer (ADDRESS, LOCATION and TRADING_NAME columns) finds the same
 * station: "223 Belmont Avenue (Cnr Wright Street)", "Cloverdale", "Caltex Cloverdale" and
 * "223 BELMONT AVE (CNR WRIGHT ST)", "CLOVERDALE", "CALTEX CLOVERDALE" give the same key, and two
 * stations at one address under two names stay two. Keys over 100 characters keep their start
 * and end in a hash of the whole. Empty when the address or the suburb is.
 */
export function waStationKey(address: string, suburb: string, tradingName: string): string {
  const street = normaliseWaPlace(address);
  const place = normaliseWaPlace(suburb);
  if (!street || !place) return '';
  const key = `${street}|${place}|${normaliseWaPlace(tradingName)}`;
  if (key.length <= MAX_KEY) return key;
  const digest = createHash('sha1').update(key).digest('hex').slice(0, 12);
  return `${key.slice(0, MAX_KEY - 13)}#${digest}`;
}

/** A decimal degree as FuelWatch writes it, or NaN (an empty field is not 0). */
function degrees(text: string | undefined): number {
  return text !== undefined && /^-?\d{1,3}(\.\d+)?$/.test(text.trim()) ? Number(text.trim()) : NaN;
}

/** 06:00 WA time on an item's YYYY-MM-DD date, when its prices take effect; undefined for another shape. */
export function waEffectiveAt(date: string | undefined): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date?.trim() ?? '');
  if (!match) return undefined;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  return localTimeToUnix('wa', y, m, d, 6, 0, 0);
}

export type WaRecord = { station: RawStation; price: RawPrice } | { rejected: string };

/** One item of one product's list as a station and its price, or why it cannot be read. */
export function readWaItem(item: WaItem, productCode: string): WaRecord {
  const address = item['address'] ?? '';
  const suburb = item['location'] ?? '';
  const code = waStationKey(address, suburb, item['trading-name'] ?? '');
  if (!code) return { rejected: 'station without an address and suburb' };
  const at = waEffectiveAt(item['date']);
  if (at === undefined) return { rejected: 'price without a valid date' };
  const priceTenths = centsToTenths(item['price']);
  if (priceTenths === undefined) return { rejected: 'price that is not a number' };
  const station: RawStation = {
    code, name: item['trading-name'] ?? '', brand: item['brand'] ?? '',
    address: `${address}, ${suburb} WA`, street: address, suburb, postcode: '', state: 'wa',
    phone: item['phone'] ?? '', latitude: degrees(item['latitude']), longitude: degrees(item['longitude']),
  };
  return { station, price: { code, fuelCode: productCode, at, priceTenths, available: true } };
}

/**
 * The feed's stored stations by code and by address key (waStationKey of street, suburb and
 * name), so that a station reported under its other key (site API id or RSS address key) is the
 * stored one. An address key two stored stations share names neither.
 */
export class WaStationIndex {
  private readonly codes: Set<string>;
  private readonly byAddress = new Map<string, string | undefined>();

  constructor(stored: readonly FeedStation[]) {
    this.codes = new Set(stored.map((s) => s.feedCode));
    for (const s of stored) {
      const key = waStationKey(s.street, s.suburb, s.name);
      if (key === '') continue;
      this.byAddress.set(key, this.byAddress.has(key) && this.byAddress.get(key) !== s.feedCode ? undefined : s.feedCode);
    }
  }

  /** The code to report a station under: its own when stored (or nothing stored has its address), else the stored station's. */
  code(own: string, station: RawStation): string {
    if (this.codes.has(own)) return own;
    return this.byAddress.get(waStationKey(station.street ?? '', station.suburb, station.name)) ?? own;
  }
}

/** Adds one product's items to a batch: each item is one price row, kept or rejected (with its station's reason when the station is refused). */
export function addWaItems(normaliser: Normaliser, items: readonly WaItem[], productCode: string, index = new WaStationIndex([])): void {
  for (const item of items) {
    const record = readWaItem(item, productCode);
    if ('rejected' in record) {
      normaliser.reject(record.rejected, item);
      continue;
    }
    const code = index.code(record.station.code, record.station);
    normaliser.station({ ...record.station, code });
    normaliser.price({ ...record.price, code });
  }
}

/** Adds one product's sites (the site API) to a batch: none, one or two price rows per site (wa-api.ts), or one rejected. */
export function addWaSites(normaliser: Normaliser, body: string, productCode: string, now: number, index = new WaStationIndex([])): void {
  for (const site of parseWaSites(body)) {
    const read = readWaSite(site, productCode, now);
    if ('rejected' in read) {
      normaliser.reject(read.rejected, site);
      continue;
    }
    const code = index.code(read.station.code, read.station);
    normaliser.station({ ...read.station, code });
    for (const price of read.prices) normaliser.price({ ...price, code });
  }
}

const USER_AGENT = 'fuelprice-ingest/1.0';

/** One poll from the RSS: 7 products, today and tomorrow; one batch. */
async function pullRss(ctx: PullContext, index: WaStationIndex): Promise<Pulled[]> {
  const normaliser = ctx.normaliser();
  // One batch for the whole poll: a malformed answer throws before it is returned, so nothing of the poll is applied.
  for (const productCode of Object.keys(WA_FUELS)) {
    for (const day of WA_DAYS) {
      const response = await ctx.http.request(`${ctx.config.url}${WA_RSS_PATH}`, {
        query: { Product: productCode, Day: day },
        headers: { accept: 'application/rss+xml, application/xml, text/xml', 'user-agent': USER_AGENT },
      });
      addWaItems(normaliser, parseFuelWatchRss(response.text), productCode, index);
    }
  }
  return [{ normaliser, cursor: undefined }];
}

/** One poll from the site API: 7 products, each answer carrying today's and tomorrow's prices; one batch. */
async function pullApi(ctx: PullContext, index: WaStationIndex): Promise<Pulled[]> {
  const normaliser = ctx.normaliser();
  for (const [fuelType, productCode] of Object.entries(WA_API_PRODUCTS)) {
    const response = await ctx.http.request(`${ctx.config.url}${WA_API_PATH}`, {
      query: { fuelType }, headers: { accept: 'application/json', 'user-agent': USER_AGENT },
    });
    addWaSites(normaliser, response.text, productCode, ctx.now, index);
  }
  return [{ normaliser, cursor: undefined }];
}

export const waAdapter: LiveFeed = {
  id: 'wa',
  name: 'WA FuelWatch',
  env: { url: ['WA_FUELWATCH_URL', 'https://www.fuelwatch.wa.gov.au'], source: ['WA_FUELWATCH_SOURCE', 'api (the JSON site API), rss, or auto (the site API, the RSS when it fails)'] },
  attribution: 'WA prices: FuelWatch, Government of Western Australia.',
  states: ['wa'],
  // FuelWatch publishes no quota. Prices change once a day (published ~14:30, in force from
  // 06:00 next day), so hourly is plenty: 7 requests an hour from the site API (14 small ones
  // from the RSS), and tomorrow's prices arrive within an hour of publication.
  intervalSec: 3_600,
  requires: [],
  fuels: WA_FUELS,
  async pull(ctx: PullContext): Promise<Pulled[]> {
    const source = ctx.config.source ?? 'auto';
    const index = new WaStationIndex(ctx.storedStations ? await ctx.storedStations() : []);
    if (source === 'rss') return pullRss(ctx, index);
    if (source === 'api') return pullApi(ctx, index);
    try {
      return await pullApi(ctx, index);
    } catch (apiError) {
      if (!(apiError instanceof FeedError)) throw apiError;
      ctx.log.warn({ feed: 'wa', error: apiError.message }, 'FuelWatch site API failed: this poll reads the RSS');
      try {
        return await pullRss(ctx, index);
      } catch (rssError) {
        if (!(rssError instanceof FeedError)) throw rssError;
        throw new FeedError(rssError.kind, `${rssError.message} (the site API failed first: ${apiError.message})`, rssError.status);
      }
    }
  },
};
