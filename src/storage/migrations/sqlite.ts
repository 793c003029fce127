import { SQLITE_MIGRATIONS_EARLY } from './sqlite-early.ts';

/**
 * Schema versions, applied in order on start and by `fuelprice migrate`; PRAGMA user_version
 * records how many have run. Never edit a shipped migration: add the next one.
 *
 * Big tables are keyed by integers (station key, fuel index 0-18, local day number) so that
 * ten years of history stay compact, and each is clustered (WITHOUT ROWID) on the key that
 * its reads use, so a window reads one contiguous range whatever the table's size.
 */
export const SQLITE_MIGRATIONS: readonly string[] = [
  ...SQLITE_MIGRATIONS_EARLY,
  `
  -- Sealed city history is kept formatted per block of 128 days (http/history-blocks.ts): a
  -- block's mark moves with every change to its city_daily rows (a seal, a late report, a copy),
  -- so a process holding a block formatted knows when to read it again. Every block with rows
  -- has a mark. A mark is a fresh random number (within 2^53, exact in JavaScript), not a count:
  -- a database restored from a backup does not give a mark a process has seen to other rows.
  CREATE TABLE city_daily_marks (
    city_id TEXT NOT NULL,
    block INTEGER NOT NULL,
    mark INTEGER NOT NULL,
    PRIMARY KEY (city_id, block)
  ) WITHOUT ROWID;
  INSERT INTO city_daily_marks (city_id, block, mark) SELECT city_id, day / 128, random() % 9007199254740991 FROM city_daily GROUP BY city_id, day / 128;
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
  `,
  `
  -- Whole days at one price, one row per run: the days between two reports that a price held
  -- from midnight to midnight, which until now took a station_daily row each (four rows in
  -- five). A day is in station_daily or in a run, never both, for a station and fuel; rows
  -- written before this version stay as they are and mean the same.
  CREATE TABLE station_runs (
    station_key INTEGER NOT NULL,
    to_day INTEGER NOT NULL,
    fuel INTEGER NOT NULL,
    from_day INTEGER NOT NULL,
    price_tenths INTEGER NOT NULL,
    PRIMARY KEY (station_key, to_day, fuel)
  ) WITHOUT ROWID;
  `,
  `
  -- Today's city history finds the prices that changed today by when their open interval began,
  -- in an index of their own (city, open_from): the city index of version 6 had open_from last,
  -- so the statement read every current price of the city (some 9,000 in Sydney) to find the
  -- few hundred that changed. The city index goes back to what the spread and stock reads use.
  DROP INDEX current_prices_by_city;
  CREATE INDEX current_prices_by_city ON current_prices (city_id, available, fuel, price_tenths);
  CREATE INDEX current_prices_changed ON current_prices (city_id, open_from, available, price_tenths);
  `,
  `
  -- /v1/prices for a state and the nation without reading every price: each current price carries
  -- its station's state too (the writer keeps it in step, as the city), an index gives min and max
  -- per state and fuel in a few steps, and state_current holds the count and sum of available
  -- prices per state and fuel, kept exact by triggers as city_current is (the nation adds up the
  -- eight states' counts and sums; its min and max come from an index by fuel). Stations near a point: an index on position finds those within a box of
  -- latitude and longitude, which the distance then narrows (domain/nearby.ts).
  ALTER TABLE current_prices ADD COLUMN state TEXT;
  UPDATE current_prices SET state = (SELECT state FROM stations WHERE key = current_prices.station_key);
  CREATE INDEX current_prices_by_state ON current_prices (state, available, fuel, price_tenths);
  -- The nation's min and max per fuel in two steps, and every available price of a fuel (the
  -- cheapest near a point, storage/nearest.ts) without reading the others.
  CREATE INDEX current_prices_by_fuel ON current_prices (fuel, available, price_tenths);
  CREATE TABLE state_current (
    state TEXT NOT NULL,
    fuel INTEGER NOT NULL,
    available_count INTEGER NOT NULL,
    sum_tenths INTEGER NOT NULL,
    PRIMARY KEY (state, fuel)
  ) WITHOUT ROWID;
  INSERT INTO state_current (state, fuel, available_count, sum_tenths)
    SELECT state, fuel, count(*), sum(price_tenths) FROM current_prices
    WHERE available = 1 AND state IS NOT NULL GROUP BY state, fuel;
  CREATE TRIGGER state_current_on_insert AFTER INSERT ON current_prices
  WHEN NEW.available = 1 AND NEW.state IS NOT NULL BEGIN
    INSERT INTO state_current (state, fuel, available_count, sum_tenths) VALUES (NEW.state, NEW.fuel, 1, NEW.price_tenths)
    ON CONFLICT (state, fuel) DO UPDATE SET available_count = available_count + 1, sum_tenths = sum_tenths + excluded.sum_tenths;
  END;
  CREATE TRIGGER state_current_on_update AFTER UPDATE OF price_tenths, available, state ON current_prices BEGIN
    UPDATE state_current SET available_count = available_count - 1, sum_tenths = sum_tenths - OLD.price_tenths
    WHERE OLD.available = 1 AND state = OLD.state AND fuel = OLD.fuel;
    INSERT INTO state_current (state, fuel, available_count, sum_tenths)
    SELECT NEW.state, NEW.fuel, 1, NEW.price_tenths WHERE NEW.available = 1 AND NEW.state IS NOT NULL
    ON CONFLICT (state, fuel) DO UPDATE SET available_count = available_count + 1, sum_tenths = sum_tenths + excluded.sum_tenths;
  END;
  CREATE TRIGGER state_current_on_delete AFTER DELETE ON current_prices
  WHEN OLD.available = 1 AND OLD.state IS NOT NULL BEGIN
    UPDATE state_current SET available_count = available_count - 1, sum_tenths = sum_tenths - OLD.price_tenths
    WHERE state = OLD.state AND fuel = OLD.fuel;
  END;
  CREATE INDEX stations_by_position ON stations (latitude, longitude, id);
  `,
  `
  -- Each feed's runs and failed runs, counted as runs are recorded and never pruned (feed_runs
  -- keeps 90 days), so /metrics can serve them as counters that only go up. Seeded from the log.
  CREATE TABLE feed_counts (
    feed TEXT PRIMARY KEY,
    runs INTEGER NOT NULL,
    failures INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO feed_counts (feed, runs, failures)
    SELECT feed, count(*), sum(CASE WHEN error IS NULL THEN 0 ELSE 1 END) FROM feed_runs GROUP BY feed;
  `,
  `
  -- Stations without a position (issue 28): the published history files of NSW and WA give none,
  -- and a position is never made up, so latitude and longitude may be NULL (both or neither). Such
  -- a station is in no city, no near search and no position index (storage/nearest.ts). SQLite
  -- cannot drop NOT NULL in place: the table is built again with the same keys, rows and indexes.
  CREATE TABLE stations_v12 (
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
    latitude REAL,
    longitude REAL,
    city_id TEXT REFERENCES cities (id),
    UNIQUE (feed, feed_code),
    CHECK ((latitude IS NULL) = (longitude IS NULL))
  );
  INSERT INTO stations_v12 (key, id, feed, feed_code, name, brand, address, street, suburb, postcode, state, phone, website, latitude, longitude, city_id)
    SELECT key, id, feed, feed_code, name, brand, address, street, suburb, postcode, state, phone, website, latitude, longitude, city_id FROM stations;
  DROP TABLE stations;
  ALTER TABLE stations_v12 RENAME TO stations;
  CREATE INDEX stations_by_state ON stations (state, id);
  CREATE INDEX stations_by_city ON stations (city_id, id);
  CREATE INDEX stations_by_position ON stations (latitude, longitude, id);
  `,
  `
  -- The price changes feed (GET /v1/prices/changes, storage/sql/changes.ts): each current price
  -- carries the number of the last change of its price or availability. Numbers are handed out by
  -- the writer, one after another, inside its transaction and under its lock (one writer at a
  -- time), and meta.change_seq holds the last handed out: a change committed later always has a
  -- higher number, so a cursor (the last number seen) never skips one. Prices stored before this
  -- version carry 0: they are the state a client copies first, not changes.
  ALTER TABLE current_prices ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX current_prices_by_change ON current_prices (change_seq);
  INSERT INTO meta (key, value) VALUES ('change_seq', 0);
  `,
  `
  -- Held prices of a city's or a state's stations (a city's spread and average, cheapest in a city
  -- or a state) are found from those stations, each probing pending_prices by feed and feed code:
  -- with both in the index, no station row is read for it (bench/RESULTS.md, "On the way (issue 31):
  -- along and the changes feed", migration 14).
  CREATE INDEX stations_by_city_feed ON stations (city_id, feed, feed_code);
  CREATE INDEX stations_by_state_feed ON stations (state, feed, feed_code);
  `,
  `
  -- Importing history after live data (issue 46): the sealed city days a batch's late reports
  -- change are, when the batch asks (an import of many batches), noted here instead of being
  -- recomputed at once, and the next seal recomputes each city's noted days once
  -- (storage/sql/stale-city-days.ts): one recompute of years of days per import, not one per batch.
  CREATE TABLE city_days_stale (
    city_id TEXT PRIMARY KEY,
    from_day INTEGER NOT NULL,
    to_day INTEGER NOT NULL
  ) WITHOUT ROWID;
  -- The writer recomputing a city's days (storage/sql/city-means.ts) moves the marks of the blocks
  -- it changed itself, once a block: while this table holds a row, which it does only inside that
  -- writer's transaction, the row triggers leave the marks alone (one upsert per row written was
  -- two thirds of the cost of writing a city's means).
  CREATE TABLE city_daily_marks_held (held INTEGER NOT NULL);
  DROP TRIGGER city_daily_marks_on_insert;
  DROP TRIGGER city_daily_marks_on_update;
  DROP TRIGGER city_daily_marks_on_delete;
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
  `,
  `
  -- Station ids answered before (issue 48, docs/DATA.md "Ids"): a history station the live feed
  -- takes over takes the live station's id, and the id it had keeps answering, as a redirect to
  -- the station's id now. No station is ever given an id that is an alias.
  CREATE TABLE station_aliases (
    id TEXT PRIMARY KEY,
    station_key INTEGER NOT NULL
  ) WITHOUT ROWID;
  -- The date of the history row a NSW history station's name, brand and address are from: the
  -- latest row of its site wins, whichever file came first (NULL: not from history rows).
  ALTER TABLE stations ADD COLUMN named_at INTEGER;
  `,
  `
  -- City means as runs (issue 46, importing after the live feed): one row per city, output fuel
  -- and run of consecutive days with the same mean, bit for bit, within one block of 128 days
  -- (the history blocks' unit), instead of one row a day. A city's mean holds still between two
  -- reports of its stations, so days of whole-day runs at its stations were written again and
  -- again with the same value: a NSW history month imported after the live feed wrote 1.6 M such
  -- rows; the 2.1 M means it left are 42,268 runs. Runs are maximal within their block (two runs
  -- of a city, fuel and block never touch with the same mean), so a block's rows are a function
  -- of its days' means: the marks' triggers move a block's mark exactly when its means change.
  -- A run never crosses a block, so a window of days reads a bounded range of the key.
  CREATE TABLE city_runs (
    city_id TEXT NOT NULL,
    to_day INTEGER NOT NULL,
    fuel INTEGER NOT NULL,
    from_day INTEGER NOT NULL,
    mean_tenths REAL NOT NULL,
    PRIMARY KEY (city_id, to_day, fuel),
    CHECK (from_day <= to_day)
  ) WITHOUT ROWID;
  INSERT INTO city_runs (city_id, to_day, fuel, from_day, mean_tenths)
    SELECT city_id, max(day), fuel, min(day), mean_tenths FROM (
      SELECT city_id, fuel, day, mean_tenths, sum(starts) OVER (PARTITION BY city_id, fuel ORDER BY day) AS run FROM (
        SELECT city_id, fuel, day, mean_tenths,
          CASE WHEN lag(day) OVER w = day - 1 AND lag(mean_tenths) OVER w = mean_tenths THEN 0 ELSE 1 END AS starts
        FROM city_daily WINDOW w AS (PARTITION BY city_id, fuel ORDER BY day)))
    GROUP BY city_id, fuel, run, day / 128, mean_tenths;
  -- A copy (fuelprice copy) that had finished city_daily has finished city_runs; one stopped
  -- within it starts city_runs again from its first row, with none of its rows kept.
  DELETE FROM city_runs WHERE EXISTS (SELECT 1 FROM copy_progress WHERE table_name = 'city_daily' AND done = 0);
  DELETE FROM copy_progress WHERE table_name = 'city_daily' AND done = 0;
  UPDATE copy_progress SET table_name = 'city_runs', after_key = NULL, rows = (SELECT count(*) FROM city_runs) WHERE table_name = 'city_daily';
  -- The blocks keep their marks: their means are the same. city_daily's triggers go with it; the
  -- writer writes few rows now, so nothing holds these.
  DROP TABLE city_daily;
  DROP TABLE city_daily_marks_held;
  CREATE TRIGGER city_runs_marks_on_insert AFTER INSERT ON city_runs BEGIN
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (NEW.city_id, NEW.to_day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
  END;
  CREATE TRIGGER city_runs_marks_on_update AFTER UPDATE ON city_runs BEGIN
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (OLD.city_id, OLD.to_day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (NEW.city_id, NEW.to_day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
  END;
  CREATE TRIGGER city_runs_marks_on_delete AFTER DELETE ON city_runs BEGIN
    INSERT INTO city_daily_marks (city_id, block, mark) VALUES (OLD.city_id, OLD.to_day / 128, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark;
  END;
  `,
];
