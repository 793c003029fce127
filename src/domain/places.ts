/** Rules for naming and placing stations, shared by every backend (DESIGN.md, "Cities and stations"). */
import { distanceKm } from './nearby.ts';

export { distanceKm };

/** Lowercase ASCII slug, hyphen-separated words: "Ampol Foodary Bathurst" -> "ampol-foodary-bathurst". */
export function slugify(name: string): string {
  return slugOf(name) || 'station';
}

/**
 * A brand's id: the slug of its name ("7-Eleven" -> "7-eleven"), names that slug alike being one
 * brand. A name with nothing to slug (empty, or only punctuation) is no brand: undefined.
 */
export function brandId(name: string): string | undefined {
  return slugOf(name) || undefined;
}

function slugOf(name: string): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/&/g, ' and ').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80).replace(/-+$/, '');
}

/** The wanted slug, or the first of slug-2, slug-3, ... that is free. */
export function uniqueSlug(wanted: string, isTaken: (candidate: string) => boolean): string {
  const base = slugify(wanted);
  if (!isTaken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!isTaken(candidate)) return candidate;
  }
}

export const CITY_RADIUS_KM = 25;

/**
 * The nearest city of the station's own state within 25 km (ties to the smaller id), or null.
 * A station without a position is in no city: its suburb or postcode is not taken for a place.
 */
export function assignCity(cities: ReadonlyArray<{ id: string; latitude: number; longitude: number }>, latitude: number | null, longitude: number | null): string | null {
  if (latitude === null || longitude === null) return null;
  let best: { id: string; km: number } | null = null;
  for (const city of cities) {
    const km = distanceKm(latitude, longitude, city.latitude, city.longitude);
    if (km > CITY_RADIUS_KM) continue;
    if (!best || km < best.km || (km === best.km && city.id < best.id)) best = { id: city.id, km };
  }
  return best?.id ?? null;
}
