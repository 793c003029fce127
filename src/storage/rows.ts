import { FUELS, type FuelId } from '../domain/fuels.ts';
import { formatCoordinate } from '../domain/rounding.ts';
import type { StateId } from '../domain/states.ts';
import { firstDayOf, lastDayOf } from '../domain/history-json.ts';
import { type LocalDay, dayLength, dayStart, localDayOf } from '../domain/time.ts';
import type { OpenState, Report } from '../ingest/plan.ts';
import { COPY_TABLES, type City, type CopyKey, type CopyProgress, type CopyRow, type CopyTable, type CopyValue, type CurrentPrice, type DayRange, type FuelSums, type FuelTotals, type LiveDaySums, type OutOfStock, type Station, type StationDayRow, type TableChunk, type TokenRecord, type FeedHealth, type FeedRun, type FeedStation, type PriceEvent } from './store.ts';

/**
 * Rows as every SQL backend returns them, turned into the store's objects. Column names are
 * the same in each schema; flags may come back as 0/1 (SQLite) or true/false (PostgreSQL).
 */
export type Row = Record<string, unknown>;

export const STATION_COLUMNS = 'id, name, brand, address, street, suburb, postcode, state, phone, website, latitude, longitude';

const FUEL_ORDER: ReadonlyMap<FuelId, number> = new Map(FUELS.map((fuel, index) => [fuel, index]));

export function fuelAt(index: unknown): FuelId {
  const fuel = FUELS[Number(index)];
  if (!fuel) throw new Error(`unknown fuel index ${String(index)}`);
  return fuel;
}

export function flag(value: unknown): boolean {
  return value === true || value === 1;
}

export function toCity(r: Row): City {
  return {
    id: String(r.id), name: String(r.name), state: r.state as StateId,
    latitude: formatCoordinate(Number(r.latitude)), longitude: formatCoordinate(Number(r.longitude)),
  };
}

export function toStation(r: Row): Station {
  return {
    id: String(r.id), name: String(r.name), brand: String(r.brand), address: String(r.address), street: String(r.street),
    suburb: String(r.suburb), postcode: String(r.postcode), state: r.state as StateId, phone: String(r.phone),
    website: String(r.website), latitude: formatCoordinate(Number(r.latitude)), longitude: formatCoordinate(Number(r.longitude)),
  };
}

export function toStationDay(stationId: string, r: Row): StationDayRow {
  return { stationId, fuel: fuelAt(r.fuel), day: Number(r.day), weightedTenths: Number(r.weighted_tenths), seconds: Number(r.seconds) };
}

/** A station_runs row as the readers take it: fuel index, first day, last day, price. */
export type RunRow = [fuel: number, from: LocalDay, to: LocalDay, priceTenths: number];

export function toRunRow(r: Row): RunRow {
  return [Number(r.fuel), Number(r.from_day), Number(r.to_day), Number(r.price_tenths)];
}

/**
 * One station's days with the whole days of its runs within `range` added as days of their own
 * (the price times each day's seconds, as a station_daily row had them before runs), in (day,
 * fuel) order: the order the readers gave when every day was a row, which is the order the
 * history's means are summed in. `days` must come in (day, fuel) order and `runs` in (fuel,
 * day) order (the readers' ORDER BY): a merge of the rows with one cursor per fuel, no sort.
 */
export function withRunDays(stationId: string, state: StateId, days: StationDayRow[], runs: readonly RunRow[], range: DayRange): StationDayRow[] {
  if (runs.length === 0) return days;
  const cursors = runCursors(runs, range.from ?? -Infinity, range.to, state);
  const out: StationDayRow[] = [];
  for (let r = 0; ;) {
    const row = days[r];
    let day = row ? row.day : Infinity;
    let fuel = row ? (FUEL_ORDER.get(row.fuel) ?? 0) : Infinity;
    let pick: RunDays | undefined;
    for (const cursor of cursors) {
      // A day is a row or in a run, never both: ties are only between exhausted cursors (Infinity).
      if (cursor.day < day || (cursor.day === day && cursor.day !== Infinity && cursor.fuel < fuel)) { day = cursor.day; fuel = cursor.fuel; pick = cursor; }
    }
    if (pick) {
      out.push({ stationId, fuel: fuelAt(pick.fuel), day, weightedTenths: pick.price * pick.seconds, seconds: pick.seconds });
      pick.next();
    } else if (row) {
      out.push(row);
      r++;
    } else {
      return out;
    }
  }
}

