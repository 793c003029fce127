/**
 * QLD Fuel Price Reporting (data.qld.gov.au, "Fuel price reporting <year>"): monthly CSVs of
 * every price change, columns SiteId, Site_Name, Site_Brand, Sites_Address_Line_1, Site_Suburb,
 * Site_State, Site_Post_Code, Site_Latitude, Site_Longitude, Fuel_Type, Price (tenths of a cent;
 * 9999 = not available), TransactionDateutc (UTC, `dd/mm/yyyy HH:mm`; older files
 * `yyyy-mm-ddTHH:mm:ss`). The import creates the stations it has not seen, as feed 'qld' with
 * the SiteId as code (the key of the live FPD feed, so a later live ingest finds them), in the
 * state Site_State names (else its postcode's), with the file's position (none where both fields
 * are empty). Stations already known are left as they are: an old file must not undo a later
 * rename or rebrand.
 *
 * Also read: the FPD API's `Price/GetSitesPrices` answer written flat to CSV (`SiteId, FuelId,
 * CollectionMethod, TransactionDateUtc, Price`, price `1899.0`, ISO times with fractions): fuels
 * by the API's FuelId, sites as the live feed stored them (the file names none, so a site the
 * store does not know is rejected by the runner).
 */
import { stateFromPostcode } from '../../domain/postcodes.ts';
import { isStateId } from '../../domain/states.ts';
import type { IngestStore } from '../../storage/store.ts';
import type { FuelMap } from '../normalise.ts';
import { FPD_FUELS } from '../feeds/fpd.ts';
import type { Normaliser } from '../normalise.ts';
import type { ColumnSpec, Row } from './csv.ts';
import { parseDayFirstDateTime, parseIsoDateTime, utcWallToUnix } from './dates.ts';
import type { ImportFormat, RowReader } from './format.ts';

/** Price value the scheme uses for a fuel the site is out of. */
export const QLD_NOT_AVAILABLE = 9999;

/** Fuel_Type as the files write it. */
export const QLD_HISTORY_FUELS: FuelMap = {
  Unleaded: 'ulp91',
  e10: 'e10',
  E10: 'e10',
  'PULP 95/96 RON': 'ulp95',
  'PULP 98 RON': 'ulp98',
  Diesel: 'diesel',
  'Premium Diesel': 'pdiesel',
  LPG: 'lpg',
  e85: 'e85',
  E85: 'e85',
  OPAL: 'opal',
  'Liquefied natural gas': 'lng',
  // The API's FuelId, in the flattened GetSitesPrices files.
  ...FPD_FUELS,
};

/** The site columns are the monthly file's; the flattened API answer has none of them. */
const QLD_COLUMNS: readonly ColumnSpec[] = [
  { name: 'SiteId' },
  { name: 'Site_Name', optional: true },
  { name: 'Site_Brand', optional: true },
  { name: 'Sites_Address_Line_1', optional: true },
  { name: 'Site_Suburb', optional: true },
  { name: 'Site_State', optional: true },
  { name: 'Site_Post_Code', optional: true },
  { name: 'Site_Latitude', optional: true },
  { name: 'Site_Longitude', optional: true },
  { name: 'Fuel_Type', aliases: ['FuelId'] },
  { name: 'Price' },
  { name: 'TransactionDateutc' },
];

/** TransactionDateutc as Unix seconds. */
export function qldTransactionTime(text: string): number | undefined {
  const wall = parseDayFirstDateTime(text) ?? parseIsoDateTime(text);
  return wall && utcWallToUnix(wall);
}

/** A decimal degree, or NaN (an empty field is not 0). */
function degrees(text: string): number {
  return /^-?\d{1,3}(\.\d+)?$/.test(text) ? Number(text) : NaN;
}

/** A site's position: none when both fields are empty (never 0,0), NaN (refused) for one that cannot be read. */
function position(latitude: string, longitude: string): { latitude: number | null; longitude: number | null } {
  if (latitude.trim() === '' && longitude.trim() === '') return { latitude: null, longitude: null };
  return { latitude: degrees(latitude.trim()), longitude: degrees(longitude.trim()) };
}

/** The state a site is in: the one Site_State names, else its postcode's, else (neither) Queensland's, whose scheme it is. */
function qldSiteState(named: string, postcode: string): string {
  const state = named.trim().toLowerCase();
  return isStateId(state) ? state : stateFromPostcode(postcode.trim()) ?? 'qld';
}

class QldHistoryReader implements RowReader {
  constructor(private readonly known: Set<string>) {}

  skip(): void {}

  read(row: Row, normaliser: Normaliser, line: number): void {
    const field = (name: string): string => row[name] ?? '';
    const code = field('SiteId');
    if (!/^\d{1,12}$/.test(code)) {
      normaliser.reject('row without a numeric SiteId', { line, ...row });
      return;
    }
    // A row that names no site (the flattened API answer) creates nothing: its price needs a known station.
    if (!this.known.has(code) && row['Site_Name'] !== undefined) {
      const street = field('Sites_Address_Line_1');
      const suburb = field('Site_Suburb');
      const postcode = field('Site_Post_Code');
      const state = qldSiteState(field('Site_State'), postcode);
      const added = normaliser.station({
        code, name: field('Site_Name'), brand: field('Site_Brand'),
        address: [street, [suburb, state.toUpperCase(), postcode].filter((p) => p !== '').join(' ')].filter((p) => p !== '').join(', '),
        street, suburb, postcode, state, ...position(field('Site_Latitude'), field('Site_Longitude')),
      });
      // A station the normaliser refused is counted with its reason on each of its rows; its prices go nowhere.
      if (!added) return;
      this.known.add(code);
    }
    const at = qldTransactionTime(field('TransactionDateutc'));
    if (at === undefined) {
      normaliser.reject('price with an unreadable TransactionDateutc', { line, ...row });
      return;
    }
    // `1859`, or `1859.0` as the flattened API answer writes it.
    const price = field('Price').replace(/\.0+$/, '');
    if (!/^\d{1,6}$/.test(price)) {
      normaliser.reject('price that is not a number', { line, ...row });
      return;
    }
    const tenths = Number(price);
    const available = tenths !== QLD_NOT_AVAILABLE;
    normaliser.price({ code, fuelCode: field('Fuel_Type'), at, priceTenths: available ? tenths : 0, available });
  }
}

export const qldHistory: ImportFormat = {
  id: 'qld-history',
  feed: 'qld',
  name: 'QLD Fuel Price Reporting',
  columns: QLD_COLUMNS,
  fuels: QLD_HISTORY_FUELS,
  async start(store: IngestStore): Promise<RowReader> {
    return new QldHistoryReader(new Set((await store.feedStations('qld')).map((s) => s.feedCode)));
  },
};
