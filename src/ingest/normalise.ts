/**
 * Every adapter and importer builds its batches through a Normaliser: it checks each record
 * against the same rules, maps fuel codes through the adapter's table, and keeps what it
 * rejected and why. A bad record is dropped alone; the rest of the batch goes on.
 */
import { type FuelId, isFuelId } from '../domain/fuels.ts';
import { roundDecimalText } from '../domain/rounding.ts';
import { isStateId } from '../domain/states.ts';
import { slugify } from '../domain/places.ts';
import type { Batch, PriceEvent, StationInput } from '../storage/store.ts';
import { type ReportedFields, STATION_TEXT_KEYS, type StationTextKey } from '../storage/station-shape.ts';
import type { Logger } from '../logger.ts';

/** A feed's own fuel codes onto our ids; `null` marks a code that is known and deliberately not kept (AdBlue, say). */
export type FuelMap = Readonly<Record<string, FuelId | null>>;

/** Sane prices in tenths of a cent per litre (per kWh for ev, per kg for cng): outside them a report is a typo or a unit slip. */
export const PRICE_BOUNDS: Readonly<Record<FuelId, readonly [number, number]>> = {
  e10: [500, 5000], ulp91: [500, 5000], ulp95: [500, 5000], ulp98: [500, 5000], e5: [500, 5000], e85: [400, 5000],
  diesel: [500, 5000], pdiesel: [500, 5000], ulsd: [500, 5000], b20: [500, 5000], lrp: [500, 5000], opal: [500, 5000],
  lpg: [300, 3000], cng: [300, 5000], lng: [300, 5000], ev: [50, 2000],
  'ulp-combined': [500, 5000], 'pulp-combined': [500, 5000], 'diesel-combined': [500, 5000],
};

/** Australia with its islands, generously: a station outside it has a broken position. */
const LATITUDE: readonly [number, number] = [-44, -9];
const LONGITUDE: readonly [number, number] = [112, 160];
const MAX_TEXT = 200;
const MAX_CODE = 100;
/** A report more than this far ahead of the clock is rejected (WA's next-day prices are 24 hours ahead at most). */
export const MAX_FUTURE_SEC = 2 * 86_400;

/**
 * A station as a feed reports it: these, and each other text field of a station
 * (storage/station-shape.ts: street, phone, website, ...) when the feed gives it.
 */
export interface RawStation extends Partial<Record<StationTextKey, string>> {
  /** The feed's own key for the station (or a key the adapter derives where the feed has none). */
  code: string;
  name: string;
  brand: string;
  /** The full address as shown: street, suburb, state, postcode. */
  address: string;
  suburb: string;
  postcode: string;
  state: string;
  /**
   * Decimal degrees. Both null for a source that has no position at all (the NSW and WA history
   * files): the station is stored without one. NaN (a field that could not be read) is rejected.
   */
  latitude: number | null;
  longitude: number | null;
  /** The feed code of a station of the same feed this one takes over, when it is stored and this one is not (storage: StationInput.adopts). */
  adopts?: string;
  /** What its id is made of, when not its name alone (a NSW history station's: its name, street and postcode, docs/DATA.md "Ids"). */
  slugOf?: string;
  /** The date of the row the fields are from (StationInput.namedAt). */
  namedAt?: number;
}

export interface RawPrice {
  /** The station's code, as given to station(). */
  code: string;
  /** The feed's fuel code, mapped through the adapter's FuelMap. */
  fuelCode: string;
  /** Unix seconds at which the price takes effect. */
  at: number;
  /** Integer tenths of a cent; 0 means not available, whatever `available` says; kept as given (or 0) when not available. */
  priceTenths: number;
  available: boolean;
}

export interface Rejection {
  reason: string;
  count: number;
  /** The first record rejected for this reason, shortened. */
  example: string;
  /** Set for stations refused; absent for price rows (every row a feed or a file brings is one). */
  of?: 'stations';
}

