/**
 * The national and city-level forces behind the demo's prices: slow wholesale drifts for
 * petrol, diesel and LPG (anchored so that today's level is the 2025-26 one), and the petrol
 * price cycles of the five cycling capitals.
 */
import { Rng } from './random.ts';

const DAY = 86_400;
const HOUR = 3_600;

export interface CycleSpec {
  /** Mean length in days, and how far one cycle may stray from it. */
  days: number;
  jitter: number;
  /** Trough-to-peak depth in tenths of a cent. */
  depth: readonly [number, number];
  /** How long the rise takes, in hours. */
  rise: readonly [number, number];
  /** The most a station trails the city's cycle by, in hours. */
  lag: number;
}

/** Petrol cycles exist in these five capitals only (ACCC); nowhere else, and never for diesel. */
export const CYCLES: Readonly<Record<string, CycleSpec>> = {
  // Perth's stations all jump on the same morning: FuelWatch prices take effect at 06:00.
  perth: { days: 7, jitter: 0, depth: [150, 250], rise: [2, 10], lag: 12 },
  adelaide: { days: 14, jitter: 2, depth: [250, 400], rise: [20, 40], lag: 30 },
  sydney: { days: 42, jitter: 7, depth: [250, 400], rise: [24, 48], lag: 36 },
  melbourne: { days: 42, jitter: 7, depth: [250, 400], rise: [24, 48], lag: 36 },
  brisbane: { days: 49, jitter: 7, depth: [250, 400], rise: [24, 48], lag: 36 },
};

/** One city's cycles over the history: the city-wide component added to petrol prices. */
export class CityCycle {
  readonly lagHours: number;
  private readonly starts: number[] = [];
  private readonly lengths: number[] = [];
  private readonly rises: number[] = [];
  private readonly depths: number[] = [];
  /** Index of the cycle the last call fell in. */
  private last = 0;

  constructor(seed: number, city: string, spec: CycleSpec, fromSec: number, toSec: number) {
    const rng = new Rng(seed, 'cycle', city);
    this.lagHours = spec.lag;
    const draw = (): { length: number; rise: number; depth: number } => ({
      length: Math.round((spec.days + rng.range(-spec.jitter, spec.jitter)) * DAY),
      rise: Math.round(rng.range(spec.rise[0], spec.rise[1]) * HOUR),
      depth: rng.range(spec.depth[0], spec.depth[1]),
    });
    // Anchored on the present: the cycle in progress now, then back to the start of history.
    const current = draw();
    const back: Array<{ start: number; length: number; rise: number; depth: number }> = [];
    let start = toSec - Math.floor(rng.next() * current.length);
    back.push({ start, ...current });
    while (start > fromSec) {
      const c = draw();
      start -= c.length;
      back.push({ start, ...c });
    }
    back.reverse();
    let end = toSec;
    const last = back[back.length - 1];
    if (last) end = last.start + last.length;
    while (end <= toSec + 2 * DAY) {
      const c = draw();
      back.push({ start: end, ...c });
      end += c.length;
    }
    for (const c of back) {
      this.starts.push(c.start);
      this.lengths.push(c.length);
      this.rises.push(c.rise);
      this.depths.push(c.depth);
    }
  }

  /** The cycle component at an instant, in tenths: -0.45 depth at the trough, +0.55 at the peak. */
  at(t: number): number {
    const { starts } = this;
    if (t < (starts[0] ?? 0)) return 0;
    // The cycle in progress: a station asks about later and later instants, so nearly always
    // the one of the last call or the next; otherwise the last cycle starting at or before t.
    let lo = this.last;
    if (!((starts[lo] ?? Infinity) <= t && t < (starts[lo + 1] ?? Infinity))) {
      if ((starts[lo] ?? Infinity) <= t && (starts[lo + 1] ?? Infinity) <= t && t < (starts[lo + 2] ?? Infinity)) lo++;
      else {
        lo = 0;
        let hi = starts.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if ((starts[mid] ?? 0) <= t) lo = mid;
          else hi = mid - 1;
        }
      }
      this.last = lo;
    }
    const x = t - (starts[lo] ?? 0);
    const length = this.lengths[lo] ?? DAY;
    const rise = this.rises[lo] ?? HOUR;
    const depth = this.depths[lo] ?? 0;
    if (x >= length) return -0.45 * depth;
    if (x < rise) return -0.45 * depth + (depth * x) / rise;
    // The fall is quick at first and slows towards the trough.
    return 0.55 * depth - depth * ((x - rise) / (length - rise)) ** 0.8;
  }
}

/** Daily drift series, one value a day, the last day being 0 (today's prices are the anchor). */
function drift(rng: Rng, days: number, stepSd: number, limit: number): Float64Array {
  const out = new Float64Array(Math.max(1, days));
  let velocity = 0;
  for (let k = out.length - 2; k >= 0; k--) {
    velocity = 0.9 * velocity + stepSd * rng.normal();
    let next = (out[k + 1] ?? 0) * 0.995 + velocity;
    // Pushed back from the limits rather than clipped, so the series never sits on a bound.
    if (Math.abs(next) > limit) {
      next = Math.sign(next) * (2 * limit - Math.abs(next));
      velocity = -velocity;
    }
    out[k] = next;
  }
  return out;
}

export class Market {
  /** Per day index (0 = first local day of the history): drift in tenths of a cent. */
  readonly petrol: Float64Array;
  readonly diesel: Float64Array;
  readonly lpg: Float64Array;
  readonly cycles: ReadonlyMap<string, CityCycle>;

  constructor(seed: number, days: number, fromSec: number, toSec: number) {
    const rng = new Rng(seed, 'market');
    // About +-12 c over ten years, +-6 c over two, never more than half a cent a day.
    this.petrol = drift(rng, days, 0.5, 150);
    const own = drift(rng, days, 0.35, 100);
    this.diesel = this.petrol.map((p, k) => 0.5 * p + (own[k] ?? 0));
    this.lpg = drift(rng, days, 0.25, 80);
    const cycles = new Map<string, CityCycle>();
    for (const [city, spec] of Object.entries(CYCLES)) cycles.set(city, new CityCycle(seed, city, spec, fromSec - 3 * DAY, toSec));
    this.cycles = cycles;
  }
}
