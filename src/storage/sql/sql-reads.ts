import { rankAlong, rankByNetCost } from '../../domain/along.ts';
import { rankedPage } from '../../domain/cheapest.ts';
import { pricedAlong } from '../along.ts';
import { type FuelId, fuelIndex } from '../../domain/fuels.ts';
import type { FreshParts } from '../../domain/fresh.ts';
import type { StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import { rankedTomorrow } from '../../domain/tomorrow.ts';
import { brandNames, brandPage } from '../brands.ts';
import { AreaPrices } from '../area-prices.ts';
import { HeldIndex } from '../held-index.ts';
import { FuelPrices, NearbyCache, type Positions, indexedNearestPage, nearestPage, nearestResult, onlyNear } from '../nearest.ts';
import { type RunRow, withRunDays } from '../run-days.ts';
import type {
  AlongPage, AlongQuery, Brand, ChangesPage, ChangesQuery, CheapestPage, CheapestQuery, City, CityHistoryParts, CurrentPrice, DayRange, FuelSums, FuelTotals, HeldPrice, ListQuery, ListResult, ListedStation,
  Migration, OutOfStock, RankedPrice, ReadStore, Station, StationDayRow, StationListQuery, StationPrices,
} from '../store.ts';
import type { StationReport } from '../../domain/price-rows.ts';
import { PerVersion, type Versions, VersionReuse } from '../versions.ts';
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
  /** Positions and fuel prices for near searches, per data version (storage/nearest.ts). */
  private readonly nearby = new NearbyCache();
  /** Every held price (storage/held-index.ts), and each output fuel's prices by city and state (area-prices.ts), per data version. */
  private readonly held = new PerVersion<'held', HeldIndex>();
  private readonly areaPrices = new PerVersion<number, AreaPrices>();

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
    return this.versionsVia(this.db);
  }

  /** Read through `db`: inside a transaction, its own connection (SQLite's would wait for the transaction to end). */
  private versionsVia(db: Connection): Promise<Versions> {
    return this.reuse.get(async () => {
      const row = await db.row(this.read.versions);
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

  async listStations(query: StationListQuery): Promise<ListResult<ListedStation>> {
    if (query.near && onlyNear(query)) {
      // No snapshot needed: what is kept is keyed by the data version read first, and a read that
      // sees a later write only fills the keep early (the next request reads the new version).
      const version = (await this.versions()).data;
      const nearest = indexedNearestPage(await this.positions(this.db, version), query.near, query.limit, query.offset);
      return nearestResult(nearest, await this.byIds(this.db, nearest.ids, version));
    }
    return this.db.transaction('reads', async (tx): Promise<ListResult<ListedStation>> => {
      const names = query.brand === undefined ? undefined : brandNames((await tx.rows(this.read.brandCounts)).map(toBrandCount), query.brand);
      if (names?.length === 0) return { items: [], total: 0 };
      const { count, page, points, params } = this.read.stationList(stationFilter(query, names));
      if (query.near) {
        const nearest = nearestPage((await tx.rows(points, params)).map(toPoint), query.near, query.limit, query.offset);
        return nearestResult(nearest, await this.byIds(tx, nearest.ids, (await this.versionsVia(tx)).data));
      }
      const total = Number((await tx.row(count, params))?.n);
      return { items: (await tx.rows(page, [...params, query.limit, query.offset])).map(toStation), total };
    });
  }

  /** Kept for the data version (NearbyCache): a near page's stations are read once, not on every request. */
  private async byIds(db: Connection, ids: readonly string[], version: number): Promise<Station[]> {
    const known = ids.filter(storable);
    if (known.length === 0) return [];
    const { kept, missing } = this.nearby.keptStations(version, known);
    if (missing.length === 0) return kept;
    const read = (await db.rows(this.read.stationsByIds(missing.length), missing)).map(toStation);
    this.nearby.keepStations(version, read);
    return kept.concat(read);
  }

  /** The position index of this data version (storage/nearest.ts). */
  private async positions(db: Connection, version: number): Promise<Positions> {
    return this.nearby.keptPositions(version) ?? this.nearby.keepPositions(version, (await db.rows(this.read.positions)).map(toPositionRow));
  }

  async cheapest({ fuel, area, order: asked, limit, offset, day = 'today', fill, since }: CheapestQuery): Promise<CheapestPage> {
    const output = fuelIndex(fuel);
    const read = this.read;
    // By net cost: every station ranked by price, then ranked again by net cost and paged.
    const byNet = asked === 'net_cost' && fill !== undefined;
    const order = asked === 'net_cost' ? 'asc' : asked;
    const [first, count] = byNet ? [0, Number.MAX_SAFE_INTEGER] : [offset, limit];
    const paged = (page: ListResult<RankedPrice>): ListResult<RankedPrice> => (byNet ? rankByNetCost(page.items, fill, limit, offset) : page);
    if ('city' in area && !storable(area.city)) return { ...rankedPage([], order, limit, offset), stations: [] };
    if (day === 'tomorrow') {
      return this.db.transaction('reads', async (tx): Promise<CheapestPage> => {
        const index = await this.heldIndex(tx);
        const held = 'city' in area ? index.ofCity(area.city, fuel) : 'state' in area ? index.ofState(area.state, fuel) : index.ofPositioned(fuel);
        const page = paged(rankedTomorrow(held, order, 'near' in area ? area.near : undefined, count, first));
        return { ...page, stations: await this.byIds(tx, page.items.map((p) => p.stationId), (await this.versionsVia(tx)).data) };
      });
    }
    const ranked = async (tx: Connection): Promise<CheapestPage> => {
      const version = (await this.versionsVia(tx)).data;
      let page: ListResult<RankedPrice>;
      // max_age (since): reports before it are left out before each station's lowest member price is taken.
      if (!('near' in area)) {
        // A city's or a state's ranking, kept for the version (storage/area-prices.ts).
        const list = (await this.areaPrices.get(output, version, async () => new AreaPrices((await tx.rows(read.areaFuelPrices, [output])).map(toAreaPriceRow))))
          .rank(area, order, since);
        page = { items: list.slice(first, first + count), total: list.length };
      } else page = (await this.fuelPrices(tx, version, output, since)).rankNear(await this.positions(tx, version), area.near, order, count, first);
      page = paged(page);
      return { items: page.items, total: page.total, stations: await this.byIds(tx, page.items.map((p) => p.stationId), version) };
    };
    // Near a point: from what is kept per data version, without a snapshot (as listStations).
    return 'near' in area ? ranked(this.db) : this.db.transaction('reads', ranked);
  }

  /**
   * Each positioned station's lowest available price of an output fuel by slot of this data
   * version's position index, kept per data version (storage/nearest.ts); with max_age's `since`,
   * built for this request from the kept reports made since then.
   */
  private async fuelPrices(db: Connection, version: number, output: number, since?: number): Promise<FuelPrices> {
    const positions = await this.positions(db, version);
    return this.nearby.keptPrices(version, output, positions, since)
      ?? this.nearby.keepPrices(version, output, positions, (await db.rows(this.read.fuelPricesByKey, [output])).map(toFuelPriceRow), since);
  }

  async along({ fuel, path, order, limit, offset, fill, since }: AlongQuery): Promise<AlongPage> {
    // From what is kept per data version, without a snapshot (as near searches).
    const version = (await this.versions()).data;
    const prices = await this.fuelPrices(this.db, version, fuelIndex(fuel), since);
    const page = rankAlong(pricedAlong(await this.positions(this.db, version), prices, path), order, limit, offset, fill);
    return { ...page, stations: await this.byIds(this.db, page.items.map((p) => p.stationId), version) };
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

  async stationsPrices(ids: readonly string[]): Promise<Map<string, { station: StationPrices; held: readonly HeldPrice[] }>> {
    const known = [...new Set(ids.filter(storable))];
    const out = new Map<string, { station: StationPrices; held: readonly HeldPrice[] }>();
    if (known.length === 0) return out;
    // Two statements for every station at once, in one snapshot: the stations, their prices (both by key); and what they hold, kept for the version.
    const [stations, priceRows, held] = await this.db.transaction('reads', async (tx) => {
      const found = await tx.arrays<[unknown, unknown, unknown, unknown]>(this.read.stationKeysByIds(known.length), known);
      const keys = found.map(([key]) => key);
      return [found, keys.length === 0 ? [] : await tx.arrays<StationPriceArray>(this.read.stationPricesByKeys(keys.length), keys), await this.heldIndex(tx)] as const;
    });
    // Both by key: each station's prices are the run of rows with its key.
    let i = 0;
    for (const [stationKey, id, name, feed] of stations) {
      const key = Number(stationKey);
      const stationId = String(id);
      const prices: StationReport[] = [];
      while (i < priceRows.length && Number(priceRows[i]?.[0]) < key) i++;
      for (; i < priceRows.length && Number(priceRows[i]?.[0]) === key; i++) prices.push(toStationReport(stationId, priceRows[i] as StationPriceArray));
      out.set(stationId, { station: { id: stationId, name: String(name), feed: String(feed), prices }, held: held.ofStation(stationId) });
    }
    return out;
  }

  async heldForCity(cityId: string): Promise<readonly HeldPrice[]> {
    return (await this.heldIndex()).ofCity(cityId);
  }

  /**
   * Every held price of the data version (storage/held-index.ts): kept, or read in one snapshot
   * with the version it is kept for (in `tx`'s when given).
   */
  private async heldIndex(tx?: Connection): Promise<HeldIndex> {
    if (!tx) return this.held.peek('held', (await this.versions()).data) ?? this.db.transaction('reads', (snapshot) => this.heldIndex(snapshot));
    return this.held.get('held', (await this.versionsVia(tx)).data, async () => new HeldIndex((await tx.rows(this.read.heldPrices)).map(toHeldRow)));
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
