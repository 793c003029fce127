/**
 * WA FuelWatch historical prices (fuelwatch.wa.gov.au, "historic", FuelWatchRetail-MM-YYYY.csv):
 * one row per station, product and day, columns PUBLISH_DATE (dd/mm/yyyy), TRADING_NAME,
 * BRAND_DESCRIPTION, PRODUCT_DESCRIPTION, PRODUCT_PRICE (cents a litre), ADDRESS, LOCATION,
 * POSTCODE, AREA_DESCRIPTION, REGION_DESCRIPTION. A WA price holds for 24 hours from 06:00 on
 * its day, so each row's instant is 06:00 WA time on PUBLISH_DATE. No coordinates: rows belong
 * to the stations the live FuelWatch feed ('wa') created, keyed the same way (waStationKey of
 * address, suburb and trading name); prices of stations it has not seen are rejected by the runner.
 */
import { localTimeToUnix } from '../../domain/time.ts';
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
  // Part of the station's key (waStationKey): every published file has it.
  { name: 'TRADING_NAME', optional: true },
];

/** 06:00 WA time on a PUBLISH_DATE (dd/mm/yyyy), when that day's price took effect. */
export function waPublishTime(text: string): number | undefined {
  const date = parseDayFirstDate(text);
  return date && localTimeToUnix('wa', date.y, date.m, date.d, 6, 0, 0);
}

const waReader: RowReader = {
  skip(): void {},
  read(row: Row, normaliser: Normaliser, line: number): void {
    const code = waStationKey(row['ADDRESS'] ?? '', row['LOCATION'] ?? '', row['TRADING_NAME'] ?? '');
    if (code === '') {
      normaliser.reject('station without an address and suburb', { line, ...row });
      return;
    }
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
  },
};

export const waHistory: ImportFormat = {
  id: 'wa-history',
  feed: 'wa',
  name: 'WA FuelWatch historical prices',
  columns: WA_COLUMNS,
  fuels: WA_HISTORY_FUELS,
  async start(): Promise<RowReader> {
    return waReader;
  },
};
