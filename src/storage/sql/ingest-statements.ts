import { STATION_FIELD_COLUMNS } from '../station-shape.ts';
import { newDataVersion } from '../versions.ts';
import type { Connection } from './connection.ts';
import type { BulkInsert } from './dialect.ts';

/**
 * What ingest runs (the writer's single statements and bulk inserts, feed runs and cursors, held
 * prices), written once for both backends (see statements.ts); the writer's statements of many
 * keys at once are keyed-statements.ts's.
 */

/** The columns of feed_runs in insert order (feedRunValues gives a run's values in the same order). */
export const FEED_RUN_COLUMNS = ['feed', 'started_at', 'finished_at', 'stations_added', 'stations_updated', 'prices_accepted',
  'prices_ignored', 'prices_held', 'rejected', 'rejections', 'error', 'interval_sec'] as const;

/**
 * A station's write: its fields (station-shape.ts, bound by fieldValues in column order), then
 * its city and the date its fields are from, then (update) its key or (insert) its id and feed.
 */
const FIELD_COUNT = STATION_FIELD_COLUMNS.length;
const UPDATE_STATION = `UPDATE stations SET ${STATION_FIELD_COLUMNS.map((c, i) => `${c} = $${i + 1}`).join(', ')},
    city_id = $${FIELD_COUNT + 1}, named_at = $${FIELD_COUNT + 2} WHERE key = $${FIELD_COUNT + 3}`;
const INSERT_STATION = `INSERT INTO stations (${STATION_FIELD_COLUMNS.join(', ')}, city_id, named_at, id, feed, feed_code)
    VALUES (${Array.from({ length: FIELD_COUNT + 5 }, (_, i) => `$${i + 1}`).join(', ')}) RETURNING key`;

/** Runs older than this are dropped from the log as new ones are recorded. */
export const RUN_LOG_DAYS = 90;

