/**
 * Along a route (`/v1/prices/along`): the path a routing engine returns, and where a station
 * stands against it. Pure functions; read-models/along.ts runs Path.within over its grid of positions.
 *
 * - The path is an encoded polyline of precision 5 (Google's format, as OSRM, Valhalla and
 *   Google return it): at most MAX_PATH_POINTS points, at least 2. Each segment is the shorter
 *   great-circle arc between its points, however long (arc.ts); no segment may join two
 *   antipodal points, which no one arc joins.
 * - A station's `distance_km` is its great-circle distance to the nearest point of the path (any
 *   segment), exact on the sphere of 6,371 km every distance here uses; `along_km` the length of
 *   the path from its start to the nearest point of the path's first pass by the station
 *   (Path, below, defines a pass).
 * - `detour_km` is twice the distance: leaving the path at its nearest point, driving to the
 *   station and coming back (a straight-line bound; the road distance is longer).
 * - Lengths along the path are great-circle (distanceKm). As near searches do, a station is within
 *   the corridor when its distance rounded to the metre is at most the corridor in metres.
 */
import { CellSpace, arcBetween, antipodal, cellsOf, putUnit } from './arc.ts';
import { EARTH_RADIUS_KM, type Point, cosLatitude, haversineKm } from './nearby.ts';
import type { PositionGrid } from './position-grid.ts';

export const MAX_PATH_POINTS = 1000;
export const DEFAULT_CORRIDOR_KM = 2;
export const MIN_CORRIDOR_KM = 0.1;
export const MAX_CORRIDOR_KM = 20;
/**
 * A path's sweep: over its segments, the sum of the larger of each one's change in latitude and
 * in longitude, in degrees. What searching along a path costs grows with it (Path.within: the
 * cells its segments visit; a segment's arc is at most twice its sweep long), so it is
 * bounded: a road trip round the whole of Australia sweeps about 130.
 */
export const MAX_PATH_SWEEP_DEGREES = 180;


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

const ANTIPODAL = 'must not join two antipodal points in one segment (no one great circle joins them)';

/**
 * Why the path cannot be searched, for a 400 naming `path`: a segment joining antipodal points,
 * or a sweep over MAX_PATH_SWEEP_DEGREES (too costly to index); undefined when it can.
 */
export function sweepError(points: readonly Point[]): string | undefined {
  let sweep = 0;
  for (let i = 1; i < points.length; i++) {
    const [a, b] = [points[i - 1] as Point, points[i] as Point];
    if (antipodal(a.latitude, a.longitude, b.latitude, b.longitude)) return ANTIPODAL;
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
  /** From the path's start to the nearest point of its first pass by the station, km. */
  alongKm: number;
}

/** Great-circle km from the square of the chord between two unit vectors, and back. */
const chordToKm = (h: number): number => 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h) / 2));
const kmToChordSquared = (km: number): number => (2 * Math.sin(km / (2 * EARTH_RADIUS_KM))) ** 2;

/** A station's first pass: not met yet, or over (a later pass cannot change where it is along). */
const NO_PASS = -1;
const PASSED = -2;

/**
 * The path and its corridor. Each segment is the great-circle arc between its points (arc.ts), and
 * its stations are found from a grid of positions (position-grid.ts): each segment visits the
 * cells its corridor can reach, row by row (arc.ts cellsOf), and measures the stations there
 * against itself alone. A station within the corridor of a segment is in a cell that segment
 * visits, so no segment within the corridor is missed. A search writes into the grid's working
 * space (PositionGrid.scratch), so nothing of the grid's size is allocated or cleared per request.
 *
 * Where a station stands, exactly (docs/ENDPOINTS.md, 14a):
 * - `metres`: its least distance to the path (any segment), in whole metres; it is within the
 *   corridor when that is at most the corridor in metres.
 * - A pass: a stretch of the path all within the corridor of the station (the set of the path's
 *   points within the corridor is a run of such stretches). Two segments that meet belong to one
 *   pass when the point they share is within the corridor.
 * - `alongKm`: the length along the path to the nearest point of its first pass (the earliest
 *   along the path), the first of equally near points; a path that comes back past a station
 *   (there and back again) lists it where it is first passed, even when the way back is nearer.
 */
export class Path {
  private readonly cumulative: Float64Array;
  private readonly units: Float64Array;
  readonly lengthKm: number;

