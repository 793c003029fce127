import { FUELS } from '../../domain/fuels.ts';
import { STATES, type StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import { assignCity, uniqueSlug } from '../places.ts';
import type { Row } from '../sql/dialect.ts';
import { toDayRun, toOpenState, toReport } from '../sql/row-mappers.ts';
import { BULK, INGEST_STATEMENTS as SQL } from '../sql/statements.ts';
import type { Batch, BatchResult, StationInput } from '../store.ts';
import {
  BatchTally, type GroupDays, NO_DAY_LOWER_BOUND, type StoredStation,
  closeAt, closeSealedPart, feedKey, groupPrices, sameStation, sealDue, storedCoordinates,
} from '../writer/batch-plan.ts';
import { DayTotals, type OpenState, type Report } from '../writer/day-totals.ts';
import { type Classified, type DaySpan, classifyReports, lateReads, lateReadsUntil, planReports, runPiecesOutside, settleGroup } from '../writer/late-reports.ts';
import { recomputeCityDays } from './sqlite-city-means.ts';
import type { RowBuffer, SqliteFile } from './sqlite-connection.ts';

type CityPoint = { id: string; latitude: number; longitude: number };

const FUEL_INDEX: ReadonlyMap<string, number> = new Map(FUELS.map((fuel, index) => [fuel, index]));

/**
 * applyBatch and seal on SQLite, each inside one transaction that the store opens. The
 * decisions are the shared ones of writer/; this file only reads and writes, one station at a
 * time (a synchronous read costs no round trip).
 */
export class SqliteWriter {
  constructor(private readonly db: SqliteFile) {}

  private sealedBeforeByState(): Map<string, LocalDay> {
    return new Map(this.db.all(SQL.seals).map((r) => [String(r.state), Number(r.sealed_before)]));
  }

  bumpDataVersion(): void {
    this.db.run(SQL.bumpDataVersion);
  }

  applyBatch(batch: Batch): BatchResult {
    const sealed = this.sealedBeforeByState();
    const sealedBefore = (state: StateId): LocalDay => sealed.get(state) ?? NO_DAY_LOWER_BOUND;
    const tally = new BatchTally(sealedBefore);
    const known = new Map<string, StoredStation>();
    const cities = new Map<StateId, CityPoint[]>();
    for (const input of batch.stations) {
      const { station, change } = this.upsertStation(input, cities);
      known.set(feedKey(input.feed, input.feedCode), station);
      tally.station(change);
    }
    const groups = groupPrices(batch.prices, (event) => FUEL_INDEX.get(event.fuel) ?? -1, (feed, code) => {
      const key = feedKey(feed, code);
      let station = known.get(key);
      if (!station) {
        station = this.storedStation(feed, code);
        if (station) known.set(key, station);
      }
      return station;
    });
    // In key order, so that new rows of price_events and station_daily go to the end of their b-trees.
    groups.sort((a, b) => a.station.key - b.station.key || a.fuel - b.fuel);
    const events = this.db.bulk(BULK.priceEvents);
    // Each group reads and writes only its own station and fuel's current price: the writes can wait for a many-row statement.
    const current = this.db.bulk(BULK.currentPrices);
    for (const { station, fuel, reports } of groups) {
      const { rows, totals, spans } = this.applyReports(station, fuel, reports, sealedBefore(station.state), events, current);
      tally.group(station, fuel, rows, totals, spans);
    }
    events.flush();
    current.flush();
    this.addStationDays(tally.groups);
    for (const [cityId, days] of tally.resealCities) recomputeCityDays(this.db, { cityId }, days.from, days.to);
    if (tally.changed) this.bumpDataVersion();
    return tally.result;
  }

  /**
   * Adds the daily sums and the runs, station by station and within a station in key order
   * (sums by day, then fuel; runs by last day, then fuel): a new station's rows are appended to
   * their tables rather than inserted in their middle.
   */
  private addStationDays(groups: readonly GroupDays[]): void {
    const days = this.db.bulk(BULK.stationDaily);
    const runs = this.db.bulk(BULK.stationRuns);
    for (let first = 0; first < groups.length;) {
      const stationKey = groups[first]?.station.key ?? 0;
      let end = first;
      while (end < groups.length && groups[end]?.station.key === stationKey) end++;
      // One cursor per fuel, in fuel order: of two sums for one day the lower fuel goes first.
      const fuels = groups.slice(first, end).sort((a, b) => a.fuel - b.fuel).map((g) => ({ fuel: g.fuel, totals: g.totals, next: 0 }));
      for (;;) {
        let pick: (typeof fuels)[number] | undefined;
        let pickDay = Infinity;
        for (const cursor of fuels) {
          const day = cursor.totals.days[cursor.next];
          if (day !== undefined && day < pickDay) { pick = cursor; pickDay = day; }
        }
        if (!pick) break;
        const { totals, next } = pick;
        days.values.push(stationKey, pickDay, pick.fuel, totals.weighted[next] ?? 0, totals.seconds[next] ?? 0);
        days.added();
        pick.next++;
      }
      const stationRuns = fuels.flatMap(({ fuel, totals }) => totals.runs.map((run) => ({ fuel, run })))
        .sort((a, b) => a.run.to - b.run.to || a.fuel - b.fuel);
      for (const { fuel, run } of stationRuns) {
        runs.values.push(stationKey, run.to, fuel, run.from, run.priceTenths);
        runs.added();
      }
      first = end;
    }
    days.flush();
    runs.flush();
  }

  storedStation(feed: string, code: string): StoredStation | undefined {
    const row = this.db.get('SELECT key, id, state, city_id FROM stations WHERE feed = $1 AND feed_code = $2', [feed, code]);
    return row ? toStored(row) : undefined;
  }

  /** Stores the group's new and corrected reports (new ones through `events`) and works out the daily sums they change. */
  private applyReports(
    station: StoredStation, fuel: number, reports: readonly Report[], sealedBefore: LocalDay, events: RowBuffer, current: RowBuffer,
  ): { rows: Classified; totals: DayTotals; spans: DaySpan[] } {
    const row = this.db.get('SELECT price_tenths, available, reported_at, open_from FROM current_prices WHERE station_key = $1 AND fuel = $2',
      [station.key, fuel]);
    const stored: OpenState | undefined = row ? toOpenState(row) : undefined;
    // A value that binds as NULL breaks a NOT NULL column: such a report is not stored (as INSERT OR IGNORE did).
    const unstorable = (r: Report): boolean => bindsAsNull(r.at) || bindsAsNull(r.priceTenths);
    const usable = reports.some(unstorable) ? reports.filter((r) => !unstorable(r)) : reports;
    // The stored reports at the group's instants: one range read finds them all.
    const first = usable[0]?.at ?? 0;
    const last = usable[usable.length - 1]?.at ?? 0;
    const storedReports = usable.length === 0 ? []
      : this.db.all(SQL.storedReportsBetween, [station.key, fuel, first, last]).map(toReport);
    const storedAt = new Map(storedReports.map((r) => [r.at, r]));
    const rows = classifyReports(usable, (at) => storedAt.get(at));
    if (rows.fresh.length === 0 && rows.corrected.length === 0) return { rows, totals: new DayTotals(), spans: [] };
    const values = events.values;
    for (const r of rows.fresh) {
      values.push(station.key, fuel, r.at, r.priceTenths, r.available ? 1 : 0);
      events.added();
    }
    for (const r of rows.corrected) this.db.run(SQL.correctReport, [r.priceTenths, r.available ? 1 : 0, station.key, fuel, r.at]);
    const plan = planReports(stored, rows.fresh, rows.corrected);
    const reads = lateReads(station.state, plan);
    let inForce: Report | undefined;
    let later: Report[] = [];
    if (reads) {
      events.flush(); // the late reports' days are rebuilt from the stored reports, this batch's included
      const found = this.db.get(SQL.reportInForce, [station.key, fuel, reads.from]);
      inForce = found ? toReport(found) : undefined;
      const next = this.db.get(SQL.nextReportAfter, [station.key, fuel, reads.after]);
      const until = lateReadsUntil(station.state, next ? Number(next.at) : undefined);
      later = this.db.all(SQL.reportsBetween, [station.key, fuel, reads.from, until]).map(toReport);
    }
    const settled = settleGroup(station.state, stored, plan, inForce, later);
    for (const span of settled.spans) this.dropSpan(station.key, fuel, span);
    closeSealedPart(station.state, settled.totals, settled.open, sealedBefore);
    const open = settled.open;
    if (open) {
      current.values.push(station.key, fuel, open.priceTenths, open.available ? 1 : 0, open.at, open.openFrom, station.cityId, station.state);
      current.added();
    }
    return { rows, totals: settled.totals, spans: settled.spans };
  }

  /** Drops a span's sums and the runs that overlap it, storing again the parts of those runs outside it. */
  private dropSpan(stationKey: number, fuel: number, span: DaySpan): void {
    this.db.run(SQL.dropDaysBetween, [stationKey, fuel, span.from, span.to]);
    const runs = this.db.all(SQL.runsOverlapping, [stationKey, fuel, span.from, span.to]).map(toDayRun);
    if (runs.length === 0) return;
    this.db.run(SQL.dropRunsOverlapping, [stationKey, fuel, span.from, span.to]);
    for (const piece of runPiecesOutside(runs, span)) this.db.insertRow(BULK.stationRuns, [stationKey, piece.to, fuel, piece.from, piece.priceTenths]);
  }

  private upsertStation(input: StationInput, cities: Map<StateId, CityPoint[]>): { station: StoredStation; change: 'added' | 'updated' | 'same' } {
    const wanted = { ...input, ...storedCoordinates(input) };
    const existing = this.db.get(`SELECT key, id, state, city_id, name, brand, address, street, suburb, postcode, phone, website, latitude, longitude
      FROM stations WHERE feed = $1 AND feed_code = $2`, [input.feed, input.feedCode]);
    if (existing && sameStation(storedFields(existing), wanted)) return { station: toStored(existing), change: 'same' };
    const cityId = this.cityFor(input.state, wanted.latitude, wanted.longitude, cities);
    const fields = [input.name, input.brand, input.address, input.street, input.suburb, input.postcode, input.state,
      input.phone, input.website, wanted.latitude, wanted.longitude, cityId];
    if (existing) {
      const key = Number(existing.key);
      this.db.run(SQL.updateStation, [...fields, key]);
      if (existing.city_id !== cityId || existing.state !== input.state) this.db.run(SQL.moveCurrentPrices, [cityId, input.state, key]);
      return { station: { key, id: String(existing.id), state: input.state, cityId }, change: 'updated' };
    }
    const id = uniqueSlug(input.slug, (candidate) => this.db.get('SELECT 1 FROM stations WHERE id = $1', [candidate]) !== undefined);
    const inserted = this.db.get(SQL.insertStation, [...fields, id, input.feed, input.feedCode]);
    return { station: { key: Number(inserted?.key), id, state: input.state, cityId }, change: 'added' };
  }

  /** The station's city; the cities of a state are read once per batch (a batch does not change them). */
  private cityFor(state: StateId, latitude: number | null, longitude: number | null, cache: Map<StateId, CityPoint[]>): string | null {
    let cities = cache.get(state);
    if (!cities) cache.set(state, (cities = this.db.all<CityPoint>(SQL.citiesInState, [state])));
    return assignCity(cities, latitude, longitude);
  }

  seal(nowSec: number): void {
    const sealed = this.sealedBeforeByState();
    let changed = false;
    for (const state of STATES) changed = this.sealState(state, nowSec, sealed.get(state) ?? NO_DAY_LOWER_BOUND) || changed;
    if (changed) this.bumpDataVersion();
  }

  /** Closes open intervals up to the start of the state's today and makes the days before it final. */
  private sealState(state: StateId, nowSec: number, before: LocalDay): boolean {
    const due = sealDue(state, nowSec, before);
    if (!due) return false;
    const open = this.db.all(SQL.openBefore, [state, due.cutoff]);
    const days = this.db.bulk(BULK.stationDaily);
    const runs = this.db.bulk(BULK.stationRuns);
    // A price that went on past the last seal lengthens the run that seal ended, if it made one.
    const lengthen = 'UPDATE station_runs SET to_day = $1 WHERE station_key = $2 AND to_day = $3 AND fuel = $4 AND price_tenths = $5';
    for (const row of open) {
      const state_ = toOpenState(row);
      const stationKey = Number(row.station_key);
      const fuel = Number(row.fuel);
      const totals = closeAt(state, state_, due.cutoff);
      for (const t of totals.values()) {
        days.values.push(stationKey, t.day, fuel, t.weighted, t.seconds);
        days.added();
      }
      for (const run of totals.runs) {
        if (this.db.run(lengthen, [run.to, stationKey, run.from - 1, fuel, run.priceTenths]).changes > 0) continue;
        runs.values.push(stationKey, run.to, fuel, run.from, run.priceTenths);
        runs.added();
      }
    }
    runs.flush();
    days.flush();
    // The rows just read, all moved at once.
    this.db.run(SQL.moveOpenTo, [due.cutoff, due.cutoff, state]);
    const firstDay = before === NO_DAY_LOWER_BOUND ? this.db.get(SQL.firstDayOfState, [state, state])?.d : before;
    if (firstDay !== null && firstDay !== undefined) recomputeCityDays(this.db, { state }, Number(firstDay), due.today - 1);
    this.db.run(SQL.saveSeal, [state, due.today]);
    return true;
  }
}

/** What better-sqlite3 binds as NULL. */
function bindsAsNull(value: unknown): boolean {
  return value === null || value === undefined || Number.isNaN(value);
}

function storedFields(r: Row): Parameters<typeof sameStation>[0] {
  return {
    name: String(r.name), brand: String(r.brand), address: String(r.address), street: String(r.street), suburb: String(r.suburb),
    postcode: String(r.postcode), phone: String(r.phone), website: String(r.website), state: r.state as StateId,
    latitude: r.latitude === null ? null : Number(r.latitude), longitude: r.longitude === null ? null : Number(r.longitude),
  };
}

function toStored(row: Row): StoredStation {
  return { key: Number(row.key), id: String(row.id), state: row.state as StateId, cityId: typeof row.city_id === 'string' ? row.city_id : null };
}
