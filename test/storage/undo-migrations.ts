/**
 * The exact inverse of migration 12 (stations may have no position), for the upgrade tests: the
 * stations table as version 11 had it, every row kept (the fixture's stations all have positions).
 */
export const SQLITE_UNDO_12 = `
  CREATE TABLE stations_v11 (
    key INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    feed TEXT NOT NULL,
    feed_code TEXT NOT NULL,
    name TEXT NOT NULL,
    brand TEXT NOT NULL,
    address TEXT NOT NULL,
    street TEXT NOT NULL,
    suburb TEXT NOT NULL,
    postcode TEXT NOT NULL,
    state TEXT NOT NULL,
    phone TEXT NOT NULL,
    website TEXT NOT NULL,
    latitude REAL NOT NULL,
    longitude REAL NOT NULL,
    city_id TEXT REFERENCES cities (id),
    UNIQUE (feed, feed_code)
  );
  INSERT INTO stations_v11 SELECT key, id, feed, feed_code, name, brand, address, street, suburb, postcode, state, phone, website,
    latitude, longitude, city_id FROM stations;
  DROP TABLE stations;
  ALTER TABLE stations_v11 RENAME TO stations;
  CREATE INDEX stations_by_state ON stations (state, id);
  CREATE INDEX stations_by_city ON stations (city_id, id);
  CREATE INDEX stations_by_position ON stations (latitude, longitude, id);
`;

export const POSTGRES_UNDO_12 = `
  ALTER TABLE stations DROP CONSTRAINT stations_position_whole,
    ALTER COLUMN latitude SET NOT NULL, ALTER COLUMN longitude SET NOT NULL;
`;

/** The exact inverse of migration 13 (the change numbers of the changes feed). */
export const SQLITE_UNDO_13 = `
  DROP INDEX current_prices_by_change;
  ALTER TABLE current_prices DROP COLUMN change_seq;
  DELETE FROM meta WHERE key = 'change_seq';
`;

export const POSTGRES_UNDO_13 = `
  DROP INDEX current_prices_by_change;
  ALTER TABLE current_prices DROP COLUMN change_seq;
  DELETE FROM meta WHERE key = 'change_seq';
`;

/** The exact inverse of migration 14 (the stations' indexes by city or state, then feed and feed code). */
export const SQLITE_UNDO_14 = `
  DROP INDEX stations_by_city_feed;
  DROP INDEX stations_by_state_feed;
`;

export const POSTGRES_UNDO_14 = SQLITE_UNDO_14;

/** The exact inverse of migration 15 (city days left to the next seal; the marks' triggers held by the writer): version 7's triggers back. */
export const SQLITE_UNDO_15 = `
  DROP TRIGGER city_daily_marks_on_insert;
  DROP TRIGGER city_daily_marks_on_update;
  DROP TRIGGER city_daily_marks_on_delete;
  CREATE TRIGGER city_daily_marks_on_insert AFTER INSERT ON city_daily BEGIN
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (NEW.city_id, NEW.day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
  END;
  CREATE TRIGGER city_daily_marks_on_update AFTER UPDATE ON city_daily BEGIN
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (OLD.city_id, OLD.day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (NEW.city_id, NEW.day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
  END;
  CREATE TRIGGER city_daily_marks_on_delete AFTER DELETE ON city_daily BEGIN
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (OLD.city_id, OLD.day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
  END;
  DROP TABLE city_daily_marks_held;
  DROP TABLE city_days_stale;
`;

export const POSTGRES_UNDO_15 = `
  DROP TABLE city_days_stale;
`;

/** The exact inverse of migration 16 (station aliases; the date of a history station's fields). */
export const SQLITE_UNDO_16 = `
  ALTER TABLE stations DROP COLUMN named_at;
  DROP TABLE station_aliases;
`;

export const POSTGRES_UNDO_16 = SQLITE_UNDO_16;

/** The exact inverse of migration 17 (city means as runs within blocks): city_daily back, a row a day, with version 15's triggers and their hold. */
export const SQLITE_UNDO_17 = `
  CREATE TABLE city_daily (
    city_id TEXT NOT NULL,
    day INTEGER NOT NULL,
    fuel INTEGER NOT NULL,
    mean_tenths REAL NOT NULL,
    PRIMARY KEY (city_id, day, fuel)
  ) WITHOUT ROWID;
  INSERT INTO city_daily (city_id, day, fuel, mean_tenths)
    WITH RECURSIVE d (city_id, day, fuel, to_day, mean_tenths) AS (
      SELECT city_id, from_day, fuel, to_day, mean_tenths FROM city_runs
      UNION ALL SELECT city_id, day + 1, fuel, to_day, mean_tenths FROM d WHERE day < to_day)
    SELECT city_id, day, fuel, mean_tenths FROM d;
  UPDATE copy_progress SET table_name = 'city_daily' WHERE table_name = 'city_runs';
  DROP TABLE city_runs;
  CREATE TABLE city_daily_marks_held (held INTEGER NOT NULL);
  CREATE TRIGGER city_daily_marks_on_insert AFTER INSERT ON city_daily WHEN NOT EXISTS (SELECT 1 FROM city_daily_marks_held) BEGIN
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (NEW.city_id, NEW.day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
  END;
  CREATE TRIGGER city_daily_marks_on_update AFTER UPDATE ON city_daily WHEN NOT EXISTS (SELECT 1 FROM city_daily_marks_held) BEGIN
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (OLD.city_id, OLD.day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (NEW.city_id, NEW.day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
  END;
  CREATE TRIGGER city_daily_marks_on_delete AFTER DELETE ON city_daily WHEN NOT EXISTS (SELECT 1 FROM city_daily_marks_held) BEGIN
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (OLD.city_id, OLD.day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
  END;
`;

/** The same on PostgreSQL: city_daily back with version 7's statement triggers and their functions (city_daily_marks_move stayed). */
export const POSTGRES_UNDO_17 = `
  CREATE TABLE city_daily (
    city_id text COLLATE "C" NOT NULL,
    day integer NOT NULL,
    fuel smallint NOT NULL,
    mean_tenths double precision NOT NULL,
    PRIMARY KEY (city_id, day, fuel)
  );
  INSERT INTO city_daily (city_id, day, fuel, mean_tenths)
    SELECT city_id, generate_series(from_day, to_day), fuel, mean_tenths FROM city_runs;
  UPDATE copy_progress SET table_name = 'city_daily' WHERE table_name = 'city_runs';
  DROP TABLE city_runs;
  DROP FUNCTION city_runs_marks_inserted(); DROP FUNCTION city_runs_marks_updated(); DROP FUNCTION city_runs_marks_deleted();
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
`;
