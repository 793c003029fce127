/**
 * Every kind of derived answer (docs/DERIVED.md): what it is computed from (its arguments, sent to
 * the worker as they are, so plain data), how its arguments are keyed, which city a write must
 * touch for it to be computed again ahead of a request, and the function that computes it from
 * storage. A new costly answer is one more entry here and one call of DerivedAnswers.get in its
 * route; nothing else changes.
 */
import type { FuelId } from '../domain/fuels.ts';
import type { City, ReadStore } from '../storage/store.ts';
import { type CycleData, cycleAnswer } from './cycle-answer.ts';

export interface DerivedKinds {
  /** GET /v1/cities/{id}/cycle's data: the cycle and its advice of one city and fuel. */
  cycle: { args: { city: City; fuel: FuelId }; value: CycleData };
}

export type DerivedKind = keyof DerivedKinds;
export type DerivedArgs<K extends DerivedKind> = DerivedKinds[K]['args'];
export type DerivedValue<K extends DerivedKind> = DerivedKinds[K]['value'];

export interface DerivedSpec<K extends DerivedKind> {
  /** The arguments as a key (with the kind, the clock's bucket and the data version, an answer's identity). */
  key(args: DerivedArgs<K>): string;
  /** The city whose new reports make this answer worth computing again before anyone asks. */
  city(args: DerivedArgs<K>): string;
  compute(store: ReadStore, args: DerivedArgs<K>, nowSec: number): Promise<DerivedValue<K>>;
}

export const DERIVED: { [K in DerivedKind]: DerivedSpec<K> } = {
  cycle: {
    key: ({ city, fuel }) => `${city.id}|${fuel}`,
    city: ({ city }) => city.id,
    compute: (store, { city, fuel }, nowSec) => cycleAnswer(store, city, fuel, nowSec),
  },
};

/** One answer to compute: its kind and arguments. */
export interface DerivedJob<K extends DerivedKind = DerivedKind> {
  kind: K;
  args: DerivedArgs<K>;
}

export function jobKey(job: DerivedJob): string {
  return `${job.kind}|${(DERIVED[job.kind]).key(job.args)}`;
}
