/** Versions 1 to 6 of the PostgreSQL schema (postgres.ts lists them all). Never edit a shipped migration. */
export const POSTGRES_MIGRATIONS_EARLY: readonly string[] = [
  `
  CREATE TABLE meta (key text PRIMARY KEY, value bigint NOT NULL);
  INSERT INTO meta (key, value) VALUES ('data_version', 0);

  CREATE TABLE cities (
    id text COLLATE "C" PRIMARY KEY,
    name text NOT NULL,
    state text NOT NULL,
    latitude double precision NOT NULL,
    longitude double precision NOT NULL
  );
  CREATE INDEX cities_by_state ON cities (state, id);

  CREATE TABLE stations (
    key integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    feed text NOT NULL,
    feed_code text NOT NULL,
    name text NOT NULL,
    brand text NOT NULL,
    address text NOT NULL,
    street text NOT NULL,
    suburb text NOT NULL,
    postcode text NOT NULL,
    state text NOT NULL,
    phone text NOT NULL,
    website text NOT NULL,
    latitude double precision NOT NULL,
    longitude double precision NOT NULL,
    city_id text COLLATE "C" REFERENCES cities (id),
    UNIQUE (feed, feed_code)
  );
  CREATE INDEX stations_by_state ON stations (state, id);
  CREATE INDEX stations_by_city ON stations (city_id, id);

  -- Every report as received; the source of truth that aggregates can be rebuilt from.
  CREATE TABLE price_events (
    station_key integer NOT NULL,
    fuel smallint NOT NULL,
    at bigint NOT NULL,
    price_tenths integer NOT NULL,
    available boolean NOT NULL,
    PRIMARY KEY (station_key, fuel, at)
  );

  -- The latest report per station and fuel; [open_from, now) is not yet in station_daily.
  CREATE TABLE current_prices (
    station_key integer NOT NULL,
    fuel smallint NOT NULL,
    price_tenths integer NOT NULL,
    available boolean NOT NULL,
    reported_at bigint NOT NULL,
    open_from bigint NOT NULL,
    PRIMARY KEY (station_key, fuel)
  );

  -- Closed intervals per local day: sum of price x seconds while available, and those seconds.
  -- Keyed (station, day, fuel): every read wants all fuels of a day range, one contiguous run.
  CREATE TABLE station_daily (
    station_key integer NOT NULL,
    day integer NOT NULL,
    fuel smallint NOT NULL,
    weighted_tenths bigint NOT NULL,
    seconds integer NOT NULL,
    PRIMARY KEY (station_key, day, fuel)
  );

  -- Final city means per output fuel (combined ids included) for sealed days.
  CREATE TABLE city_daily (
    city_id text COLLATE "C" NOT NULL,
    day integer NOT NULL,
    fuel smallint NOT NULL,
    mean_tenths double precision NOT NULL,
    PRIMARY KEY (city_id, day, fuel)
  );

  -- city_daily is final for every day before sealed_before, per state.
  CREATE TABLE seals (state text PRIMARY KEY, sealed_before integer NOT NULL);

  -- Which output fuels a reported fuel counts towards: itself, and its combined id if any.
  CREATE TABLE fuel_groups (fuel smallint NOT NULL, output smallint NOT NULL, PRIMARY KEY (fuel, output));

  CREATE TABLE tokens (
    id text COLLATE "C" PRIMARY KEY,
    name text NOT NULL,
    hash bytea NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint,
    revoked_at bigint,
    rate_limit integer
  );
  `,
  `
  -- How far \`fuelprice copy\` got into this database, per table (the last key of the last committed chunk).
  CREATE TABLE copy_progress (
    table_name text PRIMARY KEY,
    source text NOT NULL,
    after_key text,
    rows bigint NOT NULL,
    done boolean NOT NULL
  );
  `,
  `
  -- Ingest: where each feed or imported file left off (written with the batch it follows),
  -- prices dated ahead of the clock held until due, and a log of every run.
  CREATE TABLE feed_cursors (key text COLLATE "C" PRIMARY KEY, value text NOT NULL, updated_at bigint NOT NULL);
  CREATE TABLE pending_prices (
    feed text COLLATE "C" NOT NULL,
    feed_code text COLLATE "C" NOT NULL,
    fuel smallint NOT NULL,
    at bigint NOT NULL,
    price_tenths integer NOT NULL,
    available boolean NOT NULL,
    PRIMARY KEY (feed, feed_code, fuel, at)
  );
  CREATE INDEX pending_prices_by_at ON pending_prices (at);
  CREATE TABLE feed_runs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    feed text NOT NULL,
    started_at bigint NOT NULL,
    finished_at bigint NOT NULL,
    stations_added integer NOT NULL,
    stations_updated integer NOT NULL,
    prices_accepted integer NOT NULL,
    prices_ignored integer NOT NULL,
    prices_held integer NOT NULL,
    rejected integer NOT NULL,
    rejections text NOT NULL,
    error text,
    interval_sec integer NOT NULL
  );
  CREATE INDEX feed_runs_by_feed ON feed_runs (feed, id);
  `,
  `
  -- Grows with every token created or revoked: servers cache token records until it moves.
  INSERT INTO meta (key, value) VALUES ('tokens_version', 0) ON CONFLICT (key) DO NOTHING;
  `,
  `
  -- Today's spread, average and out-of-stock list without reading every price of a city (see
  -- the SQLite migration): current prices carry their station's city, an index serves min, max
  -- and the out-of-stock prices, and city_current (count and sum of available prices per city
  -- and fuel) is kept exact by statement triggers over each statement's changed rows.
  ALTER TABLE current_prices ADD COLUMN city_id text COLLATE "C";
  UPDATE current_prices c SET city_id = s.city_id FROM stations s WHERE s.key = c.station_key;
  CREATE INDEX current_prices_by_city ON current_prices (city_id, available, fuel, price_tenths);
  CREATE TABLE city_current (
    city_id text COLLATE "C" NOT NULL,
    fuel smallint NOT NULL,
    available_count integer NOT NULL,
    sum_tenths bigint NOT NULL,
    PRIMARY KEY (city_id, fuel)
  );
  INSERT INTO city_current (city_id, fuel, available_count, sum_tenths)
    SELECT city_id, fuel, count(*), sum(price_tenths) FROM current_prices
    WHERE available AND city_id IS NOT NULL GROUP BY city_id, fuel;
  CREATE FUNCTION city_current_add(delta_city text[], delta_fuel smallint[], delta_count bigint[], delta_sum bigint[]) RETURNS void
  LANGUAGE sql AS 'INSERT INTO city_current AS t (city_id, fuel, available_count, sum_tenths)
    SELECT city_id, fuel, sum(n), sum(s) FROM unnest(delta_city, delta_fuel, delta_count, delta_sum) AS d (city_id, fuel, n, s)
    WHERE city_id IS NOT NULL GROUP BY city_id, fuel HAVING sum(n) <> 0 OR sum(s) <> 0
    ON CONFLICT (city_id, fuel) DO UPDATE SET available_count = t.available_count + excluded.available_count,
      sum_tenths = t.sum_tenths + excluded.sum_tenths';
  CREATE FUNCTION city_current_inserted() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM city_current_add(array_agg(city_id), array_agg(fuel), array_agg(1::bigint), array_agg(price_tenths::bigint))
    FROM new_rows WHERE available;
    RETURN NULL;
  END';
  CREATE FUNCTION city_current_updated() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM city_current_add(array_agg(city_id), array_agg(fuel), array_agg(n), array_agg(s)) FROM (
      SELECT city_id, fuel, 1::bigint AS n, price_tenths::bigint AS s FROM new_rows WHERE available
      UNION ALL SELECT city_id, fuel, -1, -price_tenths::bigint FROM old_rows WHERE available) d;
    RETURN NULL;
  END';
  CREATE FUNCTION city_current_deleted() RETURNS trigger LANGUAGE plpgsql AS '
  BEGIN
    PERFORM city_current_add(array_agg(city_id), array_agg(fuel), array_agg(-1::bigint), array_agg(-price_tenths::bigint))
    FROM old_rows WHERE available;
    RETURN NULL;
  END';
  CREATE TRIGGER city_current_on_insert AFTER INSERT ON current_prices
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION city_current_inserted();
  CREATE TRIGGER city_current_on_update AFTER UPDATE ON current_prices
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION city_current_updated();
  CREATE TRIGGER city_current_on_delete AFTER DELETE ON current_prices
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION city_current_deleted();
  `,
  `
  -- Today's city history without reading every price of a city: the city index also holds when
  -- each current price's open interval began, so the prices that changed today (the only ones
  -- with closed intervals today) are found in the index alone; all others average their price.
  DROP INDEX current_prices_by_city;
  CREATE INDEX current_prices_by_city ON current_prices (city_id, available, fuel, price_tenths, open_from);
  `,
];
