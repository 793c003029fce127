/**
 * A path's segment as what it is on the Earth: the shorter great-circle arc between its two points
 * (on the 6,371 km sphere of every haversine here), for Path.within (route.ts).
 *
 * - Points are unit vectors (x towards latitude 0 longitude 0, y towards longitude 90, z north).
 * - A point's distance to the arc is exact on the sphere: where the foot of its perpendicular to
 *   the arc's great circle falls within the arc, the cross-track distance R × asin(|p · n|) (n the
 *   circle's unit normal); elsewhere the distance to the nearer end (distance to the circle's points
 *   grows with the angle from the foot, so the nearer end is the nearest point). Along the arc: R ×
 *   the angle from its start to the foot.
 * - The cells of a grid a segment's corridor can reach (cellsOf): the arc is cut into pieces of at
 *   most four cells of arc, each bounded by its ends' latitudes and longitudes (and the great circle's
 *   highest or lowest latitude where the piece turns there: latitude along a great circle has one
 *   maximum and one minimum, and longitude only grows, or only falls, between the poles); a point
 *   within `reachKm` of a piece is within reach/R radians of latitude of it, and within
 *   2 asin(sin(reach / 2R) / cos H) of longitude, H the highest latitude either can have
 *   (hav d = hav Δφ + cos φ₁ cos φ₂ hav Δλ). Rows near a pole are searched whole, and longitudes
 *   past ±180 wrap.
 */
import { EARTH_RADIUS_KM } from './nearby.ts';

const RADIANS = Math.PI / 180;
const DEGREES = 180 / Math.PI;
/** Slack on every bound, in degrees (0.1 mm): floating point must not move a station out of a cell it is in. */
const SLACK_DEGREES = 1e-9;
/** A piece's length, in cells of arc: longer pieces cost fewer sines, shorter ones visit fewer cells off a diagonal. */
const PIECE_CELLS = 4;
/** Rows whose stations could be this near a pole are searched whole (their longitudes bound nothing). */
const POLAR_DEGREES = 89.5;

/** A unit vector, into `out` at `at`. */
export function putUnit(latitude: number, longitude: number, out: Float64Array, at: number): void {
  const phi = latitude * RADIANS;
  const lambda = longitude * RADIANS;
  const c = Math.cos(phi);
  out[at] = c * Math.cos(lambda);
  out[at + 1] = c * Math.sin(lambda);
  out[at + 2] = Math.sin(phi);
}

/** Great-circle km between two unit vectors (by their chord: exact for near and far points alike). */
export function chordKm(ax: number, ay: number, az: number, bx: number, by: number, bz: number): number {
  const chord = Math.sqrt((ax - bx) ** 2 + (ay - by) ** 2 + (az - bz) ** 2);
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, chord / 2));
}

/** A segment's great circle, set up once for measuring many points against it. */
export interface Arc {
  /** The start A, the end B. */
  a: readonly [number, number, number];
  b: readonly [number, number, number];
  /** The unit normal n = A × B / |A × B|, zero when the segment has no direction (its ends one point, or antipodal). */
  n: readonly [number, number, number];
  /** n × A and n × B: the directions of travel at A and at B (a point p is beside the arc when p·tA ≥ 0 and p·tB ≤ 0). */
  tA: readonly [number, number, number];
  tB: readonly [number, number, number];
  /** The angle from A to B, radians. */
  angle: number;
  /** Whether n is defined: false for a segment of one point (or two antipodal points, which have no one arc). */
  directed: boolean;
}

const cross = (u: readonly number[], v: readonly number[]): [number, number, number] => [
  (u[1] ?? 0) * (v[2] ?? 0) - (u[2] ?? 0) * (v[1] ?? 0),
  (u[2] ?? 0) * (v[0] ?? 0) - (u[0] ?? 0) * (v[2] ?? 0),
  (u[0] ?? 0) * (v[1] ?? 0) - (u[1] ?? 0) * (v[0] ?? 0),
];

/** The arc between two unit vectors. */
export function arcBetween(a: readonly [number, number, number], b: readonly [number, number, number]): Arc {
  const axb = cross(a, b);
  const sin = Math.hypot(...axb);
  const cos = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const angle = Math.atan2(sin, cos);
  const directed = sin > 1e-15;
  const n: [number, number, number] = directed ? [axb[0] / sin, axb[1] / sin, axb[2] / sin] : [0, 0, 0];
  return { a, b, n, tA: cross(n, a), tB: cross(n, b), angle, directed };
}

/** Whether the two points (degrees) are antipodal, so that no one great-circle arc joins them. */
export function antipodal(aLat: number, aLng: number, bLat: number, bLng: number): boolean {
  const u = new Float64Array(6);
  putUnit(aLat, aLng, u, 0);
  putUnit(bLat, bLng, u, 3);
  const arc = arcBetween([u[0] ?? 0, u[1] ?? 0, u[2] ?? 0], [u[3] ?? 0, u[4] ?? 0, u[5] ?? 0]);
  return !arc.directed && arc.angle > Math.PI / 2;
}

/** Receives a row of cells and the longitudes (degrees, west ≤ east, within -180 to 180) whose columns to search in it. */
export type VisitRun = (row: number, west: number, east: number) => void;

/** Working space cellsOf keeps between calls (grown when short), so that a path's segments allocate nothing each. */
export class CellSpace {
  wests = new Float64Array(64);
  easts = new Float64Array(64);
  /** Per piece end: latitude, unwrapped longitude, whether latitude is rising there (3 a piece end). */
  ends = new Float64Array(3 * 16);
  /** Per piece: first row, last row, west, east (4 a piece). */
  boxes = new Float64Array(4 * 16);