/**
 * One cursor per fuel over `runs` (a station's, in (fuel, day) order), each walking its fuel's
 * days within [low, high] in day order, with each day's price and seconds; those with no day in
 * the range are left out.
 */
function runCursors(runs: readonly RunRow[], low: number, high: LocalDay, state: StateId): RunDays[] {
  const cursors: RunDays[] = [];
  for (let i = 0; i < runs.length;) {
    let j = i;
    while (j < runs.length && runs[j]?.[0] === runs[i]?.[0]) j++;
    const cursor = new RunDays(runs, i, j, low, high, state);
    if (cursor.day !== Infinity) cursors.push(cursor);
    i = j;
  }
  return cursors;
}

/** Walks the days of one fuel's runs (disjoint, in day order) within [low, high]; `day` is Infinity once past the last. */
class RunDays {
  readonly fuel: number;
  day = Infinity;
  price = 0;
  /** The day's length. */
  seconds = 0;
  private last = 0;
  private start = 0;
  private index: number;

  constructor(private readonly runs: readonly RunRow[], first: number, private readonly end: number,
    private readonly low: number, private readonly high: LocalDay, private readonly state: StateId) {
    this.fuel = runs[first]?.[0] ?? 0;
    this.index = first - 1;
    this.nextRun();
  }

  next(): void {
    if (this.day < this.last) {
      this.day++;
      this.start += this.seconds;
      this.seconds = dayLength(this.state, this.day, this.start);
    } else {
      this.nextRun();
    }
  }

  private nextRun(): void {
    for (this.index++; this.index < this.end; this.index++) {
      const [, from, to, price] = this.runs[this.index] ?? [0, 0, -1, 0];
      const first = Math.max(from, this.low);
      const last = Math.min(to, this.high);
      if (first > last) continue;
      this.day = first;
      this.last = last;
      this.price = price;
      this.start = dayStart(this.state, first);
      this.seconds = dayLength(this.state, first, this.start);
      return;
    }
    this.day = Infinity;
  }
}

/**
 * withRunDays for the stations of a city: `days` in (station, day, fuel) order, `runs` (with
 * their station's id and state) in (station, fuel, day) order; stations in id order.
 */
export function withRunDaysByStation(days: StationDayRow[], runs: ReadonlyArray<{ stationId: string; state: StateId; run: RunRow }>, range: DayRange): StationDayRow[] {
  if (runs.length === 0) return days;
  const ids = [...new Set([...days.map((d) => d.stationId), ...runs.map((r) => r.stationId)])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: StationDayRow[] = [];
  let d = 0;
  let r = 0;
  for (const id of ids) {
    const first = d;
    while (d < days.length && days[d]?.stationId === id) d++;
    const own: RunRow[] = [];
    const state = runs[r]?.stationId === id ? runs[r]?.state : undefined;
    for (; r < runs.length && runs[r]?.stationId === id; r++) own.push(runs[r]?.run ?? [0, 0, -1, 0]);
    const stationDays = days.slice(first, d);
    for (const day of state ? withRunDays(id, state, stationDays, own, range) : stationDays) out.push(day);
  }
  return out;
}

export function toCurrent(r: Row): CurrentPrice {
  return {
    stationId: String(r.station_id), fuel: fuelAt(r.fuel), priceTenths: Number(r.price_tenths), available: flag(r.available),
    reportedAt: Number(r.reported_at), openFrom: Number(r.open_from),
  };
}

export function toReport(r: Row): Report {
  return { at: Number(r.at), priceTenths: Number(r.price_tenths), available: flag(r.available) };
}

/**
 * A current_prices row as the writers carry it on. Written out: in Node 20, an object spread
 * with properties added (`{ ...toReport(r), openFrom }`) cost about 1.7 us an object, once per
 * open price in every seal.
 */
export function toOpenState(r: Row): OpenState {
  return { at: Number(r.reported_at), priceTenths: Number(r.price_tenths), available: flag(r.available), openFrom: Number(r.open_from) };
}

export function toToken(r: Row): TokenRecord {
  const nullable = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
  return {
    id: String(r.id), name: String(r.name), hash: r.hash as Buffer, createdAt: Number(r.created_at),
    expiresAt: nullable(r.expires_at), revokedAt: nullable(r.revoked_at), rateLimit: nullable(r.rate_limit),
  };
}

/** The key of a row, in the table's key order. */
export function keyOf(table: CopyTable, row: CopyRow): CopyKey {
  return COPY_TABLES[table].key.map((column) => {
    const value = row[column];
    if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`${table}.${column} is not a key value`);
    return value;
  });
}