export const INGEST_STATEMENTS = {
  /** A new data version: $1 a random number (bumpDataVersion below), never the one it replaces. */
  bumpDataVersion: "UPDATE meta SET value = CASE WHEN value = $1 THEN $1 + 1 ELSE $1 END WHERE key = 'data_version'",
  /** The last change number handed out, read and saved by the writer under its lock (storage/sql/changes.ts). */
  lastChange: "SELECT value FROM meta WHERE key = 'change_seq'",
  saveLastChange: "UPDATE meta SET value = $1 WHERE key = 'change_seq'",
  seals: 'SELECT state, sealed_before FROM seals',
  saveSeal: 'INSERT INTO seals (state, sealed_before) VALUES ($1, $2) ON CONFLICT (state) DO UPDATE SET sealed_before = excluded.sealed_before',
  citiesInState: 'SELECT id, latitude, longitude FROM cities WHERE state = $1',
  /** Held prices now due, taken out in one statement (sorted by the caller: RETURNING has no order). */
  releasePending: 'DELETE FROM pending_prices WHERE at <= $1 RETURNING feed, feed_code, fuel, at, price_tenths, available',
  /** Every held price still to come (a day's worth at most: what is due is released). */
  pendingAfter: 'SELECT feed, feed_code, fuel, at, price_tenths, available FROM pending_prices WHERE at > $1',
  /** A held price published anew with another price or availability: the later row wins. */
  correctPending: 'UPDATE pending_prices SET price_tenths = $5, available = $6 WHERE feed = $1 AND feed_code = $2 AND fuel = $3 AND at = $4',
  saveCursor: `INSERT INTO feed_cursors (key, value, updated_at) VALUES ($1, $2, $3)
    ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  feedCursor: 'SELECT value FROM feed_cursors WHERE key = $1',
  feedStations: 'SELECT id, feed_code, name, brand, address, street, suburb, postcode, state FROM stations WHERE feed = $1 ORDER BY key',
  recordRun: `INSERT INTO feed_runs (${FEED_RUN_COLUMNS.join(', ')}) VALUES (${FEED_RUN_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
  forgetRuns: 'DELETE FROM feed_runs WHERE finished_at < $1',
  /** Every run recorded is counted, $2 = 1 when it failed; the log above is pruned, these counts never are. */
  countRun: `INSERT INTO feed_counts (feed, runs, failures) VALUES ($1, 1, $2)
    ON CONFLICT (feed) DO UPDATE SET runs = feed_counts.runs + 1, failures = feed_counts.failures + excluded.failures`,
  feedCounts: 'SELECT feed, runs, failures FROM feed_counts ORDER BY feed',
  feedRuns: 'SELECT * FROM feed_runs ORDER BY id DESC LIMIT $1',
  feedRunsOf: 'SELECT * FROM feed_runs WHERE feed = $1 ORDER BY id DESC LIMIT $2',
  feedHealth: `SELECT feed, max(finished_at) AS last_run, max(CASE WHEN error IS NULL THEN finished_at END) AS last_success,
    max(interval_sec) AS interval_sec FROM feed_runs GROUP BY feed ORDER BY feed`,
  updateStation: UPDATE_STATION,
  /** A station takes over the stored station of another code of its feed (StationInput.adopts). */
  adoptStation: 'UPDATE stations SET feed_code = $1 WHERE key = $2',
  stationNamedAt: 'UPDATE stations SET named_at = $1 WHERE key = $2',
  /** A station's id changes ($1 the new id): the old one ($3) becomes its alias; an alias of its own it takes back is one no more. */
  renameStation: 'UPDATE stations SET id = $1 WHERE key = $2',
  keepAlias: 'INSERT INTO station_aliases (id, station_key) VALUES ($1, $2)',
  dropAlias: 'DELETE FROM station_aliases WHERE id = $1 AND station_key = $2',
  /**
   * The ids of this slug and its numbered forms that stations have, or had (an alias keeps
   * answering its station), with the station's key: the slug itself and `<slug>-…` (slugs are
   * [a-z0-9-], and '.' follows '-' in byte order, so the range is exactly the ids that start
   * `<slug>-`; an index range on either backend, where LIKE would scan SQLite's table).
   */
  takenIds: `SELECT id, key AS station_key FROM stations WHERE id = $1 OR (id > $2 AND id < $3)
    UNION SELECT id, station_key FROM station_aliases WHERE id = $1 OR (id > $2 AND id < $3)`,
  /** A station that moved to another city or state takes its current prices along (triggers move the totals). */
  moveCurrentPrices: 'UPDATE current_prices SET city_id = $1, state = $2 WHERE station_key = $3',
  insertStation: INSERT_STATION,
  /** A group's stored reports at the instants a batch brings (new, already known, or corrected: late-reports.ts). */
  storedReportsBetween: 'SELECT at, price_tenths, available FROM price_events WHERE station_key = $1 AND fuel = $2 AND at BETWEEN $3 AND $4',
  correctReport: 'UPDATE price_events SET price_tenths = $1, available = $2 WHERE station_key = $3 AND fuel = $4 AND at = $5',
  // Late reports' reads and drops: sql/late-settle.ts (one statement a kind, for every group of a batch).
  /** The seal: every price of the state still open before the cutoff, then all of them moved on to it. */
  openBefore: `SELECT c.station_key, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
    FROM current_prices c JOIN stations s ON s.key = c.station_key WHERE s.state = $1 AND c.open_from < $2`,
  moveOpenTo: 'UPDATE current_prices SET open_from = $1 WHERE open_from < $2 AND station_key IN (SELECT key FROM stations WHERE state = $3)',
  /**
   * A state's first day with any sums or runs, on its first seal: each station's first row is the
   * first entry of its key range; runs are read whole (a run's first day is not in its key).
   */
  firstDayOfState: `SELECT min(d) AS d FROM (
    SELECT (SELECT min(day) FROM station_daily WHERE station_key = s.key) AS d FROM stations s WHERE s.state = $1
    UNION ALL SELECT (SELECT min(from_day) FROM station_runs WHERE station_key = s.key) FROM stations s WHERE s.state = $2) firsts`,
  /** City means (city-means.ts, city-runs.ts): the cities of a state, and a city's stored runs that end in [$2, $3] and begin by $4. */
  citiesOfState: 'SELECT id FROM cities WHERE state = $1',
  cityRunsNear: 'SELECT fuel, from_day, to_day, mean_tenths FROM city_runs WHERE city_id = $1 AND to_day BETWEEN $2 AND $3 AND from_day <= $4',
  /** Sealed city days left to the next seal (stale-city-days.ts): noted, widened, read, forgotten. */
  noteStaleCityDays: `INSERT INTO city_days_stale (city_id, from_day, to_day) VALUES ($1, $2, $3) ON CONFLICT (city_id) DO UPDATE SET
    from_day = CASE WHEN excluded.from_day < city_days_stale.from_day THEN excluded.from_day ELSE city_days_stale.from_day END,
    to_day = CASE WHEN excluded.to_day > city_days_stale.to_day THEN excluded.to_day ELSE city_days_stale.to_day END`,
  staleCityDays: 'SELECT city_id, from_day, to_day FROM city_days_stale ORDER BY city_id',
  forgetStaleCityDays: 'DELETE FROM city_days_stale',
} as const;

/** Many rows at once (see BulkInsert): the same heads and conflict clauses on both backends. */
export const BULK = {
  cities: {
    into: 'cities (id, name, state, latitude, longitude)',
    types: ['text', 'text', 'text', 'double precision', 'double precision'],
    tail: `ON CONFLICT (id) DO UPDATE SET name = excluded.name, state = excluded.state,
      latitude = excluded.latitude, longitude = excluded.longitude`,
  },
  pendingPrices: {
    into: 'pending_prices (feed, feed_code, fuel, at, price_tenths, available)',
    types: ['text', 'text', 'smallint', 'bigint', 'integer', 'boolean'],
    tail: 'ON CONFLICT DO NOTHING',
  },
  priceEvents: {
    into: 'price_events (station_key, fuel, at, price_tenths, available)',
    types: ['integer', 'smallint', 'bigint', 'integer', 'boolean'],
    tail: '',
  },
  /** change_seq 0: the price and availability did not change, the row keeps the number of its last change (storage/sql/changes.ts; a new row always changes). */
  currentPrices: {
    into: 'current_prices (station_key, fuel, price_tenths, available, reported_at, open_from, city_id, state, change_seq)',
    types: ['integer', 'smallint', 'integer', 'boolean', 'bigint', 'bigint', 'text', 'text', 'bigint'],
    tail: `ON CONFLICT (station_key, fuel) DO UPDATE SET price_tenths = excluded.price_tenths, available = excluded.available,
      reported_at = excluded.reported_at, open_from = excluded.open_from, city_id = excluded.city_id, state = excluded.state,
      change_seq = CASE WHEN excluded.change_seq = 0 THEN current_prices.change_seq ELSE excluded.change_seq END`,
  },
  /** Daily sums add up: a day may get seconds from several batches and from the seal. */
  stationDaily: {
    into: 'station_daily (station_key, day, fuel, weighted_tenths, seconds)',
    types: ['integer', 'integer', 'smallint', 'bigint', 'integer'],
    tail: `ON CONFLICT (station_key, day, fuel) DO UPDATE SET
      weighted_tenths = station_daily.weighted_tenths + excluded.weighted_tenths, seconds = station_daily.seconds + excluded.seconds`,
  },
  stationRuns: {
    into: 'station_runs (station_key, to_day, fuel, from_day, price_tenths)',
    types: ['integer', 'integer', 'smallint', 'integer', 'integer'],
    tail: '',
  },
  /** Which output fuels each reported fuel counts towards (itself, and its combined id if any), written at migration. */
  fuelGroups: {
    into: 'fuel_groups (fuel, output)',
    types: ['smallint', 'smallint'],
    tail: 'ON CONFLICT DO NOTHING',
  },
  /** A city's new runs of means (city-runs.ts: those they replace were deleted first, in the same writer transaction; triggers move the blocks' marks). */
  cityRuns: {
    into: 'city_runs (city_id, to_day, fuel, from_day, mean_tenths)',
    types: ['text', 'integer', 'smallint', 'integer', 'double precision'],
    tail: '',
  },
} as const satisfies Record<string, BulkInsert>;

/** Sets a new data version (storage/versions.ts newDataVersion) in the write's transaction: what every write that changes an answer does once. */
export function bumpDataVersion(tx: Connection): Promise<number> {
  return tx.run(INGEST_STATEMENTS.bumpDataVersion, [newDataVersion()]);
}
