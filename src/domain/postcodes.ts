/**
 * Where an Australian postcode is, by Australia Post's ranges, and which state a station is in.
 * A feed's stations are not all in its state: the QLD scheme lists Ampol Foodary Banora Point
 * West, NSW 2486 (just over the Tweed border), so a feed's state is only the fallback.
 */
import type { StateId } from './states.ts';

/** Inclusive ranges of four-digit postcodes by state or territory (delivery and PO box numbers alike). */
const RANGES: ReadonlyArray<readonly [number, number, StateId]> = [
  [200, 299, 'act'], [800, 999, 'nt'],
  [1000, 1999, 'nsw'], [2000, 2599, 'nsw'], [2600, 2618, 'act'], [2619, 2899, 'nsw'], [2900, 2920, 'act'], [2921, 2999, 'nsw'],
  [3000, 3999, 'vic'], [8000, 8999, 'vic'], [4000, 4999, 'qld'], [9000, 9999, 'qld'], [5000, 5999, 'sa'],
  // 6798 and 6799 are Christmas and Cocos (Keeling) Islands, none of our eight.
  [6000, 6797, 'wa'], [6800, 6999, 'wa'], [7000, 7999, 'tas'],
];

/**
 * Postcodes that places on both sides of a border use: the range's state first, then the other.
 * Queanbeyan NSW and Hume ACT share 2620; Barooga NSW has Victoria's 3644; Jennings NSW
 * Queensland's 4383; APY and Ngaanyatjarra communities (SA, WA) the NT's 0872.
 */
const SHARED: ReadonlyMap<number, readonly StateId[]> = new Map<number, readonly StateId[]>([
  [872, ['nt', 'sa', 'wa']], [2611, ['act', 'nsw']], [2618, ['act', 'nsw']], [2620, ['nsw', 'act']],
  [3585, ['vic', 'nsw']], [3586, ['vic', 'nsw']], [3644, ['vic', 'nsw']], [3691, ['vic', 'nsw']], [3707, ['vic', 'nsw']],
  [4375, ['qld', 'nsw']], [4377, ['qld', 'nsw']], [4380, ['qld', 'nsw']], [4383, ['qld', 'nsw']], [4385, ['qld', 'nsw']],
  [4825, ['qld', 'nt']],
]);

/** The states a postcode is used in (its range's first, then those across a border); none for anything but four digits of a range. */
export function postcodeStates(postcode: string): readonly StateId[] {
  const text = postcode.trim();
  if (!/^\d{4}$/.test(text)) return [];
  const n = Number(text);
  const shared = SHARED.get(n);
  if (shared) return shared;
  const range = RANGES.find(([low, high]) => n >= low && n <= high);
  return range ? [range[2]] : [];
}

/**
 * The state of a station a feed lists: its postcode's state when the postcode belongs to one
 * state only; the feed's own when the postcode is missing or unreadable, or is shared across a
 * border with the feed's state (nothing then says it is not in the feed's state); otherwise the
 * postcode range's state. So a QLD-feed site at NSW 2486 is in NSW, one at QLD 4383 stays in QLD.
 */
export function stationState(postcode: string, feedState: StateId): StateId {
  const states = postcodeStates(postcode);
  if (states.length === 0 || states.includes(feedState)) return feedState;
  return states[0] ?? feedState;
}

/** How addresses write each state ("Banora Point NSW 2486"). */
export const STATE_ABBREVIATIONS: Readonly<Record<StateId, string>> = {
  nsw: 'NSW', vic: 'VIC', qld: 'QLD', wa: 'WA', sa: 'SA', tas: 'TAS', nt: 'NT', act: 'ACT',
};

/** The state of a four-digit postcode (its range's: "2600" -> act, "2619" -> nsw), or undefined for anything else: where a station a history file creates is placed when the file names no state. */
export function stateFromPostcode(postcode: string): StateId | undefined {
  return postcodeStates(postcode)[0];
}