  constructor(private readonly points: readonly Point[], readonly corridorKm: number) {
    this.cumulative = new Float64Array(points.length);
    this.units = new Float64Array(points.length * 3);
    points.forEach((p, i) => putUnit(p.latitude, p.longitude, this.units, 3 * i));
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

  private unit(i: number): [number, number, number] {
    const u = this.units;
    return [u[3 * i] ?? 0, u[3 * i + 1] ?? 0, u[3 * i + 2] ?? 0];
  }

  /**
   * The grid's positions within the corridor that `wanted` keeps (asked once a position, when it
   * is first found within the corridor), each made by `make` from its slot and where it stands
   * (OnPath, above). In no order.
   */
  within<T>(grid: PositionGrid, wanted: (slot: number) => boolean, make: (slot: number, metres: number, alongKm: number) => T): T[] {
    // Per slot, in the grid's working space: whether it was met (and kept); the least distance;
    // and of its first pass, the last segment met (or NO_PASS, PASSED), the least distance and its along.
    const { mark, marks, values: bestH, others: passAlong, nearest: passH, states: passSegment } = grid.scratch();
    const { slots, cellDegrees } = grid;
    const units = grid.units();
    const met: number[] = [];
    const run = new Int32Array(2);
    const corridorMetres = Math.round(this.corridorKm * 1000);
    // The cells searched reach a metre past the corridor: a station whose distance rounds to the
    // corridor's metres is within it, and the search must not lose it to rounding.
    const reachKm = this.corridorKm + 0.001;
    const sinReach = Math.sin(reachKm / EARTH_RADIUS_KM);
    // Within the corridor: the metres rounded at most the corridor's, i.e. under corridor + 0.5 m; compared as
    // squared chords, and only within a hair (1e-12, relative) of that edge by the rounded metres themselves.
    const edge = kmToChordSquared((corridorMetres + 0.5) / 1000);
    const inCorridor = (h: number): boolean =>
      h < edge * (1 - 1e-12) || (h <= edge * (1 + 1e-12) && Math.round(chordToKm(h) * 1000) <= corridorMetres);
    const space = new CellSpace();
    for (let s = 0; s + 1 < this.points.length; s++) {
      const arc = arcBetween(this.unit(s), this.unit(s + 1));
      const [ax, ay, az] = arc.a;
      const [bx, by, bz] = arc.b;
      const [nx, ny, nz] = arc.n;
      const [tax, tay, taz] = arc.tA;
      const [tbx, tby, tbz] = arc.tB;
      const fromKm = this.cumulative[s] ?? 0;
      const lengthKm = (this.cumulative[s + 1] ?? 0) - fromKm;
      const measure = (slot: number): void => {
        const seen = marks[slot];
        if (seen === -mark) return;
        const px = units[3 * slot] ?? 0;
        const py = units[3 * slot + 1] ?? 0;
        const pz = units[3 * slot + 2] ?? 0;
        // Beyond reach of the whole great circle: beyond reach of the arc.
        const across = px * nx + py * ny + pz * nz;
        if (across > sinReach || across < -sinReach) return;
        // The distance as the square of the chord to the nearest point (chordSquared): beside the arc from the
        // cross-track sine, 2 sin² / (1 + cos), without cancellation; else to the nearer end.
        const beside = arc.directed && px * tax + py * tay + pz * taz >= 0 && px * tbx + py * tby + pz * tbz <= 0;
        let h: number;
        let atB = false;
        if (beside) {
          const sin2 = across * across;
          h = (2 * sin2) / (1 + Math.sqrt(1 - sin2));
        } else {
          const toA = (px - ax) ** 2 + (py - ay) ** 2 + (pz - az) ** 2;
          const toB = (px - bx) ** 2 + (py - by) ** 2 + (pz - bz) ** 2;
          atB = toB < toA;
          h = atB ? toB : toA;
        }
        if (!inCorridor(h)) return;
        if (seen !== mark) {
          if (!wanted(slot)) { marks[slot] = -mark; return; }
          marks[slot] = mark;
          bestH[slot] = Infinity;
          passSegment[slot] = NO_PASS;
          met.push(slot);
        }
        if (h < (bestH[slot] ?? Infinity)) bestH[slot] = h;
        const last = passSegment[slot] ?? NO_PASS;
        if (last === PASSED) return;
        if (last === NO_PASS || last === s || (last === s - 1 && inCorridor((px - ax) ** 2 + (py - ay) ** 2 + (pz - az) ** 2))) {
          if (last === NO_PASS || h < (passH[slot] ?? Infinity)) {
            passH[slot] = h;
            passAlong[slot] = beside ? fromKm + Math.min(lengthKm, EARTH_RADIUS_KM * Math.atan2(px * tax + py * tay + pz * taz, px * ax + py * ay + pz * az))
              : atB ? fromKm + lengthKm : fromKm;
          }
          passSegment[slot] = s;
        } else passSegment[slot] = PASSED;
      };
      cellsOf(arc, reachKm, cellDegrees, (row, west, east) => {
        grid.runOf(row, grid.cellOf(west), grid.cellOf(east), run);
        for (let i = run[0] ?? 0, end = run[1] ?? 0; i < end; i++) measure(slots[i] ?? 0);
      }, space);
    }
    const found: T[] = [];
    for (const slot of met) found.push(make(slot, Math.round(chordToKm(bestH[slot] ?? 0) * 1000), passAlong[slot] ?? 0));
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
