import type { StateId } from '../../domain/states.ts';
import type { DayRun, OpenState, Report } from '../write-plan/day-totals.ts';
import { type DaySpan, type ReportPlan, type Settled, lateReads, lateReadsUntil, runPiecesOutside, settleGroup } from '../write-plan/late-reports.ts';
import type { Connection } from './connection.ts';
import type { ForKeys, Row } from './dialect.ts';
import { BULK } from './ingest-statements.ts';
import { toDayRun, toReport } from './row-mappers.ts';

/**
 * A batch's groups settled together (writer.ts applyBatch): the reads their late reports need
 * and the spans they rebuild dropped, each kind for every group in one ForKeys statement (issue
 * 46: a NSW month imported after the live feed has late reports in some 27,000 groups, and six
 * statements a group cost PostgreSQL 160,000 round trips, most of the import's time). Each group
 * reads and drops only its own station and fuel's rows, so doing them kind by kind, group after
 * group, leaves exactly what doing them group by group left.
 */

/** The last stored report before an instant, by (station key, fuel, instant). */
const REPORT_IN_FORCE: ForKeys = {
  width: 3,
  each: `SELECT station_key, fuel, at, price_tenths, available FROM price_events
    WHERE station_key = $1 AND fuel = $2 AND at < $3 ORDER BY at DESC LIMIT 1`,
  all: `SELECT k.station_key, k.fuel, e.at, e.price_tenths, e.available
    FROM unnest($1::int[], $2::smallint[], $3::bigint[]) AS k (station_key, fuel, before)
    CROSS JOIN LATERAL (SELECT at, price_tenths, available FROM price_events
      WHERE station_key = k.station_key AND fuel = k.fuel AND at < k.before ORDER BY at DESC LIMIT 1) e`,
};

/** The instant of the first stored report after an instant, by (station key, fuel, instant). */
const NEXT_REPORT_AFTER: ForKeys = {
  width: 3,
  each: 'SELECT station_key, fuel, at FROM price_events WHERE station_key = $1 AND fuel = $2 AND at > $3 ORDER BY at LIMIT 1',
  all: `SELECT k.station_key, k.fuel, e.at
    FROM unnest($1::int[], $2::smallint[], $3::bigint[]) AS k (station_key, fuel, after)
    CROSS JOIN LATERAL (SELECT at FROM price_events
      WHERE station_key = k.station_key AND fuel = k.fuel AND at > k.after ORDER BY at LIMIT 1) e`,
};

/** Stored reports by (station key, fuel, from, until): from ≤ at < until, in no order. */
const REPORTS_BETWEEN: ForKeys = {
  width: 4,
  each: 'SELECT station_key, fuel, at, price_tenths, available FROM price_events WHERE station_key = $1 AND fuel = $2 AND at >= $3 AND at < $4',
  all: `SELECT e.station_key, e.fuel, e.at, e.price_tenths, e.available
    FROM price_events e JOIN unnest($1::int[], $2::smallint[], $3::bigint[], $4::bigint[]) AS k (station_key, fuel, low, high)
    ON e.station_key = k.station_key AND e.fuel = k.fuel AND e.at >= k.low AND e.at < k.high`,
};

/** A span's daily sums dropped, by (station key, fuel, first day, last day). */
const DROP_DAYS: ForKeys = {
  width: 4,
  each: 'DELETE FROM station_daily WHERE station_key = $1 AND fuel = $2 AND day BETWEEN $3 AND $4',
  all: `DELETE FROM station_daily d USING unnest($1::int[], $2::smallint[], $3::int[], $4::int[]) AS k (station_key, fuel, low, high)
    WHERE d.station_key = k.station_key AND d.fuel = k.fuel AND d.day BETWEEN k.low AND k.high`,
};

/** The runs overlapping a span dropped and returned, by (station key, fuel, first day, last day): a run overlapping two spans of a group once. */
const TAKE_RUNS: ForKeys = {
  width: 4,
  each: `DELETE FROM station_runs WHERE station_key = $1 AND fuel = $2 AND to_day >= $3 AND from_day <= $4
    RETURNING station_key, fuel, from_day, to_day, price_tenths`,
  all: `DELETE FROM station_runs r USING unnest($1::int[], $2::smallint[], $3::int[], $4::int[]) AS k (station_key, fuel, low, high)
    WHERE r.station_key = k.station_key AND r.fuel = k.fuel AND r.to_day >= k.low AND r.from_day <= k.high
    RETURNING r.station_key, r.fuel, r.from_day, r.to_day, r.price_tenths`,
};

