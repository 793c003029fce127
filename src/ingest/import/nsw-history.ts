/**
 * NSW FuelCheck price history (data.nsw.gov.au, "Fuel Check"): monthly files, one row per
 * price change, columns ServiceStationName, Address, Suburb, Postcode, Brand, FuelCode
 * (FuelType in the early 2016 files), PriceUpdatedDate, Price (cents a litre), times in Sydney
 * local time, as .xlsx (most months) or .csv (the newer datastore exports add an `_id`
 * column first, which is not read). PriceUpdatedDate comes as an Excel serial (2018's
 * workbooks), as text `1/04/2020 12:13:08 AM`, or ISO `2023-01-01T00:09:40`; all are Sydney
 * wall-clock times. Some workbooks leave cells blank below the first of a run of equal values
 * (merged cells): see fillDown for what a blank means.
 * local time. The files carry no station code and no position. Each row's station is found
 * (NswStationIndex) among the 'nsw' stations stored, live and history-made alike, by address and
 * postcode, else by name and postcode (a key two stations share matches neither); a station
 * found nowhere is created from the row, without a position, under a code made of its own name,
 * address and postcode (nswHistoryCode), so the next file finds it again.
 */
import { createHash } from 'node:crypto';
import { stateFromPostcode } from '../../domain/postcodes.ts';
import { isStateId } from '../../domain/states.ts';
import { localTimeToUnix } from '../../domain/time.ts';
import type { FeedStation, IngestStore } from '../../storage/store.ts';
import { nswSuburbCell, popNswState, splitNswAddress } from '../feeds/nsw.ts';
import type { FuelMap } from '../normalise.ts';
import { type Normaliser, centsToTenths } from '../normalise.ts';
import type { ColumnSpec, Row } from './csv.ts';
import { parseDayFirstDateTime, parseExcelSerial, parseIsoDateTime } from './dates.ts';
import type { ImportFormat, RowReader } from './format.ts';

/** A row that names its station but not its fuel: no row above belongs to that station, so there is no fuel to take. */
export const NSW_BLANK_FUEL = 'blank FuelCode on a row that names its station';
/** A row of the station above with a blank FuelCode, where the row above has no fuel either (or there is no row above). */
export const NSW_BLANK_FUEL_NONE_ABOVE = 'blank FuelCode with no fuel above it for the same station';
export const NSW_BLANK_STATION_NONE_ABOVE = 'blank station fields with no station above them';
/** A row that gives its address but leaves ServiceStationName blank, with no named row above it to take the name from. */
export const NSW_BLANK_NAME_NONE_ABOVE = 'station without a name, and no name above it';
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
  // Read for the stations a file creates; a file without it creates them brandless.
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
  popNswState(words);
  const place = plainWords(nswSuburbCell(suburb));
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

/** Prefix of the codes of stations created from history files: the live feed's codes ("NSW-972") never start so. */
export const NSW_HISTORY_CODE_PREFIX = 'history:';
const MAX_CODE = 100;

/**
 * The code of a station created from a history row: its name, address (street part) and postcode
 * as matching keys, so the same station in another month's file gets the same code. Codes over
 * 100 characters keep their start and a hash of the whole. '' when the row has no name or postcode.
 */
export function nswHistoryCode(name: string, address: string, suburb: string, postcode: string): string {
  const nameKey = nswNameKey(name, postcode);
  if (nameKey === '') return '';
  const street = nswAddressKey(address, suburb, postcode).split('|')[0] ?? '';
  const code = `${NSW_HISTORY_CODE_PREFIX}${nameKey.replace(/\|\d{4}$/, '')}|${street}|${postcodeOf(postcode)}`;
  if (code.length <= MAX_CODE) return code;
  return `${code.slice(0, MAX_CODE - 13)}#${createHash('sha1').update(code).digest('hex').slice(0, 12)}`;
}

