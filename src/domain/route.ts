/**
 * Along a route (`/v1/prices/along`): the path a routing engine returns, and where a station
 * stands against it. Pure functions; storage/along.ts runs Path.within over its grid of positions.
 *
 * - The path is an encoded polyline of precision 5 (Google's format, as OSRM, Valhalla and
 *   Google return it): at most MAX_PATH_POINTS points, at least 2.
 * - A station's `distance_km` is its distance to the nearest point of the path (any segment);
 *   `along_km` the length of the path from its start to that point; where several points of a
 *   path that crosses itself are as near, the one first along the path counts.
 * - `detour_km` is twice the distance: leaving the path at its nearest point, driving to the
 *   station and coming back (a straight-line bound; the road distance is longer).
 * - Distances to a segment are measured on a flat projection centred on the station (x east,
 *   y north, in km at its latitude): for segments of a routed path (tens of metres to a few km)
 *   and corridors up to 20 km the error is far below a metre. Lengths along the path are
 *   great-circle (distanceKm). As near searches do, a station is within the corridor when its
 *   distance rounded to the metre is at most the corridor in metres.
 */
import { EARTH_RADIUS_KM, type Point, cosLatitude, haversineKm } from './nearby.ts';
import type { PositionGrid } from './position-grid.ts';

export const MAX_PATH_POINTS = 1000;
export const DEFAULT_CORRIDOR_KM = 2;
export const MIN_CORRIDOR_KM = 0.1;
export const MAX_CORRIDOR_KM = 20;
/**
 * A path's sweep: over its segments, the sum of the larger of each one's change in latitude and
 * in longitude, in degrees. What searching along a path costs grows with it (Path.within: the
 * rows of cells its segments visit), so it is
 * bounded: a road trip round the whole of Australia sweeps about 130.
 */
export const MAX_PATH_SWEEP_DEGREES = 180;

const RADIANS = Math.PI / 180;
const KM_PER_DEGREE = EARTH_RADIUS_KM * RADIANS;

const NOT_A_POLYLINE = { error: 'must be an encoded polyline (precision 5)' } as const;

/** A polyline's points, or the reason it is not one (for a 400 naming `path`). */
export function decodePolyline(text: string): Point[] | { error: string } {
  const points: Point[] = [];
  const length = text.length;
  let lat = 0;
  let lng = 0;
  let i = 0;
  while (i < length) {
    // Two numbers, the changes in latitude and in longitude: each in 5-bit groups, lowest first,
    // every group but the last with 0x20 set, each plus 63; then zigzag (the sign in the low bit).
    let dLat = 0;
    for (let n = 0; n < 2; n++) {
      let result = 0;
      let shift = 0;
      for (;;) {
        if (i >= length) return NOT_A_POLYLINE;
        const byte = text.charCodeAt(i++) - 63;
        if (byte < 0 || byte > 63) return NOT_A_POLYLINE;
        result |= (byte & 0x1f) << shift;
        shift += 5;
        if (byte < 0x20) break;
        if (shift > 30) return NOT_A_POLYLINE;
      }
      const value = result & 1 ? ~(result >> 1) : result >> 1;
      if (n === 0) dLat = value;
      else { lat += dLat; lng += value; }
    }
    if (points.length === MAX_PATH_POINTS) return { error: `must have at most ${MAX_PATH_POINTS} points` };
    const point = { latitude: lat / 1e5, longitude: lng / 1e5 };
    if (Math.abs(point.latitude) > 90 || Math.abs(point.longitude) > 180) return { error: 'must stay within latitude ±90 and longitude ±180' };
    points.push(point);
  }
  if (points.length < 2) return { error: 'must have at least 2 points' };
  return points;
}

