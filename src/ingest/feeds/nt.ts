/**
 * NT MyFuel (myfuelnt.nt.gov.au): BEST EFFORT. The NT publishes no API; this reads the JSON that
 * the site's own results page embeds, and fails loudly (FeedError 'malformed') when the page is
 * not as described below, rather than guessing.
 *
 * Known (reverse-engineered by community clients, not documented by the NT Government; see
 * fritterburner/fuelsmart-au docs/myfuelnt-api-documentation.md, April 2026, and scrapers that
 * read the same page):
 * - GET /Home/Results?searchOptions=region&Suburb=&SuburbId=0&RegionId=3&FuelCode=&BrandIdentifier=
 *   answers an ASP.NET MVC page holding <input type="hidden" id="serverJson" value="{&quot;...">,
 *   the HTML-encoded JSON of every outlet in the territory whatever the search (about 210).
 * - That JSON has FuelOutlet[] of { FuelOutletId (int), FuelOutletIdentifier, OutletName,
 *   OutletBrandIdentifier (a brand code), Address (street), Suburb, Postcode, OutletState, Latitude,
 *   Longitude, IsActive, WebAddress, AvailableFuels: [{ FuelCode, Price (cents a litre),
 *   isAvailable }] } and FuelBrandList[] of { Text (name), Value (code) }.
 * - Fuel codes: DL, U91, P95, P98, E10, PD (premium diesel), LPG, B20, E85, LAF (low aromatic).
 * Assumed (not confirmed):
 * - the page keeps embedding the whole territory for that query (one scraper in 2026 needed the
 *   home page's __RequestVerificationToken and cookies for a suburb search; a region search
 *   without them is what the documentation above used);
 * - `isAvailable: false` means out of stock; LAF is OPAL-type low-aromatic unleaded ('opal').
 * - The page carries no time for a price: a price is dated when this adapter first sees it (the
 *   poll's clock). So that an unchanged price is not reported again each poll, the cursor keeps the
 *   last price reported per outlet and fuel, and only changes are emitted.
 */
import { FeedError, isObject, stripBom } from '../feed-error.ts';
import type { LiveFeed, PullContext, Pulled } from '../feed.ts';
import { type FuelMap, type Normaliser, type RawStation, centsToTenths } from '../normalise.ts';

export const NT_RESULTS_PATH = '/Home/Results';
/** The region search the community documentation used; the page answers every outlet for it. */
export const NT_RESULTS_QUERY: Readonly<Record<string, string>> = {
  searchOptions: 'region', Suburb: '', SuburbId: '0', RegionId: '3', FuelCode: '', BrandIdentifier: '',
};

export const NT_FUELS: FuelMap = {
  DL: 'diesel', PD: 'pdiesel', U91: 'ulp91', P95: 'ulp95', P98: 'ulp98', E10: 'e10', E85: 'e85',
  LPG: 'lpg', B20: 'b20', LAF: 'opal',
};

function malformed(message: string): FeedError {
  return new FeedError('malformed', `MyFuel NT (site changed?): ${message}`);
}

const HTML_ENTITIES: Readonly<Record<string, string>> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'", nbsp: '\u00a0' };

/** An HTML attribute value with its character references decoded. */
export function decodeHtmlAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return HTML_ENTITIES[name] ?? whole;
  });
}