/**
 * The feed codes of the 'nsw' stations stored (the live feed's and those history files created),
 * by address key, by name key and by code; a key two stations share matches neither. It also
 * remembers, for the file being read, under which names and addresses each station appeared:
 * one station shows one name and one address in a month's file, so a second name at an address
 * or a second address under a name is a second station (FuelCheck has many "7-Eleven Blacktown"
 * and "BP Marulan Northbound"/"Southbound" on one Hume Highway address).
 */
export class NswStationIndex {
  private readonly byAddress = new Map<string, string | null>();
  private readonly byName = new Map<string, string | null>();
  private readonly codes = new Set<string>();
  private readonly inFile = new Map<string, { names: Set<string>; addresses: Set<string> }>();
  /**
   * A row's matching keys by its station fields: rows come in time order, so each station's
   * fields recur all through a file, and working the keys out is most of match()'s time. The
   * keys are pure functions of the fields; what match() decides from them is not cached.
   * As many entries as the file shows stations (under their spellings), whatever its rows.
   */
  private readonly keyCache = new Map<string, RowKeys>();

  constructor(stations: ReadonlyArray<Pick<FeedStation, 'feedCode' | 'name' | 'address' | 'suburb' | 'postcode'>>) {
    for (const s of stations) this.add(s);
  }

  /** A station to match later rows to (one this import creates). */
  add(s: Pick<FeedStation, 'feedCode' | 'name' | 'address' | 'suburb' | 'postcode'>): void {
    add(this.byAddress, nswAddressKey(s.address, s.suburb, s.postcode), s.feedCode);
    add(this.byName, nswNameKey(s.name, s.postcode), s.feedCode);
    this.codes.add(s.feedCode);
  }

  /**
   * The feed code of the station a history row names, in this order: the station a history file
   * created under the row's own code (nswHistoryCode); the one station at the row's address and
   * postcode (a rebrand or a new name keeps the station) unless this file showed it under another
   * name; the one station of the row's name and postcode (an address written anew keeps it) unless
   * this file showed it at another address. Undefined when none fits: the row's station is new.
   */
  match(name: string, address: string, suburb: string, postcode: string): string | undefined {
    const { addressKey, nameKey, own } = this.keys(name, address, suburb, postcode);
    if (own !== '' && this.codes.has(own)) return this.seen(own, nameKey, addressKey);
    const byAddress = addressKey === '' ? undefined : this.byAddress.get(addressKey);
    if (byAddress && this.fits(byAddress, 'names', nameKey)) return this.seen(byAddress, nameKey, addressKey);
    const byName = nameKey === '' ? undefined : this.byName.get(nameKey);
    if (byName && this.fits(byName, 'addresses', addressKey)) return this.seen(byName, nameKey, addressKey);
    return undefined;
  }

  /** nswAddressKey, nswNameKey and nswHistoryCode of these fields, each worked out once. */
  keys(name: string, address: string, suburb: string, postcode: string): RowKeys {
    const fields = `${name}\u0000${address}\u0000${suburb}\u0000${postcode}`;
    let keys = this.keyCache.get(fields);
    if (!keys) {
      keys = { addressKey: nswAddressKey(address, suburb, postcode), nameKey: nswNameKey(name, postcode), own: nswHistoryCode(name, address, suburb, postcode) };
      this.keyCache.set(fields, keys);
    }
    return keys;
  }

  /** Records that the file showed the station under this name and address (match() does, and the reader for a station it creates). */
  seen(code: string, nameKey: string, addressKey: string): string {
    let shown = this.inFile.get(code);
    if (!shown) this.inFile.set(code, (shown = { names: new Set(), addresses: new Set() }));
    if (nameKey !== '') shown.names.add(nameKey);
    if (addressKey !== '') shown.addresses.add(addressKey);
    return code;
  }

  /** False when the file already showed the station under other names (or addresses) but not this one. */
  private fits(code: string, what: 'names' | 'addresses', key: string): boolean {
    const shown = this.inFile.get(code)?.[what];
    return shown === undefined || shown.size === 0 || key === '' || shown.has(key);
  }
}