  grow(pieces: number, rows: number): void {
    if (this.ends.length < 3 * (pieces + 1)) { this.ends = new Float64Array(6 * (pieces + 1)); this.boxes = new Float64Array(8 * pieces); }
    if (this.wests.length < rows) { this.wests = new Float64Array(rows * 2); this.easts = new Float64Array(rows * 2); }
  }
}

/**
 * The cells within reachKm of the arc, row by row, each row once: a run of columns (two where it
 * wraps past ±180; the whole row near a pole). `cellDegrees` is the grid's cell; `space` working
 * space the caller keeps.
 */
export function cellsOf(arc: Arc, reachKm: number, cellDegrees: number, visit: VisitRun, space: CellSpace): void {
  const reach = reachKm / EARTH_RADIUS_KM;
  const dLat = reach * DEGREES + SLACK_DEGREES;
  const pieces = Math.max(1, Math.ceil((arc.angle * DEGREES) / (PIECE_CELLS * cellDegrees)));
  space.grow(pieces, 0);
  const { ends, boxes } = space;
  const sinAngle = Math.sin(arc.angle);
  const [nx, ny] = arc.n;
  const vertexDegrees = Math.asin(Math.min(1, Math.hypot(nx, ny))) * DEGREES;
  const rowOf = (degrees: number): number => Math.floor(degrees / cellDegrees);
  // The pieces' ends, in order: latitude, longitude unwrapped (each step the shorter way), and the
  // north component of the direction of travel there (its sign says whether latitude is rising).
  for (let i = 0; i <= pieces; i++) {
    const t = i / pieces;
    const wa = arc.directed ? Math.sin((1 - t) * arc.angle) / sinAngle : 1;
    const wb = arc.directed ? Math.sin(t * arc.angle) / sinAngle : 0;
    const x = i === 0 ? arc.a[0] : i === pieces && arc.directed ? arc.b[0] : wa * arc.a[0] + wb * arc.b[0];
    const y = i === 0 ? arc.a[1] : i === pieces && arc.directed ? arc.b[1] : wa * arc.a[1] + wb * arc.b[1];
    const z = i === 0 ? arc.a[2] : i === pieces && arc.directed ? arc.b[2] : wa * arc.a[2] + wb * arc.b[2];
    ends[3 * i] = Math.atan2(z, Math.hypot(x, y)) * DEGREES;
    let lng = Math.atan2(y, x) * DEGREES;
    if (i > 0) {
      const previous = ends[3 * i - 2] ?? 0;
      lng = previous + ((((lng - previous) % 360) + 540) % 360) - 180;
    }
    ends[3 * i + 1] = lng;
    ends[3 * i + 2] = nx * y - ny * x;
  }
  let firstRow = Infinity;
  let lastRow = -Infinity;
  for (let i = 0; i < pieces; i++) {
    const [pLat, pLng, pRising] = [ends[3 * i] ?? 0, ends[3 * i + 1] ?? 0, ends[3 * i + 2] ?? 0];
    const [qLat, qLng, qRising] = [ends[3 * i + 3] ?? 0, ends[3 * i + 4] ?? 0, ends[3 * i + 5] ?? 0];
    let low = Math.min(pLat, qLat);
    let high = Math.max(pLat, qLat);
    if (pRising > 0 && qRising < 0) high = Math.max(high, vertexDegrees);
    if (pRising < 0 && qRising > 0) low = Math.min(low, -vertexDegrees);
    const highest = Math.max(Math.abs(low), Math.abs(high)) + dLat;
    const spread = highest >= POLAR_DEGREES ? 2 : Math.sin(reach / 2) / Math.cos(highest * RADIANS);
    const dLng = spread >= 1 ? Infinity : 2 * Math.asin(spread) * DEGREES + SLACK_DEGREES;
    const from = rowOf(low - dLat);
    const to = rowOf(high + dLat);
    boxes[4 * i] = from;
    boxes[4 * i + 1] = to;
    boxes[4 * i + 2] = Math.min(pLng, qLng) - dLng;
    boxes[4 * i + 3] = Math.max(pLng, qLng) + dLng;
    if (from < firstRow) firstRow = from;
    if (to > lastRow) lastRow = to;
  }
  const rows = lastRow - firstRow + 1;
  space.grow(0, rows);
  const { wests, easts } = space;
  wests.fill(Infinity, 0, rows);
  easts.fill(-Infinity, 0, rows);
  for (let i = 0; i < pieces; i++) {
    const [from, to, west, east] = [boxes[4 * i] ?? 0, boxes[4 * i + 1] ?? 0, boxes[4 * i + 2] ?? 0, boxes[4 * i + 3] ?? 0];
    for (let row = from; row <= to; row++) {
      const r = row - firstRow;
      if (west < (wests[r] ?? Infinity)) wests[r] = west;
      if (east > (easts[r] ?? -Infinity)) easts[r] = east;
    }
  }
  for (let r = 0; r < rows; r++) {
    let west = wests[r] ?? Infinity;
    let east = easts[r] ?? -Infinity;
    if (west > east) continue;
    const row = firstRow + r;
    if (east - west >= 360) { visit(row, -180, 180); continue; }
    const turns = Math.floor((west + 180) / 360);
    west -= 360 * turns;
    east -= 360 * turns;
    visit(row, west, Math.min(east, 180));
    if (east > 180) visit(row, -180, east - 360);
  }
}
