/**
 * Victoria: Service Victoria's Fair Fuel Open Data API (the data behind Servo Saver), CC BY 4.0.
 *
 * GET <base>/open-data/v1/fuel/reference-data/brands answers { brands: [{ id, name }] } and
 * GET <base>/open-data/v1/fuel/prices answers { fuelPriceDetails: [{ fuelStation: { id, name,
 * brandId, address, contactPhone, location: { latitude, longitude } }, fuelPrices: [{ fuelType,
 * price, isAvailable, updatedAt }], updatedAt }] }, prices in cents a litre, times ISO 8601 with
 * a zone. Every call carries x-consumer-id (the credential), a fresh UUID in x-transactionid and
 * a User-Agent. `isAvailable: false` marks a fuel out of stock (its price may be null). Prices
 * are published a day after retailers report them, so every report is in the past. The address
 * is one string ("456 Hoddle St, Clifton Hill VIC 3068"): suburb and postcode are cut from it.
 */
import { randomUUID } from 'node:crypto';
import { FeedError, isObject, parseJsonBody } from '../feed-error.ts';
import type { LiveFeed, PullContext, Pulled } from '../feed.ts';
import { type FuelMap, type Normaliser, type RawPrice, type RawStation, centsToTenths } from '../normalise.ts';

export const VIC_CONSUMER_ID_VAR = 'VIC_FAIRFUEL_CONSUMER_ID';
export const VIC_PRICES_PATH = '/open-data/v1/fuel/prices';
export const VIC_BRANDS_PATH = '/open-data/v1/fuel/reference-data/brands';

/** Fair Fuel's fuelType codes (as in /fuel/reference-data/types and in the prices). */
export const VIC_FUELS: FuelMap = {
  U91: 'ulp91', P95: 'ulp95', P98: 'ulp98', E10: 'e10', E85: 'e85',
  DSL: 'diesel', PDSL: 'pdiesel', B20: 'b20', LPG: 'lpg', LNG: 'lng', CNG: 'cng',
};

function malformed(message: string): FeedError {
  return new FeedError('malformed', `Fair Fuel: ${message}`);
}


function parseJson(body: string, what: string): unknown {
  return parseJsonBody(body, `Fair Fuel: ${what}`);
}

/** The records of a /fuel/prices answer; FeedError('malformed') when the top-level list is missing. */
export function parseVicPrices(body: string): unknown[] {
  const doc = parseJson(body, 'the prices answer');
  if (!isObject(doc) || !Array.isArray(doc['fuelPriceDetails'])) throw malformed('the prices answer has no fuelPriceDetails list');
  return doc['fuelPriceDetails'];
}

/** Brand id -> name from /fuel/reference-data/brands; FeedError('malformed') when the list is missing. */
export function parseVicBrands(body: string): Map<string, string> {
  const doc = parseJson(body, 'the brands answer');
  if (!isObject(doc) || !Array.isArray(doc['brands'])) throw malformed('the brands answer has no brands list');
  const brands = new Map<string, string>();
  for (const brand of doc['brands']) {
    if (isObject(brand) && (typeof brand['id'] === 'string' || typeof brand['id'] === 'number') && typeof brand['name'] === 'string') {
      brands.set(String(brand['id']), brand['name'].trim());
    }
  }
  return brands;
}

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * Unix seconds of an ISO 8601 instant with its zone ("2026-05-11T06:12:45Z",
 * "2026-05-11T16:12:45.120+10:00"); fractions are cut. Undefined without a zone or out of range:
 * a time without a zone would be a guess.
 */
export function parseIsoInstant(text: unknown): number | undefined {
  const match = typeof text === 'string' ? ISO_INSTANT.exec(text.trim()) : null;
  if (!match) return undefined;
  const [y, mo, d, h, mi, s] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const zone = match[7] ?? 'Z';
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  let offset = 0;
  if (zone !== 'Z') {
    const digits = zone.replace(':', '');
    const oh = Number(digits.slice(1, 3));
    const om = Number(digits.slice(3, 5));
    if (oh > 14 || om > 59) return undefined;
    offset = (zone.startsWith('-') ? -1 : 1) * (oh * 3_600 + om * 60);
  }
  return date.getTime() / 1_000 - offset;
}

/** Street, suburb and postcode of a Fair Fuel address: "<street>, <suburb> VIC <postcode>" or "<street>, <suburb>, <postcode>". */
export function splitVicAddress(address: string): { street: string; suburb: string; postcode: string } {
  const parts = address.split(',').map((p) => p.replace(/\s+/g, ' ').trim()).filter((p) => p !== '');
  if (parts.length > 0 && /^australia$/i.test(parts[parts.length - 1] ?? '')) parts.pop();
  const withoutState = (text: string): string => text.replace(/\s*\b(VIC|VICTORIA)$/i, '').trim();
  const last = parts.pop() ?? '';
  const tail = /^(.*?)\s*(?:\b(?:VIC|VICTORIA)\b)?\s*(\d{4})$/i.exec(last);
  if (!tail) return { street: parts.join(', '), suburb: withoutState(last), postcode: '' };
  const before = withoutState(tail[1] ?? '');
  const suburb = before !== '' ? before : withoutState(parts.pop() ?? '');
  return { street: parts.join(', '), suburb, postcode: tail[2] ?? '' };
}