/** The parsed JSON of the page's <input id="serverJson" value="...">; FeedError('malformed') when absent or not JSON. */
export function extractServerJson(html: string): unknown {
  for (const tag of stripBom(html).match(/<input\b[^>]*>/gi) ?? []) {
    if (!/\bid\s*=\s*(["'])serverJson\1/i.test(tag)) continue;
    const value = /\bvalue\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tag);
    if (!value) throw malformed('#serverJson has no value');
    try {
      return JSON.parse(decodeHtmlAttribute(value[1] ?? value[2] ?? ''));
    } catch {
      throw malformed('#serverJson does not hold JSON (page cut short?)');
    }
  }
  throw malformed('the results page has no #serverJson input');
}


/** The outlets and brand names of the page's JSON; FeedError('malformed') when a list is missing or no outlet has the known shape. */
export function parseNtResults(doc: unknown): { outlets: unknown[]; brands: Map<string, string> } {
  if (!isObject(doc)) throw malformed('#serverJson is not an object');
  const outlets = doc['FuelOutlet'];
  const brandList = doc['FuelBrandList'];
  if (!Array.isArray(outlets)) throw malformed('#serverJson has no FuelOutlet list');
  if (!Array.isArray(brandList)) throw malformed('#serverJson has no FuelBrandList list');
  if (outlets.length === 0) throw malformed('FuelOutlet is empty: the page no longer lists the territory');
  // Renamed fields would otherwise reject every outlet one by one and "succeed" with nothing.
  if (!outlets.some((o) => isObject(o) && typeof o['FuelOutletId'] === 'number' && Array.isArray(o['AvailableFuels']))) {
    throw malformed('no outlet has FuelOutletId and AvailableFuels');
  }
  const brands = new Map<string, string>();
  for (const brand of brandList) {
    if (isObject(brand) && typeof brand['Value'] === 'string' && typeof brand['Text'] === 'string') brands.set(brand['Value'], brand['Text'].trim());
  }
  return { outlets, brands };
}

export interface NtReading {
  fuelCode: string;
  priceTenths: number;
  available: boolean;
}

export type NtOutlet =
  | { station: RawStation; readings: NtReading[]; rejected: Array<{ reason: string; record: unknown }> }
  | { rejected: string }
  | { inactive: true };

const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const coordinate = (value: unknown): number => (typeof value === 'number' ? value : NaN);

/** One FuelOutlet entry as a station and its current readings; inactive outlets are left out, not rejected. */
export function readNtOutlet(outlet: unknown, brands: ReadonlyMap<string, string>): NtOutlet {
  if (!isObject(outlet) || typeof outlet['FuelOutletId'] !== 'number' || !Array.isArray(outlet['AvailableFuels'])) {
    return { rejected: 'outlet without FuelOutletId or AvailableFuels' };
  }
  if (outlet['IsActive'] === false) return { inactive: true };
  const street = text(outlet['Address']).replace(/\s+/g, ' ').trim();
  const suburb = text(outlet['Suburb']).trim();
  const postcode = text(outlet['Postcode']).trim();
  const brandCode = text(outlet['OutletBrandIdentifier']);
  const station: RawStation = {
    code: String(outlet['FuelOutletId']), name: text(outlet['OutletName']), brand: brands.get(brandCode) ?? '',
    address: `${street}, ${suburb} NT ${postcode}`.trim(), street, suburb, postcode, state: 'nt',
    website: text(outlet['WebAddress']), latitude: coordinate(outlet['Latitude']), longitude: coordinate(outlet['Longitude']),
  };
  const readings: NtReading[] = [];
  const rejected: Array<{ reason: string; record: unknown }> = [];
  for (const fuel of outlet['AvailableFuels']) {
    if (!isObject(fuel) || typeof fuel['FuelCode'] !== 'string' || typeof fuel['isAvailable'] !== 'boolean') {
      rejected.push({ reason: 'fuel without FuelCode or isAvailable', record: fuel });
      continue;
    }
    const tenths = centsToTenths(fuel['Price']);
    if (fuel['isAvailable'] && tenths === undefined) {
      rejected.push({ reason: 'price that is not a number', record: fuel });
      continue;
    }
    readings.push({ fuelCode: fuel['FuelCode'], priceTenths: tenths ?? 0, available: fuel['isAvailable'] });
  }
  return { station, readings, rejected };
}

const CURSOR_PREFIX = 'nt1';

/** The last reported value per "outletId/fuelCode" ("1859", or "x" when out of stock); empty for no or another cursor. */
export function readNtCursor(cursor: string | undefined): Map<string, string> {
  const seen = new Map<string, string>();
  const [prefix, ...entries] = (cursor ?? '').split(' ');
  if (prefix !== CURSOR_PREFIX) return seen;
  for (const entry of entries) {
    const at = entry.lastIndexOf('=');
    if (at <= 0) continue;
    try {
      seen.set(decodeURIComponent(entry.slice(0, at)), entry.slice(at + 1));
    } catch {
      // A damaged entry only means that reading is reported again.
    }
  }
  return seen;
}

export function writeNtCursor(seen: ReadonlyMap<string, string>): string {
  return [CURSOR_PREFIX, ...[...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, value]) => `${encodeURIComponent(key)}=${value}`)].join(' ');
}

const valueOf = (reading: NtReading): string => (reading.available ? String(reading.priceTenths) : 'x');

/**
 * Adds the outlets to a batch: every active station, and only the readings that differ from the
 * cursor's, dated `now`. Returns the next cursor: what was reported before or now, so a rejected
 * reading is tried again on the next poll.
 */
export function addNtOutlets(normaliser: Normaliser, outlets: readonly unknown[], brands: ReadonlyMap<string, string>, now: number, cursor: string | undefined): string {
  const before = readNtCursor(cursor);
  const after = new Map<string, string>();
  for (const outlet of outlets) {
    const read = readNtOutlet(outlet, brands);
    if ('inactive' in read) continue;
    if (!('station' in read)) {
      normaliser.rejectStation(read.rejected, outlet);
      continue;
    }
    for (const bad of read.rejected) normaliser.reject(bad.reason, bad.record);
    if (!normaliser.station(read.station)) {
      // Readings are dated at the poll, so those of an outlet refused now are counted and read again next poll.
      for (const reading of read.readings) normaliser.reject('reading of an outlet refused', reading);
      continue;
    }
    for (const reading of read.readings) {
      const key = `${read.station.code}/${reading.fuelCode}`;
      const value = valueOf(reading);
      if (before.get(key) === value) {
        // Read, and known: the cursor holds it as applied.
        normaliser.alreadyKnown(1);
        after.set(key, value);
        continue;
      }
      if (normaliser.price({ code: read.station.code, fuelCode: reading.fuelCode, at: now, priceTenths: reading.priceTenths, available: reading.available })) {
        after.set(key, value);
      }
    }
  }
  return writeNtCursor(after);
}

export const ntAdapter: LiveFeed = {
  id: 'nt',
  name: 'NT MyFuel (best effort)',
  env: { url: ['NT_MYFUEL_URL', 'https://myfuelnt.nt.gov.au'] },
  attribution: 'NT prices: MyFuel NT, Northern Territory Government.',
  states: ['nt'],
  // No published quota. One page (~160 KB) holds the whole territory; every 30 minutes is polite
  // to a site that is not an API and still catches most price changes within the half hour.
  intervalSec: 1_800,
  requires: [],
  fuels: NT_FUELS,
  async pull(ctx: PullContext): Promise<Pulled[]> {
    const response = await ctx.http.request(`${ctx.config.url}${NT_RESULTS_PATH}`, {
      query: { ...NT_RESULTS_QUERY },
      headers: { accept: 'text/html', 'user-agent': 'fuelprice-ingest/1.0' },
    });
    const { outlets, brands } = parseNtResults(extractServerJson(response.text));
    const normaliser = ctx.normaliser();
    const cursor = addNtOutlets(normaliser, outlets, brands, ctx.now, ctx.cursor);
    return [{ normaliser, cursor }];
  },
};
