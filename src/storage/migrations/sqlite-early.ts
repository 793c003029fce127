/** Versions 1 to 6 of the SQLite schema (sqlite.ts lists them all). Never edit a shipped migration. */
export const SQLITE_MIGRATIONS_EARLY: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
  INSERT INTO meta (key, value) VALUES ('data_version', 0);

  CREATE TABLE cities (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    state TEXT NOT NULL,
    latitude REAL NOT NULL,
    longitude REAL NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX cities_by_state ON cities (state, id);

  CREATE TABLE stations (
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
  CREATE INDEX stations_by_state ON stations (state, id);
  CREATE INDEX stations_by_city ON stations (city_id, id);

  -- Every report as received; the source of truth that aggregates can be rebuilt from.
  CREATE TABLE price_events (
    station_key INTEGER NOT NULL,
    fuel INTEGER NOT NULL,
    at INTEGER NOT NULL,
    price_tenths INTEGER NOT NULL,
    available INTEGER NOT NULL,
    PRIMARY KEY (station_key, fuel, at)
  ) WITHOUT ROWID;

  -- The latest report per station and fuel; [open_from, now) is not yet in station_daily.
  CREATE TABLE current_prices (
    station_key INTEGER NOT NULL,
    fuel INTEGER NOT NULL,
    price_tenths INTEGER NOT NULL,
    available INTEGER NOT NULL,
    reported_at INTEGER NOT NULL,
    open_from INTEGER NOT NULL,
    PRIMARY KEY (station_key, fuel)
  ) WITHOUT ROWID;

  -- Closed intervals per local day: sum of price x seconds while available, and those seconds.
  -- Keyed (station, day, fuel): every read wants all fuels of a day range, one contiguous run.
  CREATE TABLE station_daily (
    station_key INTEGER NOT NULL,
    day INTEGER NOT NULL,
    fuel INTEGER NOT NULL,
    weighted_tenths INTEGER NOT NULL,
    seconds INTEGER NOT NULL,
    PRIMARY KEY (station_key, day, fuel)
  ) WITHOUT ROWID;

  -- Final city means per output fuel (combined ids included) for sealed days.
  CREATE TABLE city_daily (
    city_id TEXT NOT NULL,
    day INTEGER NOT NULL,
    fuel INTEGER NOT NULL,
    mean_tenths REAL NOT NULL,
    PRIMARY KEY (city_id, day, fuel)
  ) WITHOUT ROWID;

  -- city_daily is final for every day before sealed_before, per state.
  CREATE TABLE seals (state TEXT PRIMARY KEY, sealed_before INTEGER NOT NULL) WITHOUT ROWID;

  -- Which output fuels a reported fuel counts towards: itself, and its combined id if any.
  CREATE TABLE fuel_groups (fuel INTEGER NOT NULL, output INTEGER NOT NULL, PRIMARY KEY (fuel, output)) WITHOUT ROWID;

  CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    hash BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    revoked_at INTEGER,
    rate_limit INTEGER
  ) WITHOUT ROWID;
  `,
  `
  -- How far \`fuelprice copy\` got into this database, per table (the last key of the last committed chunk).
  CREATE TABLE copy_progress (
    table_name TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    after_key TEXT,
    rows INTEGER NOT NULL,
    done INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  `
  -- Ingest: where each feed or imported file left off (written with the batch it follows),
  -- prices dated ahead of the clock held until due, and a log of every run.
  CREATE TABLE feed_cursors (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE pending_prices (
    feed TEXT NOT NULL,
    feed_code TEXT NOT NULL,
    fuel INTEGER NOT NULL,
    at INTEGER NOT NULL,
    price_tenths INTEGER NOT NULL,
    available INTEGER NOT NULL,
    PRIMARY KEY (feed, feed_code, fuel, at)
  ) WITHOUT ROWID;
  CREATE INDEX pending_prices_by_at ON pending_prices (at);
  CREATE TABLE feed_runs (
    id INTEGER PRIMARY KEY,
    feed TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    finished_at INTEGER NOT NULL,
    stations_added INTEGER NOT NULL,
    stations_updated INTEGER NOT NULL,
    prices_accepted INTEGER NOT NULL,
    prices_ignored INTEGER NOT NULL,
    prices_held INTEGER NOT NULL,
    rejected INTEGER NOT NULL,
    rejections TEXT NOT NULL,
    error TEXT,
    interval_sec INTEGER NOT NULL
  );
  CREATE INDEX feed_runs_by_feed ON feed_runs (feed, id);
  `,
  `
  -- Grows with every token created or revoked: servers cache token records until it moves.
  INSERT INTO meta (key, value) VALUES ('tokens_version', 0);
  `,
  `
  -- Today's spread, average and out-of-stock list without reading every price of a city: each
  -- current price carries its station's city (the writer keeps it in step), an index gives the
  -- min, the max and the out-of-stock prices per city and fuel in a few steps, and city_current
  -- holds the count and sum of available prices per city and fuel, kept exact by triggers on
  -- every write path (feeds, imports, copies).
  ALTER TABLE current_prices ADD COLUMN city_id TEXT;
  UPDATE current_prices SET city_id = (SELECT city_id FROM stations WHERE key = current_prices.station_key);
  CREATE INDEX current_prices_by_city ON current_prices (city_id, available, fuel, price_tenths);
  CREATE TABLE city_current (
    city_id TEXT NOT NULL,
    fuel INTEGER NOT NULL,
    available_count INTEGER NOT NULL,
    sum_tenths INTEGER NOT NULL,
    PRIMARY KEY (city_id, fuel)
  ) WITHOUT ROWID;
  INSERT INTO city_current (city_id, fuel, available_count, sum_tenths)
    SELECT city_id, fuel, count(*), sum(price_tenths) FROM current_prices
    WHERE available = 1 AND city_id IS NOT NULL GROUP BY city_id, fuel;
  CREATE TRIGGER city_current_on_insert AFTER INSERT ON current_prices
  WHEN NEW.available = 1 AND NEW.city_id IS NOT NULL BEGIN
    INSERT INTO city_current (city_id, fuel, available_count, sum_tenths) VALUES (NEW.city_id, NEW.fuel, 1, NEW.price_tenths)
    ON CONFLICT (city_id, fuel) DO UPDATE SET available_count = available_count + 1, sum_tenths = sum_tenths + excluded.sum_tenths;
  END;
  CREATE TRIGGER city_current_on_update AFTER UPDATE OF price_tenths, available, city_id ON current_prices BEGIN
    UPDATE city_current SET available_count = available_count - 1, sum_tenths = sum_tenths - OLD.price_tenths
    WHERE OLD.available = 1 AND city_id = OLD.city_id AND fuel = OLD.fuel;
    INSERT INTO city_current (city_id, fuel, available_count, sum_tenths)
    SELECT NEW.city_id, NEW.fuel, 1, NEW.price_tenths WHERE NEW.available = 1 AND NEW.city_id IS NOT NULL
    ON CONFLICT (city_id, fuel) DO UPDATE SET available_count = available_count + 1, sum_tenths = sum_tenths + excluded.sum_tenths;
  END;
  CREATE TRIGGER city_current_on_delete AFTER DELETE ON current_prices
  WHEN OLD.available = 1 AND OLD.city_id IS NOT NULL BEGIN
    UPDATE city_current SET available_count = available_count - 1, sum_tenths = sum_tenths - OLD.price_tenths
    WHERE city_id = OLD.city_id AND fuel = OLD.fuel;
  END;
  `,
  `
  -- Today's city history without reading every price of a city: the city index also holds when
  -- each current price's open interval began, so the prices that changed today (the only ones
  -- with closed intervals today) are found in the index alone; all others average their price.
  DROP INDEX current_prices_by_city;
  CREATE INDEX current_prices_by_city ON current_prices (city_id, available, fuel, price_tenths, open_from);
  `,
];
