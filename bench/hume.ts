/**
 * A route for /v1/prices/along in the bench: Sydney to Melbourne by the Hume (some 870 km by road; 762 km as
 * straight segments between real towns on it), cut into 500 points about 1.5 km apart (what a
 * routing engine's simplified overview of the drive looks like), as an encoded polyline.
 */
import { type Point, distanceKm } from '../src/domain/nearby.ts';
import { encodePolyline } from '../src/domain/route.ts';

/** Town centres along the Hume, north to south. */
const HUME_TOWNS: ReadonlyArray<[string, number, number]> = [
  ['Sydney', -33.8688, 151.2093], ['Campbelltown', -34.065, 150.814], ['Mittagong', -34.45, 150.45], ['Goulburn', -34.754, 149.718],
  ['Yass', -34.842, 148.91], ['Gundagai', -35.065, 148.105], ['Tarcutta', -35.277, 147.738], ['Holbrook', -35.729, 147.315],
  ['Albury', -36.0806, 146.9158], ['Wodonga', -36.1217, 146.888], ['Wangaratta', -36.358, 146.312], ['Benalla', -36.551, 145.984],
  ['Euroa', -36.755, 145.571], ['Seymour', -37.026, 145.139], ['Wallan', -37.416, 144.978], ['Melbourne', -37.8136, 144.9631],
];

/** `count` points evenly spaced along the towns' segments (by length), first and last town included. */
export function humePoints(count = 500): Point[] {
  const towns = HUME_TOWNS.map(([, latitude, longitude]) => ({ latitude, longitude }));
  const lengths = towns.slice(1).map((b, i) => { const a = towns[i] as Point; return distanceKm(a.latitude, a.longitude, b.latitude, b.longitude); });
  const total = lengths.reduce((sum, km) => sum + km, 0);
  const points: Point[] = [];
  let segment = 0;
  let before = 0;
  for (let i = 0; i < count; i++) {
    const at = (total * i) / (count - 1);
    while (segment < lengths.length - 1 && before + (lengths[segment] ?? 0) < at) before += lengths[segment++] ?? 0;
    const [a, b] = [towns[segment] as Point, towns[segment + 1] as Point];
    const t = Math.min(1, (at - before) / (lengths[segment] ?? 1));
    points.push({ latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude) });
  }
  return points;
}

/** /v1/prices/along for ulp91 over the Hume with a 2 km corridor. */
export const HUME_ALONG_PATH = `/v1/prices/along?fuel=ulp91&corridor=2&path=${encodeURIComponent(encodePolyline(humePoints()))}`;
/** How the bench's table names it. */
export const HUME_ALONG_NAME = '/v1/prices/along?fuel=ulp91&corridor=2&path={Sydney to Melbourne by the Hume, 500 points}';
