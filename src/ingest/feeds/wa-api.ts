/**
 * WA FuelWatch's JSON site API, the one its own web site uses: GET <base>/api/sites?fuelType=<code>
 * (ULP, PUP, DSL, BDL, LPG, 98R, E85) answers a JSON array, one object per site selling the
 * product: id (FuelWatch's station id, the `stationId` of its published snapshots), siteName,
 * address {line1, location (the suburb), postCode, state, latitude, longitude}, brandName (a
 * brand code: wa-brands.ts), product {shortName, priceToday, priceTomorrow, tempUnavailableFrom,
 * tempUnavailableTo}, isClosedNow, isClosedAllDayTomorrow, operates247 and a site-wide
 * tempUnavailableFrom/To. Prices are cents a litre.
 *
 * priceToday is the price in force from 06:00 WA time today; priceTomorrow the one from 06:00
 * tomorrow, absent until FuelWatch publishes it (about 14:30 WA time). Each is one price row:
 * - today's at 06:00 today, in stock; a product or site marked temporarily unavailable now
 *   (tempUnavailableFrom reached, tempUnavailableTo not yet) is out of stock from the later of
 *   06:00 and tempUnavailableFrom (its price kept when it has one, else 0); a site with neither a
 *   price today nor a mark has no row (it does not sell the product today, as the RSS leaves it out);
 * - tomorrow's at 06:00 tomorrow, held until then; out of stock when the site is closed all day tomorrow.
 * isClosedNow and operates247 are opening hours, not prices: not kept.
 */
import { localDayOf, localTimeToUnix } from '../../domain/time.ts';
import { FeedError, stripBom } from '../feed-error.ts';
import { type RawPrice, type RawStation, centsToTenths } from '../normalise.ts';
import { WA_BRANDS } from './wa-brands.ts';

export const WA_API_PATH = '/api/sites';

/** The site API's product codes onto the RSS product codes (WA_FUELS in wa.ts), in the order they are asked for. */
export const WA_API_PRODUCTS: Readonly<Record<string, string>> = {
  ULP: '1', PUP: '2', DSL: '4', LPG: '5', '98R': '6', E85: '10', BDL: '11',
};

/** One site of one product's answer, as JSON gives it (every field checked before use). */
export type WaSite = Readonly<Record<string, unknown>>;

export type WaApiRow = { station: RawStation; prices: RawPrice[] } | { rejected: string };

function malformed(message: string): FeedError {
  return new FeedError('malformed', `FuelWatch site API: ${message}`);
}

/** The sites of one answer; FeedError('malformed') when it is not a JSON array of objects (a cut or changed answer). */
export function parseWaSites(body: string): WaSite[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripBom(body));
  } catch {
    throw malformed('the answer is not JSON (truncated?)');
  }
  if (!Array.isArray(parsed)) throw malformed('the answer is not a list of sites');
  if (parsed.some((site) => site === null || typeof site !== 'object' || Array.isArray(site))) throw malformed('a site is not an object');
  return parsed as WaSite[];
}

const record = (value: unknown): Readonly<Record<string, unknown>> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {};
const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '');
const degrees = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : Number.NaN);

/** An ISO instant with its offset (`2026-03-30T11:45:00+08:00`) in Unix seconds; undefined when absent or unreadable. */
function instant(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/** Marked temporarily unavailable at `now` by a {tempUnavailableFrom, tempUnavailableTo} pair: when from, else undefined. */
function unavailableSince(holder: Readonly<Record<string, unknown>>, now: number): number | undefined {
  const from = instant(holder['tempUnavailableFrom']);
  const to = instant(holder['tempUnavailableTo']);
  return from !== undefined && from <= now && (to === undefined || to > now) ? from : undefined;
}

/** 06:00 WA time on the WA day of `now` (today's prices take effect) and a day later (tomorrow's). */
export function waPriceDays(now: number): { today: number; tomorrow: number } {
  const day = new Date(localDayOf('wa', now) * 86_400_000);
  const today = localTimeToUnix('wa', day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), 6, 0, 0);
  // WA keeps no daylight saving: its days are all 24 hours.
  return { today, tomorrow: today + 86_400 };
}

/** One site of one product's answer as its station and its price rows (none, one or two), or why it cannot be read. */
export function readWaSite(site: WaSite, productCode: string, now: number): WaApiRow {
  const id = site['id'];
  if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0) return { rejected: 'site without a numeric id' };
  const code = String(id);
  const address = record(site['address']);
  const product = record(site['product']);
  const street = text(address['line1']);
  const suburb = text(address['location']);
  const postcode = text(address['postCode']);
  const brandCode = text(site['brandName']);
  const station: RawStation = {
    code, name: text(site['siteName']), brand: WA_BRANDS[brandCode] ?? brandCode,
    address: `${street}, ${[suburb, 'WA', postcode].filter((part) => part !== '').join(' ')}`, street, suburb, postcode,
    state: text(address['state']).toLowerCase() || 'wa', latitude: degrees(address['latitude']), longitude: degrees(address['longitude']),
  };
  const days = waPriceDays(now);
  const prices: RawPrice[] = [];
  const today = product['priceToday'];
  const tomorrow = product['priceTomorrow'];
  const out = unavailableSince(product, now) ?? unavailableSince(site, now);
  if (out !== undefined) {
    const tenths = today === undefined || today === null ? 0 : centsToTenths(today) ?? 0;
    prices.push({ code, fuelCode: productCode, at: Math.min(now, Math.max(days.today, out)), priceTenths: tenths, available: false });
  } else if (today !== undefined && today !== null) {
    const tenths = centsToTenths(today);
    if (tenths === undefined) return { rejected: 'price that is not a number' };
    prices.push({ code, fuelCode: productCode, at: days.today, priceTenths: tenths, available: true });
  }
  if (tomorrow !== undefined && tomorrow !== null) {
    const tenths = centsToTenths(tomorrow);
    if (tenths === undefined) return { rejected: 'price that is not a number' };
    prices.push({ code, fuelCode: productCode, at: days.tomorrow, priceTenths: tenths, available: site['isClosedAllDayTomorrow'] !== true });
  }
  return { station, prices };
}
