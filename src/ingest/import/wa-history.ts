/**
 * WA FuelWatch historical prices (fuelwatch.wa.gov.au, "historic", FuelWatchRetail-MM-YYYY.csv):
 * one row per station, product and day, columns PUBLISH_DATE (dd/mm/yyyy), TRADING_NAME,
 * BRAND_DESCRIPTION, PRODUCT_DESCRIPTION, PRODUCT_PRICE (cents a litre), ADDRESS, LOCATION,
 * POSTCODE, AREA_DESCRIPTION, REGION_DESCRIPTION. A WA price holds for 24 hours from 06:00 on
 * its day, so each row's instant is 06:00 WA time on PUBLISH_DATE.
 *
 * Stations: a file that has FuelWatch's own station id (STATION_ID, as the site API's
 * `stationId`) keys each station by it, so two stations at one address stay two and an address
 * written anew keeps its station; a file without it keys stations as the live RSS feed ('wa')
 * does (waStationKey of address and suburb), so its rows join the live feed's stations. A station
 * not stored yet is created from the row: with the file's position where it has one
 * (LATITUDE, LONGITUDE), else with none. A station already stored is left as it is (an old file
 * must not undo a later rename).
 */
import { stateFromPostcode } from '../../domain/postcodes.ts';
import { isStateId } from '../../domain/states.ts';
import { localTimeToUnix } from '../../domain/time.ts';
import type { IngestStore } from '../../storage/store.ts';
import type { FuelMap } from '../normalise.ts';
import { waStationKey } from '../feeds/wa.ts';
import { type Normaliser, centsToTenths } from '../normalise.ts';
import type { ColumnSpec, Row } from './csv.ts';
import { parseDayFirstDate } from './dates.ts';
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
};

const WA_COLUMNS: readonly ColumnSpec[] = [
  { name: 'PUBLISH_DATE' },
  { name: 'PRODUCT_DESCRIPTION' },
  { name: 'PRODUCT_PRICE' },
  { name: 'ADDRESS' },
  { name: 'LOCATION' },
  // What a station the file creates is made of; files without them create it from the rest.
  { name: 'TRADING_NAME', optional: true },
  { name: 'BRAND_DESCRIPTION', optional: true },
  { name: 'POSTCODE', optional: true },
  { name: 'STATION_ID', aliases: ['stationId', 'SITE_ID'], optional: true },
  { name: 'STATE', optional: true },
  { name: 'LATITUDE', optional: true },
  { name: 'LONGITUDE', optional: true },
];

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

/** 06:00 WA time on a PUBLISH_DATE (dd/mm/yyyy), when that day's price took effect. */
export function waPublishTime(text: string): number | undefined {
  const date = parseDayFirstDate(text);
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
    const priceTenths = centsToTenths(row['PRODUCT_PRICE']);
    if (priceTenths === undefined) {
      normaliser.reject('price that is not a number', { line, ...row });
      return;
    }
    normaliser.price({ code, fuelCode: row['PRODUCT_DESCRIPTION'] ?? '', at, priceTenths, available: true });
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
