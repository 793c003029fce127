/**
 * NSW FuelCheck price history (data.nsw.gov.au, "Fuel Check"): monthly files, one row per
 * price change, columns ServiceStationName, Address, Suburb, Postcode, Brand, FuelCode
 * (FuelType in the early 2016 files), PriceUpdatedDate, Price (cents a litre), times in Sydney
 * local time, as .xlsx (most months) or .csv (the newer datastore exports add an `_id`
 * column first, which is not read). PriceUpdatedDate comes as an Excel serial (2018's
 * workbooks), as text `1/04/2020 12:13:08 AM`, or ISO `2023-01-01T00:09:40`; all are Sydney
 * wall-clock times. Some workbooks leave cells blank below the first of a run of equal values
 * (merged cells): see fillDown for what a blank means. The files carry no station code and no position, so each row is matched to a
 * station the live FuelCheck feed ('nsw') already created: by address and postcode, else by
 * name and postcode. Rows of stations not known yet are rejected (counted) and can be imported
 * again after `fuelprice ingest nsw` has seen them.
 */
import { localTimeToUnix } from '../../domain/time.ts';
import type { FeedStation, IngestStore } from '../../storage/store.ts';
import type { FuelMap } from '../normalise.ts';
import { type Normaliser, centsToTenths } from '../normalise.ts';
import type { ColumnSpec, Row } from './csv.ts';
import { parseDayFirstDateTime, parseExcelSerial, parseIsoDateTime } from './dates.ts';
import type { ImportFormat, RowReader } from './format.ts';

export const NSW_STATION_NOT_KNOWN = 'station not known: run `fuelprice ingest nsw` first';
/** A row that names its station but not its fuel: no row above belongs to that station, so there is no fuel to take. */
export const NSW_BLANK_FUEL = 'blank FuelCode on a row that names its station';
/** A row of the station above with a blank FuelCode, where the row above has no fuel either (or there is no row above). */
export const NSW_BLANK_FUEL_NONE_ABOVE = 'blank FuelCode with no fuel above it for the same station';
export const NSW_BLANK_STATION_NONE_ABOVE = 'blank station fields with no station above them';
export const NSW_BLANK_DATE = 'blank PriceUpdatedDate on a row that names its station';
export const NSW_BLANK_DATE_NONE_ABOVE = 'blank PriceUpdatedDate with no date above it for the same station';

/** The FuelCheck fuel codes, the same in the history files as in the live API. */
export const NSW_HISTORY_FUELS: FuelMap = {
  E10: 'e10',
  U91: 'ulp91',
  P95: 'ulp95',
  P98: 'ulp98',
  DL: 'diesel',
  PDL: 'pdiesel',
  LPG: 'lpg',
  E85: 'e85',
  B20: 'b20',
  CNG: 'cng',
  LNG: 'lng',
  EV: 'ev',
};

const NSW_COLUMNS: readonly ColumnSpec[] = [
  { name: 'ServiceStationName' },
  { name: 'Address' },
  { name: 'Suburb' },
  { name: 'Postcode' },
  { name: 'Brand', optional: true },
  { name: 'FuelCode', aliases: ['FuelType'] },
  { name: 'PriceUpdatedDate' },
  { name: 'Price' },
];

const STATION_FIELDS = ['ServiceStationName', 'Address', 'Suburb', 'Postcode'] as const;
/** Taken from the row above with the station, never on its own (a blank Brand alone is just a blank brand). */
const STATION_CARRIED = [...STATION_FIELDS, 'Brand'] as const;

