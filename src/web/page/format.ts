/** The dashboard's pure pieces: what the page shows, worked out from the API's answers. No DOM here. */
import { type Point, distanceKm } from '../../domain/nearby.ts';

export type { Point };

/** "just now", "12 min ago", "3 h ago", "4 days ago": how old a price reported at `atSec` is at `nowSec`. */
export function ageText(atSec: number, nowSec: number): string {
  const seconds = Math.max(0, nowSec - atSec);
  if (seconds < 60) return 'just now';
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 48 * 3_600) return `${Math.floor(seconds / 3_600)} h ago`;
  return `${Math.floor(seconds / 86_400)} days ago`;
}

const DECIMAL = /^-?\d{1,3}(\.\d+)?$/;

/**
 * "LAT,LNG" (spaces around the comma allowed) as the `near` parameter wants it, or a reason it
 * is not one: plain decimals, latitude −90 to 90, longitude −180 to 180.
 */
export function parseLocation(input: string): { near: string; point: Point } | { error: string } {
  const parts = input.trim().split(/\s*,\s*/);
  if (parts.length !== 2 || !parts.every((p) => DECIMAL.test(p))) return { error: 'Give a location as latitude, longitude in decimal degrees, e.g. -33.87, 151.21.' };
  const [lat, lng] = parts.map(Number) as [number, number];
  if (Math.abs(lat) > 90) return { error: 'The latitude must be between -90 and 90.' };
  if (Math.abs(lng) > 180) return { error: 'The longitude must be between -180 and 180.' };
  return { near: `${parts[0]},${parts[1]}`, point: { latitude: lat, longitude: lng } };
}

/** The item of `items` nearest to `point` (the first of equals); undefined for none. */
export function nearest<T extends Point>(items: readonly T[], point: Point): T | undefined {
  let best: T | undefined;
  let bestKm = Infinity;
  for (const item of items) {
    const km = distanceKm(item.latitude, item.longitude, point.latitude, point.longitude);
    if (km < bestKm) { best = item; bestKm = km; }
  }
  return best;
}

/** A colour from green (0, the cheapest) through amber to red (1, the dearest). */
export function priceColour(fraction: number): string {
  const f = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  return `hsl(${Math.round(130 - 130 * f)}, 70%, 40%)`;
}

/** Where a value sits between min and max, 0 to 1 (0 when they are equal). */
export const fractionOf = (value: number, min: number, max: number): number => (max > min ? (value - min) / (max - min) : 0);

export interface Box { width: number; height: number; padding: number }

/**
 * Points on a flat plot, north up: longitude scaled by the cosine of the middle latitude, so that
 * a kilometre is the same length both ways; the whole set fitted into the box, centred.
 */
export function project(points: readonly Point[], box: Box): Array<{ x: number; y: number }> {
  if (points.length === 0) return [];
  const lats = points.map((p) => p.latitude);
  const lngs = points.map((p) => p.longitude);
  const midLat = (Math.min(...lats) + Math.max(...lats)) / 2;
  const k = Math.cos((midLat * Math.PI) / 180);
  const xs = lngs.map((lng) => lng * k);
  const ys = lats.map((lat) => -lat);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const spanX = maxX - minX;
  const spanY = maxY - minY;
  const innerW = box.width - 2 * box.padding;
  const innerH = box.height - 2 * box.padding;
  const scale = spanX === 0 && spanY === 0 ? 0 : Math.min(spanX > 0 ? innerW / spanX : Infinity, spanY > 0 ? innerH / spanY : Infinity);
  const offsetX = box.padding + (innerW - spanX * scale) / 2;
  const offsetY = box.padding + (innerH - spanY * scale) / 2;
  return xs.map((x, i) => ({ x: offsetX + (x - minX) * scale, y: offsetY + ((ys[i] ?? 0) - minY) * scale }));
}

/** A fuel's dollar unit from its cent unit (/v1/fuel-types): c/L to $/L, c/kWh to $/kWh, c/kg to $/kg. */
export function dollarUnit(centUnit: string): string {
  return centUnit.replace(/^c\//, '$/');
}

/** A dollar figure of the API (d.dd) in whole cents: the API rounds an average to the cent, so no tenth is shown. */
export function centsOf(dollars: string): string {
  return String(Math.round(Number(dollars) * 100));
}

/** The API's `dd-mm-yyyy` date `days` later, in the same form. */
export function addDays(text: string, days: number): string | undefined {
  const start = apiDate(text);
  if (!start) return undefined;
  const day = new Date(start.getTime() + days * 86_400_000);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(day.getUTCDate())}-${two(day.getUTCMonth() + 1)}-${day.getUTCFullYear()}`;
}

/** `dd-mm-yyyy` (the API's dates) as a Date at UTC midnight, for display only. */
export function apiDate(text: string): Date | undefined {
  const match = /^(\d{2})-(\d{2})-(\d{4})$/.exec(text);
  return match ? new Date(Date.UTC(Number(match[3]), Number(match[2]) - 1, Number(match[1]))) : undefined;
}

export type Advice = 'fill-up' | 'wait' | 'no-cycle' | 'unknown';
export type Confidence = 'high' | 'medium' | 'low';

/** The advice as a headline; the API's `reason` says why, below it. */
export function adviceText(advice: Advice, confidence: Confidence): string {
  const sure = confidence === 'high' ? '' : confidence === 'medium' ? ' (likely)' : ' (a guess: little data)';
  switch (advice) {
    case 'fill-up': return `Fill up today${sure}.`;
    case 'wait': return `Wait if you can${sure}.`;
    case 'no-cycle': return 'No regular price cycle for this fuel here: fill up when you need to.';
    case 'unknown': return 'Not enough recent prices to advise.';
  }
}

/** "Retry in 42 s" and the like, from Retry-After (seconds). */
export function retryText(seconds: number): string {
  if (seconds <= 0) return 'You can try again now.';
  if (seconds < 120) return `Try again in ${seconds} s.`;
  return `Try again in ${Math.ceil(seconds / 60)} min.`;
}

/** Retry-After as seconds: a number of seconds or an HTTP date; 60 when absent or unreadable. */
export function retryAfterSec(header: string | null, nowMs: number): number {
  if (header === null) return 60;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? 60 : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * Day labels as Australians write them (23 Nov; Nov 2026 when ticks are a month or more apart),
 * in the city's own time zone: a day's timestamp is its local midnight, which in another zone
 * (the browser's) can fall on the day before.
 */
export function dayLabels(timeZone: string): (ticks: number[]) => string[] {
  const day = new Intl.DateTimeFormat('en-AU', { day: 'numeric', month: 'short', timeZone });
  const month = new Intl.DateTimeFormat('en-AU', { month: 'short', year: 'numeric', timeZone });
  return (ticks) => {
    const format = ticks.length > 1 && (ticks[1] as number) - (ticks[0] as number) >= 28 * 86_400 ? month : day;
    return ticks.map((t) => format.format(new Date(t * 1000)));
  };
}
