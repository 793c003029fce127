import { STATES, STATE_TIME_ZONES, type StateId } from './states.ts';

export type LocalDay = number;

const DAY = 86_400;

// Offsets are read from Intl once per chunk of time and cached as a list of
// constant-offset intervals: Intl is costly per call, and the data
// writer converts millions of instants. Chunks are built lazily, so any
// instant Intl can format is supported, not just a fixed range of years.
const CHUNK = 2 ** 25; // ~388 days: a handful of transitions per chunk
const SAMPLE_STEP = DAY; // no zone changes offset twice within a day

interface Chunk {
  starts: number[];
  offsets: number[];
  end: number;
}

interface Zone {
  name: string;
  fmt: Intl.DateTimeFormat | null;
  chunks: Map<number, Chunk>;
  // The interval of the last lookup: callers mostly walk forward in time, so
  // this answers nearly every call without a search.
  start: number;
  end: number;
  offset: number;
}

const zonesByName = new Map<string, Zone>();
const ZONE_OF = {} as Record<StateId, Zone>;
for (const state of STATES) {
  const name = STATE_TIME_ZONES[state];
  let zone = zonesByName.get(name);
  if (!zone) {
    zone = { name, fmt: null, chunks: new Map(), start: 0, end: 0, offset: 0 };
    zonesByName.set(name, zone);
  }
  ZONE_OF[state] = zone;
}

function intlOffset(fmt: Intl.DateTimeFormat, unixSec: number): number {
  const f: Record<string, number> = {};
  for (const p of fmt.formatToParts(new Date(unixSec * 1000))) {
    if (p.type !== 'literal') f[p.type] = Number(p.value);
  }
  const d = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not remap years 0-99 to 1900-1999.
  d.setUTCFullYear(f['year'] ?? 0, (f['month'] ?? 1) - 1, f['day'] ?? 1);
  d.setUTCHours(f['hour'] ?? 0, f['minute'] ?? 0, f['second'] ?? 0);
  return d.getTime() / 1000 - unixSec;
}

function buildChunk(fmt: Intl.DateTimeFormat, c0: number): Chunk {
  const end = c0 + CHUNK;
  let a = c0;
  let oa = intlOffset(fmt, a);
  const starts = [a];
  const offsets = [oa];
  while (a < end - 1) {
    const b = Math.min(a + SAMPLE_STEP, end - 1);
    if (intlOffset(fmt, b) === oa) {
      a = b;
      continue;
    }
    let lo = a;
    let hi = b;
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (intlOffset(fmt, mid) === oa) lo = mid;
      else hi = mid;
    }
    // Resume from the transition, not from b, so a second change before b is
    // still found.
    a = hi;
    oa = intlOffset(fmt, hi);
    starts.push(a);
    offsets.push(oa);
  }
  return { starts, offsets, end };
}

function locate(zone: Zone, unixSec: number): void {
  if (!Number.isFinite(unixSec)) throw new RangeError(`invalid unix time: ${unixSec}`);
  const key = Math.floor(unixSec / CHUNK);
  let chunk = zone.chunks.get(key);
  if (!chunk) {
    zone.fmt ??= new Intl.DateTimeFormat('en-US', {
      timeZone: zone.name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    chunk = buildChunk(zone.fmt, key * CHUNK);
    zone.chunks.set(key, chunk);
  }
  const { starts, offsets } = chunk;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= unixSec) lo = mid;
    else hi = mid - 1;
  }
  zone.start = starts[lo] ?? 0;
  zone.end = starts[lo + 1] ?? chunk.end;
  zone.offset = offsets[lo] ?? 0;
}

export function utcOffsetSeconds(state: StateId, unixSec: number): number {
  const zone = ZONE_OF[state];
  if (!(unixSec >= zone.start && unixSec < zone.end)) locate(zone, unixSec);
  return zone.offset;
}

export function localDayOf(state: StateId, unixSec: number): LocalDay {
  const zone = ZONE_OF[state];
  if (!(unixSec >= zone.start && unixSec < zone.end)) locate(zone, unixSec);
  return Math.floor((unixSec + zone.offset) / DAY);
}

// The first instant whose local date is on or after `day`. Walking the
// constant-offset intervals rather than guessing an offset keeps this right
// even if a transition lands at or across midnight.
export function dayStart(state: StateId, day: LocalDay): number {
  const zone = ZONE_OF[state];
  const midnight = day * DAY;
  let t = midnight - 2 * DAY; // offsets stay well within +-2 days
  for (;;) {
    locate(zone, t);
    const candidate = Math.max(zone.start, midnight - zone.offset);
    if (candidate < zone.end) return candidate;
    t = zone.end;
  }
}

/**
 * The length in seconds of local `day`, which starts at `start` (its dayStart): 86,400, or an
 * hour less or more across a daylight-saving change. When the UTC offset is the same at both
 * ends the day ends at the next local midnight, which the offset cache answers without a
 * search; a day that touches a transition is measured with dayStart.
 */
