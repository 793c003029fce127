import { fuelIndex } from '../../domain/fuels.ts';
import { type Box, boxAround } from '../../domain/nearby.ts';
import { STATION_SELECT } from '../station-shape.ts';
import type { StationListQuery } from '../store.ts';
import type { Dialect, Params } from './dialect.ts';

/**
 * Every statement both backends run, written once (see dialect.ts for what differs). A backend
 * keeps in its own folder only what it does its own way: each one's city means.
 * Grouped as the store's interfaces are: reads, tokens, bulk copy; ingest's are in ingest-statements.ts.
 */

const CITY_COLUMNS = 'id, name, state, latitude, longitude';
const CURRENT_COLUMNS = 's.id AS station_id, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from';

const PRICED = 's.id AS station_id, s.latitude, s.longitude, c.price_tenths, c.reported_at';
const OF_OUTPUT = 'c.available = TRUE AND c.fuel IN (SELECT fuel FROM fuel_groups WHERE output = $1)';


/** PostgreSQL text cannot hold NUL: an id with one names nothing stored, on either backend. */
export function storable(id: string): boolean {
  return !id.includes('\u0000');
}

/** A current price's own price when in stock, else its latest report's in stock (what an out-of-stock entry shows). */
const LAST_AVAILABLE = `CASE WHEN c.available THEN c.price_tenths ELSE (
        SELECT p.price_tenths FROM price_events p WHERE p.station_key = c.station_key AND p.fuel = c.fuel AND p.available = TRUE
        AND p.at <= c.reported_at ORDER BY p.at DESC LIMIT 1) END AS last_available_tenths`;

/** $1, $2, ... $n: an `IN` list's placeholders (one statement shape per count). */
const placeholders = (n: number): string => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ');

/** Both versions in one statement: the one read every /v1 request makes before its answer (or its cached copy). */
export const VERSIONS = `SELECT (SELECT value FROM meta WHERE key = 'data_version') AS data,
  (SELECT value FROM meta WHERE key = 'tokens_version') AS tokens`;

/**
 * What /v1/stations may be narrowed by, as storage binds it: every value a parameter, never
 * text. `brandNames` are the stored brand names a brand id stands for (one or a few).
 */
export interface StationFilter {
  state?: string | undefined;
  city?: string | undefined;
  /** Lowercase; compared with lower(suburb). */
  suburb?: string | undefined;
  postcode?: string | undefined;
  brandNames?: readonly string[] | undefined;
  /** The fuel's index (fuelIndex): a station with an available current price of a fuel counting towards it. */
  fuel?: number | undefined;
  /** max_age: only stations with an available current price (of `fuel` when given) reported at or after this Unix second. */
  freshSince?: number | undefined;
  /** Only stations inside this box of latitude and longitude (a near search's first cut: domain/nearby.ts). */
  box?: Box | undefined;
}

/** A station list query as filters to bind, given the brand names its brand id stands for (brands.ts). */
export function stationFilter(query: StationListQuery, brandNames: readonly string[] | undefined): StationFilter {
  return {
    state: query.state, city: query.city, suburb: query.suburb?.toLowerCase(), postcode: query.postcode, brandNames,
    fuel: query.fuel === undefined ? undefined : fuelIndex(query.fuel), freshSince: query.freshSince,
    box: query.near === undefined ? undefined : boxAround(query.near.centre, query.near.radiusKm),
  };
}

export interface StationListSql {
  count: string;
  page: string;
  /** Every matching station's id and position, unordered (a near search ranks them: read-models/ranking.ts). */
  points: string;
  /** The filters' parameters; the page appends limit and offset. */
  params: Params;
}

/**
 * The station list's statements, built from which filters are present (and how many brand names),
 * never from their values: a handful of shapes, each built once and kept, so that SQLite's
 * statement cache sees the same texts. Without filters they are the plain list's statements.
 */
