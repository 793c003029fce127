/**
 * Along a route (issue 31's `/v1/prices/along`, not served yet): the path a routing engine
 * returns, and where a station stands against it. Pure functions; the route and its storage read
 * are still to be built on them.
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
import { EARTH_RADIUS_KM, type Point, distanceKm } from './nearby.ts';

export const MAX_PATH_POINTS = 1000;
export const DEFAULT_CORRIDOR_KM = 2;
export const MIN_CORRIDOR_KM = 0.1;
export const MAX_CORRIDOR_KM = 20;
/**
 * A path's sweep: over its segments, the sum of the larger of each one's change in latitude and
 * in longitude, in degrees. What indexing a path costs grows with it (PathIndex), so it is
 * bounded: a road trip round the whole of Australia sweeps about 130.
 */
export const MAX_PATH_SWEEP_DEGREES = 180;
/** The widest a stretch of the path is, in degrees, before its box is cut (PathIndex.boxes). */
const STRETCH_DEGREES = 0.25;

const RADIANS = Math.PI / 180;
const KM_PER_DEGREE = EARTH_RADIUS_KM * RADIANS;

/** A polyline's points, or the reason it is not one (for a 400 naming `path`). */
export function decodePolyline(text: string): Point[] | { error: string } {
  const points: Point[] = [];
  let lat = 0;
  let lng = 0;
  let i = 0;
  const next = (): number | undefined => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (i >= text.length) return undefined;
      const byte = text.charCodeAt(i++) - 63;
      if (byte < 0 || byte > 63) return undefined;
      result |= (byte & 0x1f) << shift;
      shift += 5;
      if (byte < 0x20) break;
      if (shift > 30) return undefined;
    }
    return result & 1 ? ~(result >> 1) : result >> 1;
  };
  while (i < text.length) {
    const dLat = next();
    const dLng = dLat === undefined ? undefined : next();
    if (dLat === undefined || dLng === undefined) return { error: 'must be an encoded polyline (precision 5)' };
    lat += dLat;
    lng += dLng;
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

/** A cell's row and column as one number (rows and columns of cells of at least 0.01° stay within ±2^15). */
function cellKey(row: number, column: number): number {
  return (row + 32_768) * 65_536 + (column + 32_768);
}

/** A box of positions, in degrees. */
export interface PathBox { minLat: number; maxLat: number; minLng: number; maxLng: number }

/** Where a station stands against the path. */
export interface OnPath {
  /** To the path's nearest point, whole metres. */
  metres: number;
  /** From the path's start to that point, km. */
  alongKm: number;
}

/**
 * The path, with its segments bucketed on a grid of cells about the corridor's size (each
 * segment in every cell its box, widened by the corridor, touches), so a station is measured
 * against the few segments near it, not every segment.
 */
export class PathIndex {
  private readonly cumulative: number[] = [0];
  /** By cellKey: the segments (ascending) that may come within the corridor of a point in the cell. */
  private readonly cells = new Map<number, number[]>();
  private readonly cell: number;
  readonly lengthKm: number;

  constructor(private readonly points: readonly Point[], readonly corridorKm: number) {
    for (let s = 1; s < points.length; s++) {
      const a = points[s - 1] as Point;
      const b = points[s] as Point;
      this.cumulative.push((this.cumulative[s - 1] ?? 0) + distanceKm(a.latitude, a.longitude, b.latitude, b.longitude));
    }
    this.lengthKm = this.cumulative[this.cumulative.length - 1] ?? 0;
    // Cells of at least the corridor in latitude degrees (and never finer than 0.01°).
    this.cell = Math.max(corridorKm / KM_PER_DEGREE, 0.01);
    // Each segment is cut into steps of at most a cell in latitude and longitude, and each step
    // registers the cells of its box widened by the corridor: a long or diagonal segment takes
    // the cells along it, not every cell of its bounding box.
    const dLat = corridorKm / KM_PER_DEGREE;
    for (let s = 0; s + 1 < points.length; s++) {
      const a = points[s] as Point;
      const b = points[s + 1] as Point;
      const maxAbsLat = Math.min(89, Math.max(Math.abs(a.latitude), Math.abs(b.latitude)) + dLat);
      const dLng = corridorKm / (KM_PER_DEGREE * Math.cos(maxAbsLat * RADIANS));
      const steps = Math.max(1, Math.ceil(Math.max(Math.abs(b.latitude - a.latitude), Math.abs(b.longitude - a.longitude)) / this.cell));
      for (let k = 0; k < steps; k++) {
        // Plain numbers, not destructured pairs: this loop runs for every step of every segment of every request.
        const lat0 = a.latitude + ((b.latitude - a.latitude) * k) / steps;
        const lat1 = a.latitude + ((b.latitude - a.latitude) * (k + 1)) / steps;
        const lng0 = a.longitude + ((b.longitude - a.longitude) * k) / steps;
        const lng1 = a.longitude + ((b.longitude - a.longitude) * (k + 1)) / steps;
        const r0 = this.row(Math.min(lat0, lat1) - dLat);
        const r1 = this.row(Math.max(lat0, lat1) + dLat);
        const c0 = this.row(Math.min(lng0, lng1) - dLng);
        const c1 = this.row(Math.max(lng0, lng1) + dLng);
        for (let r = r0; r <= r1; r++) {
          for (let c = c0; c <= c1; c++) {
            const key = cellKey(r, c);
            const list = this.cells.get(key);
            if (!list) this.cells.set(key, [s]);
            else if (list[list.length - 1] !== s) list.push(s);
          }
        }
      }
    }
  }

  private row(degrees: number): number {
    return Math.floor(degrees / this.cell);
  }

  /** The box of positions a station within the corridor can be in (storage's index reads it). */
  box(): { minLat: number; maxLat: number; minLng: number; maxLng: number } {
    const lats = this.points.map((p) => p.latitude);
    const lngs = this.points.map((p) => p.longitude);
    const maxAbsLat = Math.min(89, Math.max(...lats.map(Math.abs)) + this.corridorKm / KM_PER_DEGREE);
    const dLat = this.corridorKm / KM_PER_DEGREE;
    const dLng = this.corridorKm / (KM_PER_DEGREE * Math.cos(maxAbsLat * RADIANS));
    return { minLat: Math.min(...lats) - dLat, maxLat: Math.max(...lats) + dLat, minLng: Math.min(...lngs) - dLng, maxLng: Math.max(...lngs) + dLng };
  }

  /**
   * Boxes that together hold every position within the corridor, each one a stretch of the path
   * at most STRETCH_DEGREES across (a long segment cut into several) widened by the corridor: what
   * a position index sorted by latitude walks, band by narrow band.
   */
  boxes(): PathBox[] {
    const out: PathBox[] = [];
    const dLat = this.corridorKm / KM_PER_DEGREE;
    let box: PathBox | undefined;
    const close = (): void => {
      if (!box) return;
      const maxAbsLat = Math.min(89, Math.max(Math.abs(box.minLat), Math.abs(box.maxLat)) + dLat);
      const dLng = this.corridorKm / (KM_PER_DEGREE * Math.cos(maxAbsLat * RADIANS));
      out.push({ minLat: box.minLat - dLat, maxLat: box.maxLat + dLat, minLng: box.minLng - dLng, maxLng: box.maxLng + dLng });
    };
    for (let s = 0; s + 1 < this.points.length; s++) {
      const a = this.points[s] as Point;
      const b = this.points[s + 1] as Point;
      const steps = Math.max(1, Math.ceil(Math.max(Math.abs(b.latitude - a.latitude), Math.abs(b.longitude - a.longitude)) / STRETCH_DEGREES));
      for (let k = s === 0 ? 0 : 1; k <= steps; k++) {
        const lat = a.latitude + ((b.latitude - a.latitude) * k) / steps;
        const lng = a.longitude + ((b.longitude - a.longitude) * k) / steps;
        if (box && Math.max(box.maxLat, lat) - Math.min(box.minLat, lat) <= STRETCH_DEGREES
          && Math.max(box.maxLng, lng) - Math.min(box.minLng, lng) <= STRETCH_DEGREES) {
          box = { minLat: Math.min(box.minLat, lat), maxLat: Math.max(box.maxLat, lat), minLng: Math.min(box.minLng, lng), maxLng: Math.max(box.maxLng, lng) };
          continue;
        }
        // A new stretch starts where the last one ended, so that the stretches join.
        const last = k === 0 ? { latitude: lat, longitude: lng } : { latitude: a.latitude + ((b.latitude - a.latitude) * (k - 1)) / steps, longitude: a.longitude + ((b.longitude - a.longitude) * (k - 1)) / steps };
        close();
        box = { minLat: Math.min(last.latitude, lat), maxLat: Math.max(last.latitude, lat), minLng: Math.min(last.longitude, lng), maxLng: Math.max(last.longitude, lng) };
      }
    }
    close();
    return out;
  }

  /** Where the point stands against the path when within the corridor; undefined otherwise. */
  locate(p: Point): OnPath | undefined {
    return this.locateAt(p.latitude, p.longitude);
  }

  /** locate, given the point's latitude and longitude (no object made for a point that is not near). */
  locateAt(latitude: number, longitude: number): OnPath | undefined {
    const segments = this.cells.get(cellKey(this.row(latitude), this.row(longitude)));
    if (!segments) return undefined;
    const cos = Math.cos(latitude * RADIANS);
    // The best so far as two numbers (no object per segment).
    let bestKm = Infinity;
    let bestAlong = Infinity;
    for (const s of segments) {
      const a = this.points[s] as Point;
      const b = this.points[s + 1] as Point;
      // Station at the origin; x east and y north in km.
      const ax = (a.longitude - longitude) * KM_PER_DEGREE * cos;
      const ay = (a.latitude - latitude) * KM_PER_DEGREE;
      const bx = (b.longitude - longitude) * KM_PER_DEGREE * cos;
      const by = (b.latitude - latitude) * KM_PER_DEGREE;
      const dx = bx - ax;
      const dy = by - ay;
      const squared = dx * dx + dy * dy;
      const t = squared === 0 ? 0 : Math.min(1, Math.max(0, -(ax * dx + ay * dy) / squared));
      const km = Math.hypot(ax + t * dx, ay + t * dy);
      const along = (this.cumulative[s] ?? 0) + t * ((this.cumulative[s + 1] ?? 0) - (this.cumulative[s] ?? 0));
      if (km < bestKm || (km === bestKm && along < bestAlong)) { bestKm = km; bestAlong = along; }
    }
    if (bestKm === Infinity) return undefined;
    const metres = Math.round(bestKm * 1000);
    return metres <= Math.round(this.corridorKm * 1000) ? { metres, alongKm: bestAlong } : undefined;
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
