/**
 * Stations near a point (`near=LAT,LNG&radius=KM`): the parameters, the box of latitude and
 * longitude that storage searches by index, and the exact rule a station passes.
 *
 * Distances are great-circle (haversine on a 6,371 km sphere) and counted in whole metres, so the
 * rule does not hang on the last bits of a double: a station is within the radius when its
 * distance, rounded to the metre, is at most the radius in metres. `distance_km` shows the same
 * metres to one decimal (half up).
 */
import { compareIds } from './today.ts';

export const EARTH_RADIUS_KM = 6371;
export const DEFAULT_RADIUS_KM = 5;
export const MIN_RADIUS_KM = 0.1;
export const MAX_RADIUS_KM = 100;

export interface Point {
  latitude: number;
  longitude: number;
}

const RADIANS = Math.PI / 180;

/** Great-circle distance in km. */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  return haversineKm(lat1, lon1, cosLatitude(lat1), lat2, lon2, cosLatitude(lat2));
}

/** The cosine of a latitude in degrees, as the haversine below takes it. */
export function cosLatitude(latitude: number): number {
  return Math.cos(latitude * RADIANS);
}

/**
 * The haversine, given each point's cosLatitude: the one formula of every distance here, so a
 * caller that computes the cosines once (metresWithCosines, a path's lengths) gets the very
 * double distanceKm gives.
 */
export function haversineKm(lat1: number, lon1: number, cos1: number, lat2: number, lon2: number, cos2: number): number {
  const dLat = (lat2 - lat1) * RADIANS;
  const dLon = (lon2 - lon1) * RADIANS;
  const a = Math.sin(dLat / 2) ** 2 + cos1 * cos2 * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The distance in whole metres, the unit every near rule and order uses. */
export function metresBetween(a: Point, b: Point): number {
  return metresTo(a, b.latitude, b.longitude);
}

/** metresBetween, for a position given as two numbers. */
export function metresTo(centre: Point, latitude: number, longitude: number): number {
  return metresWithCosines(centre, cosLatitude(centre.latitude), latitude, longitude, cosLatitude(latitude));
}

/** metresTo with both cosLatitude values given: storage's position index keeps each station's, and measures hundreds from one centre. */
export function metresWithCosines(centre: Point, centreCos: number, latitude: number, longitude: number, cos: number): number {
  return Math.round(haversineKm(centre.latitude, centre.longitude, centreCos, latitude, longitude, cos) * 1000);
}

/** `distance_km`: metres as km with one decimal, half up (4,950 m is "5.0"). */
export function formatKm(metres: number): string {
  const tenths = Math.round(metres / 100);
  return `${Math.floor(tenths / 10)}.${tenths % 10}`;
}

const DEGREES = '-?[0-9]{1,3}(\\.[0-9]{1,10})?';
/** `near`'s syntax: two decimal numbers, comma-separated, no spaces or exponents (ranges checked by parseNear). */
export const NEAR_PATTERN = `^${DEGREES},${DEGREES}$`;
/** `radius`'s syntax: km as a plain decimal (range checked by parseRadius). */
export const RADIUS_PATTERN = '^[0-9]{1,3}(\\.[0-9]{1,3})?$';
const NEAR_SYNTAX = new RegExp(NEAR_PATTERN);
const RADIUS_SYNTAX = new RegExp(RADIUS_PATTERN);

/** `LAT,LNG` as a point, or undefined when out of range (latitude -90 to 90, longitude -180 to 180). */
export function parseNear(text: string): Point | undefined {
  if (!NEAR_SYNTAX.test(text)) return undefined;
  const [latitude, longitude] = text.split(',').map(Number) as [number, number];
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return undefined;
  return { latitude, longitude };
}

/** The radius in km, default 5; undefined when outside 0.1 to 100. */
export function parseRadius(text: string | undefined): number | undefined {
  if (text === undefined) return DEFAULT_RADIUS_KM;
  if (!RADIUS_SYNTAX.test(text)) return undefined;
  const km = Number(text);
  return km >= MIN_RADIUS_KM && km <= MAX_RADIUS_KM ? km : undefined;
}

export interface Box {
  south: number;
  north: number;
  west: number;
  east: number;
}

/**
 * The box of latitude and longitude that holds every point within the radius (with a metre to
 * spare for rounding): latitude plus or minus the radius's angle, longitude by the widest the
 * circle reaches (asin(sin d / cos lat)). Near a pole or the antimeridian it spans all longitudes.
 */
export function boxAround(centre: Point, radiusKm: number): Box {
  const angle = (radiusKm + 0.001) / EARTH_RADIUS_KM;
  const degrees = (angle * 180) / Math.PI;
  const south = Math.max(-90, centre.latitude - degrees);
  const north = Math.min(90, centre.latitude + degrees);
  const cosLat = Math.cos((centre.latitude * Math.PI) / 180);
  if (Math.sin(angle) >= cosLat) return { south, north, west: -180, east: 180 };
  const spread = (Math.asin(Math.sin(angle) / cosLat) * 180) / Math.PI;
  const west = centre.longitude - spread;
  const east = centre.longitude + spread;
  if (west < -180 || east > 180) return { south, north, west: -180, east: 180 };
  return { south, north, west, east };
}

export interface Near {
  centre: Point;
  radiusKm: number;
}

/** The points within the radius, each with its metres, nearest first (ties by id). */
export function withinRadius<T extends Point & { id: string }>(points: readonly T[], near: Near): Array<T & { metres: number }> {
  const limit = Math.round(near.radiusKm * 1000);
  const found: Array<T & { metres: number }> = [];
  for (const point of points) {
    const metres = metresBetween(near.centre, point);
    if (metres <= limit) found.push({ ...point, metres });
  }
  return found.sort((a, b) => a.metres - b.metres || compareIds(a.id, b.id));
}
