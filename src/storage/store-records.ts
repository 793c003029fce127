import type { FuelId } from '../domain/fuels.ts';
import type { StateId } from '../domain/states.ts';
import type { AlongPrice } from '../domain/along.ts';
import type { RankedPrice } from '../domain/cheapest.ts';
import type { Near } from '../domain/nearby.ts';
import type { PriceChange } from '../domain/changes.ts';
import type { ReportedFields, Station } from './station-shape.ts';

/** What the store's methods take and give (store.ts has the methods, by role, and re-exports these). */

export interface City {
  id: string;
  name: string;
  state: StateId;
  latitude: string;
  longitude: string;
}

/** A station and its fields: defined once, in station-shape.ts. */
export type { ReportedFields, Station, StationFields } from './station-shape.ts';

export interface ListQuery {
  state: StateId | undefined;
  limit: number;
  offset: number;
}

/** The station list's filters besides state (/v1/stations), each optional, all of them combined. */
export interface StationListQuery extends ListQuery {
  /** A city id: the station's city (stations in no city match none). */
  city?: string | undefined;
  /** Matched case-insensitively (ASCII), whole. */
  suburb?: string | undefined;
  postcode?: string | undefined;
  /** A brand id (domain/places.ts brandId): every station whose brand name slugs to it. */
  brand?: string | undefined;
  /** The station has an available current price of this fuel (a combined id: of any member). */
  fuel?: FuelId | undefined;
  /** Only stations within the radius, nearest first (then by id), each with its distance. */
  near?: Near | undefined;
  /** Only stations with an available current price (of `fuel` when given, else of any) reported at or after this Unix second. */
  freshSince?: number | undefined;
}

/** A station as a list gives it: with its distance in whole metres when the list was near a point. */
export interface ListedStation extends Station {
  metres?: number;
}

/** A page of cheapest's ranking with the page's stations (read-models/searches.ts). */
export interface CheapestPage extends ListResult<RankedPrice> {
  /** The stations of the page's items (in no order). */
  stations: Station[];
}

/** A page of the stations along a path (domain/along.ts), with the page's stations. */
export interface AlongPage extends ListResult<AlongPrice> {
  stations: Station[];
}

/** Where /v1/prices/cheapest looks: a city, a state, or within a radius of a point. */
export type PriceArea = { city: string } | { state: StateId } | { near: Near };

/** A brand as /v1/brands lists it (storage/brands.ts). */
export interface Brand {
  id: string;
  name: string;
  stationCount: number;
}

export interface ListResult<T> {
  items: T[];
  total: number;
}


/** Input of the one writer: what a feed, an importer or the demo generator reports (coordinates both null: no position, as NSW and WA history files). */
export interface StationInput extends ReportedFields {
  feed: string;
  feedCode: string;
  /** Wanted id; the writer keeps an existing station's id and adds -2, -3 on a clash. */
  slug: string;
  /**
   * The feed code of a station of the same feed that this one is (a live NSW station and the
   * `history:` station history files made of its site): when no station has this one's code and
   * one has that code, that station takes this code and these fields, keeping its key, its id
   * and its history. Ignored otherwise.
   */
  adopts?: string;
  /**
   * The date of the row these fields are from (a NSW history station's): stored fields from a
   * later row (or the same date, fields sorting after) are kept, and the station takes the id of
   * these fields' slug when it changes, the old id its alias (docs/DATA.md "Ids").
   */
  namedAt?: number;
}

export interface PriceEvent {
  feed: string;
  feedCode: string;
  fuel: FuelId;
  /** Unix seconds at which the report takes effect. */
  at: number;
  priceTenths: number;
  available: boolean;
}

export interface Batch {
  stations: StationInput[];
  prices: PriceEvent[];
}

/**
 * What a batch did with its rows: every price row is accepted (a new instant stored), ignored
 * (the same report as the one stored for its instant, byte for byte), or corrected (a new price
 * or availability for a stored instant: the later row wins). Rows of one instant in one batch
 * count in order: the first as new, each later one as known or a correction of the one before.
 */
export interface BatchResult {
  stationsAdded: number;
  stationsUpdated: number;
  pricesAccepted: number;
  pricesIgnored: number;
  pricesCorrected: number;
}

