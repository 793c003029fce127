/**
 * The reference for stations along a path, written for the tests and independent of the code's
 * unit vectors (src/domain/arc.ts): navigation's spherical trigonometry on the 6,371 km sphere,
 * with bearings, the law of cosines and Napier's rules for the right spherical triangle.
 *
 * - A segment is the great-circle arc between its points. From its start A, a station P is δ13
 *   away at bearing θ13, the arc heads θ12: the cross-track angle is asin(sin δ13 sin(θ13 − θ12))
 *   and the along-track angle atan2(sin δ13 cos(θ13 − θ12), cos δ13). Where that falls within the
 *   arc, the distance is the cross-track one; elsewhere the nearer end.
 * - Passes (docs/ENDPOINTS.md, 14a): a station's passes are the runs of segments within the corridor joined at
 *   points within it; along is that of the nearest point of the first pass, distance the least of all.
 */
import type { Point } from '../src/domain/nearby.ts';

export const R = 6371;
const rad = (d: number): number => (d * Math.PI) / 180;
const deg = (r: number): number => (r * 180) / Math.PI;

/** Great-circle km by the spherical law of cosines (the code uses the haversine and chords). */
export function greatCircle(a: Point, b: Point): number {
  return R * Math.acos(Math.max(-1, Math.min(1,
    Math.sin(rad(a.latitude)) * Math.sin(rad(b.latitude)) + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.cos(rad(b.longitude - a.longitude)))));
}

/** The initial bearing from a to b, radians clockwise from north. */
export function bearing(a: Point, b: Point): number {
  const [φ1, φ2, Δλ] = [rad(a.latitude), rad(b.latitude), rad(b.longitude - a.longitude)];
  return Math.atan2(Math.sin(Δλ) * Math.cos(φ2), Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(Δλ));
}

/** The point `km` from p at bearing θ (radians). */
export function destination(p: Point, θ: number, km: number): Point {
  const [φ1, λ1, δ] = [rad(p.latitude), rad(p.longitude), km / R];
  const φ2 = Math.asin(Math.sin(φ1) * Math.cos(δ) + Math.cos(φ1) * Math.sin(δ) * Math.cos(θ));
  const λ2 = λ1 + Math.atan2(Math.sin(θ) * Math.sin(δ) * Math.cos(φ1), Math.cos(δ) - Math.sin(φ1) * Math.sin(φ2));
  return { latitude: deg(φ2), longitude: ((deg(λ2) + 540) % 360) - 180 };
}

/** A point `fraction` of the way from a to b along their great circle, then `offKm` off it to the left (negative: right). */
export function beside(a: Point, b: Point, fraction: number, offKm: number): Point {
  const foot = destination(a, bearing(a, b), fraction * greatCircle(a, b));
  // At the foot the arc heads on towards b (at b itself, opposite to the way back to a): left is a quarter turn anticlockwise.
  const heading = fraction < 1 ? bearing(foot, b) : bearing(b, a) + Math.PI;
  return destination(foot, heading - Math.PI / 2, offKm);
}

/** A station against one segment: its distance and the length along the segment to its nearest point, km. */
export function againstSegment(a: Point, b: Point, p: Point): { km: number; alongKm: number } {
  const d13 = greatCircle(a, p) / R;
  const d12 = greatCircle(a, b);
  if (d12 === 0) return { km: d13 * R, alongKm: 0 };
  const Δθ = bearing(a, p) - bearing(a, b);
  const xt = Math.asin(Math.sin(d13) * Math.sin(Δθ));
  const at = Math.atan2(Math.sin(d13) * Math.cos(Δθ), Math.cos(d13)) * R;
  if (at >= 0 && at <= d12) return { km: Math.abs(xt) * R, alongKm: at };
  const toA = d13 * R;
  const toB = greatCircle(b, p);
  return toB < toA ? { km: toB, alongKm: d12 } : { km: toA, alongKm: 0 };
}

export interface Reference {
  /** The least distance, km (not rounded). */
  km: number;
  /** Along to the nearest point of the first pass, km. */
  alongKm: number;
  /**
   * Along to every point of the first pass as near as the nearest to a millimetre, km: where a pass runs over the same
   * ground twice (a hairpin of metre-long segments), the code and this part by floating-point noise on which is nearer.
   */
  alongTies: number[];
  /** Whether a decision (within the corridor or not) was within 1 cm of its edge, where the code and this may round apart. */
  marginal: boolean;
}

/** Where a station stands against a path with a corridor; undefined when outside it. */
export function reference(path: readonly Point[], p: Point, corridorKm: number): Reference | undefined {
  const edge = Math.round(corridorKm * 1000) + 0.5;
  let marginal = false;
  const within = (km: number): boolean => {
    if (Math.abs(km * 1000 - edge) < 0.01) marginal = true;
    return km * 1000 < edge;
  };
  let best = Infinity;
  let first: { km: number; alongKm: number } | undefined;
  const candidates: Array<{ km: number; alongKm: number }> = [];
  let lastInFirst = -1;
  let passed = false;
  let start = 0;
  for (let s = 0; s + 1 < path.length; s++) {
    const [a, b] = [path[s] as Point, path[s + 1] as Point];
    const at = againstSegment(a, b, p);
    if (within(at.km)) {
      best = Math.min(best, at.km);
      const along = start + at.alongKm;
      if (first === undefined) { first = { km: at.km, alongKm: along }; lastInFirst = s; candidates.push({ km: at.km, alongKm: along }); }
      else if (!passed && lastInFirst === s - 1 && within(greatCircle(a, p))) {
        // Equally near (to a micrometre: the code and this round apart by less) keeps the earlier.
        if (at.km < first.km - 1e-9) first = { km: at.km, alongKm: along };
        candidates.push({ km: at.km, alongKm: along });
        lastInFirst = s;
      } else passed = true;
    }
    start += greatCircle(a, b);
  }
  if (first === undefined) return marginal ? { km: best, alongKm: 0, alongTies: [0], marginal } : undefined;
  const nearest = first.km;
  const alongTies = candidates.filter((c) => c.km <= nearest + 1e-6).map((c) => c.alongKm);
  return { km: best, alongKm: first.alongKm, alongTies, marginal };
}
