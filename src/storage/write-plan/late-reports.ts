import type { StateId } from '../../domain/states.ts';
import { type LocalDay, dayStart, localDayOf } from '../../domain/time.ts';
import { type DayRun, DayTotals, type OpenState, type Report, addInterval, advance, openState } from './day-totals.ts';

/**
 * The writer's rules for reports that do not simply follow the current one, shared by every
 * backend (each does the reads and writes around them):
 *
 * - what a report is against what is stored: new, already known (the same report byte for
 *   byte), or a correction (same station, fuel and instant, a new price or availability: the
 *   later row wins);
 * - which reports are late (they fall before the open interval's start, so into days already
 *   added up, by an ingest, an import or a seal) and which advance the current price;
 * - the exact days a late report or a correction changes, and those days rebuilt from the
 *   reports. History is then a function of the reports, not of the order they came in.
 */

/** A batch's reports for one station and fuel, each one told apart from what is stored. */
export interface Classified {
  /** Instants not stored yet, one report each (of several rows for one instant the last wins), in time order. */
  fresh: Report[];
  /** Stored instants whose report changes (the last row for the instant wins), in time order. */
  corrected: Report[];
  /** Rows that repeat the report in force for their instant (stored, or an earlier row of the batch). */
  known: number;
  /** Rows that change the report in force for their instant. */
  correcting: number;
}

export function sameReport(a: Report, b: Report): boolean {
  return a.priceTenths === b.priceTenths && a.available === b.available;
}

/**
 * Tells apart a group's rows (in time order, of one instant in the order received) against the
 * stored reports at their instants. Each row is held against the report in force for its
 * instant as the rows before it left it: the stored one, or the batch's earlier row.
 */
export function classifyReports(reports: readonly Report[], storedAt: (at: number) => Report | undefined): Classified {
  const out: Classified = { fresh: [], corrected: [], known: 0, correcting: 0 };
  for (let i = 0; i < reports.length;) {
    const at = reports[i]?.at ?? 0;
    const stored = storedAt(at);
    let inForce = stored;
    for (; i < reports.length && reports[i]?.at === at; i++) {
      const row = reports[i] as Report;
      if (inForce === undefined) { inForce = row; continue; }
      if (sameReport(row, inForce)) out.known++;
      else { out.correcting++; inForce = row; }
    }
    if (inForce === undefined) continue;
    if (stored === undefined) out.fresh.push(inForce);
    else if (!sameReport(stored, inForce)) out.corrected.push(inForce);
  }
  return out;
}

/** How a group's new and corrected reports change a station's fuel. */
export interface ReportPlan {
  /** Reports that fall into days already added up (before the open interval's start), and corrections: in time order. */
  late: Report[];
  /** New reports after the current one and its open interval's start: they close it and move on, in time order. */
  advancing: Report[];
}

export function planReports(current: OpenState | undefined, fresh: readonly Report[], corrected: readonly Report[]): ReportPlan {
  if (!current) return { late: [...corrected], advancing: [...fresh] };
  const advancing: Report[] = [];
  const late: Report[] = [...corrected];
  for (const report of fresh) (report.at > current.at && report.at >= current.openFrom ? advancing : late).push(report);
  if (corrected.length > 0 && late.length > corrected.length) late.sort((a, b) => a.at - b.at);
  return { late, advancing };
}

/** Local days [from, to], both included. */
export interface DaySpan {
  from: LocalDay;
  to: LocalDay;
}

/**
 * The days that reports at `changed` instants (in time order) change: each from its instant to
 * the next report's (the next in `reports`, every report of the fuel from the first changed
 * day's start on, as stored now), or to `closedUntil` (the open interval's start) when none
 * follows; overlapping or touching spans merged, in day order. A change at or after
 * `closedUntil` changes no closed day.
 */
export function changedSpans(state: StateId, changed: readonly number[], reports: readonly Report[], closedUntil: number): DaySpan[] {
  const spans: DaySpan[] = [];
  let next = 0;
  for (const at of changed) {
    while (next < reports.length && (reports[next]?.at ?? 0) <= at) next++;
    const end = Math.min(reports[next]?.at ?? Infinity, closedUntil);
    if (end <= at) continue;
    const span = { from: localDayOf(state, at), to: localDayOf(state, end - 1) };
    const last = spans[spans.length - 1];
    if (last && span.from <= last.to + 1) last.to = Math.max(last.to, span.to);
    else spans.push(span);
  }
  return spans;
}

