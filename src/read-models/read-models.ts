/**
 * One thread's read models (registry.ts), over a store that hands out rows: each built from
 * storage's rows the first time it is asked at a data version, kept for that version, and read
 * again at the next. The serving thread keeps the held prices (a station's prices, a city's
 * spread and average); the search worker the positions, fuel prices, area prices, held prices and
 * the page stations its searches (searches.ts) rank and show; the derived worker the held prices
 * (the cycle compares tomorrow with today).
 *
 * No snapshot is taken: what is kept is keyed by the data version read first, and a read that
 * sees a later write only fills the keep early (the next request reads the new version).
 */
import type { FuelId } from '../domain/fuels.ts';
import { reportedSince } from '../domain/fresh.ts';
import type { HeldPrice } from '../domain/tomorrow.ts';
import type { FuelPriceRow, ReadStore, Station, StationPrices } from '../storage/store.ts';
import { AreaPrices } from './area-prices.ts';
import { HeldIndex } from './held-index.ts';
import { PerVersion } from './per-version.ts';
import { FuelPrices, Positions } from './positions.ts';
import { READ_MODELS } from './registry.ts';

/** A fuel's prices over one position index, with the rows they were built from (max_age filters those). */
interface KeptFuelPrices {
  positions: Positions;
  value: FuelPrices;
  rows: readonly FuelPriceRow[];
}

export class ReadModels {
  private readonly positionIndex = new PerVersion<'positions', Positions>(READ_MODELS.positions.bound.entries);
  private readonly fuels = new PerVersion<FuelId, KeptFuelPrices>(READ_MODELS.fuelPrices.bound.entries);
  private readonly areas = new PerVersion<FuelId, AreaPrices>(READ_MODELS.areaPrices.bound.entries);
  private readonly heldIndex = new PerVersion<'held', HeldIndex>(READ_MODELS.heldPrices.bound.entries);
  private readonly pageStations = new KeptStations(READ_MODELS.pageStations.bound.entries);

  constructor(readonly store: ReadStore) {}

  /** Each model this thread keeps: how many values it holds and the most it may (registry.ts's bound). */
  kept(): Record<'positions' | 'fuelPrices' | 'areaPrices' | 'heldPrices' | 'pageStations', { size: number; bound: number }> {
    const of = (holder: { size: number; maxEntries: number }) => ({ size: holder.size, bound: holder.maxEntries });
    return {
      positions: of(this.positionIndex), fuelPrices: of(this.fuels), areaPrices: of(this.areas), heldPrices: of(this.heldIndex), pageStations: of(this.pageStations),
    };
  }

  /** The data version to read the models at (a request reads it once). */
  async version(): Promise<number> {
    return (await this.store.versions()).data;
  }

  positions(version: number): Promise<Positions> {
    return this.positionIndex.get('positions', version, async () => new Positions(await this.store.positionRows()));
  }

  /** Each positioned station's lowest available price of the fuel; with max_age's `since`, built for the request from the kept rows reported since then. */
  async fuelPrices(version: number, fuel: FuelId, since?: number): Promise<FuelPrices> {
    const positions = await this.positions(version);
    let kept = await this.fuels.get(fuel, version, async () => {
      const rows = await this.store.fuelPriceRows(fuel);
      return { positions, value: new FuelPrices(positions, rows), rows };
    });
    // Built over another index (one read again meanwhile): built again over this one.
    if (kept.positions !== positions) kept = { positions, value: new FuelPrices(positions, kept.rows), rows: kept.rows };
    return since === undefined ? kept.value : new FuelPrices(positions, reportedSince(kept.rows, since));
  }

  areaPrices(version: number, fuel: FuelId): Promise<AreaPrices> {
    return this.areas.get(fuel, version, async () => new AreaPrices(await this.store.areaPriceRows(fuel)));
  }

  held(version: number): Promise<HeldIndex> {
    return this.heldIndex.get('held', version, async () => new HeldIndex(await this.store.heldRows()));
  }

  /** The stations of these ids (in no order): those a page showed at this version are kept, the others read. */
  async stations(version: number, ids: readonly string[]): Promise<Station[]> {
    if (ids.length === 0) return [];
    const { kept, missing } = this.pageStations.kept(version, ids);
    if (missing.length === 0) return kept;
    const read = await this.store.stationsByIds(missing);
    this.pageStations.keep(version, read);
    return kept.concat(read);
  }

  /** The held prices of every station of the city, each station's together. */
  async heldForCity(cityId: string): Promise<readonly HeldPrice[]> {
    return (await this.held(await this.version())).ofCity(cityId);
  }

  /**
   * Stations' names, feeds and current prices (storage's stationsPrices), each with what it holds
   * (its held prices, by fuel then instant); ids no station has are absent. The one read of
   * /v1/stations/{id}/prices and the batch, which keep their texts per data version (http/cache/station-texts.ts).
   */
  async stationsPrices(ids: readonly string[]): Promise<Map<string, { station: StationPrices; held: readonly HeldPrice[] }>> {
    const [stations, held] = await Promise.all([this.store.stationsPrices(ids), this.version().then((version) => this.held(version))]);
    const out = new Map<string, { station: StationPrices; held: readonly HeldPrice[] }>();
    for (const [id, station] of stations) out.set(id, { station, held: held.ofStation(id) });
    return out;
  }
}

/** Station rows read for near searches and cheapest lists at the data version last read: a page's rows, read once (at most `maxEntries`). */
export class KeptStations {
  private version = Number.NaN;
  private byId = new Map<string, Station>();

  constructor(readonly maxEntries: number) {}

  get size(): number {
    return this.byId.size;
  }

  /** The kept rows of these ids at this version, and the ids to read. */
  kept(version: number, ids: readonly string[]): { kept: Station[]; missing: string[] } {
    if (this.version !== version) {
      this.version = version;
      this.byId = new Map();
    }
    const kept: Station[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const row = this.byId.get(id);
      if (row) kept.push(row);
      else missing.push(id);
    }
    return { kept, missing };
  }

  keep(version: number, rows: readonly Station[]): void {
    if (this.version !== version) return;
    for (const row of rows) if (this.byId.size < this.maxEntries) this.byId.set(row.id, row);
  }
}