function stationListStatements(d: Dialect): (filter: StationFilter) => StationListSql {
  const shapes = new Map<string, { count: string; page: string; points: string }>();
  return (filter) => {
    // Each term: a key for its shape, its SQL given its first parameter's number, and its values.
    const terms: Array<{ key: string; sql: (n: number) => string; values: readonly unknown[] }> = [];
    if (filter.state !== undefined) terms.push({ key: 's', sql: (n) => `state = $${n}`, values: [filter.state] });
    if (filter.city !== undefined) terms.push({ key: 'c', sql: (n) => `city_id = $${n}`, values: [filter.city] });
    if (filter.suburb !== undefined) terms.push({ key: 'u', sql: (n) => `lower(suburb) = $${n}`, values: [filter.suburb] });
    if (filter.postcode !== undefined) terms.push({ key: 'p', sql: (n) => `postcode = $${n}`, values: [filter.postcode] });
    const brands = filter.brandNames ?? [];
    if (brands.length > 0) {
      terms.push({ key: `b${brands.length}`, sql: (n) => `brand IN (${brands.map((_, i) => `$${n + i}`).join(', ')})`, values: brands });
    }
    if (filter.fuel !== undefined && filter.freshSince !== undefined) {
      terms.push({ key: 'fa', sql: (n) => `EXISTS (SELECT 1 FROM current_prices c JOIN fuel_groups g ON g.fuel = c.fuel
      WHERE c.station_key = stations.key AND c.available = TRUE AND g.output = $${n} AND c.reported_at >= $${n + 1})`, values: [filter.fuel, filter.freshSince] });
    } else if (filter.fuel !== undefined) {
      terms.push({ key: 'f', sql: (n) => `EXISTS (SELECT 1 FROM current_prices c JOIN fuel_groups g ON g.fuel = c.fuel
      WHERE c.station_key = stations.key AND c.available = TRUE AND g.output = $${n})`, values: [filter.fuel] });
    } else if (filter.freshSince !== undefined) {
      terms.push({ key: 'a', sql: (n) => `EXISTS (SELECT 1 FROM current_prices c
      WHERE c.station_key = stations.key AND c.available = TRUE AND c.reported_at >= $${n})`, values: [filter.freshSince] });
    }
    const box = filter.box;
    if (box) {
      terms.push({ key: 'x', sql: (n) => `latitude BETWEEN $${n} AND $${n + 1} AND longitude BETWEEN $${n + 2} AND $${n + 3}`, values: [box.south, box.north, box.west, box.east] });
    }
    const params = terms.flatMap((t) => t.values);
    const key = terms.map((t) => t.key).join(',');
    let shape = shapes.get(key);
    if (!shape) {
      let next = 1;
      const where = terms.map((t) => { const sql = t.sql(next); next += t.values.length; return sql; }).join(' AND ');
      const from = where === '' ? 'FROM stations' : `FROM stations WHERE ${where}`;
      shape = {
        count: `SELECT count(*) AS n ${from}`,
        page: `SELECT ${STATION_SELECT} ${from} ORDER BY ${d.byteOrder('id')} LIMIT $${next} OFFSET $${next + 1}`,
        points: `SELECT id, latitude, longitude ${from}`,
      };
      shapes.set(key, shape);
    }
    return { ...shape, params };
  };
}

