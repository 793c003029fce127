/**
 * FuelCheck's answers read into stations and prices (the feed is nsw.ts). GET
 * /FuelPriceCheck/v2/fuel/prices?states=NSW|TAS and /prices/new both answer { stations: [{ brandid,
 * stationid, brand, code, name, address ("424 Cleveland St, SURRY HILLS NSW 2010"), location:
 * { latitude, longitude }, state ("NSW" or "TAS"), isAdBlueAvailable }], prices: [{ stationcode,
 * state, fueltype, price (cents a litre), lastupdated ("12/05/2026 07:45:10", Sydney wall-clock
 * time) }] }.
 *
 * Station codes repeat across states, so a station is keyed by the record's state and its code
 * ("NSW-1021", "TAS-17"). ACT stations come through the NSW feed (FuelCheck has covered the ACT
 * since November 2022) under the NSW key; the station itself is placed in the ACT from its address.
 */
import { localTimeToUnix } from '../../domain/time.ts';
import { FeedError, isObject, parseJsonBody } from '../feed-error.ts';
import { type Normaliser, type RawPrice, type RawStation, centsToTenths } from '../normalise.ts';
import { isNswHistoryCode, nswAdoptions } from '../nsw-identity.ts';
import { nswStationState, splitNswAddress } from './nsw-address.ts';
import type { FeedStation } from '../../storage/store.ts';

/** Which call an answer is to: the full snapshot (/prices) or the changes since the last call (/prices/new). */
export type NswPollKind = 'snapshot' | 'new';

function malformed(message: string): FeedError {
  return new FeedError('malformed', `FuelCheck: ${message}`);
}

function parseJson(body: string, what: string): unknown {
  return parseJsonBody(body, `FuelCheck: ${what}`);
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
