/**
 * WA FuelWatch history, in the two shapes WA publishes it:
 *
 * - the monthly CSV (fuelwatch.wa.gov.au, "historic", FuelWatchRetail-MM-YYYY.csv): one row per
 *   station, product and day, columns PUBLISH_DATE (dd/mm/yyyy), TRADING_NAME,
 *   BRAND_DESCRIPTION, PRODUCT_DESCRIPTION, PRODUCT_PRICE (cents a litre), ADDRESS, LOCATION,
 *   POSTCODE, AREA_DESCRIPTION, REGION_DESCRIPTION; no coordinates;
 * - daily snapshots of FuelWatch's site API (`*.json` or `*.json.gz`, a JSON array): one object
 *   per station and product, with date (yyyy-mm-dd), fuelType (ULP, PUP, 98R, DSL, BDL, LPG,
 *   E85), stationId, siteName, brandName (FuelWatch's brand code), address, suburb, postCode,
 *   latitude, longitude, priceToday, priceTomorrow, tempUnavailable and opening-hours flags.
 *   Its keys are read as the CSV's columns (date as PUBLISH_DATE, priceToday as PRODUCT_PRICE
 *   and so on). priceToday is the price of `date`; priceTomorrow is not read, as it is the next
 *   day's snapshot's priceToday. A null priceToday (the site does not sell the fuel that day)
 *   is rejected with its reason; tempUnavailable reads as out of stock.
 *
 * A WA price holds for 24 hours from 06:00 on its day, so each row's instant is 06:00 WA time
 * on its date.
 *
 * Stations: a file that has FuelWatch's own station id (the snapshots' `stationId`, a CSV's
 * STATION_ID) keys each station by it, so two stations at one address stay two and an address
 * written anew keeps its station; a file without it keys stations as the live RSS feed ('wa')
 * does (waStationKey of address and suburb), so its rows join the live feed's stations. A station
 * not stored yet is created from the row: with the file's position where it has one, else with
 * none. A station already stored is left as it is (an old file must not undo a later rename).
 */
import { stateFromPostcode } from '../../domain/postcodes.ts';
import { isStateId } from '../../domain/states.ts';
import { localTimeToUnix } from '../../domain/time.ts';
import type { IngestStore } from '../../storage/store.ts';
import type { FuelMap } from '../normalise.ts';
import { waStationKey } from '../feeds/wa.ts';
import { type Normaliser, centsToTenths } from '../normalise.ts';
import type { ColumnSpec, Row } from './csv.ts';
import { parseDayFirstDate, parseIsoDateTime } from './dates.ts';
import type { ImportFormat, RowReader } from './format.ts';

/** PRODUCT_DESCRIPTION as the historical files write it (not the RSS product codes). */
export const WA_HISTORY_FUELS: FuelMap = {
  ULP: 'ulp91',
  PULP: 'ulp95',
  '98 RON': 'ulp98',
  Diesel: 'diesel',
  'Brand Diesel': 'pdiesel',
  'Brand diesel': 'pdiesel',
  LPG: 'lpg',
  E85: 'e85',
  // Lead replacement petrol, in the files until it was phased out (2006).
  LRP: 'lrp',
  // The site API's product codes (ULP is the same in both).
  PUP: 'ulp95',
  '98R': 'ulp98',
  DSL: 'diesel',
  BDL: 'pdiesel',
};

/** The CSV's columns, each with the site API snapshot's key for the same thing. */
const WA_COLUMNS: readonly ColumnSpec[] = [
  { name: 'PUBLISH_DATE', aliases: ['date'] },
  { name: 'PRODUCT_DESCRIPTION', aliases: ['fuelType'] },
  { name: 'PRODUCT_PRICE', aliases: ['priceToday'] },
  { name: 'ADDRESS', aliases: ['address'] },
  { name: 'LOCATION', aliases: ['suburb'] },
  // What a station the file creates is made of; files without them create it from the rest.
  { name: 'TRADING_NAME', aliases: ['siteName'], optional: true },
  { name: 'BRAND_DESCRIPTION', aliases: ['brandName'], optional: true },
  { name: 'POSTCODE', aliases: ['postCode'], optional: true },
  { name: 'STATION_ID', aliases: ['stationId', 'SITE_ID'], optional: true },
  { name: 'STATE', aliases: ['state'], optional: true },
  { name: 'LATITUDE', aliases: ['latitude'], optional: true },
  { name: 'LONGITUDE', aliases: ['longitude'], optional: true },
  { name: 'tempUnavailable', optional: true },
];