/** Unknown fuel codes seen during one run of a feed: each is logged once per run, not once per record. */
export class UnknownFuels {
  readonly seen = new Set<string>();
  constructor(private readonly feed: string, private readonly log: Logger | undefined) {}

  note(code: string): void {
    if (this.seen.has(code)) return;
    this.seen.add(code);
    this.log?.warn({ feed: this.feed, fuelCode: code.slice(0, 40) }, 'unknown fuel code: its prices are skipped');
  }
}

/**
 * Every price row handed to a Normaliser is counted once as read and ends in its batch or in a
 * rejection by reason: price() either keeps a row or rejects it, reject() rejects a row that
 * could not be read at all. Stations are counted apart (rejectStation). The rows of a station
 * refused in this batch (a broken position today, say) stay in the batch: the writer applies
 * them to the station as stored, or counts them as of an unknown station when it has none.
 */
export class Normaliser {
  private readonly stations = new Map<string, StationInput>();
  private readonly prices: PriceEvent[] = [];
  private readonly rejections = new Map<string, Rejection>();
  private readonly stationRejections = new Map<string, Rejection>();
  /** Price rows read: kept, known to the adapter already (alreadyKnown), or rejected by reason. */
  pricesRead = 0;
  pricesKnown = 0;

  constructor(
    readonly feed: string,
    private readonly fuels: FuelMap,
    private readonly now: number,
    private readonly unknown: UnknownFuels = new UnknownFuels(feed, undefined),
  ) {}

  /** Adds or replaces a station; false (and a counted station rejection) when a field is missing or out of bounds. */
  station(raw: RawStation): boolean {
    const code = clean(raw.code);
    const name = clean(raw.name);
    const state = clean(raw.state).toLowerCase();
    if (!code || code.length > MAX_CODE) return this.rejectStation('station without a usable code', raw);
    if (!name) return this.rejectStation('station without a name', raw);
    if (!isStateId(state)) return this.rejectStation('station with an unknown state', raw);
    const positionless = raw.latitude === null && raw.longitude === null;
    if (!positionless && (!inRange(raw.latitude, LATITUDE) || !inRange(raw.longitude, LONGITUDE))) return this.rejectStation('station position outside Australia', raw);
    // Every text field cleaned and bounded; one the feed does not give is '', or left out when its column may be NULL.
    const texts: Partial<Record<StationTextKey, string>> = {};
    for (const { key, absent } of STATION_TEXT_KEYS) {
      const value = raw[key];
      if (value !== undefined && value !== null) texts[key] = bounded(clean(value));
      else if (absent !== null) texts[key] = absent;
    }
    this.stations.set(code, {
      feed: this.feed, feedCode: code, slug: slugify(clean(raw.slugOf ?? '') || name),
      ...(texts as Pick<ReportedFields, StationTextKey>), state, latitude: raw.latitude, longitude: raw.longitude,
      ...(raw.adopts !== undefined && raw.adopts !== code ? { adopts: raw.adopts } : {}),
      ...(raw.namedAt !== undefined ? { namedAt: raw.namedAt } : {}),
    });
    return true;
  }