/** Where a feed or an imported file left off: stored in the same transaction as the batch it follows. */
export interface FeedCursor {
  /** A feed id (`nsw`), or `import:<format>:<file identity>` for a historical file. */
  key: string;
  value: string;
}

export interface FeedBatchOptions {
  /** Unix seconds: prices dated after it are held until due (WA publishes tomorrow's prices a day ahead). */
  now: number;
  cursor?: FeedCursor;
  /**
   * Leave the city means of the sealed days this batch changes to the next seal, which
   * recomputes each city's once (storage/sql/stale-city-days.ts): for an import of many batches,
   * which seals when it ends. Station days are written at once either way.
   */
  deferCityDays?: boolean;
}

/** What applying the held prices now due did (releaseDue, and each feed batch, which applies them with its own). */
export interface ReleaseResult extends BatchResult {
  /** Held by an earlier call and applied by this one. */
  pricesReleased: number;
  /** Prices left out because their station is neither in the batch nor stored (the first few). */
  unknownStation: PriceEvent[];
  unknownStationCount: number;
}

export interface FeedBatchResult extends ReleaseResult {
  /** Dated after `now`: kept aside, applied by a later call once due. */
  pricesHeld: number;
  /** Dated after `now` and held already for the same station, fuel and instant, with another price or availability: corrected (the later row wins). */
  pricesHeldCorrected: number;
}

/** What an importer needs to match a file's rows to stations a live feed created: the station's fields (station-shape.ts) with its code in the feed. */
export interface FeedStation extends Pick<Station, 'id' | 'name' | 'brand' | 'address' | 'street' | 'suburb' | 'postcode' | 'state'> {
  feedCode: string;
}

export interface RejectionCount {
  reason: string;
  count: number;
  example: string;
  /** Set for stations refused; absent for price rows. */
  of?: 'stations';
}

/** One poll of a feed (or one imported file), as `fuelprice ingest status` shows it. */
export interface FeedRun {
  feed: string;
  startedAt: number;
  finishedAt: number;
  stationsAdded: number;
  stationsUpdated: number;
  pricesAccepted: number;
  pricesIgnored: number;
  pricesHeld: number;
  /** Price rows rejected (stations refused are listed in `rejections` with `of: 'stations'`, not counted here). */
  rejected: number;
  rejections: RejectionCount[];
  /**
   * Price rows the feed brought: read + released = accepted + ignored (already known) + corrected
   * + held + rejected. Undefined for runs recorded before it was counted (and the two below).
   */
  pricesRead?: number;
  /** Rows held by an earlier run and applied by this one (counted in accepted, ignored or corrected). */
  pricesReleased?: number;
  /** Rows that changed a stored report of the same station, fuel and instant: the later row wins. */
  pricesCorrected?: number;
  /** Undefined when the run succeeded. */
  error: string | undefined;
  /** The feed's poll interval at the time: how old its last success may get before /ready calls it stale. */
  intervalSec: number;
}

export interface FeedHealth {
  feed: string;
  lastRun: number;
  lastSuccess: number | undefined;
  intervalSec: number;
}

/** A feed's runs counted as they are recorded: only ever go up (unlike feed_runs, which is pruned). */
export interface FeedCounts {
  feed: string;
  runs: number;
  failures: number;
}

export interface CityInput {
  id: string;
  name: string;
  state: StateId;
  latitude: number;
  longitude: number;
}

export interface TokenRecord {
  id: string;
  name: string;
  hash: Buffer;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  rateLimit: number | null;
}

/** What a migration did: the schema version found (0 for a new database) and the one left. */
export interface Migration {
  from: number;
  to: number;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export type { PriceChange } from '../domain/changes.ts';

/** The changes after a cursor, at most `limit`, of a reported fuel counting towards `fuel` and within one area. */
export interface ChangesQuery {
  since: number;
  limit: number;
  fuel?: FuelId | undefined;
  area?: PriceArea | undefined;
}

export interface ChangesPage {
  changes: PriceChange[];
  /** The cursor to ask with next. */
  next: number;
  /** The page was full: there may be more changes after `next` now. */
  more: boolean;
  /** The last change number handed out when the page was read. */
  latest: number;
}
