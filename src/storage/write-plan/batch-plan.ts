import { fuelIndex } from '../../domain/fuels.ts';
import { formatCoordinate } from '../../domain/rounding.ts';
import type { StateId } from '../../domain/states.ts';
import { type LocalDay, dayStart, localDayOf } from '../../domain/time.ts';
import { type DayRun, type DayTotal, DayTotals, type OpenState, type Report, addInterval } from './day-totals.ts';
import type { Classified, DaySpan } from './late-reports.ts';
import type { BatchResult, PriceEvent, StationInput } from '../store.ts';

/**
 * The writer's decisions that do not depend on the database: grouping a batch, choosing
 * between advance() and replay(), keeping the seal's invariant, tallying the result. Each
 * backend does the reads and writes around them; the arithmetic itself is in day-totals.ts.
 */

/** A day before any real one: "no seal yet" and "no lower bound" in day ranges. */
export const NO_DAY_LOWER_BOUND = -1_000_000;

/** What the writer needs of a stored station. */
export interface StoredStation {
  key: number;
  id: string;
  state: StateId;
  cityId: string | null;
}

export function feedKey(feed: string, code: string): string {
  return `${feed}\u0000${code}`;
}

/** Coordinates as stored: rounded as the API shows them, so an unchanged station compares equal. */
export function storedCoordinates(input: StationInput): { latitude: number | null; longitude: number | null } {
  // No position is stored as none (both null), never as a made-up one.
  if (input.latitude === null || input.longitude === null) return { latitude: null, longitude: null };
  return { latitude: Number(formatCoordinate(input.latitude)), longitude: Number(formatCoordinate(input.longitude)) };
}

export interface ReportGroup<S> {
  station: S;
  /** Fuel index. */
  fuel: number;
  /** As received, in time order (stable: of two reports for one instant, the first stays first). */
  reports: Report[];
}

/**
 * A batch's prices per station and fuel, in order of first appearance. A price for a station
 * that `stationOf` does not know fails the whole batch. The reports are the batch's own
 * events (a PriceEvent is a Report), not copies: a big batch holds millions.
 */
export function groupPrices<S extends { key: number }>(
  prices: readonly PriceEvent[], fuelIndexOf: (event: PriceEvent) => number, stationOf: (feed: string, code: string) => S | undefined,
): Array<ReportGroup<S>> {
  // Keyed by station key and fuel index as one number: fuel indexes run from -1 (unknown) to 18.
  const groups = new Map<number, ReportGroup<S>>();
  // Reports come in runs of one station (a feed lists a station's fuels together): look it up once per run.
  let lastFeed: string | undefined;
  let lastCode: string | undefined;
  let station: S | undefined;
  for (const event of prices) {
    if (event.feedCode !== lastCode || event.feed !== lastFeed) {
      station = stationOf(event.feed, event.feedCode);
      if (!station) throw new Error(`price for unknown station ${event.feed}/${event.feedCode}: send the station in the batch`);
      lastFeed = event.feed;
      lastCode = event.feedCode;
    }
    if (!station) continue; // unreachable: set above or thrown
    const fuel = fuelIndexOf(event);
    const key = station.key * 64 + fuel + 1;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { station, fuel, reports: [] }));
    group.reports.push(event);
  }
  for (const group of groups.values()) if (!inTimeOrder(group.reports)) group.reports.sort((a, b) => a.at - b.at);
  return [...groups.values()];
}

function inTimeOrder(reports: readonly Report[]): boolean {
  for (let i = 1; i < reports.length; i++) if ((reports[i]?.at ?? 0) < (reports[i - 1]?.at ?? 0)) return false;
  return true;
}

/** Keeps the seal's invariant: no open interval starts before the state's sealed days end. */
export function closeSealedPart(state: StateId, totals: DayTotals, open: OpenState | undefined, sealedBefore: LocalDay): void {
  if (!open || sealedBefore === NO_DAY_LOWER_BOUND) return;
  const cutoff = dayStart(state, sealedBefore);
  if (open.openFrom >= cutoff) return;
  addInterval(totals, state, open.openFrom, cutoff, open);
  open.openFrom = cutoff;
}

export interface StationDayWrite {
  stationKey: number;
  fuel: number;
  total: DayTotal;
}

export interface StationRunWrite {
  stationKey: number;
  fuel: number;
  run: DayRun;
}

/** The daily sums one station's fuel adds, as the group left them. */
export interface GroupDays {
  station: StoredStation;
  fuel: number;
  totals: DayTotals;
}

/** Tallies a batch: the result to report, the daily sums to add, and the sealed city days to recompute. */
export class BatchTally {
  readonly result: BatchResult = { stationsAdded: 0, stationsUpdated: 0, pricesAccepted: 0, pricesIgnored: 0, pricesCorrected: 0 };
  /** Per group with daily sums, in the order the groups were tallied. */
  readonly groups: GroupDays[] = [];
  /** City id -> sealed days [from, to] that a late report touched. */
  readonly resealCities = new Map<string, { from: LocalDay; to: LocalDay }>();

  constructor(private readonly sealedBefore: (state: StateId) => LocalDay) {}

  station(change: 'added' | 'updated' | 'same'): void {
    if (change === 'added') this.result.stationsAdded++;
    if (change === 'updated') this.result.stationsUpdated++;
  }