export const WA_NO_PRICE_TODAY = 'row without a price for its day (priceToday empty)';

/** A decimal degree, or NaN (refused by the normaliser); null for an empty field. */
function degrees(text: string): number | null {
  const t = text.trim();
  if (t === '') return null;
  return /^-?\d{1,3}(\.\d+)?$/.test(t) ? Number(t) : NaN;
}

/** The code of a row's station: FuelWatch's station id where the file has one, else the live feed's address key; '' when neither. */
export function waHistoryCode(row: Row): string {
  const id = (row['STATION_ID'] ?? '').trim();
  if (/^\d{1,12}$/.test(id)) return id;
  return waStationKey(row['ADDRESS'] ?? '', row['LOCATION'] ?? '');
}

/** 06:00 WA time on a PUBLISH_DATE (dd/mm/yyyy) or a snapshot's date (yyyy-mm-dd), when that day's price took effect. */
export function waPublishTime(text: string): number | undefined {
  const date = parseDayFirstDate(text) ?? (/^\d{4}-\d{2}-\d{2}$/.test(text.trim()) ? parseIsoDateTime(`${text.trim()}T00:00`) : undefined);
  return date && localTimeToUnix('wa', date.y, date.m, date.d, 6, 0, 0);
}

class WaHistoryReader implements RowReader {
  constructor(private readonly known: Set<string>) {}

  skip(): void {}

  /** Creates the row's station unless it is stored or created already; false when it was refused (counted). */
  private station(code: string, row: Row, normaliser: Normaliser): boolean {
    if (this.known.has(code)) return true;
    const field = (name: string): string => (row[name] ?? '').trim();
    const [street, suburb, postcode] = [field('ADDRESS'), field('LOCATION'), field('POSTCODE')];
    const named = field('STATE').toLowerCase();
    // FuelWatch lists WA's stations only: a file that names no state and no postcode is of WA.
    const state = isStateId(named) ? named : stateFromPostcode(postcode) ?? 'wa';
    const latitude = degrees(field('LATITUDE'));
    const longitude = degrees(field('LONGITUDE'));
    const added = normaliser.station({
      code, name: field('TRADING_NAME'), brand: field('BRAND_DESCRIPTION'),
      address: `${street}, ${[suburb, 'WA', postcode].filter((p) => p !== '').join(' ')}`, street, suburb, postcode, state,
      // Half a position is no position: the normaliser refuses NaN, never makes one up.
      latitude: latitude === null && longitude !== null ? NaN : latitude, longitude: longitude === null && latitude !== null ? NaN : longitude,
    });
    if (added) this.known.add(code);
    return added;
  }

  read(row: Row, normaliser: Normaliser, line: number): void {
    const code = waHistoryCode(row);
    if (code === '') {
      normaliser.reject('station without a station id, address and suburb', { line, ...row });
      return;
    }
    if (!this.station(code, row, normaliser)) return;
    const at = waPublishTime(row['PUBLISH_DATE'] ?? '');
    if (at === undefined) {
      normaliser.reject('price with an unreadable PUBLISH_DATE', { line, ...row });
      return;
    }
    const unavailable = row['tempUnavailable'] === 'true';
    const price = row['PRODUCT_PRICE'] ?? '';
    if (price === '' && !unavailable) {
      normaliser.reject(WA_NO_PRICE_TODAY, { line, ...row });
      return;
    }
    const priceTenths = unavailable ? 0 : centsToTenths(price);
    if (priceTenths === undefined) {
      normaliser.reject('price that is not a number', { line, ...row });
      return;
    }
    normaliser.price({ code, fuelCode: row['PRODUCT_DESCRIPTION'] ?? '', at, priceTenths, available: !unavailable });
  }
}

export const waHistory: ImportFormat = {
  id: 'wa-history',
  feed: 'wa',
  name: 'WA FuelWatch historical prices',
  columns: WA_COLUMNS,
  fuels: WA_HISTORY_FUELS,
  async start(store: IngestStore): Promise<RowReader> {
    return new WaHistoryReader(new Set((await store.feedStations('wa')).map((s) => s.feedCode)));
  },
};
