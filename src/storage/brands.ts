import { brandId } from '../domain/places.ts';
import type { Brand, ListQuery, ListResult } from './store.ts';

/** A stored brand name and how many stations carry it, as both backends read them (brandCounts). */
export interface BrandCount {
  brand: string;
  count: number;
}

/**
 * Brands from the stations' brand names, ordered by id (byte order): names that slug alike are
 * one brand, named after the spelling most of its stations carry (ties: the smaller in byte
 * order); stations without a brand name (brandId undefined) belong to no brand.
 */
export function brandsFrom(counts: readonly BrandCount[]): Brand[] {
  const byId = new Map<string, { brand: Brand; best: number }>();
  for (const { brand: name, count } of counts) {
    const id = brandId(name);
    if (id === undefined) continue;
    const seen = byId.get(id);
    if (!seen) {
      byId.set(id, { brand: { id, name, stationCount: count }, best: count });
      continue;
    }
    seen.brand.stationCount += count;
    if (count > seen.best || (count === seen.best && name < seen.brand.name)) {
      seen.brand.name = name;
      seen.best = count;
    }
  }
  return [...byId.values()].map((b) => b.brand).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The stored brand names a brand id stands for, in byte order (none when no station has it). */
export function brandNames(counts: readonly BrandCount[], id: string): string[] {
  return counts.map((c) => c.brand).filter((name) => brandId(name) === id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One page of brandsFrom, as /v1/brands lists them. */
export function brandPage(counts: readonly BrandCount[], query: Pick<ListQuery, 'limit' | 'offset'>): ListResult<Brand> {
  const brands = brandsFrom(counts);
  return { items: brands.slice(query.offset, query.offset + query.limit), total: brands.length };
}
