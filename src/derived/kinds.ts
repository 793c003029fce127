/**
 * Every kind of derived answer (docs/DERIVED.md): what it is computed from (its arguments, sent to
 * the worker as they are, so plain data), how its arguments are keyed, which city a write must
 * touch for it to be computed again ahead of a request, and the function that computes it from
 * the thread's read models and storage. A new costly answer is one more entry here and one call of DerivedAnswers.get in its
 * route; nothing else changes.
 */
import type { FuelId } from '../domain/fuels.ts';
import type { ReadModels } from '../read-models/read-models.ts';
import { nearStations } from '../read-models/searches.ts';
import type { AlongPage, CheapestPage, City, ListResult, ListedStation, StationListQuery } from '../storage/store.ts';
import type { AnswerBytes } from './answer-bytes.ts';
import { cycleAnswerBytes } from './cycle-answer.ts';
import { type HistoryArgs, cityHistoryAnswer, stationHistoryAnswer } from './history-answer.ts';
import { type AlongArgs, type CheapestArgs, alongAnswer, cheapestAnswer, searchKey } from './search-answers.ts';

export interface DerivedKinds {
  /** GET /v1/cities/{id}/cycle's answer as bytes: the cycle and its advice of one city and fuel. */
  cycle: { args: { city: City; fuel: FuelId }; value: AnswerBytes };
  /** GET /v1/cities/{id}/history's answer, JSON or CSV, as bytes. */
  cityHistory: { args: HistoryArgs; value: AnswerBytes };
  /** GET /v1/stations/{id}/history's answer, JSON or CSV, as bytes. */
  stationHistory: { args: HistoryArgs; value: AnswerBytes };
  /** GET /v1/prices/cheapest's page and its stations (a search: lane 'search'). */
  cheapest: { args: CheapestArgs; value: CheapestPage };
  /** GET and POST /v1/prices/along's page and its stations (a search: lane 'search'). */
  along: { args: AlongArgs; value: AlongPage };
  /** GET /v1/stations?near=…'s page (a search: lane 'search'; a list without near is read on the serving thread). */
  nearStations: { args: StationListQuery; value: ListResult<ListedStation> };
}

/**
 * Which worker computes a kind: 'derived', answers that take up to seconds, kept and computed ahead; or
 * 'search', answers of milliseconds asked with ever new arguments (a point, a route), neither kept
 * nor computed ahead, on a worker of their own so that no seconds-long job delays them.
 */
export type DerivedLane = 'derived' | 'search';

export type DerivedKind = keyof DerivedKinds;
export type DerivedArgs<K extends DerivedKind> = DerivedKinds[K]['args'];
export type DerivedValue<K extends DerivedKind> = DerivedKinds[K]['value'];

export interface DerivedSpec<K extends DerivedKind> {
  /** The arguments as a key (with the kind, the clock's bucket and the data version, an answer's identity). */
  key(args: DerivedArgs<K>): string;
  /** The city whose new reports make this answer worth computing again before anyone asks; undefined: computed when asked only. */
  city(args: DerivedArgs<K>): string | undefined;
  /** Absent: 'derived'. */
  lane?: DerivedLane;
  /** From the thread's read models and, through them, its store (models.store). */
  compute(models: ReadModels, args: DerivedArgs<K>, nowSec: number): Promise<DerivedValue<K>>;
}

export const DERIVED: { [K in DerivedKind]: DerivedSpec<K> } = {
  cycle: {
    key: ({ city, fuel }) => `${city.id}|${fuel}`,
    city: ({ city }) => city.id,
    compute: (models, { city, fuel }, nowSec) => cycleAnswerBytes(models, city, fuel, nowSec),
  },
  cityHistory: {
    key: ({ of, timeframe, format }) => `${of.id}|${timeframe}|${format}`,
    city: ({ of }) => of.id,
    compute: (models, args, nowSec) => cityHistoryAnswer(models.store, args, nowSec),
  },
  stationHistory: {
    key: ({ of, timeframe, format }) => `${of.id}|${timeframe}|${format}`,
    // A station's city is not at hand: computed when asked, not ahead.
    city: () => undefined,
    compute: (models, args, nowSec) => stationHistoryAnswer(models.store, args, nowSec),
  },
  cheapest: { key: searchKey, city: () => undefined, lane: 'search', compute: (models, args) => cheapestAnswer(models, args) },
  along: { key: searchKey, city: () => undefined, lane: 'search', compute: (models, args) => alongAnswer(models, args) },
  nearStations: { key: searchKey, city: () => undefined, lane: 'search', compute: (models, args) => nearStations(models, args) },
};

export function laneOf(kind: DerivedKind): DerivedLane {
  return DERIVED[kind].lane ?? 'derived';
}

/** About how many bytes a kept value holds: what bounds what is kept (an answer's bytes, or some 2 KB of plain data). */
export function sizeOf(value: unknown): number {
  const bytes = (value as Partial<AnswerBytes> | undefined)?.bytes;
  return bytes instanceof Uint8Array ? bytes.byteLength + 100 : 2048;
}

/** One answer to compute: its kind and arguments. */
export interface DerivedJob<K extends DerivedKind = DerivedKind> {
  kind: K;
  args: DerivedArgs<K>;
}

/** A kind's spec, for a job of any kind (its arguments are of its kind: the job says which). */
export function specOf(kind: DerivedKind): DerivedSpec<DerivedKind> {
  return DERIVED[kind];
}

export function jobKey(job: DerivedJob): string {
  return `${job.kind}|${specOf(job.kind).key(job.args)}`;
}

/** What computations are counted under (DerivedAnswers.computations): a job's key, or for a search only its kind (a count per point asked would grow without end). */
export function countKey(job: DerivedJob): string {
  return laneOf(job.kind) === 'search' ? job.kind : jobKey(job);
}