/** Why the path is too costly to index (its sweep over MAX_PATH_SWEEP_DEGREES), for a 400 naming `path`; undefined when it is not. */
export function sweepError(points: readonly Point[]): string | undefined {
  let sweep = 0;
  for (let i = 1; i < points.length; i++) {
    const [a, b] = [points[i - 1] as Point, points[i] as Point];
    sweep += Math.max(Math.abs(b.latitude - a.latitude), Math.abs(b.longitude - a.longitude));
  }
  return sweep > MAX_PATH_SWEEP_DEGREES
    ? `must sweep at most ${MAX_PATH_SWEEP_DEGREES} degrees of latitude and longitude in all (the sum over its segments of the larger change)` : undefined;
}

/** A polyline of precision 5 for the points (what a routing engine would send; for tests and examples). */
export function encodePolyline(points: readonly Point[]): string {
  let out = '';
  let lat = 0;
  let lng = 0;
  const put = (value: number): void => {
    let v = value < 0 ? ~(value << 1) : value << 1;
    while (v >= 0x20) { out += String.fromCharCode((0x20 | (v & 0x1f)) + 63); v >>= 5; }
    out += String.fromCharCode(v + 63);
  };
  for (const p of points) {
    const la = Math.round(p.latitude * 1e5);
    const ln = Math.round(p.longitude * 1e5);
    put(la - lat);
    put(ln - lng);
    lat = la;
    lng = ln;
  }
  return out;
}

/** Where a station stands against the path. */
export interface OnPath {
  /** To the path's nearest point, whole metres. */
  metres: number;
  /** From the path's start to that point, km. */
  alongKm: number;
}

/**
 * The path and its corridor. Its stations are found from a grid of positions (position-grid.ts):
 * each segment visits the cells its corridor can reach, row by row, and measures the stations
 * there against itself alone; a station keeps the least distance it was measured at. A station
 * within the corridor of a segment is in a cell that segment visits, so no segment within the
 * corridor is missed. A search writes into the grid's working space (PositionGrid.scratch), so
 * nothing of the grid's size is allocated or cleared per request.
 */
export class Path {
  private readonly cumulative: Float64Array;
  readonly lengthKm: number;

  constructor(private readonly points: readonly Point[], readonly corridorKm: number) {
    this.cumulative = new Float64Array(points.length);
    // distanceKm's haversine, with each point's cosine computed once rather than once a segment end.
    let aCos = cosLatitude(points[0]?.latitude ?? 0);
    for (let s = 1; s < points.length; s++) {
      const a = points[s - 1] as Point;
      const b = points[s] as Point;
      const bCos = cosLatitude(b.latitude);
      this.cumulative[s] = (this.cumulative[s - 1] ?? 0) + haversineKm(a.latitude, a.longitude, aCos, b.latitude, b.longitude, bCos);
      aCos = bCos;
    }
    this.lengthKm = this.cumulative[points.length - 1] ?? 0;
  }

