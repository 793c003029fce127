/**
 * The search kinds (docs/DERIVED.md, "Searches"): `GET /v1/prices/cheapest`, `/v1/prices/along`
 * (and its POST form) and `GET /v1/stations?near=` (kinds.ts, `nearStations`), worked out on the search worker from what that worker's store keeps per
 * data version (the position index, each fuel's prices, each area's ranking, the held prices:
 * storage/nearest.ts, area-prices.ts, held-index.ts). After a write those are read again, a few
 * tens of milliseconds at national scale, and a corridor of a long route is measured against
 * thousands of stations: on the search worker, not on the serving thread. Asked with as many
 * arguments as there are points on a map, a search is neither kept nor computed ahead (the answer
 * cache keeps its bytes per URL and data version); it runs on a worker of its own, so that a
 * cycle computed for seconds on the derived worker never delays it.
 */
import type { AlongOrder, Fill } from '../domain/along.ts';
import type { CheapestOrder } from '../domain/cheapest.ts';
import type { FuelId } from '../domain/fuels.ts';
import type { Point } from '../domain/nearby.ts';
import { Path } from '../domain/route.ts';
import type { AlongPage, CheapestPage, PriceArea, PriceDay, ReadStore } from '../storage/store.ts';

/** GET /v1/prices/cheapest's question, as plain data. */
export interface CheapestArgs {
  fuel: FuelId;
  area: PriceArea;
  order: CheapestOrder;
  limit: number;
  offset: number;
  day: PriceDay;
  fill: Fill | undefined;
  /** max_age's earliest report time (unix seconds), read from the clock in the route. */
  since: number | undefined;
}

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

export function cheapestAnswer(store: ReadStore, a: CheapestArgs): Promise<CheapestPage> {
  return store.cheapest(a);
}

export function alongAnswer(store: ReadStore, a: AlongArgs): Promise<AlongPage> {
  const { points, corridorKm, ...rest } = a;
  return store.along({ ...rest, path: new Path(points, corridorKm) });
}