const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const coordinate = (value: unknown): number => (typeof value === 'number' ? value : NaN);

export interface VicRecord {
  station: RawStation;
  prices: RawPrice[];
  /** Prices of this record that could not be read, with why. */
  rejected: Array<{ reason: string; record: unknown }>;
}

/** One fuelPriceDetails entry as a station and its prices, or why it cannot be read at all. */
export function readVicDetail(detail: unknown, brands: ReadonlyMap<string, string>): VicRecord | { rejected: string } {
  if (!isObject(detail) || !isObject(detail['fuelStation'])) return { rejected: 'record without a fuelStation' };
  const site = detail['fuelStation'];
  const code = text(site['id']);
  const address = text(site['address']).replace(/\s+/g, ' ').trim();
  const { street, suburb, postcode } = splitVicAddress(address);
  const location = isObject(site['location']) ? site['location'] : {};
  const station: RawStation = {
    code, name: text(site['name']), brand: brands.get(text(site['brandId'])) ?? '',
    address, street, suburb, postcode, state: 'vic', phone: text(site['contactPhone']),
    latitude: coordinate(location['latitude']), longitude: coordinate(location['longitude']),
  };
  const record: VicRecord = { station, prices: [], rejected: [] };
  const list = detail['fuelPrices'];
  // A station without a list of prices brings no price row: the station alone is kept.
  if (!Array.isArray(list)) return record;
  for (const entry of list) {
    if (!isObject(entry) || typeof entry['fuelType'] !== 'string' || typeof entry['isAvailable'] !== 'boolean') {
      record.rejected.push({ reason: 'price without fuelType or isAvailable', record: entry });
      continue;
    }
    // A price without its own time takes the record's: both are documented.
    const at = parseIsoInstant(entry['updatedAt'] ?? detail['updatedAt']);
    if (at === undefined) {
      record.rejected.push({ reason: 'price without a valid time', record: entry });
      continue;
    }
    const available = entry['isAvailable'];
    const tenths = centsToTenths(entry['price']);
    if (available && tenths === undefined) {
      record.rejected.push({ reason: 'price that is not a number', record: entry });
      continue;
    }
    record.prices.push({ code, fuelCode: entry['fuelType'], at, priceTenths: tenths ?? 0, available });
  }
  return record;
}

/**
 * Adds the records of one prices answer to a batch. Every price row is counted: kept, or rejected
 * by reason. The rows of a station the Normaliser refuses (a position outside Australia, as BP
 * Rockbank's on 1 May 2026) stay in the batch, like every feed's: the writer applies them to the
 * station as stored, or rejects them as of an unknown station. Those of a record without a
 * fuelStation are rejected under that reason.
 */
export function addVicDetails(normaliser: Normaliser, details: readonly unknown[], brands: ReadonlyMap<string, string>): void {
  for (const detail of details) {
    const record = readVicDetail(detail, brands);
    if (!('station' in record)) {
      normaliser.rejectStation(record.rejected, detail);
      const rows = isObject(detail) && Array.isArray(detail['fuelPrices']) ? detail['fuelPrices'] : [];
      for (const row of rows) normaliser.reject(`price of a ${record.rejected}`, row);
      continue;
    }
    normaliser.station(record.station);
    for (const bad of record.rejected) normaliser.reject(bad.reason, bad.record);
    for (const price of record.prices) normaliser.price(price);
  }
}

export const vicAdapter: LiveFeed = {
  id: 'vic',
  name: 'VIC Fair Fuel open data',
  env: { url: ['VIC_FAIRFUEL_URL', 'https://api.fuel.service.vic.gov.au'], credentials: { [VIC_CONSUMER_ID_VAR]: 'Fair Fuel Open Data consumer id' } },
  attribution: 'VIC prices: © State of Victoria accessed via the Victorian Government Service Victoria Platform (CC BY 4.0).',
  states: ['vic'],
  // The API allows about 10 requests a minute per consumer. A poll sends 2 (brands, prices),
  // at most 8 with every retry FeedHttp makes, so even a failing poll stays under the limit;
  // every 15 minutes is ample for prices published a day late.
  intervalSec: 900,
  requires: [VIC_CONSUMER_ID_VAR],
  fuels: VIC_FUELS,
  async pull(ctx: PullContext): Promise<Pulled[]> {
    const consumerId = ctx.config.credentials[VIC_CONSUMER_ID_VAR];
    if (!consumerId) throw new FeedError('auth', `${VIC_CONSUMER_ID_VAR} is not set`);
    const get = (path: string) => ctx.http.request(`${ctx.config.url}${path}`, {
      headers: {
        accept: 'application/json', 'user-agent': 'fuelprice-ingest/1.0',
        'x-consumer-id': consumerId, 'x-transactionid': randomUUID(),
      },
    });
    const brands = parseVicBrands((await get(VIC_BRANDS_PATH)).text);
    const details = parseVicPrices((await get(VIC_PRICES_PATH)).text);
    const normaliser = ctx.normaliser();
    addVicDetails(normaliser, details, brands);
    return [{ normaliser, cursor: undefined }];
  },
};
