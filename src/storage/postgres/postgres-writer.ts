import type pg from 'pg';
import { fuelIndex } from '../../domain/fuels.ts';
import { STATES, type StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import { DayTotals, type OpenState, type Report, advance, replay } from '../../ingest/plan.ts';
import {
  BatchTally, NO_DAY_LOWER_BOUND, type ReportPlan, type StationDayWrite, type StationRunWrite, type StoredStation,
  closeAt, closeSealedPart, distinctInstants, feedKey, groupPrices, planReports, sameStation, sealDue, storedCoordinates,
} from '../batch.ts';
import { assignCity, slugify, uniqueSlug } from '../places.ts';
import { toOpenState, toReport } from '../rows.ts';
import type { Batch, BatchResult, StationInput } from '../store.ts';
import { execute, firstRow, rows } from './pool.ts';

/**
 * applyBatch and seal on PostgreSQL, each run inside one writer transaction (see pool.ts).
 * Per batch the round trips are few whatever its size: stations, current prices, events,
 * daily sums and current prices go in one statement each; only out-of-order reports and new
 * stations cost a query of their own.
 */

type Client = pg.PoolClient;

interface KnownStation extends StoredStation {
  name: string; brand: string; address: string; street: string; suburb: string; postcode: string;
  phone: string; website: string; latitude: number; longitude: number;
}

export async function bumpDataVersion(client: Client): Promise<void> {
  await execute(client, "UPDATE meta SET value = value + 1 WHERE key = 'data_version'");
}

export async function sealedBeforeByState(db: Client): Promise<(state: StateId) => LocalDay> {
  const sealed = new Map((await rows(db, 'SELECT state, sealed_before FROM seals')).map((r) => [String(r.state), Number(r.sealed_before)]));
  return (state) => sealed.get(state) ?? NO_DAY_LOWER_BOUND;
}

export async function applyBatchIn(client: Client, batch: Batch): Promise<BatchResult> {
  const sealedBefore = await sealedBeforeByState(client);
  const tally = new BatchTally(sealedBefore);
  const known = await stationsByFeed(client, [...batch.stations, ...batch.prices]);
  const cities = new CitiesByState(client);
  for (const input of batch.stations) tally.station(await upsertStation(client, input, known, cities));

  const groups = groupPrices(batch.prices, (event) => fuelIndex(event.fuel), (feed, code) => known.get(feedKey(feed, code)));
  const current = await currentStates(client, groups.map((g) => [g.station.key, g.fuel]));
  const stored = await insertEvents(client, groups.flatMap((g) => distinctInstants(g.reports).map((r) => ({ stationKey: g.station.key, fuel: g.fuel, report: r }))));

  const opens: Array<{ stationKey: number; fuel: number; cityId: string | null; open: OpenState }> = [];
  for (const { station, fuel, reports } of groups) {
    const fresh = distinctInstants(reports).filter((r) => stored.has(eventKey(station.key, fuel, r.at)));
    if (fresh.length === 0) { tally.group(station, fuel, reports.length, 0, new DayTotals()); continue; }
    const before = current.get(`${station.key}:${fuel}`);
    const plan = planReports(station.state, before, fresh);
    const outcome = plan.kind === 'advance' ? advance(station.state, before, fresh) : await replayFrom(client, station, fuel, plan);
    closeSealedPart(station.state, outcome.totals, outcome.open, sealedBefore(station.state));
    if (outcome.open) opens.push({ stationKey: station.key, fuel, cityId: station.cityId, open: outcome.open });
    tally.group(station, fuel, reports.length, fresh.length, outcome.totals);
  }
  await upsertCurrent(client, opens);
  await addStationDays(client, tally.days);
  await addStationRuns(client, tally.runs);
  for (const [cityId, days] of tally.resealCities) await recomputeCityDays(client, { cityId }, days.from, days.to);
  if (tally.changed) await bumpDataVersion(client);
  return tally.result;
}

/** Every station the batch names, by feed key, as stored now. */
async function stationsByFeed(client: Client, named: ReadonlyArray<{ feed: string; feedCode: string }>): Promise<Map<string, KnownStation>> {
  const keys = new Map(named.map((n) => [feedKey(n.feed, n.feedCode), n]));
  const found = await rows(client, `
    SELECT key, id, state, city_id, name, brand, address, street, suburb, postcode, phone, website, latitude, longitude, feed, feed_code
    FROM stations WHERE (feed, feed_code) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
  [[...keys.values()].map((k) => k.feed), [...keys.values()].map((k) => k.feedCode)]);
  return new Map(found.map((r) => [feedKey(String(r.feed), String(r.feed_code)), {
    key: Number(r.key), id: String(r.id), state: r.state as StateId, cityId: r.city_id === null ? null : String(r.city_id),
    name: String(r.name), brand: String(r.brand), address: String(r.address), street: String(r.street), suburb: String(r.suburb),
    postcode: String(r.postcode), phone: String(r.phone), website: String(r.website), latitude: Number(r.latitude), longitude: Number(r.longitude),
  }]));
}

/** The cities of a state, read once per batch: a batch does not change them. */
class CitiesByState {
  private readonly byState = new Map<StateId, Array<{ id: string; latitude: number; longitude: number }>>();
  constructor(private readonly client: Client) {}

  async nearest(state: StateId, latitude: number, longitude: number): Promise<string | null> {
    let cities = this.byState.get(state);
    if (!cities) {
      cities = (await rows(this.client, 'SELECT id, latitude, longitude FROM cities WHERE state = $1', [state]))
        .map((r) => ({ id: String(r.id), latitude: Number(r.latitude), longitude: Number(r.longitude) }));
      this.byState.set(state, cities);
    }
    return assignCity(cities, latitude, longitude);
  }
}

async function upsertStation(client: Client, input: StationInput, known: Map<string, KnownStation>, cities: CitiesByState): Promise<'added' | 'updated' | 'same'> {
  const fk = feedKey(input.feed, input.feedCode);
  const wanted = { ...input, ...storedCoordinates(input) };
  const existing = known.get(fk);
  if (existing && sameStation(existing, wanted)) return 'same';
  const cityId = await cities.nearest(input.state, wanted.latitude, wanted.longitude);
  const fields = [input.name, input.brand, input.address, input.street, input.suburb, input.postcode, input.state,
    input.phone, input.website, wanted.latitude, wanted.longitude, cityId];
  if (existing) {
    await execute(client, `UPDATE stations SET name = $1, brand = $2, address = $3, street = $4, suburb = $5, postcode = $6, state = $7,
      phone = $8, website = $9, latitude = $10, longitude = $11, city_id = $12 WHERE key = $13`, [...fields, existing.key]);
    // A station that moved to another city takes its current prices along (triggers move the city totals).
    if (existing.cityId !== cityId) await execute(client, 'UPDATE current_prices SET city_id = $1 WHERE station_key = $2', [cityId, existing.key]);
    known.set(fk, { ...existing, ...wanted, cityId, key: existing.key, id: existing.id });
    return 'updated';
  }
  // Slugs are [a-z0-9-] only, so the pattern has no wildcard but its own.
  const base = slugify(input.slug);
  const taken = new Set((await rows(client, 'SELECT id FROM stations WHERE id = $1 OR id LIKE $2', [base, `${base}-%`])).map((r) => String(r.id)));
  const id = uniqueSlug(input.slug, (candidate) => taken.has(candidate));
  const inserted = await firstRow(client, `INSERT INTO stations (name, brand, address, street, suburb, postcode, state, phone, website,
    latitude, longitude, city_id, id, feed, feed_code) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING key`,
  [...fields, id, input.feed, input.feedCode]);
  known.set(fk, { ...wanted, key: Number(inserted?.key), id, cityId });
  return 'added';
}

async function currentStates(client: Client, keys: ReadonlyArray<readonly [number, number]>): Promise<Map<string, OpenState>> {
  const found = await rows(client, `
    SELECT c.station_key, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
    FROM current_prices c JOIN unnest($1::int[], $2::smallint[]) AS k (station_key, fuel) USING (station_key, fuel)`,
  [keys.map((k) => k[0]), keys.map((k) => k[1])]);
  return new Map(found.map((r) => [`${Number(r.station_key)}:${Number(r.fuel)}`, toOpenState(r)]));
}

function eventKey(stationKey: number, fuel: number, at: number): string {
  return `${stationKey}:${fuel}:${at}`;
}

/** Stores the reports not stored yet; returns the keys of those it stored. */
async function insertEvents(client: Client, events: ReadonlyArray<{ stationKey: number; fuel: number; report: Report }>): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  const inserted = await rows(client, `
    INSERT INTO price_events (station_key, fuel, at, price_tenths, available)
    SELECT * FROM unnest($1::int[], $2::smallint[], $3::bigint[], $4::int[], $5::boolean[])
    ON CONFLICT (station_key, fuel, at) DO NOTHING
    RETURNING station_key, fuel, at`,
  [events.map((e) => e.stationKey), events.map((e) => e.fuel), events.map((e) => e.report.at),
    events.map((e) => e.report.priceTenths), events.map((e) => e.report.available)]);
  return new Set(inserted.map((r) => eventKey(Number(r.station_key), Number(r.fuel), Number(r.at))));
}

/** Out-of-order reports: drop the station's days from that report's day on and rebuild them from the events. */
async function replayFrom(client: Client, station: StoredStation, fuel: number, plan: Extract<ReportPlan, { kind: 'replay' }>)
  : Promise<{ totals: DayTotals; open: OpenState | undefined }> {
  const inForce = await firstRow(client, `SELECT at, price_tenths, available FROM price_events
    WHERE station_key = $1 AND fuel = $2 AND at <= $3 ORDER BY at DESC LIMIT 1`, [station.key, fuel, plan.dayStartSec]);
  const reports = (await rows(client, `SELECT at, price_tenths, available FROM price_events
    WHERE station_key = $1 AND fuel = $2 AND at > $3 ORDER BY at`, [station.key, fuel, plan.dayStartSec])).map(toReport);
  await execute(client, 'DELETE FROM station_daily WHERE station_key = $1 AND fuel = $2 AND day >= $3', [station.key, fuel, plan.fromDay]);
  await execute(client, 'DELETE FROM station_runs WHERE station_key = $1 AND fuel = $2 AND from_day >= $3', [station.key, fuel, plan.fromDay]);
  await execute(client, 'UPDATE station_runs SET to_day = $3 - 1 WHERE station_key = $1 AND fuel = $2 AND to_day >= $3', [station.key, fuel, plan.fromDay]);
  return replay(station.state, plan.dayStartSec, inForce ? toReport(inForce) : undefined, reports, plan.closeUntil);
}

async function upsertCurrent(client: Client, opens: ReadonlyArray<{ stationKey: number; fuel: number; cityId: string | null; open: OpenState }>): Promise<void> {
  if (opens.length === 0) return;
  await execute(client, `
    INSERT INTO current_prices (station_key, fuel, price_tenths, available, reported_at, open_from, city_id)
    SELECT * FROM unnest($1::int[], $2::smallint[], $3::int[], $4::boolean[], $5::bigint[], $6::bigint[], $7::text[])
    ON CONFLICT (station_key, fuel) DO UPDATE SET price_tenths = excluded.price_tenths, available = excluded.available,
      reported_at = excluded.reported_at, open_from = excluded.open_from, city_id = excluded.city_id`,
  [opens.map((o) => o.stationKey), opens.map((o) => o.fuel), opens.map((o) => o.open.priceTenths), opens.map((o) => o.open.available),
    opens.map((o) => o.open.at), opens.map((o) => o.open.openFrom), opens.map((o) => o.cityId)]);
}

/** Adds closed intervals to the daily sums (one row per station, fuel and day: ON CONFLICT may touch a row once). */
async function addStationDays(client: Client, days: readonly StationDayWrite[]): Promise<void> {
  const merged = new Map<string, StationDayWrite>();
  for (const d of days) {
    const key = `${d.stationKey}:${d.fuel}:${d.total.day}`;
    const seen = merged.get(key);
    if (seen) merged.set(key, { ...seen, total: { day: d.total.day, weighted: seen.total.weighted + d.total.weighted, seconds: seen.total.seconds + d.total.seconds } });
    else merged.set(key, d);
  }
  if (merged.size === 0) return;
  const all = [...merged.values()];
  await execute(client, `
    INSERT INTO station_daily AS d (station_key, day, fuel, weighted_tenths, seconds)
    SELECT * FROM unnest($1::int[], $2::int[], $3::smallint[], $4::bigint[], $5::int[])
    ON CONFLICT (station_key, day, fuel) DO UPDATE SET
      weighted_tenths = d.weighted_tenths + excluded.weighted_tenths, seconds = d.seconds + excluded.seconds`,
  [all.map((d) => d.stationKey), all.map((d) => d.total.day), all.map((d) => d.fuel), all.map((d) => d.total.weighted), all.map((d) => d.total.seconds)]);
}

/** Adds runs of whole days (one row each: a batch's runs never overlap a stored one). */
async function addStationRuns(client: Client, runs: readonly StationRunWrite[]): Promise<void> {
  if (runs.length === 0) return;
  await execute(client, `
    INSERT INTO station_runs (station_key, to_day, fuel, from_day, price_tenths)
    SELECT * FROM unnest($1::int[], $2::int[], $3::smallint[], $4::int[], $5::int[])`,
  [runs.map((r) => r.stationKey), runs.map((r) => r.run.to), runs.map((r) => r.fuel), runs.map((r) => r.run.from), runs.map((r) => r.run.priceTenths)]);
}

/** The seal's runs: one that follows on from a stored run at the same price lengthens it; the rest are added. */
async function lengthenOrAddRuns(client: Client, runs: readonly StationRunWrite[]): Promise<void> {
  if (runs.length === 0) return;
  const lengthened = await rows(client, `
    UPDATE station_runs r SET to_day = u.to_day
    FROM unnest($1::int[], $2::smallint[], $3::int[], $4::int[], $5::int[]) AS u (station_key, fuel, from_day, to_day, price_tenths)
    WHERE r.station_key = u.station_key AND r.to_day = u.from_day - 1 AND r.fuel = u.fuel AND r.price_tenths = u.price_tenths
    RETURNING r.station_key, r.fuel, r.to_day`,
  [runs.map((r) => r.stationKey), runs.map((r) => r.fuel), runs.map((r) => r.run.from), runs.map((r) => r.run.to), runs.map((r) => r.run.priceTenths)]);
  const done = new Set(lengthened.map((r) => `${Number(r.station_key)}:${Number(r.fuel)}:${Number(r.to_day)}`));
  await addStationRuns(client, runs.filter((r) => !done.has(`${r.stationKey}:${r.fuel}:${r.run.to}`)));
}

/** City means for days [from, to] of one city or of every city of a state, pooled per output fuel, from the stations' days. */
async function recomputeCityDays(client: Client, cities: { cityId: string } | { state: StateId }, from: LocalDay, to: LocalDay): Promise<void> {
  if (to < from) return;
  const byCity = 'cityId' in cities;
  const selector = byCity ? cities.cityId : cities.state;
  await execute(client, byCity
    ? 'DELETE FROM city_daily WHERE day BETWEEN $1 AND $2 AND city_id = $3'
    : 'DELETE FROM city_daily WHERE day BETWEEN $1 AND $2 AND city_id IN (SELECT id FROM cities WHERE state = $3)', [from, to, selector]);
  // The plain mean of the stations' daily means, in double precision like SQLite's avg over REAL.
  // A run's whole days each have its price as their mean: runs are summed exactly, as a
  // difference array per city and output fuel (+price and +1 at a run's first day, the
  // opposite the day after its last; a running total gives each day its sum and count), so
  // their cost follows the runs and the city's days, not every station's days. The daily rows'
  // means are summed in station order, so that the same rows always give the same last digits.
  const members = byCity ? 's.city_id = $3' : 's.state = $3';
  await execute(client, `
    WITH runs AS (
      SELECT s.city_id, g.output, greatest(r.from_day, $1) AS first_day, least(r.to_day, $2) AS last_day, r.price_tenths::bigint AS price
      FROM stations s JOIN station_runs r ON r.station_key = s.key JOIN fuel_groups g ON g.fuel = r.fuel
      WHERE ${members} AND s.city_id IS NOT NULL AND r.to_day >= $1 AND r.from_day <= $2
    ), steps AS (
      SELECT city_id, output, day, sum(price) AS price, sum(n) AS n FROM (
        SELECT city_id, output, first_day AS day, price, 1 AS n FROM runs
        UNION ALL
        SELECT city_id, output, last_day + 1, -price, -1 FROM runs
      ) edges GROUP BY city_id, output, day
    ), levels AS (
      SELECT city_id, output, day, sum(price) OVER w AS price, sum(n) OVER w AS n, lead(day) OVER w AS next_day
      FROM steps WINDOW w AS (PARTITION BY city_id, output ORDER BY day)
    ), run_days AS (
      SELECT l.city_id, l.output, g.day, l.price::double precision AS price, l.n
      FROM levels l, generate_series(l.day, l.next_day - 1) AS g (day) WHERE l.n > 0
    ), row_days AS (
      SELECT s.city_id, g.output, d.day, sum(d.weighted_tenths::double precision / d.seconds ORDER BY d.station_key, d.fuel) AS mean_sum, count(*) AS n
      FROM stations s JOIN station_daily d ON d.station_key = s.key JOIN fuel_groups g ON g.fuel = d.fuel
      WHERE ${members} AND s.city_id IS NOT NULL AND d.seconds > 0 AND d.day BETWEEN $1 AND $2
      GROUP BY s.city_id, g.output, d.day
    )
    INSERT INTO city_daily (city_id, day, fuel, mean_tenths)
    SELECT city_id, day, output, (coalesce(r.price, 0) + coalesce(w.mean_sum, 0)) / (coalesce(r.n, 0) + coalesce(w.n, 0))
    FROM run_days r FULL JOIN row_days w USING (city_id, output, day)`, [from, to, selector]);
}

export async function sealIn(client: Client, nowSec: number): Promise<void> {
  const sealedBefore = await sealedBeforeByState(client);
  // A state's first seal follows a bulk load, which autovacuum has not analysed yet: without
  // statistics the planner joins millions of daily rows by nested loops.
  if (STATES.some((state) => sealedBefore(state) === NO_DAY_LOWER_BOUND)) await execute(client, 'ANALYZE stations, station_daily, station_runs');
  let changed = false;
  for (const state of STATES) changed = (await sealState(client, state, nowSec, sealedBefore(state))) || changed;
  if (changed) await bumpDataVersion(client);
}

/** Closes open intervals up to the start of the state's today and makes the days before it final. */
async function sealState(client: Client, state: StateId, nowSec: number, before: LocalDay): Promise<boolean> {
  const due = sealDue(state, nowSec, before);
  if (!due) return false;
  const open = await rows(client, `SELECT c.station_key, c.fuel, c.price_tenths, c.available, c.reported_at, c.open_from
    FROM current_prices c JOIN stations s ON s.key = c.station_key WHERE s.state = $1 AND c.open_from < $2`, [state, due.cutoff]);
  const days: StationDayWrite[] = [];
  const runs: StationRunWrite[] = [];
  for (const r of open) {
    const stationKey = Number(r.station_key);
    const fuel = Number(r.fuel);
    const totals = closeAt(state, toOpenState(r), due.cutoff);
    for (const total of totals.values()) days.push({ stationKey, fuel, total });
    for (const run of totals.runs) runs.push({ stationKey, fuel, run });
  }
  await addStationDays(client, days);
  await lengthenOrAddRuns(client, runs);
  await execute(client, `UPDATE current_prices c SET open_from = $2 FROM stations s
    WHERE s.key = c.station_key AND s.state = $1 AND c.open_from < $2`, [state, due.cutoff]);
  const firstDay = before === NO_DAY_LOWER_BOUND
    ? (await firstRow(client, `SELECT least(
        (SELECT min(d.day) FROM station_daily d JOIN stations s ON s.key = d.station_key WHERE s.state = $1),
        (SELECT min(r.from_day) FROM station_runs r JOIN stations s ON s.key = r.station_key WHERE s.state = $1)) AS d`, [state]))?.d
    : before;
  if (firstDay !== null && firstDay !== undefined) await recomputeCityDays(client, { state }, Number(firstDay), due.today - 1);
  await execute(client, `INSERT INTO seals (state, sealed_before) VALUES ($1, $2)
    ON CONFLICT (state) DO UPDATE SET sealed_before = excluded.sealed_before`, [state, due.today]);
  return true;
}