interface RowKeys {
  addressKey: string;
  nameKey: string;
  /** The code a station created from these fields gets (nswHistoryCode). */
  own: string;
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
 * - A row that gives its address but leaves ServiceStationName blank takes the name (and a blank
 *   Brand) of the row above: a merged name cell over two sites of one name (155 rows of April
 *   2020: "Caltex Wyong" on "M1 Southbound" then its "M1 Northbound" rows, "7-Eleven Kirrawee" at
 *   529-531 then 542 Princes Highway). The address is the row's own, so the station is the one
 *   of that name at that address; nothing else is taken from above.
 *
 * Returns the row as it reads with the blanks filled; what stays blank is ''.
 */
export function fillDown(row: Row, previous: Row | undefined): Row {
  const stationBlank = STATION_FIELDS.every((f) => (row[f] ?? '') === '');
  if (!stationBlank) {
    if ((row['ServiceStationName'] ?? '') !== '' || (previous?.['ServiceStationName'] ?? '') === '') return row;
    const named: Record<string, string> = { ...row, ServiceStationName: previous?.['ServiceStationName'] ?? '' };
    if ((row['Brand'] ?? '') === '') named['Brand'] = previous?.['Brand'] ?? '';
    return named;
  }
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

/** The state of a station a history row creates: the one its address names, else its postcode's. */
function nswHistoryState(written: string, postcode: string): string {
  const named = written.toLowerCase();
  return isStateId(named) ? named : stateFromPostcode(postcode) ?? '';
}

class NswHistoryReader implements RowReader {
  private previous: Row | undefined;
  private last: { identity: string; code: string } | undefined;
  /** splitNswAddress by address: each station's address recurs all through a file. */
  private readonly addressParts = new Map<string, ReturnType<typeof splitNswAddress>>();

  constructor(private readonly index: NswStationIndex) {}

  /** The row's station: found among those stored or created by this import, else created now (undefined when refused, counted). */
  private station(row: Row, normaliser: Normaliser, line: number): string | undefined {
    const field = (name: string): string => row[name] ?? '';
    // Rows come in runs of one station: the station of the run so far, found once.
    const identity = `${field('ServiceStationName')}\u0000${field('Address')}\u0000${field('Suburb')}\u0000${field('Postcode')}`;
    if (identity === this.last?.identity) return this.last.code;
    const code = this.resolve(row, normaliser, line);
    this.last = code === undefined ? undefined : { identity, code };
    return code;
  }

  private resolve(row: Row, normaliser: Normaliser, line: number): string | undefined {
    const field = (name: string): string => row[name] ?? '';
    let parts = this.addressParts.get(field('Address'));
    if (!parts) this.addressParts.set(field('Address'), (parts = splitNswAddress(field('Address'))));
    // A blank Postcode cell: the one the address ends with ("..., Dubbo NSW 2830"), if it has one.
    const [name, address, suburb, postcode] = [field('ServiceStationName'), field('Address'), field('Suburb'), postcodeOf(field('Postcode')) || parts.postcode];
    const found = this.index.match(name, address, suburb, postcode);
    if (found !== undefined) return found;
    const { own: code, nameKey, addressKey } = this.index.keys(name, address, suburb, postcode);
    if (code === '') {
      normaliser.reject('station without a postcode, of a name no known station has', { line, ...row });
      return undefined;
    }
    const state = nswHistoryState(parts.state, postcode);
    if (state === '') {
      normaliser.reject('station without a state or postcode', { line, ...row });
      return undefined;
    }
    const added = normaliser.station({
      code, name, brand: field('Brand'), address, street: parts.street, suburb: nswSuburbCell(suburb) || parts.suburb, postcode, state,
      latitude: null, longitude: null,
    });
    if (!added) return undefined;
    this.index.add({ feedCode: code, name, address, suburb, postcode });
    return this.index.seen(code, nameKey, addressKey);
  }

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
    if (field('ServiceStationName') === '') {
      normaliser.reject(NSW_BLANK_NAME_NONE_ABOVE, { line, ...input });
      return;
    }
    const code = this.station(row, normaliser, line);
    if (code === undefined) return;
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