  /** Adds a price row; false (and a counted rejection) when its fuel is unknown or not kept, or it is out of bounds. */
  price(raw: RawPrice): boolean {
    const code = clean(raw.code);
    const fuelCode = clean(raw.fuelCode);
    if (!code || code.length > MAX_CODE) return this.reject('price without a usable station code', raw);
    if (!Object.hasOwn(this.fuels, fuelCode)) {
      this.unknown.note(fuelCode);
      return this.reject('unknown fuel code', raw);
    }
    const fuel = this.fuels[fuelCode];
    if (fuel === null || fuel === undefined) return this.reject('fuel deliberately not kept', raw);
    if (!isFuelId(fuel)) return this.reject('unknown fuel code', raw);
    if (!Number.isInteger(raw.at) || raw.at < 946_684_800) return this.reject('price without a valid time', raw);
    if (raw.at > this.now + MAX_FUTURE_SEC) return this.reject('price dated more than two days ahead', raw);
    let tenths = raw.priceTenths;
    // A price of 0 is never a price: the feeds send it for a fuel they have none of (FuelCheck's EV chargers, say).
    const available = raw.available && tenths !== 0;
    if (available) {
      if (!Number.isInteger(tenths)) return this.reject('price that is not a number', raw);
      const [low, high] = PRICE_BOUNDS[fuel];
      if (tenths < low || tenths > high) return this.reject(`price outside ${low / 10}-${high / 10} c/L for ${fuel}`, raw);
    } else if (!Number.isInteger(tenths) || tenths < 0 || tenths > 100_000) {
      tenths = 0;
    }
    this.pricesRead++;
    this.prices.push({ feed: this.feed, feedCode: code, fuel, at: raw.at, priceTenths: tenths, available });
    return true;
  }

  /** Counts a price row read and rejected: one price() refused, or a row that could not be read at all. Always returns false. */
  reject(reason: string, record: unknown): false {
    this.pricesRead++;
    return count(this.rejections, reason, record);
  }

  /** Counts a station record refused (not a price row). Always returns false. */
  rejectStation(reason: string, record: unknown): false {
    return count(this.stationRejections, reason, record, 'stations');
  }

  /** Counts price rows read that the adapter itself knows were applied before (NT's cursor): read, and already known. */
  alreadyKnown(rows: number): void {
    this.pricesRead += rows;
    this.pricesKnown += rows;
  }

  hasStation(code: string): boolean {
    return this.stations.has(clean(code));
  }

  batch(): Batch {
    return { stations: [...this.stations.values()], prices: [...this.prices] };
  }

  /** The price rows rejected, by reason. */
  rejected(): Rejection[] {
    return [...this.rejections.values()];
  }

  /** The stations refused, by reason (`of: 'stations'`). */
  stationsRejected(): Rejection[] {
    return [...this.stationRejections.values()];
  }

  /** Rejection counts of several normalisers merged by reason (price rows and stations apart). */
  static merge(lists: ReadonlyArray<readonly Rejection[]>): Rejection[] {
    const merged = new Map<string, Rejection>();
    for (const list of lists) {
      for (const r of list) {
        const key = `${r.of ?? 'prices'}:${r.reason}`;
        const found = merged.get(key);
        if (found) found.count += r.count;
        else merged.set(key, { ...r });
      }
    }
    return [...merged.values()];
  }
}

function count(rejections: Map<string, Rejection>, reason: string, record: unknown, of?: 'stations'): false {
  const found = rejections.get(reason);
  if (found) found.count++;
  else rejections.set(reason, { reason, count: 1, example: excerpt(record), ...(of ? { of } : {}) });
  return false;
}

function clean(value: unknown): string {
  // Control characters (NUL above all: PostgreSQL text cannot hold it) become spaces.
  // eslint-disable-next-line no-control-regex -- control characters are what this removes
  return typeof value === 'string' ? value.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim() : typeof value === 'number' ? String(value) : '';
}

function bounded(value: string): string {
  return value.slice(0, MAX_TEXT);
}

function inRange(value: number | null, [low, high]: readonly [number, number]): boolean {
  return value !== null && Number.isFinite(value) && value >= low && value <= high;
}

function excerpt(record: unknown): string {
  let text: string;
  try {
    text = typeof record === 'string' ? record : JSON.stringify(record) ?? String(record);
  } catch {
    text = String(record);
  }
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** "185.9" or 185.9 cents a litre -> 1859 tenths; undefined when it is not a plain decimal number. */
export function centsToTenths(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d{1,5}(\.\d+)?$/.test(text)) return undefined;
  // From the decimal text, exactly: "185.95" is 1860 and "134.69999999999999" 1347, with no binary float in between.
  return roundDecimalText(text, 1);
}
