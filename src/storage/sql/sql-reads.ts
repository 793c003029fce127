import { type FuelId, fuelIndex } from '../../domain/fuels.ts';
import type { FreshParts } from '../../domain/fresh.ts';
import type { Near, Point } from '../../domain/nearby.ts';
import type { StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import { brandNames, brandPage } from '../brands.ts';
import { type RunRow, withRunDays } from '../run-days.ts';
import type {
  AreaPriceRow, Brand, ChangesPage, ChangesQuery, City, CityHistoryParts, CurrentPrice, DayRange, FuelPriceRow, FuelSums, FuelTotals, HeldRow, ListQuery, ListResult,
  Migration, OutOfStock, PositionRow, ReadStore, Station, StationDayRow, StationListQuery, StationPrices,
} from '../store.ts';
import type { StationReport } from '../../domain/price-rows.ts';
import { type Versions, VersionReuse } from '../versions.ts';
import { NO_DAY_LOWER_BOUND } from '../write-plan/batch-plan.ts';
import { toStation } from '../station-shape.ts';
import type { Connection } from './connection.ts';
import type { Dialect } from './dialect.ts';
import {
  fuelAt, toBrandCount, toCity, toCurrent, toFuelPriceRow, toFuelSums, toFuelTotals, toHeldRow, toAreaPriceRow, toOutOfStock, toPoint,
  toPositionRow, type StationPriceArray, toStationReport,
} from './row-mappers.ts';
import { readStatements, stationFilter, storable } from './statements.ts';
import { cityFreshParts, cityHistoryParts } from './city-series-reads.ts';

export { storable };

/**
 * The reads of the one SQL store (ReadStore), written once over a Connection; sql-store.ts adds
 * the writes. Each backend supplies its connection and dialect, and what truly differs: how it
 * migrates, how it closes, and whether the versions can be read without waiting.
 */
export abstract class SqlReads implements ReadStore {
  abstract readonly backend: 'sqlite' | 'postgres';
  protected readonly reuse = new VersionReuse();
  protected readonly read: ReturnType<typeof readStatements>;

  constructor(protected readonly db: Connection, protected readonly dialect: Dialect) {
    this.read = readStatements(dialect);
  }

  abstract migrate(): Promise<Migration>;
  abstract close(): Promise<void>;
  abstract versionsNow(): Versions | undefined;
  abstract lastChange(): Promise<number>;
  abstract priceChanges(query: ChangesQuery): Promise<ChangesPage>;

  async ping(): Promise<void> {
    await this.db.rows(this.read.ping);
  }

  setVersionReuseMs(ms: number): void {
    this.reuse.setReuseMs(ms);
  }

  versions(): Promise<Versions> {
    return this.reuse.get(async () => {
      const row = await this.db.row(this.read.versions);
      return { data: Number(row?.data), tokens: Number(row?.tokens) };
    });
  }

  async dataVersion(): Promise<number> {
    return Number((await this.db.row(this.read.dataVersion))?.value);
  }

  async listCities(query: ListQuery): Promise<ListResult<City>> {
    const [count, page, filter] = query.state
      ? [this.read.countCitiesInState, this.read.citiesPageInState, [query.state]] : [this.read.countCities, this.read.citiesPage, []];
    const total = Number((await this.db.row(count, filter))?.n);
    return { items: (await this.db.rows(page, [...filter, query.limit, query.offset])).map(toCity), total };
  }

  async city(id: string): Promise<City | undefined> {
    if (!storable(id)) return undefined;
    const row = await this.db.row(this.read.city, [id]);
    return row ? toCity(row) : undefined;
  }

  async listStations(query: StationListQuery): Promise<ListResult<Station>> {
    if (query.near) throw new Error('a list near a point is a search: read-models/searches.ts nearStations');
    return this.db.transaction('reads', async (tx): Promise<ListResult<Station>> => {
      const names = query.brand === undefined ? undefined : brandNames((await tx.rows(this.read.brandCounts)).map(toBrandCount), query.brand);
      if (names?.length === 0) return { items: [], total: 0 };
      const { count, page, params } = this.read.stationList(stationFilter(query, names));
      const total = Number((await tx.row(count, params))?.n);
      return { items: (await tx.rows(page, [...params, query.limit, query.offset])).map(toStation), total };
    });
  }

  async nearPoints(query: StationListQuery & { near: Near }): Promise<Array<Point & { id: string }>> {
    return this.db.transaction('reads', async (tx) => {
      const names = query.brand === undefined ? undefined : brandNames((await tx.rows(this.read.brandCounts)).map(toBrandCount), query.brand);
      if (names?.length === 0) return [];
      const { points, params } = this.read.stationList(stationFilter(query, names));
      return (await tx.rows(points, params)).map(toPoint);
    });
  }

  async stationsByIds(ids: readonly string[]): Promise<Station[]> {
    const known = ids.filter(storable);
    return known.length === 0 ? [] : (await this.db.rows(this.read.stationsByIds(known.length), known)).map(toStation);
  }

  async positionRows(): Promise<PositionRow[]> {
    return (await this.db.rows(this.read.positions)).map(toPositionRow);
  }

  async fuelPriceRows(fuel: FuelId): Promise<FuelPriceRow[]> {
    return (await this.db.rows(this.read.fuelPricesByKey, [fuelIndex(fuel)])).map(toFuelPriceRow);
  }

  async areaPriceRows(fuel: FuelId): Promise<AreaPriceRow[]> {
    return (await this.db.rows(this.read.areaFuelPrices, [fuelIndex(fuel)])).map(toAreaPriceRow);
  }

  async heldRows(): Promise<HeldRow[]> {
    return (await this.db.rows(this.read.heldPrices)).map(toHeldRow);
  }

  async stateTotals(state: StateId | undefined): Promise<FuelTotals[]> {
    return (state === undefined ? await this.db.rows(this.read.nationTotals) : await this.db.rows(this.read.stateTotals, [state])).map(toFuelTotals);
  }

  async listBrands(query: ListQuery): Promise<ListResult<Brand>> {
    const found = query.state ? await this.db.rows(this.read.brandCountsInState, [query.state]) : await this.db.rows(this.read.brandCounts);
    return brandPage(found.map(toBrandCount), query);
  }

  async station(id: string): Promise<Station | undefined> {
    if (!storable(id)) return undefined;
    const row = await this.db.row(this.read.station, [id]);
    return row ? toStation(row) : undefined;
  }

  async stationAlias(id: string): Promise<string | undefined> {
    if (!storable(id)) return undefined;
    const row = await this.db.row(this.read.stationAlias, [id]);
    return row ? String(row.id) : undefined;
  }

  async stationDays(stationId: string, range: DayRange): Promise<StationDayRow[]> {
    if (!storable(stationId)) return [];
    const from = range.from ?? NO_DAY_LOWER_BOUND;
    return this.db.transaction('snapshot', async (tx) => {
      const station = await tx.row(this.read.stationKey, [stationId]);
      if (!station) return [];
      // Rows as arrays: no object per row to build and map.
      const days = (await tx.arrays<[number, number, number, number]>(this.read.stationDaily, [station.key, from, range.to]))
        .map(([fuel, day, weightedTenths, seconds]) => ({ stationId, fuel: fuelAt(fuel), day: Number(day), weightedTenths: Number(weightedTenths), seconds: Number(seconds) }));
      const runs = await tx.arrays<RunRow>(this.read.stationRuns, [station.key, from, range.to]);
      return withRunDays(stationId, station.state as StateId, days, runs, range);
    });
  }

  async currentForStation(stationId: string): Promise<CurrentPrice[]> {
    return storable(stationId) ? (await this.db.rows(this.read.currentForStation, [stationId])).map(toCurrent) : [];
  }

  async stationsPrices(ids: readonly string[]): Promise<Map<string, StationPrices>> {
    const known = [...new Set(ids.filter(storable))];
    const out = new Map<string, StationPrices>();
    if (known.length === 0) return out;
    // Two statements for every station at once, in one snapshot: the stations, their prices (both by key).
    const [stations, priceRows] = await this.db.transaction('reads', async (tx) => {
      const found = await tx.arrays<[unknown, unknown, unknown, unknown]>(this.read.stationKeysByIds(known.length), known);
      const keys = found.map(([key]) => key);
      return [found, keys.length === 0 ? [] : await tx.arrays<StationPriceArray>(this.read.stationPricesByKeys(keys.length), keys)] as const;
    });
    // Both by key: each station's prices are the run of rows with its key.
    let i = 0;
    for (const [stationKey, id, name, feed] of stations) {
      const key = Number(stationKey);
      const stationId = String(id);
      const prices: StationReport[] = [];
      while (i < priceRows.length && Number(priceRows[i]?.[0]) < key) i++;
      for (; i < priceRows.length && Number(priceRows[i]?.[0]) === key; i++) prices.push(toStationReport(stationId, priceRows[i] as StationPriceArray));
      out.set(stationId, { id: stationId, name: String(name), feed: String(feed), prices });
    }
    return out;
  }

  async currentForCity(cityId: string): Promise<CurrentPrice[]> {
    return storable(cityId) ? (await this.db.rows(this.read.currentForCity, [cityId])).map(toCurrent) : [];
  }

  async cityTotals(cityId: string): Promise<FuelTotals[]> {
    return storable(cityId) ? (await this.db.rows(this.read.cityTotals, [cityId])).map(toFuelTotals) : [];
  }

  async citySums(cityId: string): Promise<FuelSums[]> {
    return storable(cityId) ? (await this.db.rows(this.read.citySums, [cityId])).map(toFuelSums) : [];
  }

  async cityOutOfStock(cityId: string): Promise<OutOfStock[]> {
    return storable(cityId) ? (await this.db.rows(this.read.cityOutOfStock, [cityId])).map(toOutOfStock) : [];
  }

  cityHistoryParts(cityId: string, range: DayRange, nowSec?: number, known?: ReadonlyMap<number, number>): Promise<CityHistoryParts> {
    return cityHistoryParts(this.db, this.read, cityId, range, nowSec, known);
  }

  cityFreshParts(cityId: string, fuel: FuelId, from: LocalDay, to: LocalDay): Promise<FreshParts & { sealedBefore: LocalDay }> {
    return cityFreshParts(this.db, this.read, cityId, fuel, from, to);
  }

  async counts(): Promise<{ cities: number; stations: number; prices: number }> {
    const row = await this.db.row(this.read.counts);
    return { cities: Number(row?.cities), stations: Number(row?.stations), prices: Number(row?.prices) };
  }
}
