/**
 * The search kinds (docs/DERIVED.md, "Searches"): `GET /v1/prices/cheapest`, `/v1/prices/along`
 * (and its POST form) and `GET /v1/stations?near=` (kinds.ts, `nearStations`), worked out on the
 * search worker by read-models/searches.ts from the read models that worker keeps per data
 * version (the position index, each fuel's prices, each area's prices, the held prices:
 * read-models/registry.ts). After a write those are read again, a few tens of milliseconds at
 * national scale, and a corridor of a long route is measured against thousands of stations: on
 * the search worker, not on the serving thread. Asked with as many arguments as there are points
 * on a map, a search is neither kept nor computed ahead (the answer cache keeps its bytes per URL
 * and data version); it runs on a worker of its own, so that a cycle computed for seconds on the
 * derived worker never delays it.
 */
import type { AlongOrder, Fill } from '../domain/along.ts';
import type { FuelId } from '../domain/fuels.ts';
import type { Point } from '../domain/nearby.ts';
import { Path } from '../domain/route.ts';
import type { ReadModels } from '../read-models/read-models.ts';
import { type CheapestQuery, along, cheapest } from '../read-models/searches.ts';
import type { AlongPage, CheapestPage } from '../storage/store.ts';

/** GET /v1/prices/cheapest's question, as plain data: the query itself. */
export type CheapestArgs = CheapestQuery;

/** GET or POST /v1/prices/along's question, as plain data: the path's decoded points, not a Path. */
export interface AlongArgs {
  fuel: FuelId;
  points: Point[];
  corridorKm: number;
  order: AlongOrder;
  limit: number;
  offset: number;
  fill: Fill | undefined;
  since: number | undefined;
}

/** A search's arguments as its key: every field, in the order the route wrote them (one route writes each kind). */
export const searchKey = (args: object): string => JSON.stringify(args);

export function cheapestAnswer(models: ReadModels, a: CheapestArgs): Promise<CheapestPage> {
  return cheapest(models, a);
}

export function alongAnswer(models: ReadModels, a: AlongArgs): Promise<AlongPage> {
  const { points, corridorKm, ...rest } = a;
  return along(models, { ...rest, path: new Path(points, corridorKm) });
}