export function readStatements(d: Dialect) {
  return {
    ping: 'SELECT 1',
    dataVersion: "SELECT value FROM meta WHERE key = 'data_version'",
    versions: VERSIONS,
    countCities: 'SELECT count(*) AS n FROM cities',
    countCitiesInState: 'SELECT count(*) AS n FROM cities WHERE state = $1',
    citiesPage: `SELECT ${CITY_COLUMNS} FROM cities ORDER BY ${d.byteOrder('id')} LIMIT $1 OFFSET $2`,
    citiesPageInState: `SELECT ${CITY_COLUMNS} FROM cities WHERE state = $1 ORDER BY ${d.byteOrder('id')} LIMIT $2 OFFSET $3`,
    city: `SELECT ${CITY_COLUMNS} FROM cities WHERE id = $1`,
    /** The station list's count and page for the filters given (stationList below). */
    stationList: stationListStatements(d),
    /** Stations per brand name (/v1/brands, and the names a brand id stands for: storage/brands.ts). */
    brandCounts: 'SELECT brand, count(*) AS n FROM stations GROUP BY brand',
    brandCountsInState: 'SELECT brand, count(*) AS n FROM stations WHERE state = $1 GROUP BY brand',
    station: `SELECT ${STATION_SELECT} FROM stations WHERE id = $1`,
    /** The id now of the station an old id was (docs/DATA.md "Ids"). */
    stationAlias: 'SELECT s.id FROM station_aliases a JOIN stations s ON s.key = a.station_key WHERE a.id = $1',
    /** A page of stations by id, in no order (`IN` with n placeholders: one shape per page size). */
    stationsByIds: (n: number) => `SELECT ${STATION_SELECT} FROM stations WHERE id IN (${placeholders(n)})`,
    stationKey: 'SELECT key, state FROM stations WHERE id = $1',
    /** One station's daily sums and runs within [$2, $3], as stationDays merges them (run-days.ts). */
    stationDaily: 'SELECT fuel, day, weighted_tenths, seconds FROM station_daily WHERE station_key = $1 AND day BETWEEN $2 AND $3 ORDER BY day, fuel',
    stationRuns: `SELECT fuel, from_day, to_day, price_tenths FROM station_runs
      WHERE station_key = $1 AND to_day >= $2 AND from_day <= $3 ORDER BY fuel, to_day`,
    currentForStation: `SELECT ${CURRENT_COLUMNS} FROM stations s JOIN current_prices c ON c.station_key = s.key
      WHERE s.id = $1 ORDER BY c.fuel`,
    /**
     * n stations with their current prices (a station's prices and the batch route), in two reads: the stations by id,
     * then their prices by key as numbers only, by key then fuel (no station's strings repeated on each of its price
     * rows). An out-of-stock fuel brings its last available price (NULL when it never had one).
     */
    stationKeysByIds: (n: number) => `SELECT s.key, s.id, s.name, s.feed FROM stations s WHERE s.id IN (${placeholders(n)}) ORDER BY s.key`,
    stationPricesByKeys: (n: number) => `SELECT c.station_key, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from, ${LAST_AVAILABLE}
      FROM current_prices c WHERE c.station_key IN (${placeholders(n)}) ORDER BY c.station_key, c.fuel`,
    currentForCity: `SELECT ${CURRENT_COLUMNS} FROM stations s JOIN current_prices c ON c.station_key = s.key
      WHERE s.city_id = $1 ORDER BY ${d.byteOrder('s.id')}, c.fuel`,
    /** Today's count and sum per reported fuel with an available price, kept on write (city_current). */
    citySums: 'SELECT fuel, available_count, sum_tenths FROM city_current WHERE city_id = $1 AND available_count > 0 ORDER BY fuel',
    /** Per state, its totals kept on write (state_current) with min and max by two index steps each (current_prices_by_state): /v1/prices. */
    stateTotals: `SELECT t.fuel, t.available_count, t.sum_tenths,
      (SELECT min(c.price_tenths) FROM current_prices c WHERE c.state = t.state AND c.available = TRUE AND c.fuel = t.fuel) AS min_tenths,
      (SELECT max(c.price_tenths) FROM current_prices c WHERE c.state = t.state AND c.available = TRUE AND c.fuel = t.fuel) AS max_tenths
      FROM state_current t WHERE t.state = $1 AND t.available_count > 0 ORDER BY t.fuel`,
    /** The nation's: the states' counts and sums added up, min and max by two steps each in current_prices_by_fuel. */
    nationTotals: `SELECT t.fuel, t.n AS available_count, t.s AS sum_tenths,
      (SELECT min(c.price_tenths) FROM current_prices c WHERE c.fuel = t.fuel AND c.available = TRUE) AS min_tenths,
      (SELECT max(c.price_tenths) FROM current_prices c WHERE c.fuel = t.fuel AND c.available = TRUE) AS max_tenths
      FROM (SELECT fuel, sum(available_count) AS n, sum(sum_tenths) AS s FROM state_current GROUP BY fuel) t
      WHERE t.n > 0 ORDER BY t.fuel`,
    /**
     * The available current prices counting towards output fuel $1 (its members, for a combined fuel), with their
     * station's city and state, for /v1/prices/cheapest in a city or a state: read once a data version and kept
     * (read-models/area-prices.ts).
     */
    areaFuelPrices: `SELECT ${PRICED}, c.city_id, c.state FROM current_prices c JOIN stations s ON s.key = c.station_key WHERE ${OF_OUTPUT}`,
    /** For the position index (read-models/positions.ts): every station's position, and every available price of output fuel $1. */
    positions: 'SELECT key, id, latitude, longitude FROM stations WHERE latitude IS NOT NULL',
    fuelPricesByKey: `SELECT c.station_key, c.price_tenths, c.reported_at FROM current_prices c WHERE ${OF_OUTPUT}`,
    /** citySums with min and max, by two index steps each (current_prices_by_city). */
    cityTotals: `SELECT t.fuel, t.available_count, t.sum_tenths,
      (SELECT min(c.price_tenths) FROM current_prices c WHERE c.city_id = t.city_id AND c.available = TRUE AND c.fuel = t.fuel) AS min_tenths,
      (SELECT max(c.price_tenths) FROM current_prices c WHERE c.city_id = t.city_id AND c.available = TRUE AND c.fuel = t.fuel) AS max_tenths
      FROM city_current t WHERE t.city_id = $1 AND t.available_count > 0 ORDER BY t.fuel`,
    /**
     * A city's stations out of stock per output fuel, from its out-of-stock reports (few, found by
     * current_prices_by_city): each output the report's fuel counts towards (fuel_groups), unless
     * the station has an available report counting towards it too. Cheaper than pooling every
     * current price of those stations in JS.
     */
    cityOutOfStock: `SELECT DISTINCT g.output AS fuel, s.id AS station_id
      FROM current_prices o JOIN fuel_groups g ON g.fuel = o.fuel JOIN stations s ON s.key = o.station_key
      WHERE o.city_id = $1 AND o.available = FALSE
        AND NOT EXISTS (SELECT 1 FROM current_prices c JOIN fuel_groups h ON h.fuel = c.fuel AND h.output = g.output
          WHERE c.station_key = o.station_key AND c.available = TRUE)`,
    /** The city's state and the day its sealed days end ($1 when its state has no seal yet). */
    citySeal: `SELECT c.state, coalesce(l.sealed_before, $1) AS sealed_before
      FROM cities c LEFT JOIN seals l ON l.state = c.state WHERE c.id = $2`,
    cityDailyMarks: 'SELECT block, mark FROM city_daily_marks WHERE city_id = $1',
    /** A city's runs of means (sql/city-runs.ts) that reach into days [$2, $3]: they end by $4, the last day of $3's block. */
    cityRuns: 'SELECT fuel, from_day, to_day, mean_tenths FROM city_runs WHERE city_id = $1 AND to_day BETWEEN $2 AND $4 AND from_day <= $3',
    cityLiveDay: cityLiveDaySql(d),
    cityStationDaily: `SELECT s.id AS station_id, d.fuel, d.day, d.weighted_tenths, d.seconds
      FROM stations s JOIN station_daily d ON d.station_key = s.key
      WHERE s.city_id = $1 AND d.day BETWEEN $2 AND $3 ORDER BY ${d.byteOrder('s.id')}, d.day, d.fuel`,
    cityStationRuns: `SELECT s.id AS station_id, s.state, r.fuel, r.from_day, r.to_day, r.price_tenths
      FROM stations s JOIN station_runs r ON r.station_key = s.key
      WHERE s.city_id = $1 AND r.to_day >= $2 AND r.from_day <= $3 ORDER BY ${d.byteOrder('s.id')}, r.fuel, r.to_day`,
    /**
     * The fresh series' parts (domain/fresh.ts) of output fuel $2 in city $1 over days $3..$4: per day the sum and
     * count of the station daily means (`* 1.0`: REAL on SQLite, exact numeric on PostgreSQL), and the runs.
     */
    cityFreshRowDays: `SELECT d.day, sum(d.weighted_tenths * 1.0 / d.seconds) AS mean_sum, count(*) AS n
      FROM stations s JOIN station_daily d ON d.station_key = s.key JOIN fuel_groups g ON g.fuel = d.fuel
      WHERE s.city_id = $1 AND g.output = $2 AND d.seconds > 0 AND d.day BETWEEN $3 AND $4 GROUP BY d.day`,
    /**
     * With each run, the instants of its station and fuel's reports from $5 days before its first day to the day after its
     * last (UTC days: a margin either side of the local ones, which the reader works out), or one row with none.
     * (Days cast to BIGINT before × 86400: a 32-bit product on PostgreSQL would overflow in 2038.)
     */
    cityFreshRuns: `SELECT s.state, r.station_key, r.fuel, r.from_day, r.to_day, r.price_tenths, e.at
      FROM stations s JOIN station_runs r ON r.station_key = s.key JOIN fuel_groups g ON g.fuel = r.fuel
      LEFT JOIN price_events e ON e.station_key = r.station_key AND e.fuel = r.fuel
        AND e.at >= CAST(r.from_day - $5 AS BIGINT) * 86400 AND e.at < CAST(r.to_day + 2 AS BIGINT) * 86400
      WHERE s.city_id = $1 AND g.output = $2 AND r.to_day >= $3 AND r.from_day <= $4
      ORDER BY r.station_key, r.fuel, r.from_day`,
    /**
     * Every held price (pending_prices: dated ahead, WA's tomorrow) with its station, what `tomorrow` is read from
     * (domain/tomorrow.ts): read once a data version and kept (read-models/held-index.ts), each station's together, by fuel
     * and instant. In pending_prices' key order, so that the held rows are read and each finds its station by key: with
     * nothing held, nothing is read (by station key instead, every station was read to find none: 0.4 ms).
     */
    heldPrices: `SELECT s.id AS station_id, s.city_id, s.state, s.latitude, s.longitude, p.fuel, p.at, p.price_tenths, p.available
      FROM pending_prices p JOIN stations s ON s.feed = p.feed AND s.feed_code = p.feed_code ORDER BY p.feed, p.feed_code, p.fuel, p.at`,
    counts: `SELECT (SELECT count(*) FROM cities) AS cities, (SELECT count(*) FROM stations) AS stations,
      (SELECT count(*) FROM price_events) AS prices`,
  } as const;
}