  /**
   * One station's fuel: its rows as classified, the sums and runs to add, and the spans of days
   * rebuilt for late reports (their stored days dropped: a sealed day among them is recomputed
   * for the city even when nothing is added back, a day now out of stock all day, say).
   */
  group(station: StoredStation, fuel: number, rows: Pick<Classified, 'fresh' | 'known' | 'correcting'>, totals: DayTotals, rebuilt: readonly DaySpan[] = []): void {
    this.result.pricesAccepted += rows.fresh.length;
    this.result.pricesIgnored += rows.known;
    this.result.pricesCorrected += rows.correcting;
    if (totals.size > 0) this.groups.push({ station, fuel, totals });
    if (!station.cityId) return;
    const sealed = this.sealedBefore(station.state);
    const touch = (from: LocalDay, to: LocalDay): void => {
      if (from >= sealed) return;
      widen(this.resealCities, station.cityId as string, from);
      widen(this.resealCities, station.cityId as string, Math.min(to, sealed - 1));
    };
    for (const day of totals.days) touch(day, day);
    for (const run of totals.runs) touch(run.from, run.to);
    for (const span of rebuilt) touch(span.from, span.to);
  }

  /** Every daily sum to add, one row each. */
  get days(): StationDayWrite[] {
    const days: StationDayWrite[] = [];
    for (const { station, fuel, totals } of this.groups) for (const total of totals.values()) days.push({ stationKey: station.key, fuel, total });
    return days;
  }

  /** Every run of whole days to add, one row each. */
  get runs(): StationRunWrite[] {
    const runs: StationRunWrite[] = [];
    for (const { station, fuel, totals } of this.groups) for (const run of totals.runs) runs.push({ stationKey: station.key, fuel, run });
    return runs;
  }

  /** Whether anything the API answers changed, so the data version must grow. */
  get changed(): boolean {
    return this.result.stationsAdded + this.result.stationsUpdated + this.result.pricesAccepted + this.result.pricesCorrected > 0;
  }
}

function widen(ranges: Map<string, { from: LocalDay; to: LocalDay }>, key: string, day: LocalDay): void {
  const range = ranges.get(key);
  if (range) { range.from = Math.min(range.from, day); range.to = Math.max(range.to, day); } else ranges.set(key, { from: day, to: day });
}

/** The day a state's seal moves to and the instant that day starts, or undefined when the seal is current. */
export function sealDue(state: StateId, nowSec: number, sealedBefore: LocalDay): { today: LocalDay; cutoff: number } | undefined {
  const today = localDayOf(state, nowSec);
  return today <= sealedBefore ? undefined : { today, cutoff: dayStart(state, today) };
}

/** The per-day sums and whole days of an open interval closed at `cutoff` (a local midnight). */
export function closeAt(state: StateId, open: OpenState, cutoff: number): DayTotals {
  const totals = new DayTotals();
  addInterval(totals, state, open.openFrom, cutoff, open);
  return totals;
}

/** A feed batch's prices split by the clock: those in force now, and those to hold until due. */
export function splitHeld(prices: readonly PriceEvent[], now: number): { due: PriceEvent[]; held: PriceEvent[] } {
  const due: PriceEvent[] = [];
  const held: PriceEvent[] = [];
  for (const price of prices) (price.at > now ? held : due).push(price);
  return { due, held };
}

/**
 * Prices to hold against those held already, by station, fuel and instant: `fresh` are new (the
 * first of a batch's repeats), `changed` were held with another price or availability (the
 * batch's last row wins, as a stored report's correction does); the rest are the same report.
 */
export function sortHeld(held: readonly PriceEvent[], stored: readonly PriceEvent[]): { fresh: PriceEvent[]; changed: PriceEvent[] } {
  const key = (p: PriceEvent): string => `${feedKey(p.feed, p.feedCode)}\u0000${p.fuel}\u0000${p.at}`;
  const before = new Map(stored.map((p) => [key(p), p]));
  const latest = new Map<string, PriceEvent>();
  for (const p of held) latest.set(key(p), p);
  const fresh: PriceEvent[] = [];
  const changed: PriceEvent[] = [];
  for (const [k, p] of latest) {
    const was = before.get(k);
    if (!was) fresh.push(p);
    else if (was.priceTenths !== p.priceTenths || was.available !== p.available) changed.push(p);
  }
  return { fresh, changed };
}

/** Prices whose station is in the batch or stored, and those of unknown stations (asked about once per station). */
export function partitionKnown(
  prices: readonly PriceEvent[], stations: readonly StationInput[], isStored: (feed: string, code: string) => boolean,
): { kept: PriceEvent[]; unknown: PriceEvent[] } {
  const known = new Map<string, boolean>(stations.map((s) => [feedKey(s.feed, s.feedCode), true]));
  const kept: PriceEvent[] = [];
  const unknown: PriceEvent[] = [];
  for (const price of prices) {
    const key = feedKey(price.feed, price.feedCode);
    let found = known.get(key);
    if (found === undefined) known.set(key, (found = isStored(price.feed, price.feedCode)));
    (found ? kept : unknown).push(price);
  }
  return { kept, unknown };
}

/** Released prices in the order they are applied: by time, then feed and code (byte order, as SQLite sorts text), then fuel. */
export function sortReleased(prices: PriceEvent[]): PriceEvent[] {
  return prices.sort((a, b) => a.at - b.at || byteCompare(a.feed, b.feed) || byteCompare(a.feedCode, b.feedCode) || fuelIndex(a.fuel) - fuelIndex(b.fuel));
}

function byteCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** How many unknown-station prices a result lists by value (the count covers them all). */
export const UNKNOWN_EXAMPLES = 5;