export function dayLength(state: StateId, day: LocalDay, start: number): number {
  const offset = utcOffsetSeconds(state, start);
  const next = (day + 1) * DAY - offset;
  if (utcOffsetSeconds(state, next - 1) !== offset || utcOffsetSeconds(state, next) !== offset) return dayStart(state, day + 1) - start;
  return next - start;
}

/** Calls `visit` with each local day from `from` to `to` (inclusive) and its length in seconds, in day order. */
export function eachDayLength(state: StateId, from: LocalDay, to: LocalDay, visit: (day: LocalDay, seconds: number) => void): void {
  if (to < from) return;
  let start = dayStart(state, from);
  for (let day = from; day <= to; day++) {
    const seconds = dayLength(state, day, start);
    visit(day, seconds);
    start += seconds;
  }
}

export interface DaySlice {
  day: LocalDay;
  seconds: number;
}

export function splitByLocalDay(state: StateId, fromSec: number, toSec: number): DaySlice[] {
  const zone = ZONE_OF[state];
  const slices: DaySlice[] = [];
  let t = fromSec;
  while (t < toSec) {
    if (!(t >= zone.start && t < zone.end)) locate(zone, t);
    const day = Math.floor((t + zone.offset) / DAY);
    const end = Math.min(toSec, zone.end, (day + 1) * DAY - zone.offset);
    const last = slices[slices.length - 1];
    // A transition mid-day splits an interval without changing the date.
    if (last && last.day === day) last.seconds += end - t;
    else slices.push({ day, seconds: end - t });
    t = end;
  }
  return slices;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

export function formatLocalDay(day: LocalDay): string {
  const { y, m, d } = ymdOfLocalDay(day);
  return `${pad(d, 2)}-${pad(m, 2)}-${pad(y, 4)}`;
}

export function localDayFromYmd(y: number, m: number, d: number): LocalDay {
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return date.getTime() / (DAY * 1000);
}

export function ymdOfLocalDay(day: LocalDay): { y: number; m: number; d: number } {
  const date = new Date(day * DAY * 1000);
  return { y: date.getUTCFullYear(), m: date.getUTCMonth() + 1, d: date.getUTCDate() };
}

export const TIMEFRAMES = ['last-week', 'last-month', 'last-year', 'last-financial-year', 'all-time'] as const;
export type Timeframe = typeof TIMEFRAMES[number];
export const DEFAULT_TIMEFRAME: Timeframe = 'last-month';

export interface DayWindow {
  from: LocalDay | null;
  to: LocalDay;
}

function daysInMonth(y: number, m: number): number {
  return ymdOfLocalDay(localDayFromYmd(y, m + 1, 1) - 1).d;
}

// The day after the same date `months` earlier; a date missing from the
// earlier month (31 Mar -> 31 Feb) clamps to that month's last day.
function dayAfterMonthsAgo(today: LocalDay, months: number): LocalDay {
  const { y, m, d } = ymdOfLocalDay(today);
  const index = y * 12 + (m - 1) - months;
  const py = Math.floor(index / 12);
  const pm = index - py * 12 + 1;
  return localDayFromYmd(py, pm, Math.min(d, daysInMonth(py, pm))) + 1;
}

export function timeframeWindow(timeframe: Timeframe, today: LocalDay): DayWindow {
  switch (timeframe) {
    case 'last-week':
      return { from: today - 6, to: today };
    case 'last-month':
      return { from: dayAfterMonthsAgo(today, 1), to: today };
    case 'last-year':
      return { from: dayAfterMonthsAgo(today, 12), to: today };
    case 'last-financial-year': {
      // Only a complete year counts, so on 30 June the current one is excluded.
      const { y, m } = ymdOfLocalDay(today);
      const endYear = m >= 7 ? y : y - 1;
      return { from: localDayFromYmd(endYear - 1, 7, 1), to: localDayFromYmd(endYear, 6, 30) };
    }
    case 'all-time':
      return { from: null, to: today };
  }
}

/**
 * The instant at which a state's wall clock shows y-m-d h:mi:s (feeds report local times).
 * In the hour skipped when DST starts the earlier offset applies; in the repeated hour when it
 * ends, the first (daylight) occurrence.
 */
export function localTimeToUnix(state: StateId, y: number, m: number, d: number, h: number, mi: number, s: number): number {
  const wall = localDayFromYmd(y, m, d) * DAY + h * 3_600 + mi * 60 + s;
  const before = utcOffsetSeconds(state, wall - 14 * 3_600);
  const after = utcOffsetSeconds(state, wall + 14 * 3_600);
  const valid = [wall - before, wall - after].filter((t) => wall - utcOffsetSeconds(state, t) === t);
  return valid.length > 0 ? Math.min(...valid) : wall - before;
}

/** Unix seconds as an ISO 8601 instant in UTC, whole seconds: `2026-11-23T01:00:00Z`. */
export function formatInstant(unixSec: number): string {
  return new Date(unixSec * 1000).toISOString().replace('.000Z', 'Z');
}
