import type { FuelId } from '../domain/fuels.ts';
import type { StateId } from '../domain/states.ts';
import type { CityDayRow, CityHistoryParts, CurrentPrice, DayRange, StationDayRow } from '../domain/history.ts';

export type { CityDayRow, CityHistoryParts, CurrentPrice, DayRange, StationDayRow };

/** PriceStore is the only door to data: named for what the API and ingest need, not for tables. */

export interface City {
  id: string;
  name: string;
  state: StateId;
  latitude: string;
  longitude: string;
}

export interface Station {
  id: string;
  name: string;
  brand: string;
  address: string;
  street: string;
  suburb: string;
  postcode: string;
  state: StateId;
  phone: string;
  website: string;
  latitude: string;
  longitude: string;
}

export interface ListQuery {
  state: StateId | undefined;
  limit: number;
  offset: number;
}

export interface ListResult<T> {
  items: T[];
  total: number;
}


/** Input of the one writer: what a feed, an importer or the demo generator reports. */
export interface StationInput extends Omit<Station, 'id' | 'latitude' | 'longitude'> {
  feed: string;
  feedCode: string;
  /** Wanted id; the writer keeps an existing station's id and adds -2, -3 on a clash. */
  slug: string;
  latitude: number;
  longitude: number;
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

export interface BatchResult {
  stationsAdded: number;
  stationsUpdated: number;
  pricesAccepted: number;
  pricesIgnored: number;
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

export interface PriceStore {
  readonly backend: 'sqlite' | 'postgres';
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** Throws when storage cannot answer. */
  ping(): Promise<void>;
  /** Grows with every write that changes what the API answers; caches key on it. */
  dataVersion(): Promise<number>;

  listCities(query: ListQuery): Promise<ListResult<City>>;
  city(id: string): Promise<City | undefined>;
  listStations(query: ListQuery): Promise<ListResult<Station>>;
  station(id: string): Promise<Station | undefined>;
  stationDays(stationId: string, range: DayRange): Promise<StationDayRow[]>;
  currentForStation(stationId: string): Promise<CurrentPrice[]>;
  cityHistoryParts(cityId: string, range: DayRange): Promise<CityHistoryParts>;
  /** Current prices of every station of the city, ordered by station id. */
  currentForCity(cityId: string): Promise<CurrentPrice[]>;

  upsertCities(cities: CityInput[]): Promise<void>;
  applyBatch(batch: Batch): Promise<BatchResult>;
  /** Closes every open interval up to the start of each state's today and seals the days before it. */
  seal(nowSec: number): Promise<void>;
  counts(): Promise<{ cities: number; stations: number; prices: number }>;

  createToken(token: TokenRecord): Promise<void>;
  tokenById(id: string): Promise<TokenRecord | undefined>;
  listTokens(): Promise<TokenRecord[]>;
  revokeToken(id: string, atSec: number): Promise<boolean>;
}