/**
 * Today for a city in one statement (see LiveDaySums): per reported fuel, the sum and count of
 * the stations' time-weighted means of the day. A price whose open interval began before the
 * day did not change today, so it has no closed interval today (closed ones never reach past
 * open_from) and its mean is the price itself: those come from city_current's count and sum,
 * less the prices that did change. Only the prices that changed today (found by the index
 * current_prices_changed, keyed by city and open_from) are worked out one by one: the stored
 * closed intervals of the day plus the open one up to now, counted only while available, as
 * stationFuelDayMeans does in JS. Params: $1 city id, $2 day, $3 the day's first instant
 * (before now), $4 now.
 */
function cityLiveDaySql(d: Dialect): string {
  const open = 'CASE WHEN c.available = TRUE AND c.open_from < $4 THEN $4 - c.open_from ELSE 0 END';
  const closed = (column: string): string => `CASE WHEN d.seconds > 0 THEN d.${column} ELSE 0 END`;
  // One pass over the changed prices, grouped once: per fuel, their day means (NULL when the
  // price had no seconds today) less their prices, beside city_current's totals.
  return `SELECT fuel, sum(sum_means) AS sum_means, sum(n) AS n FROM (
    SELECT fuel, CAST(sum_tenths AS DOUBLE PRECISION) AS sum_means, available_count AS n FROM city_current WHERE city_id = $1
    UNION ALL
    SELECT fuel, coalesce(sum(mean${d.sumOrder('station_key')}), 0) - sum(CASE WHEN available = TRUE THEN CAST(price_tenths AS DOUBLE PRECISION) ELSE 0 END),
      count(mean) - sum(CASE WHEN available = TRUE THEN 1 ELSE 0 END)
    FROM (
      SELECT c.fuel, c.station_key, c.available, c.price_tenths,
        CAST(${closed('weighted_tenths')} + c.price_tenths * ${open} AS DOUBLE PRECISION) / nullif(${closed('seconds')} + ${open}, 0) AS mean
      FROM current_prices c
      LEFT JOIN station_daily d ON d.station_key = c.station_key AND d.day = $2 AND d.fuel = c.fuel
      WHERE c.city_id = $1 AND c.open_from > $3
    ) touched GROUP BY fuel
  ) parts GROUP BY fuel HAVING sum(n) > 0 ORDER BY fuel`;
}

export const BUMP_TOKENS_VERSION = "UPDATE meta SET value = value + 1 WHERE key = 'tokens_version'";

export function tokenStatements(d: Dialect) {
  return {
    create: 'INSERT INTO tokens (id, name, hash, created_at, expires_at, revoked_at, rate_limit) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    bumpVersion: BUMP_TOKENS_VERSION,
    byId: 'SELECT * FROM tokens WHERE id = $1',
    list: `SELECT * FROM tokens ORDER BY created_at, ${d.byteOrder('id')}`,
    revoke: 'UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
  } as const;
}

export function copyStatements(d: Dialect) {
  return {
    saveProgress: `INSERT INTO copy_progress (table_name, source, after_key, rows, done) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (table_name) DO UPDATE SET source = excluded.source, after_key = excluded.after_key, rows = excluded.rows, done = excluded.done`,
    progress: `SELECT table_name, source, after_key, rows, done FROM copy_progress ORDER BY ${d.byteOrder('table_name')}`,
  } as const;
}