/** A column value as both backends hand it to a copy: flags 0/1, bytes as a Buffer. */
export function copyValue(value: unknown): CopyValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || Buffer.isBuffer(value)) return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint' && value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER) return Number(value);
  throw new Error(`a stored value of type ${typeof value} cannot be copied`);
}

/** A copy_progress row as either backend returns it. */
export function toCopyProgress(r: Record<string, unknown>): CopyProgress {
  const table = String(r.table_name);
  if (!Object.hasOwn(COPY_TABLES, table)) throw new Error(`copy_progress names an unknown table '${table.slice(0, 40)}'`);
  const after = r.after_key === null || r.after_key === undefined ? undefined : JSON.parse(String(r.after_key)) as CopyKey;
  return { table: table as CopyTable, source: String(r.source), after, rows: Number(r.rows), done: r.done === true || r.done === 1 };
}

/** The table's spec, checked at run time too: SQL names only ever come from COPY_TABLES. */
export function copySpec(table: CopyTable): (typeof COPY_TABLES)[CopyTable] {
  if (!Object.hasOwn(COPY_TABLES, table)) throw new Error(`'${String(table).slice(0, 40)}' is not a table a copy moves`);
  return COPY_TABLES[table];
}

/** Rows as read for a copy, in key order, with the cursor for the next chunk. */
export function toChunk(table: CopyTable, found: readonly Row[]): TableChunk {
  const { columns } = copySpec(table);
  const rows = found.map((r): CopyRow => Object.fromEntries(columns.map((c) => [c, copyValue(r[c])])));
  const last = rows.at(-1);
  return { rows, last: last ? keyOf(table, last) : undefined };
}

export function toFeedRun(r: Row): FeedRun {
  return {
    feed: String(r.feed), startedAt: Number(r.started_at), finishedAt: Number(r.finished_at),
    stationsAdded: Number(r.stations_added), stationsUpdated: Number(r.stations_updated), pricesAccepted: Number(r.prices_accepted),
    pricesIgnored: Number(r.prices_ignored), pricesHeld: Number(r.prices_held), rejected: Number(r.rejected),
    rejections: JSON.parse(String(r.rejections)) as FeedRun['rejections'], error: r.error === null ? undefined : String(r.error),
    intervalSec: Number(r.interval_sec),
  };
}

/** The columns of feed_runs in insert order, and a run's values for them. */
export const FEED_RUN_COLUMNS = ['feed', 'started_at', 'finished_at', 'stations_added', 'stations_updated', 'prices_accepted',
  'prices_ignored', 'prices_held', 'rejected', 'rejections', 'error', 'interval_sec'] as const;

export function feedRunValues(run: FeedRun): Array<string | number | null> {
  return [run.feed, run.startedAt, run.finishedAt, run.stationsAdded, run.stationsUpdated, run.pricesAccepted, run.pricesIgnored,
    run.pricesHeld, run.rejected, JSON.stringify(run.rejections), run.error ?? null, run.intervalSec];
}

export function toFeedStation(r: Row): FeedStation {
  return {
    id: String(r.id), feedCode: String(r.feed_code), name: String(r.name), brand: String(r.brand), address: String(r.address),
    suburb: String(r.suburb), postcode: String(r.postcode), state: r.state as StateId,
  };
}

export function toPending(r: Row): PriceEvent {
  return {
    feed: String(r.feed), feedCode: String(r.feed_code), fuel: fuelAt(r.fuel), at: Number(r.at),
    priceTenths: Number(r.price_tenths), available: flag(r.available),
  };
}

/** Runs older than this are dropped from the log as new ones are recorded. */
export const RUN_LOG_DAYS = 90;

