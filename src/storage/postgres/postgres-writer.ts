import type pg from 'pg';
import { fuelIndex } from '../../domain/fuels.ts';
import { STATES, type StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import { assignCity, slugify, uniqueSlug } from '../places.ts';
import { toDayRun, toOpenState, toReport } from '../sql/row-mappers.ts';
import { BULK, INGEST_STATEMENTS as SQL } from '../sql/statements.ts';
import type { Batch, BatchResult, StationInput } from '../store.ts';
import {
  BatchTally, NO_DAY_LOWER_BOUND, type StationDayWrite, type StationRunWrite, type StoredStation,
  closeAt, closeSealedPart, feedKey, groupPrices, sameStation, sealDue, storedCoordinates,
} from '../writer/batch-plan.ts';
import { DayTotals, type OpenState, type Report } from '../writer/day-totals.ts';
import {
  type Classified, type ReportPlan, type Settled, classifyReports, lateReads, lateReadsUntil, planReports, runPiecesOutside, settleGroup,
} from '../writer/late-reports.ts';
import { recomputeCityDays } from './postgres-city-means.ts';
import { bulkInsert, execute, firstRow, rows } from './postgres-connection.ts';

/**
 * applyBatch and seal on PostgreSQL, each run inside one writer transaction (see postgres-connection.ts).
 * Per batch the round trips are few whatever its size: stations, current prices, events,
 * daily sums and current prices go in one statement each; only out-of-order reports and new
 * stations cost a query of their own.
 */

type Client = pg.PoolClient;

interface KnownStation extends StoredStation {
  name: string; brand: string; address: string; street: string; suburb: string; postcode: string;
  phone: string; website: string; latitude: number | null; longitude: number | null;
}

export async function bumpDataVersion(client: Client): Promise<void> {
  await execute(client, SQL.bumpDataVersion);
}

export async function sealedBeforeByState(db: Client): Promise<(state: StateId) => LocalDay> {
  const sealed = new Map((await rows(db, SQL.seals)).map((r) => [String(r.state), Number(r.sealed_before)]));
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
  const stored = await storedReports(client, groups.flatMap((g) => g.reports.map((r) => ({ stationKey: g.station.key, fuel: g.fuel, report: r }))));
  const classified = groups.map((g) => classifyReports(g.reports, (at) => stored.get(eventKey(g.station.key, g.fuel, at))));
  await insertEvents(client, groups.flatMap((g, i) => (classified[i]?.fresh ?? []).map((r) => ({ stationKey: g.station.key, fuel: g.fuel, report: r }))));
  await correctEvents(client, groups.flatMap((g, i) => (classified[i]?.corrected ?? []).map((r) => ({ stationKey: g.station.key, fuel: g.fuel, report: r }))));

  const opens: Array<{ stationKey: number; fuel: number; cityId: string | null; state: StateId; open: OpenState }> = [];
  for (const [i, { station, fuel }] of groups.entries()) {
    const rows = classified[i] as Classified;
    if (rows.fresh.length === 0 && rows.corrected.length === 0) { tally.group(station, fuel, rows, new DayTotals()); continue; }
    const before = current.get(`${station.key}:${fuel}`);
    const plan = planReports(before, rows.fresh, rows.corrected);
    const settled = await settleLate(client, station, fuel, before, plan);
    closeSealedPart(station.state, settled.totals, settled.open, sealedBefore(station.state));
    if (settled.open) opens.push({ stationKey: station.key, fuel, cityId: station.cityId, state: station.state, open: settled.open });
    tally.group(station, fuel, rows, settled.totals, settled.spans);
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
    key: Number(r.key), id: String(r.id), state: r.state as StateId, cityId: typeof r.city_id === 'string' ? r.city_id : null,
    name: String(r.name), brand: String(r.brand), address: String(r.address), street: String(r.street), suburb: String(r.suburb),
    postcode: String(r.postcode), phone: String(r.phone), website: String(r.website), latitude: r.latitude === null ? null : Number(r.latitude), longitude: r.longitude === null ? null : Number(r.longitude),
  }]));
}

/** The cities of a state, read once per batch: a batch does not change them. */
class CitiesByState {
  private readonly byState = new Map<StateId, Array<{ id: string; latitude: number; longitude: number }>>();
  constructor(private readonly client: Client) {}