/** Street words written out and abbreviated both occur; keys use the short form. */
const STREET_WORDS: Readonly<Record<string, string>> = {
  road: 'rd', street: 'st', avenue: 'ave', av: 'ave', highway: 'hwy', hway: 'hwy', drive: 'dr', parade: 'pde',
  place: 'pl', lane: 'ln', crescent: 'cres', boulevard: 'blvd', boulevarde: 'blvd', bvd: 'blvd', terrace: 'tce',
  court: 'ct', corner: 'cnr', mount: 'mt', close: 'cl', circuit: 'cct', square: 'sq', esplanade: 'esp',
  north: 'nth', south: 'sth',
};
const STATE_WORDS: ReadonlySet<string> = new Set(['nsw', 'act', 'tas', 'qld', 'vic', 'sa', 'wa', 'nt']);

/** A form of text for matching addresses and names: lower case, `&` as `and`, punctuation gone, spaces collapsed. */
function plainWords(text: string): string[] {
  return text.toLowerCase().replace(/&/g, ' and ').replace(/[^a-z0-9]+/g, ' ').trim().split(' ').filter((w) => w !== '');
}

/** A postcode as four digits ("2099", "2099.0" from a spreadsheet, "800" -> "0800"), or ''. */
export function postcodeOf(text: string): string {
  const digits = text.trim().replace(/\.0+$/, '');
  return /^\d{3,4}$/.test(digits) ? digits.padStart(4, '0') : '';
}

/**
 * The street part of an address as a matching key with its postcode. FuelCheck writes
 * "940 Pittwater Road & Hawkesbury Avenue, Dee Why NSW 2099": the postcode, state and suburb
 * at the end are dropped (they may or may not be there), street words are abbreviated, case
 * and punctuation ignored. '' when nothing is left.
 */
export function nswAddressKey(address: string, suburb: string, postcode: string): string {
  const code = postcodeOf(postcode);
  let words = plainWords(address);
  if (code !== '' && words[words.length - 1] === code) words.pop();
  if (STATE_WORDS.has(words[words.length - 1] ?? '')) words.pop();
  const place = plainWords(suburb);
  const tail = words.slice(words.length - place.length);
  if (place.length > 0 && place.length < words.length && place.every((w, i) => tail[i] === w)) words = words.slice(0, -place.length);
  if (words.length === 0 || code === '') return '';
  return `${words.map((w) => STREET_WORDS[w] ?? w).join(' ')}|${code}`;
}

/** A station's name as a matching key with its postcode; '' when either is missing. */
export function nswNameKey(name: string, postcode: string): string {
  const code = postcodeOf(postcode);
  const words = plainWords(name);
  return words.length === 0 || code === '' ? '' : `${words.join(' ')}|${code}`;
}

/** The feed codes of the stations the live feed knows, by address key and by name key; a key two stations share matches neither. */
export class NswStationIndex {
  private readonly byAddress = new Map<string, string | null>();
  private readonly byName = new Map<string, string | null>();

  constructor(stations: readonly FeedStation[]) {
    for (const s of stations) {
      add(this.byAddress, nswAddressKey(s.address, s.suburb, s.postcode), s.feedCode);
      add(this.byName, nswNameKey(s.name, s.postcode), s.feedCode);
    }
  }

  /** The feed code of the station a history row names, if exactly one known station fits. */
  match(name: string, address: string, suburb: string, postcode: string): string | undefined {
    const byAddress = this.byAddress.get(nswAddressKey(address, suburb, postcode));
    if (byAddress) return byAddress;
    return this.byName.get(nswNameKey(name, postcode)) ?? undefined;
  }
}

function add(index: Map<string, string | null>, key: string, code: string): void {
  if (key === '') return;
  const found = index.get(key);
  index.set(key, found === undefined || found === code ? code : null);
}

