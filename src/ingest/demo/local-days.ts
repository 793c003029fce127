/**
 * A state's local days over the demo's history, worked out once (demo.ts) and read by every
 * station of the state: which day an instant falls on, where a day starts, and the instant of
 * a wall-clock time on a day, right on the days daylight saving starts and ends.
 */
import type { StateId } from '../../domain/states.ts';
import { utcOffsetSeconds } from '../../domain/time.ts';

const DAY = 86_400;

/** Day starts of a state, indexed from a first local day. */
export interface DayStarts {
  firstDay: number;
  starts: Float64Array;
}

export class LocalDays {
  constructor(private readonly state: StateId, private readonly days: DayStarts) {}

  /** The local day an instant falls on. */
  dayOf(t: number): number {
    const { firstDay, starts } = this.days;
    let k = Math.floor((t - (starts[0] ?? 0)) / DAY);
    while (k > 0 && (starts[k] ?? Infinity) > t) k--;
    while ((starts[k + 1] ?? Infinity) <= t) k++;
    return firstDay + k;
  }

  /** The instant a local day starts; throws outside the history. */
  start(day: number): number {
    const { firstDay, starts } = this.days;
    const s = starts[day - firstDay];
    if (s === undefined) throw new RangeError(`day ${day} outside the demo's calendar`);
    return s;
  }

  /** The instant of a wall-clock time on the local day starting at ws (correct on DST days). */
  wallTime(ws: number, we: number, secondsAfterMidnight: number): number {
    const t = ws + secondsAfterMidnight;
    if (we - ws === DAY) return t;
    return t + utcOffsetSeconds(this.state, ws) - utcOffsetSeconds(this.state, t);
  }
}

/** Seconds since local midnight at a whole-second instant. */
export function secondOfDay(state: StateId, at: number): number {
  return (((at + utcOffsetSeconds(state, at)) % DAY) + DAY) % DAY;
}