export const FEED_HEALTH = `SELECT feed, max(finished_at) AS last_run, max(CASE WHEN error IS NULL THEN finished_at END) AS last_success,
  max(interval_sec) AS interval_sec FROM feed_runs GROUP BY feed ORDER BY feed`;

export function toFeedHealth(r: Row): FeedHealth {
  return { feed: String(r.feed), lastRun: Number(r.last_run), lastSuccess: r.last_success === null ? undefined : Number(r.last_success),
    intervalSec: Number(r.interval_sec) };
}

/**
 * Today's totals of a city per reported fuel: count and sum from city_current (citySumsSql),
 * and for cityTotalsSql min and max too, by two index steps each (current_prices_by_city).
 * `param` is the backend's placeholder.
 */
export function citySumsSql(param: string): string {
  return `SELECT fuel, available_count, sum_tenths FROM city_current WHERE city_id = ${param} AND available_count > 0 ORDER BY fuel`;
}

export function cityTotalsSql(param: string): string {
  return `SELECT t.fuel, t.available_count, t.sum_tenths,
    (SELECT min(c.price_tenths) FROM current_prices c WHERE c.city_id = t.city_id AND c.available = TRUE AND c.fuel = t.fuel) AS min_tenths,
    (SELECT max(c.price_tenths) FROM current_prices c WHERE c.city_id = t.city_id AND c.available = TRUE AND c.fuel = t.fuel) AS max_tenths
    FROM city_current t WHERE t.city_id = ${param} AND t.available_count > 0 ORDER BY t.fuel`;
}

/**
 * A city's stations out of stock per output fuel (OutOfStock), from its out-of-stock reports
 * (current_prices_by_city finds those few): each output the report's fuel counts towards
 * (fuel_groups), unless the station has an available report counting towards it too. Sydney
 * on the national ten-year demo: 48 such reports, 62 rows, about 150 us on SQLite; reading
 * every current price of those stations to pool them in JS took 520 us.
 */
export function cityOutOfStockSql(param: string): string {
  return `SELECT DISTINCT g.output AS fuel, s.id AS station_id
    FROM current_prices o JOIN fuel_groups g ON g.fuel = o.fuel JOIN stations s ON s.key = o.station_key
    WHERE o.city_id = ${param} AND o.available = FALSE
      AND NOT EXISTS (SELECT 1 FROM current_prices c JOIN fuel_groups h ON h.fuel = c.fuel AND h.output = g.output
        WHERE c.station_key = o.station_key AND c.available = TRUE)`;
}

export function toOutOfStock(r: Row): OutOfStock {
  return { fuel: fuelAt(r.fuel), stationId: String(r.station_id) };
}

/**
 * Today for a city in one statement (see LiveDaySums): per reported fuel, the sum and count of
 * the stations' time-weighted means of the day. A price whose open interval began before the
 * day did not change today, so it has no closed interval today (closed ones never reach past
 * open_from) and its mean is the price itself: those come from city_current's count and sum,
 * less the prices that did change. Only the prices that changed today (found by the index
 * current_prices_changed, keyed by city and open_from) are worked out one by one: the stored
 * closed intervals of the day plus the open one up to now, counted only while available, as
 * stationFuelDayMeans does in JS. Params: city id, day, the day's first instant (before now),
 * now. PostgreSQL sums in station order so that every layout gives the same bits.
 */
export function cityLiveDaySql(p: { city: string; day: string; start: string; now: string }, dialect: 'sqlite' | 'postgres'): string {
  const order = dialect === 'sqlite' ? '' : ' ORDER BY station_key';
  const open = `CASE WHEN c.available = TRUE AND c.open_from < ${p.now} THEN ${p.now} - c.open_from ELSE 0 END`;
  const closed = (column: string): string => `CASE WHEN d.seconds > 0 THEN d.${column} ELSE 0 END`;
  // One pass over the changed prices, grouped once: per fuel, their day means (NULL when the
  // price had no seconds today) less their prices, beside city_current's totals.
  return `SELECT fuel, sum(sum_means) AS sum_means, sum(n) AS n FROM (
    SELECT fuel, CAST(sum_tenths AS DOUBLE PRECISION) AS sum_means, available_count AS n FROM city_current WHERE city_id = ${p.city}
    UNION ALL
    SELECT fuel, coalesce(sum(mean${order}), 0) - sum(CASE WHEN available = TRUE THEN CAST(price_tenths AS DOUBLE PRECISION) ELSE 0 END),
      count(mean) - sum(CASE WHEN available = TRUE THEN 1 ELSE 0 END)
    FROM (
      SELECT c.fuel, c.station_key, c.available, c.price_tenths,
        CAST(${closed('weighted_tenths')} + c.price_tenths * ${open} AS DOUBLE PRECISION) / nullif(${closed('seconds')} + ${open}, 0) AS mean
      FROM current_prices c
      LEFT JOIN station_daily d ON d.station_key = c.station_key AND d.day = ${p.day} AND d.fuel = c.fuel
      WHERE c.city_id = ${p.city} AND c.open_from > ${p.start}
    ) touched GROUP BY fuel
  ) parts GROUP BY fuel HAVING sum(n) > 0 ORDER BY fuel`;
}

