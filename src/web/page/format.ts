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

/**
 * A dollar figure of the API (d.dd) in cents with one decimal, as min and max are written beside
 * it (the API rounds an average to the cent, so the tenth is always 0).
 */
export function centsOf(dollars: string): string {
  return `${Math.round(Number(dollars) * 100)}.0`;
}

/** A price not reported for this many days is marked old, with the day it was reported. */
export const OLD_PRICE_DAYS = 7;

/** Whether a price reported at `atSec` is old at `nowSec` (OLD_PRICE_DAYS or more). */
export const isOld = (atSec: number, nowSec: number): boolean => nowSec - atSec >= OLD_PRICE_DAYS * 86_400;

/** "8 Aug" (this year) or "8 Aug 2025", in `timeZone`: the day a price was reported. */
export function shortDate(atSec: number, nowSec: number, timeZone: string): string {
  const year = new Intl.DateTimeFormat('en-AU', { year: 'numeric', timeZone });
  const sameYear = year.format(new Date(atSec * 1000)) === year.format(new Date(nowSec * 1000));
  return new Intl.DateTimeFormat('en-AU', { day: 'numeric', month: 'short', ...(sameYear ? {} : { year: 'numeric' }), timeZone }).format(new Date(atSec * 1000));
}

/** "12 Smith St, Kingsford NSW 2032" as its street and suburb (the part before the last comma, and after it less state and postcode). */
export function addressParts(address: string): { street: string; suburb: string } {
  const comma = address.lastIndexOf(',');
  const street = comma < 0 ? '' : address.slice(0, comma).trim();
  const tail = (comma < 0 ? address : address.slice(comma + 1)).trim();
  return { street, suburb: tail.replace(/\s+(NSW|VIC|QLD|SA|WA|TAS|NT|ACT)\b.*$/i, '').replace(/\s+\d{4}$/, '').trim() };
}

/**
 * Names that tell stations apart: a name shared by two or more stations gets its suburb in
 * brackets, or its street where the suburb is shared too (or missing); any other name as it is.
 */
export function distinctNames(stations: ReadonlyArray<{ station_id: string; name: string; address: string }>): Map<string, string> {
  const byName = new Map<string, Array<{ station_id: string; name: string; address: string }>>();
  for (const s of stations) byName.set(s.name.toLowerCase(), [...(byName.get(s.name.toLowerCase()) ?? []), s]);
  const names = new Map<string, string>();
  for (const group of byName.values()) {
    const suburbs = group.map((s) => addressParts(s.address).suburb.toLowerCase());
    for (const s of group) {
      const { street, suburb } = addressParts(s.address);
      const suburbTells = suburb !== '' && suburbs.filter((x) => x === suburb.toLowerCase()).length === 1 && !s.name.toLowerCase().includes(suburb.toLowerCase());
      const extra = group.length === 1 ? '' : suburbTells ? suburb : street || suburb;
      names.set(s.station_id, extra === '' ? s.name : `${s.name} (${extra})`);
    }
  }
  return names;
}

/** Labels of ticks, each said once: one equal to the one before it is left blank (uPlot's ticks can be finer than the labels). */
export function onceEach(labels: readonly string[]): string[] {
  return labels.map((label, i) => (i > 0 && label === labels[i - 1] ? '' : label));
}

/** Steps between the chart's price ticks, in dollars: never finer than a cent, which is what its labels show. */
export const PRICE_STEPS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10];
/** Steps between the chart's day ticks, in seconds: whole days, weeks, and about a month and up (uPlot splits those at month starts). */
export const DAY_STEPS = [1, 2, 3, 7, 14, 30, 60, 91, 182, 365, 730].map((days) => days * 86_400);

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

/**
 * What newer servers add to the cycle's advice (issue 47): every field optional, so that the page
 * reads the answers of a server before it as well.
 */
export interface AdviceExtras {
  state?: 'insufficient-history' | 'no-cycle' | 'cycle';
  history?: { days: number; needed: number };
  signal?: string;
  horizon?: { wait_days: number; next_rise: string | false };
  expected_saving?: string | false;
  track_record?: { days: number; windows: number; advice: string; best_rule: { rule: string; saved: string }; oracle: string } | false;
}

const RULE_TEXT: Readonly<Record<string, string>> = {
  'cheapest-weekday': 'buying on the cheapest weekday',
  'tomorrow-higher': 'buying when tomorrow\'s published prices are higher',
  'stopped-falling': 'buying once prices stop falling',
  'near-low': 'buying near the recent low',
};

/** The advice's state, horizon, expected saving and track record as lines of text, in `unit` (c/L…); none for a server that gives none. */
export function adviceDetails(advice: AdviceExtras & { advice: Advice }, unit: string): { state: string | undefined; lines: string[] } {
  const lines: string[] = [];
  const { state, history, horizon, expected_saving: saving, track_record: record } = advice;
  if (state === 'insufficient-history' && history) {
    lines.push(`Too little history yet to tell whether prices here cycle: ${history.days} of the ${history.needed} days with price changes needed.`);
  }
  if (advice.advice === 'wait' && horizon && horizon.wait_days > 0) {
    lines.push(`Wait at most ${horizon.wait_days === 1 ? 'one day' : `${horizon.wait_days} days`}: then buy even if prices have not fallen.`);
  }
  if (horizon && horizon.next_rise !== false) lines.push(`Next rise expected on ${horizon.next_rise}.`);
  if (typeof saving === 'string') lines.push(`Expected saving on this fill: ${saving} ${unit}.`);
  if (record) {
    const rule = RULE_TEXT[record.best_rule.rule] ?? record.best_rule.rule;
    lines.push(`Track record over the last ${record.days} days (${record.windows} fills replayed): following this advice saved ${record.advice} ${unit} a fill against a fixed day; `
      + `${rule}, ${record.best_rule.saved}; perfect hindsight, ${record.oracle}.`);
  }
  return { state, lines };
}