/**
 * What a blank cell means in the workbooks that merge runs of equal cells (April 2020 and later;
 * the workbook lists its merged ranges after the rows, where a streaming reader cannot use them,
 * so the rule is written from what they show):
 *
 * - A row whose station fields (name, address, suburb, postcode) are all blank belongs to the
 *   station of the row above, brand included: merged station cells (20,551 ranges in April
 *   2020).
 * - On such a row, a blank FuelCode or PriceUpdatedDate is the row above's, which is then the
 *   same station's: 109 rows of April 2020 leave FuelCode blank there, 107 inside a merged
 *   FuelCode range the workbook declares and 2 on the first row of one of the export's pages of
 *   100 rows (3904, 61804), where no merge crosses the page; each is seconds after the row above
 *   with another price, and no station's row ever repeats the fuel above it explicitly. The one
 *   blank date (row 45567) is a declared merged range.
 * - A row that names its station fills nothing from above: the row above may be another
 *   station's, and nothing is taken across stations. Its blank FuelCode (16 rows of April 2020,
 *   each the first of a page, none in a merged range) is rejected (NSW_BLANK_FUEL), as are a
 *   blank date and a blank with nothing above it.
 *
 * Returns the row as it reads with the blanks filled; what stays blank is ''.
 */
export function fillDown(row: Row, previous: Row | undefined): Row {
  const stationBlank = STATION_FIELDS.every((f) => (row[f] ?? '') === '');
  if (!stationBlank) return row;
  const out: Record<string, string> = { ...row };
  for (const f of STATION_CARRIED) out[f] = previous?.[f] ?? '';
  for (const f of ['FuelCode', 'PriceUpdatedDate']) if ((out[f] ?? '') === '') out[f] = previous?.[f] ?? '';
  return out;
}

/** PriceUpdatedDate as Unix seconds: Sydney wall-clock time in any of the shapes the files have used. */
export function nswPriceTime(text: string): number | undefined {
  const wall = parseDayFirstDateTime(text) ?? parseIsoDateTime(text) ?? parseExcelSerial(text);
  return wall && localTimeToUnix('nsw', wall.y, wall.m, wall.d, wall.h, wall.mi, wall.s);
}

class NswHistoryReader implements RowReader {
  private previous: Row | undefined;

  constructor(private readonly index: NswStationIndex) {}

  skip(row: Row): void {
    this.previous = fillDown(row, this.previous);
  }

  read(input: Row, normaliser: Normaliser, line: number): void {
    const row = fillDown(input, this.previous);
    this.previous = row;
    const field = (name: string): string => row[name] ?? '';
    const stationBlank = STATION_FIELDS.every((f) => field(f) === '');
    if (stationBlank) {
      normaliser.reject(NSW_BLANK_STATION_NONE_ABOVE, { line, ...input });
      return;
    }
    const continued = STATION_FIELDS.every((f) => (input[f] ?? '') === '');
    if (field('FuelCode') === '') {
      normaliser.reject(continued ? NSW_BLANK_FUEL_NONE_ABOVE : NSW_BLANK_FUEL, { line, ...input });
      return;
    }
    if (field('PriceUpdatedDate') === '') {
      normaliser.reject(continued ? NSW_BLANK_DATE_NONE_ABOVE : NSW_BLANK_DATE, { line, ...input });
      return;
    }
    const code = this.index.match(field('ServiceStationName'), field('Address'), field('Suburb'), field('Postcode'));
    if (code === undefined) {
      normaliser.reject(NSW_STATION_NOT_KNOWN, { line, ...row });
      return;
    }
    const at = nswPriceTime(field('PriceUpdatedDate'));
    if (at === undefined) {
      normaliser.reject('price with an unreadable PriceUpdatedDate', { line, ...row });
      return;
    }
    const priceTenths = centsToTenths(field('Price'));
    if (priceTenths === undefined) {
      normaliser.reject('price that is not a number', { line, ...row });
      return;
    }
    normaliser.price({ code, fuelCode: field('FuelCode'), at, priceTenths, available: true });
  }
}

export const nswHistory: ImportFormat = {
  id: 'nsw-history',
  feed: 'nsw',
  name: 'NSW FuelCheck price history',
  columns: NSW_COLUMNS,
  fuels: NSW_HISTORY_FUELS,
  async start(store: IngestStore): Promise<RowReader> {
    return new NswHistoryReader(new NswStationIndex(await store.feedStations('nsw')));
  },
};
