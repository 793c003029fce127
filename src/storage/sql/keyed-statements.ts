import { STATION_FIELD_COLUMNS } from '../station-shape.ts';
import type { ForKeys } from './dialect.ts';

/**
 * The writer's reads and writes of many keys at once (ForKeys), as applyBatch and seal run them
 * (writer.ts): on SQLite one statement per key, on PostgreSQL one for them all through unnest().
 * Each pair selects the same rows. Its single statements are ingest-statements.ts's.
 */

/** A stored station as the writer reads it: its keys and place, and its fields (station-shape.ts). */
const STORED_STATION = `key, id, city_id, feed, feed_code, named_at, ${STATION_FIELD_COLUMNS.join(', ')}`;

/** Stations by (feed, feed code). */
export const STATIONS_BY_FEED: ForKeys = {
  width: 2,
  each: `SELECT ${STORED_STATION} FROM stations WHERE feed = $1 AND feed_code = $2`,
  all: `SELECT ${STORED_STATION} FROM stations WHERE (feed, feed_code) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
};

/** Current prices by (station key, fuel). */
export const CURRENT_STATES: ForKeys = {
  width: 2,
  each: 'SELECT station_key, fuel, price_tenths, available, reported_at, open_from FROM current_prices WHERE station_key = $1 AND fuel = $2',
  all: `SELECT c.station_key, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
    FROM current_prices c JOIN unnest($1::int[], $2::smallint[]) AS k (station_key, fuel) USING (station_key, fuel)`,
};

/** Stored reports by (station key, fuel, first instant, last instant): those at a group's instants are among them. */
export const STORED_REPORTS: ForKeys = {
  width: 4,
  each: 'SELECT station_key, fuel, at, price_tenths, available FROM price_events WHERE station_key = $1 AND fuel = $2 AND at BETWEEN $3 AND $4',
  all: `SELECT e.station_key, e.fuel, e.at, e.price_tenths, e.available
    FROM price_events e JOIN unnest($1::int[], $2::smallint[], $3::bigint[], $4::bigint[]) AS k (station_key, fuel, low, high)
    ON e.station_key = k.station_key AND e.fuel = k.fuel AND e.at BETWEEN k.low AND k.high`,
};

/** Corrections by (station key, fuel, instant, price, availability): a stored instant's new price or availability. */
export const CORRECT_REPORTS: ForKeys = {
  width: 5,
  each: 'UPDATE price_events SET price_tenths = $4, available = $5 WHERE station_key = $1 AND fuel = $2 AND at = $3',
  all: `UPDATE price_events e SET price_tenths = u.price_tenths, available = u.available
    FROM unnest($1::int[], $2::smallint[], $3::bigint[], $4::int[], $5::boolean[]) AS u (station_key, fuel, at, price_tenths, available)
    WHERE e.station_key = u.station_key AND e.fuel = u.fuel AND e.at = u.at`,
};

/** The seal's runs by (station key, fuel, first day, last day, price): a stored run ending the day before at that price is lengthened; those are returned. */
export const LENGTHEN_RUNS: ForKeys = {
  width: 5,
  each: `UPDATE station_runs SET to_day = $4 WHERE station_key = $1 AND fuel = $2 AND to_day = $3 - 1 AND price_tenths = $5
    RETURNING station_key, fuel, to_day`,
  all: `UPDATE station_runs r SET to_day = u.to_day
    FROM unnest($1::int[], $2::smallint[], $3::int[], $4::int[], $5::int[]) AS u (station_key, fuel, from_day, to_day, price_tenths)
    WHERE r.station_key = u.station_key AND r.to_day = u.from_day - 1 AND r.fuel = u.fuel AND r.price_tenths = u.price_tenths
    RETURNING r.station_key, r.fuel, r.to_day`,
};
