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
 * on its date. Rows belong to stations keyed as the live FuelWatch feed ('wa') keys them
 * (waStationKey of address and suburb). A snapshot row carries a position: its station is
 * created when the store does not know it (waSnapshotStation); a CSV row's station must be
 * known, else the runner rejects its price.
 */
import { localTimeToUnix } from '../../domain/time.ts';
import type { IngestStore } from '../../storage/store.ts';
import type { FuelMap } from '../normalise.ts';
import { waStationKey } from '../feeds/wa.ts';
import { type Normaliser, type RawStation, centsToTenths } from '../normalise.ts';
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
  { name: 'TRADING_NAME', aliases: ['siteName'], optional: true },
  { name: 'BRAND_DESCRIPTION', aliases: ['brandName'], optional: true },
  { name: 'POSTCODE', aliases: ['postCode'], optional: true },
  { name: 'latitude', optional: true },
  { name: 'longitude', optional: true },
  { name: 'tempUnavailable', optional: true },
];

export const WA_NO_PRICE_TODAY = 'row without a price for its day (priceToday empty)';

/** 06:00 WA time on a PUBLISH_DATE (dd/mm/yyyy) or a snapshot's date (yyyy-mm-dd), when that day's price took effect. */
export function waPublishTime(text: string): number | undefined {
  const date = parseDayFirstDate(text) ?? (/^\d{4}-\d{2}-\d{2}$/.test(text.trim()) ? parseIsoDateTime(`${text.trim()}T00:00`) : undefined);
  return date && localTimeToUnix('wa', date.y, date.m, date.d, 6, 0, 0);
}

/** A decimal degree as the snapshot writes it, or NaN (an empty field is not 0). */
function degrees(text: string): number {
  return /^-?\d{1,3}(\.\d+)?$/.test(text) ? Number(text) : NaN;
}

/**
 * The station a snapshot row describes, under the key the live feed uses (waStationKey of
 * address and suburb), or undefined for a row without a position (a CSV row). FuelWatch's own
 * stationId is in the row too: the hook for telling apart two stations at one address (16
 * addresses in April and May 2026), which today share a key.
 */
export function waSnapshotStation(row: Row, code: string): RawStation | undefined {
  const latitude = degrees(row['latitude'] ?? '');
  const longitude = degrees(row['longitude'] ?? '');
  if (Number.isNaN(latitude) || Number.isNaN(longitude)) return undefined;
  const street = row['ADDRESS'] ?? '';
  const suburb = row['LOCATION'] ?? '';
  return {
    code, name: row['TRADING_NAME'] ?? '', brand: row['BRAND_DESCRIPTION'] ?? '', address: `${street}, ${suburb} WA`,
    street, suburb, postcode: row['POSTCODE'] ?? '', state: 'wa', latitude, longitude,
  };
}

class WaHistoryReader implements RowReader {
  constructor(private readonly known: Set<string>) {}

  skip(): void {}

  read(row: Row, normaliser: Normaliser, line: number): void {
    const code = waStationKey(row['ADDRESS'] ?? '', row['LOCATION'] ?? '');
    if (code === '') {
      normaliser.reject('station without an address and suburb', { line, ...row });
      return;
    }
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
    if (!this.known.has(code)) {
      const station = waSnapshotStation(row, code);
      if (station) {
        // Refused (no name, a position outside Australia): counted with its reason, its price goes nowhere.
        if (!normaliser.station(station)) return;
        this.known.add(code);
      }
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
