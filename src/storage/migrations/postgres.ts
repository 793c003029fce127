import { POSTGRES_MIGRATIONS_EARLY } from './postgres-early.ts';

/**
 * Schema versions, applied in order on start and by `fuelprice migrate`; schema_migrations
 * records which have run. Never edit a shipped migration: add the next one.
 *
 * The same tables as SQLite's (station key, fuel index 0-18, local day number), each keyed
 * in the order its reads use. Ids are text in the "C" collation so that their index order is
 * byte order, the order the API lists them in (and the one SQLite's BINARY collation gives).
 * Unix seconds are bigint (past 2038); sums of price x seconds are bigint (past 2^31).
 */
export const POSTGRES_MIGRATIONS: readonly string[] = [
  ...POSTGRES_MIGRATIONS_EARLY,
  `
  -- Sealed city history is kept formatted per block of 128 days (http/history-blocks.ts): a
  -- block's mark moves with every change to its city_daily rows (a seal, a late report, a copy),
  -- so a process holding a block formatted knows when to read it again. Every block with rows
  -- has a mark. A mark is a fresh random number (within 2^53, exact in JavaScript), not a count:
  -- a database restored from a backup does not give a mark a process has seen to other rows.
  -- Statement triggers: a seal changes thousands of rows at once.
  CREATE TABLE city_daily_marks (
    city_id text COLLATE "C" NOT NULL,
    block integer NOT NULL,
    mark bigint NOT NULL,
    PRIMARY KEY (city_id, block)
  );
  INSERT INTO city_daily_marks (city_id, block, mark)
    SELECT city_id, day / 128, (random() * 9007199254740991)::bigint FROM city_daily GROUP BY city_id, day / 128;
  CREATE FUNCTION city_daily_marks_move(moved_city text[], moved_day integer[]) RETURNS void
  LANGUAGE sql AS 'INSERT INTO city_daily_marks AS m (city_id, block, mark)
    SELECT city_id, day / 128, (random() * 9007199254740991)::bigint FROM unnest(moved_city, moved_day) AS d (city_id, day)
    WHERE city_id IS NOT NULL GROUP BY city_id, day / 128
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark';
  CREATE FUNCTION city_daily_marks_inserted() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM city_daily_marks_move(array_agg(city_id), array_agg(day)) FROM new_rows;
    RETURN NULL;
  END';
  CREATE FUNCTION city_daily_marks_updated() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM city_daily_marks_move(array_agg(city_id), array_agg(day))
    FROM (SELECT city_id, day FROM new_rows UNION ALL SELECT city_id, day FROM old_rows) d;
    RETURN NULL;
  END';
  CREATE FUNCTION city_daily_marks_deleted() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM city_daily_marks_move(array_agg(city_id), array_agg(day)) FROM old_rows;
    RETURN NULL;
  END';
  CREATE TRIGGER city_daily_marks_on_insert AFTER INSERT ON city_daily
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION city_daily_marks_inserted();
  CREATE TRIGGER city_daily_marks_on_update AFTER UPDATE ON city_daily
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION city_daily_marks_updated();
  CREATE TRIGGER city_daily_marks_on_delete AFTER DELETE ON city_daily
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION city_daily_marks_deleted();
  `,
  `
  -- Whole days at one price, one row per run (see the SQLite migration of the same number).
  CREATE TABLE station_runs (
    station_key integer NOT NULL,
    to_day integer NOT NULL,
    fuel smallint NOT NULL,
    from_day integer NOT NULL,
    price_tenths integer NOT NULL,
    PRIMARY KEY (station_key, to_day, fuel)
  );
  `,
  `
  -- The prices that changed today by when their open interval began (see the SQLite migration of
  -- the same number); the index carries the rest of what the statement reads.
  DROP INDEX current_prices_by_city;
  CREATE INDEX current_prices_by_city ON current_prices (city_id, available, fuel, price_tenths);
  CREATE INDEX current_prices_changed ON current_prices (city_id, open_from) INCLUDE (fuel, station_key, available, price_tenths);
  `,
  `
  -- /v1/prices for a state and the nation, and stations near a point (see the SQLite migration of
  -- the same number): current prices carry their station's state, state_current is kept exact by
  -- statement triggers as city_current is.
  ALTER TABLE current_prices ADD COLUMN state text COLLATE "C";
  UPDATE current_prices c SET state = s.state FROM stations s WHERE s.key = c.station_key;
  CREATE INDEX current_prices_by_state ON current_prices (state, available, fuel, price_tenths);
  CREATE INDEX current_prices_by_fuel ON current_prices (fuel, available, price_tenths);
  CREATE TABLE state_current (
    state text COLLATE "C" NOT NULL,
    fuel smallint NOT NULL,
    available_count integer NOT NULL,
    sum_tenths bigint NOT NULL,
    PRIMARY KEY (state, fuel)
  );
  INSERT INTO state_current (state, fuel, available_count, sum_tenths)
    SELECT state, fuel, count(*), sum(price_tenths) FROM current_prices
    WHERE available AND state IS NOT NULL GROUP BY state, fuel;
  CREATE FUNCTION state_current_add(delta_state text[], delta_fuel smallint[], delta_count bigint[], delta_sum bigint[]) RETURNS void
  LANGUAGE sql AS 'INSERT INTO state_current AS t (state, fuel, available_count, sum_tenths)
    SELECT state, fuel, sum(n), sum(s) FROM unnest(delta_state, delta_fuel, delta_count, delta_sum) AS d (state, fuel, n, s)
    WHERE state IS NOT NULL GROUP BY state, fuel HAVING sum(n) <> 0 OR sum(s) <> 0
    ON CONFLICT (state, fuel) DO UPDATE SET available_count = t.available_count + excluded.available_count,
      sum_tenths = t.sum_tenths + excluded.sum_tenths';
  CREATE FUNCTION state_current_inserted() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM state_current_add(array_agg(state), array_agg(fuel), array_agg(1::bigint), array_agg(price_tenths::bigint))
    FROM new_rows WHERE available;
    RETURN NULL;
  END';
  CREATE FUNCTION state_current_updated() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM state_current_add(array_agg(state), array_agg(fuel), array_agg(n), array_agg(s)) FROM (
      SELECT state, fuel, 1::bigint AS n, price_tenths::bigint AS s FROM new_rows WHERE available
      UNION ALL SELECT state, fuel, -1, -price_tenths::bigint FROM old_rows WHERE available) d;
    RETURN NULL;
  END';
  CREATE FUNCTION state_current_deleted() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM state_current_add(array_agg(state), array_agg(fuel), array_agg(-1::bigint), array_agg(-price_tenths::bigint))
    FROM old_rows WHERE available;
    RETURN NULL;
  END';
  CREATE TRIGGER state_current_on_insert AFTER INSERT ON current_prices
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION state_current_inserted();
  CREATE TRIGGER state_current_on_update AFTER UPDATE ON current_prices
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION state_current_updated();
  CREATE TRIGGER state_current_on_delete AFTER DELETE ON current_prices
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION state_current_deleted();
  CREATE INDEX stations_by_position ON stations (latitude, longitude) INCLUDE (id);
  `,
  `
  -- Each feed's runs and failed runs, counted as runs are recorded and never pruned (feed_runs
  -- keeps 90 days), so /metrics can serve them as counters that only go up. Seeded from the log.
  CREATE TABLE feed_counts (
    feed text COLLATE "C" PRIMARY KEY,
    runs bigint NOT NULL,
    failures bigint NOT NULL
  );
  INSERT INTO feed_counts (feed, runs, failures)
    SELECT feed, count(*), count(error) FROM feed_runs GROUP BY feed;
  `,
  `
  -- Stations without a position (see the SQLite migration of the same number): latitude and
  -- longitude may be NULL, both or neither.
  ALTER TABLE stations ALTER COLUMN latitude DROP NOT NULL, ALTER COLUMN longitude DROP NOT NULL,
    ADD CONSTRAINT stations_position_whole CHECK ((latitude IS NULL) = (longitude IS NULL));
  `,
  `
  -- The price changes feed (see the SQLite migration of the same number): the number of each
  -- current price's last change, handed out by the writer under its advisory lock.
  ALTER TABLE current_prices ADD COLUMN change_seq bigint NOT NULL DEFAULT 0;
  CREATE INDEX current_prices_by_change ON current_prices (change_seq);
  INSERT INTO meta (key, value) VALUES ('change_seq', 0) ON CONFLICT (key) DO NOTHING;
  `,
  `
  -- Held prices by a city's or a state's stations (see the SQLite migration of the same number).
  CREATE INDEX stations_by_city_feed ON stations (city_id, feed, feed_code);
  CREATE INDEX stations_by_state_feed ON stations (state, feed, feed_code);
  `,
  `
  -- Sealed city days a late write left to the next seal (see the SQLite migration of the same
  -- number). The marks need no change here: PostgreSQL's triggers run once a statement.
  CREATE TABLE city_days_stale (
    city_id text COLLATE "C" PRIMARY KEY,
    from_day integer NOT NULL,
    to_day integer NOT NULL
  );
  `,
  `
  -- Station ids answered before (see the SQLite migration of the same number).
  CREATE TABLE station_aliases (
    id text COLLATE "C" PRIMARY KEY,
    station_key integer NOT NULL
  );
  ALTER TABLE stations ADD COLUMN named_at bigint;
  `,
  `
  -- City means as runs within a block (see the SQLite migration of the same number). The blocks
  -- keep their marks; the statement triggers move to city_runs, each run's block its to_day's.
  CREATE TABLE city_runs (
    city_id text COLLATE "C" NOT NULL,
    to_day integer NOT NULL,
    fuel smallint NOT NULL,
    from_day integer NOT NULL,
    mean_tenths double precision NOT NULL,
    PRIMARY KEY (city_id, to_day, fuel),
    CHECK (from_day <= to_day)
  );
  INSERT INTO city_runs (city_id, to_day, fuel, from_day, mean_tenths)
    SELECT city_id, max(day), fuel, min(day), mean_tenths FROM (
      SELECT city_id, fuel, day, mean_tenths, sum(starts) OVER (PARTITION BY city_id, fuel ORDER BY day) AS run FROM (
        SELECT city_id, fuel, day, mean_tenths,
          CASE WHEN lag(day) OVER w = day - 1 AND lag(mean_tenths) OVER w = mean_tenths THEN 0 ELSE 1 END AS starts
        FROM city_daily WINDOW w AS (PARTITION BY city_id, fuel ORDER BY day)) d) r
    GROUP BY city_id, fuel, run, day / 128, mean_tenths;
  DELETE FROM city_runs WHERE EXISTS (SELECT 1 FROM copy_progress WHERE table_name = 'city_daily' AND NOT done);
  DELETE FROM copy_progress WHERE table_name = 'city_daily' AND NOT done;
  UPDATE copy_progress SET table_name = 'city_runs', after_key = NULL, rows = (SELECT count(*) FROM city_runs) WHERE table_name = 'city_daily';
  DROP TABLE city_daily;
  DROP FUNCTION city_daily_marks_inserted(); DROP FUNCTION city_daily_marks_updated(); DROP FUNCTION city_daily_marks_deleted();
  CREATE FUNCTION city_runs_marks_inserted() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM city_daily_marks_move(array_agg(city_id), array_agg(to_day)) FROM new_rows;
    RETURN NULL;
  END';
  CREATE FUNCTION city_runs_marks_updated() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM city_daily_marks_move(array_agg(city_id), array_agg(to_day))
    FROM (SELECT city_id, to_day FROM new_rows UNION ALL SELECT city_id, to_day FROM old_rows) d;
    RETURN NULL;
  END';
  CREATE FUNCTION city_runs_marks_deleted() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM city_daily_marks_move(array_agg(city_id), array_agg(to_day)) FROM old_rows;
    RETURN NULL;
  END';
  CREATE TRIGGER city_runs_marks_on_insert AFTER INSERT ON city_runs
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION city_runs_marks_inserted();
  CREATE TRIGGER city_runs_marks_on_update AFTER UPDATE ON city_runs
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION city_runs_marks_updated();
  CREATE TRIGGER city_runs_marks_on_delete AFTER DELETE ON city_runs
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION city_runs_marks_deleted();
  `,
];
