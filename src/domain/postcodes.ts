/**
 * The state or territory of an Australian postcode, by Australia Post's ranges: what a station
 * created from a history file that names no state is placed in (ingest/import/). ACT's ranges
 * sit inside NSW's and are checked first.
 */
import type { StateId } from './states.ts';

/** [first, last, state], inclusive; the ranges Australia Post allots (PO boxes and large users included). */
const RANGES: ReadonlyArray<readonly [number, number, StateId]> = [
  [200, 299, 'act'], [2600, 2618, 'act'], [2900, 2920, 'act'],
  [800, 999, 'nt'],
  [1000, 2999, 'nsw'],
  [3000, 3999, 'vic'], [8000, 8999, 'vic'],
  [4000, 4999, 'qld'], [9000, 9999, 'qld'],
  [5000, 5999, 'sa'],
  [6000, 6999, 'wa'],
  [7000, 7999, 'tas'],
];

/** The state of a four-digit postcode ("2600" -> act, "2601" -> act, "2619" -> nsw), or undefined for anything else. */
export function stateFromPostcode(postcode: string): StateId | undefined {
  if (!/^\d{4}$/.test(postcode)) return undefined;
  const code = Number(postcode);
  return RANGES.find(([first, last]) => code >= first && code <= last)?.[2];
}
