/**
 * A page of the station list near a point, the same on both backends: storage finds the stations
 * in the box (by index), domain/nearby.ts keeps those within the radius and ranks them, and this
 * cuts the page and puts the page's full rows (read by id) in that order with their distances.
 */
import { type Near, type Point, withinRadius } from '../domain/nearby.ts';
import type { ListResult, ListedStation, Station } from './store.ts';

export interface NearestPage {
  /** The page's ids, nearest first. */
  ids: string[];
  metres: Map<string, number>;
  total: number;
}

export function nearestPage(points: ReadonlyArray<Point & { id: string }>, near: Near, limit: number, offset: number): NearestPage {
  const ranked = withinRadius(points, near);
  const page = ranked.slice(offset, offset + limit);
  return { ids: page.map((p) => p.id), metres: new Map(page.map((p) => [p.id, p.metres])), total: ranked.length };
}

/** The page's stations in its order, each with its metres. */
export function nearestResult(page: NearestPage, stations: readonly Station[]): ListResult<ListedStation> {
  const byId = new Map(stations.map((s) => [s.id, s]));
  const items: ListedStation[] = [];
  for (const id of page.ids) {
    const station = byId.get(id);
    if (station) items.push({ ...station, metres: page.metres.get(id) ?? 0 });
  }
  return { items, total: page.total };
}