/** A group of a batch that has new or corrected reports: its station, fuel, current price and plan. */
export interface PlannedGroup {
  station: { key: number; state: StateId };
  fuel: number;
  current: OpenState | undefined;
  plan: ReportPlan;
}

/** A station's fuel as one number (fuel indexes are below 64). */
function groupKey(stationKey: number, fuel: number): number {
  return stationKey * 64 + fuel;
}

function keyOf(r: Row): number {
  return groupKey(Number(r.station_key), Number(r.fuel));
}

/**
 * Settles every planned group (settleGroup): reads what the late reports of all of them need,
 * works each out, then drops the spans they rebuild (their sums, and the runs overlapping them,
 * whose parts outside every span of their group are stored again). Returns each group's Settled,
 * in the order given.
 */
export async function settleGroups(tx: Connection, groups: readonly PlannedGroup[]): Promise<Settled[]> {
  const reads = groups.map((g) => lateReads(g.station.state, g.plan));
  const inForceKeys: number[] = [];
  const nextKeys: number[] = [];
  for (const [i, g] of groups.entries()) {
    const r = reads[i];
    if (!r) continue;
    inForceKeys.push(g.station.key, g.fuel, r.from);
    nextKeys.push(g.station.key, g.fuel, r.after);
  }
  const inForce = new Map((await tx.forKeys(REPORT_IN_FORCE, inForceKeys)).map((r) => [keyOf(r), toReport(r)]));
  const nextAt = new Map((await tx.forKeys(NEXT_REPORT_AFTER, nextKeys)).map((r) => [keyOf(r), Number(r.at)]));
  const betweenKeys: number[] = [];
  for (const [i, g] of groups.entries()) {
    const r = reads[i];
    if (r) betweenKeys.push(g.station.key, g.fuel, r.from, lateReadsUntil(g.station.state, nextAt.get(groupKey(g.station.key, g.fuel))));
  }
  const later = new Map<number, Report[]>();
  for (const row of await tx.forKeys(REPORTS_BETWEEN, betweenKeys)) {
    const key = keyOf(row);
    let reports = later.get(key);
    if (!reports) later.set(key, (reports = []));
    reports.push(toReport(row));
  }
  for (const reports of later.values()) reports.sort((a, b) => a.at - b.at);
  const settled = groups.map((g, i) => {
    const key = groupKey(g.station.key, g.fuel);
    return reads[i] ? settleGroup(g.station.state, g.current, g.plan, inForce.get(key), later.get(key) ?? []) : settleGroup(g.station.state, g.current, g.plan, undefined, []);
  });
  await dropSpans(tx, groups, settled.map((s) => s.spans));
  return settled;
}

/**
 * Drops each group's spans: their daily sums, and the runs that overlap any of them, storing
 * again the parts of those runs outside every one (cut by one span after another, as dropping
 * the spans one at a time would leave them).
 */
async function dropSpans(tx: Connection, groups: readonly PlannedGroup[], spansOf: ReadonlyArray<readonly DaySpan[]>): Promise<void> {
  const keys: number[] = [];
  const spansByGroup = new Map<number, readonly DaySpan[]>();
  for (const [i, g] of groups.entries()) {
    const spans = spansOf[i] ?? [];
    if (spans.length === 0) continue;
    spansByGroup.set(groupKey(g.station.key, g.fuel), spans);
    for (const span of spans) keys.push(g.station.key, g.fuel, span.from, span.to);
  }
  if (keys.length === 0) return;
  await tx.forKeys(DROP_DAYS, keys);
  const taken = new Map<number, { stationKey: number; fuel: number; runs: DayRun[] }>();
  for (const row of await tx.forKeys(TAKE_RUNS, keys)) {
    const key = keyOf(row);
    let group = taken.get(key);
    if (!group) taken.set(key, (group = { stationKey: Number(row.station_key), fuel: Number(row.fuel), runs: [] }));
    group.runs.push(toDayRun(row));
  }
  const pieces: number[] = [];
  for (const [key, { stationKey, fuel, runs }] of taken) {
    let left: DayRun[] = runs;
    for (const span of spansByGroup.get(key) ?? []) left = runPiecesOutside(left, span);
    for (const piece of left) pieces.push(stationKey, piece.to, fuel, piece.from, piece.priceTenths);
  }
  await tx.bulkInsert(BULK.stationRuns, pieces);
}