  /**
   * The grid's positions within the corridor that `wanted` keeps (asked once a position), each
   * made by `make` from its slot and where it stands: the distance to the nearest point of any
   * segment, and where several are as near, the one first along the path. In no order.
   */
  within<T>(grid: PositionGrid, wanted: (slot: number) => boolean, make: (slot: number, metres: number, alongKm: number) => T): T[] {
    // Per slot, in the grid's working space: whether it was met (and kept), and its best so far:
    // the square of the distance (compared squared; the root is taken once, of the best) and along.
    const { mark, marks, values: bestSquared, others: bestAlong } = grid.scratch();
    const { slots, latitudes, longitudes, cosines, cellDegrees: cell } = grid;
    const met: number[] = [];
    const run = new Int32Array(2);
    // The cells searched reach a metre past the corridor: a station whose distance rounds to the
    // corridor's metres is within it, and the search must not lose it to rounding.
    const reachKm = this.corridorKm + 0.001;
    const dLat = reachKm / KM_PER_DEGREE;
    const points = this.points;
    // A station within reach is at most dLat from a segment in latitude, and dLng in longitude: dLng
    // at the highest latitude any station within reach of the path can be at (one for the path; at
    // a segment's own latitudes it would be a little narrower).
    let highest = 0;
    for (const p of points) highest = Math.max(highest, Math.abs(p.latitude));
    const dLng = reachKm / (KM_PER_DEGREE * Math.cos(Math.min(89, highest + dLat) * RADIANS));
    for (let s = 0; s + 1 < points.length; s++) {
      const a = points[s] as Point;
      const b = points[s + 1] as Point;
      const aLat = a.latitude;
      const aLng = a.longitude;
      const bLat = b.latitude;
      const bLng = b.longitude;
      const fromKm = this.cumulative[s] ?? 0;
      const lengthKm = (this.cumulative[s + 1] ?? 0) - fromKm;
      const low = Math.min(aLat, bLat);
      const high = Math.max(aLat, bLat);
      for (let row = grid.cellOf(low - dLat), last = grid.cellOf(high + dLat); row <= last; row++) {
        // The part of the segment within dLat of the row's latitudes, and the columns it reaches.
        const from = Math.max(low, row * cell - dLat);
        const to = Math.min(high, (row + 1) * cell + dLat);
        let west = Math.min(aLng, bLng);
        let east = Math.max(aLng, bLng);
        if (bLat !== aLat && from <= to) {
          const lng0 = aLng + ((from - aLat) / (bLat - aLat)) * (bLng - aLng);
          const lng1 = aLng + ((to - aLat) / (bLat - aLat)) * (bLng - aLng);
          west = Math.min(lng0, lng1);
          east = Math.max(lng0, lng1);
        }
        grid.runOf(row, grid.cellOf(west - dLng), grid.cellOf(east + dLng), run);
        for (let i = run[0] ?? 0, end = run[1] ?? 0; i < end; i++) {
          const slot = slots[i] ?? 0;
          const seen = marks[slot];
          if (seen === -mark) continue;
          if (seen !== mark) {
            if (!wanted(slot)) { marks[slot] = -mark; continue; }
            marks[slot] = mark;
            bestSquared[slot] = Infinity;
            met.push(slot);
          }
          const latitude = latitudes[slot] ?? 0;
          const longitude = longitudes[slot] ?? 0;
          const cos = cosines[slot] ?? 1;
          // The station at the origin; x east and y north in km.
          const ax = ((aLng - longitude) * KM_PER_DEGREE) * cos;
          const ay = (aLat - latitude) * KM_PER_DEGREE;
          const bx = ((bLng - longitude) * KM_PER_DEGREE) * cos;
          const by = (bLat - latitude) * KM_PER_DEGREE;
          const dx = bx - ax;
          const dy = by - ay;
          const segmentSquared = dx * dx + dy * dy;
          const t = segmentSquared === 0 ? 0 : Math.min(1, Math.max(0, -(ax * dx + ay * dy) / segmentSquared));
          const ex = ax + t * dx;
          const ey = ay + t * dy;
          const squaredKm = ex * ex + ey * ey;
          const along = fromKm + t * lengthKm;
          const best = bestSquared[slot] ?? Infinity;
          if (squaredKm < best || (squaredKm === best && along < (bestAlong[slot] ?? Infinity))) { bestSquared[slot] = squaredKm; bestAlong[slot] = along; }
        }
      }
    }
    const corridorMetres = Math.round(this.corridorKm * 1000);
    const found: T[] = [];
    for (const slot of met) {
      const metres = Math.round(Math.sqrt(bestSquared[slot] ?? Infinity) * 1000);
      if (metres <= corridorMetres) found.push(make(slot, metres, bestAlong[slot] ?? 0));
    }
    return found;
  }
}

/**
 * What a fill costs at a station off the path, in dollars: the fill, plus the fuel the detour
 * burns at that station's price. net = price × (litres + detour_km × consumption / 100) / 100,
 * with the price in cents a litre (tenths / 10) and consumption in litres per 100 km.
 */
export function netCostDollars(priceTenths: number, litres: number, detourKm: number, consumptionL100: number): number {
  return (priceTenths / 10) * (litres + (detourKm * consumptionL100) / 100) / 100;
}