/**
 * The daily sums and runs of `spans`, worked out whole from the reports: each span from its
 * first day's midnight to the midnight after its last day, or to `closedUntil` when that comes
 * first. `inForce` is the report in force at the first span's start (the last one before it),
 * `reports` every report from then on, in time order.
 */
export function rebuildSpans(state: StateId, spans: readonly DaySpan[], inForce: Report | undefined, reports: readonly Report[], closedUntil: number): DayTotals {
  const totals = new DayTotals();
  let previous = inForce;
  let next = 0;
  for (const span of spans) {
    const start = dayStart(state, span.from);
    const end = Math.min(dayStart(state, span.to + 1), closedUntil);
    while (next < reports.length && (reports[next]?.at ?? 0) < start) previous = reports[next++];
    let from = start;
    for (; next < reports.length && (reports[next]?.at ?? 0) < end; next++) {
      const report = reports[next] as Report;
      if (previous) addInterval(totals, state, from, report.at, previous);
      previous = report;
      from = report.at;
    }
    if (previous) addInterval(totals, state, from, end, previous);
  }
  return totals;
}

/**
 * The stored reports a plan's late reports need: from the start of the first one's day, to the
 * end of the day of the first stored report after the last one (`nextAt`; none: to the end).
 * A late report costs the reports of the days it changes, not the station's whole history.
 */
export function lateReads(state: StateId, plan: ReportPlan): { from: number; after: number } | undefined {
  const first = plan.late[0];
  const last = plan.late[plan.late.length - 1];
  if (first === undefined || last === undefined) return undefined;
  return { from: dayStart(state, localDayOf(state, first.at)), after: last.at };
}

/** The end (exclusive) of the reports lateReads() needs, given the first stored report after its `after`. */
export function lateReadsUntil(state: StateId, nextAt: number | undefined): number {
  return nextAt === undefined ? Number.MAX_SAFE_INTEGER : dayStart(state, localDayOf(state, nextAt) + 1);
}

export interface Settled {
  /** Sums and runs to add: the rebuilt spans', then the advancing reports'. */
  totals: DayTotals;
  /** Spans whose stored sums and runs are to be dropped first (rebuildSpans gives them back). */
  spans: DaySpan[];
  open: OpenState | undefined;
}

/**
 * Works out what a group's plan does, given what the backend read for its late reports (none
 * when it has none; see lateReads): `inForce`, the last stored report before their `from`, and
 * `stored`, the stored reports from then on in time order, this batch's new and corrected ones
 * included (its advancing ones may be there too: they are left out here). The open interval's
 * start stays where it was for late reports; a late report newer than the current one (or a
 * correction of it) becomes the current one. Advancing reports then move on from there.
 */
export function settleGroup(state: StateId, current: OpenState | undefined, plan: ReportPlan, inForce: Report | undefined, stored: readonly Report[]): Settled {
  let totals = new DayTotals();
  let spans: DaySpan[] = [];
  let open = current;
  if (current && plan.late.length > 0) {
    const reports = plan.advancing.length === 0 ? stored : stored.filter((r) => !(r.at > current.at && r.at >= current.openFrom));
    spans = changedSpans(state, plan.late.map((r) => r.at), reports, current.openFrom);
    totals = rebuildSpans(state, spans, inForce, reports, current.openFrom);
    const newest = plan.late[plan.late.length - 1];
    if (newest && newest.at >= current.at) open = openState(newest, current.openFrom);
  }
  const advanced = advance(state, open, plan.advancing, totals);
  return { totals: advanced.totals, spans, open: advanced.open };
}

/** The parts of stored runs that lie outside `span`, to be stored again once the runs that overlap it are dropped. */
export function runPiecesOutside(runs: readonly DayRun[], span: DaySpan): DayRun[] {
  const pieces: DayRun[] = [];
  for (const run of runs) {
    if (run.from < span.from) pieces.push({ from: run.from, to: Math.min(run.to, span.from - 1), priceTenths: run.priceTenths });
    if (run.to > span.to) pieces.push({ from: Math.max(run.from, span.to + 1), to: run.to, priceTenths: run.priceTenths });
  }
  return pieces;
}