/**
 * Which sealed days of [from, sealedEnd] to read when the caller holds some blocks already
 * (http/history-blocks.ts). Without `known`, all of them. With it: every complete block (all its
 * days within the range; a block with rows always has a mark, see migration 7) with its mark, and
 * those the caller holds at that very mark skipped; the day ranges around them are read.
 */
export function planSealedRead(
  from: LocalDay, sealedEnd: LocalDay, marks: ReadonlyMap<number, number> | undefined, known: ReadonlyMap<number, number> | undefined,
): { ranges: Array<[LocalDay, LocalDay]>; blocks?: { marks: Map<number, number>; skipped: Set<number> } } {
  if (sealedEnd < from) return { ranges: [], ...(known && { blocks: { marks: new Map(), skipped: new Set() } }) };
  if (!known || !marks) return { ranges: [[from, sealedEnd]] };
  const complete = new Map<number, number>();
  const skipped: number[] = [];
  for (const [block, mark] of marks) {
    if (firstDayOf(block) < from || lastDayOf(block) > sealedEnd) continue;
    complete.set(block, mark);
    if (known.get(block) === mark) skipped.push(block);
  }
  const ranges: Array<[LocalDay, LocalDay]> = [];
  let next = from;
  for (const block of skipped.sort((a, b) => a - b)) {
    if (firstDayOf(block) > next) ranges.push([next, firstDayOf(block) - 1]);
    next = lastDayOf(block) + 1;
  }
  if (next <= sealedEnd) ranges.push([next, sealedEnd]);
  return { ranges, blocks: { marks: complete, skipped: new Set(skipped) } };
}

/** The parameters of cityLiveDaySql when the range's only live day (from liveFrom on) is today; otherwise undefined. */
export function onlyLiveDayIsToday(state: StateId, liveFrom: LocalDay, range: DayRange, nowSec: number): { day: LocalDay; start: number; now: number } | undefined {
  const today = localDayOf(state, nowSec);
  const start = dayStart(state, today);
  // At the day's very first second nothing has been open yet: the rows path says so exactly.
  return liveFrom === today && range.to === today && start < nowSec ? { day: today, start, now: nowSec } : undefined;
}

export function toLiveDaySums(r: Row): LiveDaySums {
  return { fuel: fuelAt(r.fuel), sumMeans: Number(r.sum_means), count: Number(r.n) };
}

export function toFuelSums(r: Row): FuelSums {
  return { fuel: fuelAt(r.fuel), count: Number(r.available_count), sumTenths: Number(r.sum_tenths) };
}

export function toFuelTotals(r: Row): FuelTotals {
  // Written out, not spread from toFuelSums: the spread took 50 us more for Sydney's 13 rows (in process).
  return {
    fuel: fuelAt(r.fuel), count: Number(r.available_count), sumTenths: Number(r.sum_tenths),
    minTenths: Number(r.min_tenths), maxTenths: Number(r.max_tenths),
  };
}

/** Both versions in one statement: the one read every /v1 request makes before its answer (or its cached copy). */
export const VERSIONS = `SELECT (SELECT value FROM meta WHERE key = 'data_version') AS data,
  (SELECT value FROM meta WHERE key = 'tokens_version') AS tokens`;

export const BUMP_TOKENS_VERSION = "UPDATE meta SET value = value + 1 WHERE key = 'tokens_version'";
