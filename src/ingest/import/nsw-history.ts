/**
 * NSW FuelCheck price history (data.nsw.gov.au, "Fuel Check"): monthly files, one row per
 * price change, columns ServiceStationName, Address, Suburb, Postcode, Brand, FuelCode
 * (FuelType in the early 2016 files), PriceUpdatedDate, Price (cents a litre), times in Sydney
 * local time, as .xlsx (most months) or .csv (the newer datastore exports add an `_id`
 * column first, which is not read). PriceUpdatedDate comes as an Excel serial (2018's
 * workbooks), as text `1/04/2020 12:13:08 AM`, or ISO `2023-01-01T00:09:40`; all are Sydney
 * wall-clock times. Some workbooks leave cells blank below the first of a run of equal values
 * (merged cells): nsw-merged-cells.ts's fillDown says what a blank means.
 * The files carry no station code and no position. Each row's station is the live FuelCheck
 * station at its site (NswStationIndex, nswSiteKey: address and postcode, case, street words and
 * state written any way), else the history station of its site, created from the row without a
 * position under `history:<site key>` (nswHistoryCode) by the first file that shows the site.
 * Which files came before does not change a row's station (docs/DATA.md).
 */
import { stateFromPostcode } from '../../domain/postcodes.ts';
import { isStateId } from '../../domain/states.ts';
import { localTimeToUnix } from '../../domain/time.ts';
import type { FeedStation, IngestStore } from '../../storage/store.ts';
import { nswSuburbCell, splitNswAddress } from '../feeds/nsw-address.ts';
import { NswLiveSites, isNswHistoryCode, nswHistoryCode, postcodeOf } from '../nsw-identity.ts';
import type { FuelMap, RawStation } from '../normalise.ts';
import { type Normaliser, centsToTenths } from '../normalise.ts';
import type { ColumnSpec, Row } from './csv.ts';
import { parseDayFirstDateTime, parseExcelSerial, parseIsoDateTime } from './dates.ts';
import type { ImportFormat, RowReader } from './format.ts';
import { fillDown, STATION_FIELDS } from './nsw-merged-cells.ts';

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

export { NSW_HISTORY_CODE_PREFIX, nswAddressKey, nswHistoryCode, nswNameKey, nswSiteKey, postcodeOf } from '../nsw-identity.ts';

/**
 * The live FuelCheck stations stored (NswLiveSites) and the codes of the stations history files
 * made. A row's station depends on the row and the live stations alone, never on which history
 * files came before it: the one live station at the row's site, else the history station of its
 * site (`history:<site key>`). A live station stored later takes over the history station of
 * its site (nswAdoptions), so the order of files and answers does not matter (docs/DATA.md).
 */
export class NswStationIndex {
  private readonly live: NswLiveSites;
  private readonly codes = new Set<string>();
  /** A row's result by its station fields, worked out once: each station's fields recur all through a file. */
  private readonly cache = new Map<string, RowKeys>();

  constructor(stations: ReadonlyArray<Pick<FeedStation, 'feedCode' | 'name' | 'address' | 'suburb' | 'postcode'>>) {
    this.live = new NswLiveSites(stations.filter((s) => !isNswHistoryCode(s.feedCode)));
    for (const s of stations) if (isNswHistoryCode(s.feedCode)) this.codes.add(s.feedCode);
  }

  /** A history station this import made. */
  add(s: Pick<FeedStation, 'feedCode'>): void {
    this.codes.add(s.feedCode);
  }

  /** The feed code of the live station of the row (NswLiveSites.match); undefined when it has none. */
  match(name: string, address: string, suburb: string, postcode: string): string | undefined {
    return this.keys(name, address, suburb, postcode).live;
  }

  /** Whether a history station of this code is stored or made by this import already. */
  has(code: string): boolean {
    return this.codes.has(code);
  }

  /** The live station and nswHistoryCode of these fields, each worked out once. */
  keys(name: string, address: string, suburb: string, postcode: string): RowKeys {
    const fields = `${name}\u0000${address}\u0000${suburb}\u0000${postcode}`;
    let keys = this.cache.get(fields);
    if (!keys) {
      keys = { live: this.live.match(name, address, suburb, postcode)?.feedCode, own: nswHistoryCode(name, address, suburb, postcode) };
      this.cache.set(fields, keys);
    }
    return keys;
  }
}

interface RowKeys {
  live: string | undefined;
  /** The code of the history station of these fields (nswHistoryCode). */
  own: string;
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
  /** The latest row's date and fields of each history station, in this import (name()). */
  private readonly named = new Map<string, { at: number; key: string }>();

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
    const { own: code } = this.index.keys(name, address, suburb, postcode);
    if (code === '') {
      normaliser.reject('station without a postcode, of a name no known station has', { line, ...row });
      return undefined;
    }
    if (this.index.has(code)) return code;
    const state = nswHistoryState(parts.state, postcode);
    if (state === '') {
      normaliser.reject('station without a state or postcode', { line, ...row });
      return undefined;
    }
    const added = normaliser.station(this.shown(code, row, state));
    if (!added) return undefined;
    this.index.add({ feedCode: code });
    return code;
  }

  /** A history station as a row shows it: its id made of its name, street and postcode, one site's alone (docs/DATA.md "Ids"). */
  private shown(code: string, row: Row, state: string, namedAt?: number): RawStation {
    const field = (name: string): string => row[name] ?? '';
    const parts = this.addressParts.get(field('Address')) ?? splitNswAddress(field('Address'));
    const [name, address, suburb, postcode] = [field('ServiceStationName'), field('Address'), field('Suburb'), postcodeOf(field('Postcode')) || parts.postcode];
    return {
      code, name, brand: field('Brand'), address, street: parts.street, suburb: nswSuburbCell(suburb) || parts.suburb, postcode, state,
      latitude: null, longitude: null, slugOf: `${name} ${parts.street || address} ${postcode}`, ...(namedAt === undefined ? {} : { namedAt }),
    };
  }

  /**
   * A history station shows the fields of its site's latest row, whichever file came first: each
   * row later than the latest this import has seen of its station (or of the same date, its fields
   * sorting after) hands the station on with its date, and the writer keeps the stored fields when
   * a later row gave them (StationInput.namedAt).
   */
  private name(code: string, row: Row, at: number, normaliser: Normaliser): void {
    const station = this.shown(code, row, '', at);
    const shownKey = JSON.stringify([station.name, station.brand, station.address, station.street, station.suburb, station.postcode]);
    const best = this.named.get(code);
    if (best && (best.at > at || (best.at === at && best.key >= shownKey))) return;
    this.named.set(code, { at, key: shownKey });
    const state = nswHistoryState(splitNswAddress(station.address).state, station.postcode);
    normaliser.station({ ...station, state });
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
    if (isNswHistoryCode(code)) this.name(code, row, at, normaliser);
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