  async nearest(state: StateId, latitude: number | null, longitude: number | null): Promise<string | null> {
    if (latitude === null || longitude === null) return null;
    let cities = this.byState.get(state);
    if (!cities) {
      cities = (await rows(this.client, SQL.citiesInState, [state]))
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
    await execute(client, SQL.updateStation, [...fields, existing.key]);
    if (existing.cityId !== cityId || existing.state !== input.state) await execute(client, SQL.moveCurrentPrices, [cityId, input.state, existing.key]);
    known.set(fk, { ...existing, ...wanted, cityId, key: existing.key, id: existing.id });
    return 'updated';
  }
  // Slugs are [a-z0-9-] only, so the pattern has no wildcard but its own.
  const base = slugify(input.slug);
  const taken = new Set((await rows(client, 'SELECT id FROM stations WHERE id = $1 OR id LIKE $2', [base, `${base}-%`])).map((r) => String(r.id)));
  const id = uniqueSlug(input.slug, (candidate) => taken.has(candidate));
  const inserted = await firstRow(client, SQL.insertStation, [...fields, id, input.feed, input.feedCode]);
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

/** The stored reports at the instants a batch brings, by eventKey. */
async function storedReports(client: Client, events: ReadonlyArray<{ stationKey: number; fuel: number; report: Report }>): Promise<Map<string, Report>> {
  if (events.length === 0) return new Map();
  const found = await rows(client, `
    SELECT e.station_key, e.fuel, e.at, e.price_tenths, e.available
    FROM price_events e JOIN unnest($1::int[], $2::smallint[], $3::bigint[]) AS k (station_key, fuel, at) USING (station_key, fuel, at)`,
  [events.map((e) => e.stationKey), events.map((e) => e.fuel), events.map((e) => e.report.at)]);
  return new Map(found.map((r) => [eventKey(Number(r.station_key), Number(r.fuel), Number(r.at)), toReport(r)]));
}

/** Stores new reports (classifyReports found none of them stored). */
async function insertEvents(client: Client, events: ReadonlyArray<{ stationKey: number; fuel: number; report: Report }>): Promise<void> {
  if (events.length === 0) return;
  await bulkInsert(client, BULK.priceEvents, [events.map((e) => e.stationKey), events.map((e) => e.fuel),
    events.map((e) => e.report.at), events.map((e) => e.report.priceTenths), events.map((e) => e.report.available)]);
}

/** Stores corrections: a stored instant's new price or availability. */
async function correctEvents(client: Client, events: ReadonlyArray<{ stationKey: number; fuel: number; report: Report }>): Promise<void> {
  if (events.length === 0) return;
  await execute(client, `
    UPDATE price_events e SET price_tenths = u.price_tenths, available = u.available
    FROM unnest($1::int[], $2::smallint[], $3::bigint[], $4::int[], $5::boolean[]) AS u (station_key, fuel, at, price_tenths, available)
    WHERE e.station_key = u.station_key AND e.fuel = u.fuel AND e.at = u.at`,
  [events.map((e) => e.stationKey), events.map((e) => e.fuel), events.map((e) => e.report.at), events.map((e) => e.report.priceTenths), events.map((e) => e.report.available)]);
}

/** Works out a group's plan (settleGroup), reading what its late reports need and dropping the spans they rebuild. */
async function settleLate(client: Client, station: StoredStation, fuel: number, current: OpenState | undefined, plan: ReportPlan): Promise<Settled> {
  const reads = lateReads(station.state, plan);
  let inForce: Report | undefined;
  let later: Report[] = [];
  if (reads) {
    const found = await firstRow(client, SQL.reportInForce, [station.key, fuel, reads.from]);
    inForce = found ? toReport(found) : undefined;
    const next = await firstRow(client, SQL.nextReportAfter, [station.key, fuel, reads.after]);
    const until = lateReadsUntil(station.state, next ? Number(next.at) : undefined);
    later = (await rows(client, SQL.reportsBetween, [station.key, fuel, reads.from, until])).map(toReport);
  }
  const settled = settleGroup(station.state, current, plan, inForce, later);
  for (const span of settled.spans) {
    await execute(client, SQL.dropDaysBetween, [station.key, fuel, span.from, span.to]);
    const runs = (await rows(client, SQL.runsOverlapping, [station.key, fuel, span.from, span.to])).map(toDayRun);
    if (runs.length === 0) continue;
    await execute(client, SQL.dropRunsOverlapping, [station.key, fuel, span.from, span.to]);
    await addStationRuns(client, runPiecesOutside(runs, span).map((run) => ({ stationKey: station.key, fuel, run })));
  }
  return settled;
}

async function upsertCurrent(client: Client, opens: ReadonlyArray<{ stationKey: number; fuel: number; cityId: string | null; state: StateId; open: OpenState }>): Promise<void> {
  await bulkInsert(client, BULK.currentPrices, [opens.map((o) => o.stationKey), opens.map((o) => o.fuel), opens.map((o) => o.open.priceTenths), opens.map((o) => o.open.available),
    opens.map((o) => o.open.at), opens.map((o) => o.open.openFrom), opens.map((o) => o.cityId), opens.map((o) => o.state)]);
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
  const all = [...merged.values()];
  await bulkInsert(client, BULK.stationDaily, [all.map((d) => d.stationKey), all.map((d) => d.total.day), all.map((d) => d.fuel), all.map((d) => d.total.weighted), all.map((d) => d.total.seconds)]);
}

/** Adds runs of whole days (one row each: a batch's runs never overlap a stored one). */
async function addStationRuns(client: Client, runs: readonly StationRunWrite[]): Promise<void> {
  await bulkInsert(client, BULK.stationRuns, [runs.map((r) => r.stationKey), runs.map((r) => r.run.to), runs.map((r) => r.fuel), runs.map((r) => r.run.from), runs.map((r) => r.run.priceTenths)]);
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
  const open = await rows(client, SQL.openBefore, [state, due.cutoff]);
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
  await execute(client, SQL.moveOpenTo, [due.cutoff, due.cutoff, state]);
  const firstDay = before === NO_DAY_LOWER_BOUND ? (await firstRow(client, SQL.firstDayOfState, [state, state]))?.d : before;
  if (firstDay !== null && firstDay !== undefined) await recomputeCityDays(client, { state }, Number(firstDay), due.today - 1);
  await execute(client, SQL.saveSeal, [state, due.today]);
  return true;
}

/** Which of the stations the prices name are stored: one read for them all. */
export async function storedStations(client: Client, prices: ReadonlyArray<{ feed: string; feedCode: string }>): Promise<(feed: string, code: string) => boolean> {
  const codes = [...new Set(prices.map((p) => feedKey(p.feed, p.feedCode)))].map((k) => k.split('\u0000'));
  const stored = new Set((await rows(client, `SELECT s.feed, s.feed_code FROM stations s
    JOIN unnest($1::text[], $2::text[]) AS q (feed, feed_code) ON s.feed = q.feed AND s.feed_code = q.feed_code`,
  [codes.map((c) => c[0]), codes.map((c) => c[1])])).map((r) => feedKey(String(r.feed), String(r.feed_code))));
  return (feed, code) => stored.has(feedKey(feed, code));
}
