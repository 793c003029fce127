export const STATES = ['nsw', 'vic', 'qld', 'wa', 'sa', 'tas', 'nt', 'act'] as const;
export type StateId = typeof STATES[number];

// IANA zones rather than fixed offsets: several states observe DST and the
// non-DST ones (WA, QLD, NT) have had it in the past.
export const STATE_TIME_ZONES: Record<StateId, string> = {
  nsw: 'Australia/Sydney',
  vic: 'Australia/Melbourne',
  qld: 'Australia/Brisbane',
  wa: 'Australia/Perth',
  sa: 'Australia/Adelaide',
  tas: 'Australia/Hobart',
  nt: 'Australia/Darwin',
  act: 'Australia/Sydney',
};

const STATE_SET: ReadonlySet<string> = new Set(STATES);

export function isStateId(s: string): s is StateId {
  return STATE_SET.has(s);
}

/** Each state's and territory's name, as /v1/prices names its scope. */
export const STATE_NAMES: Record<StateId, string> = {
  nsw: 'New South Wales',
  vic: 'Victoria',
  qld: 'Queensland',
  wa: 'Western Australia',
  sa: 'South Australia',
  tas: 'Tasmania',
  nt: 'Northern Territory',
  act: 'Australian Capital Territory',
};

/**
 * States whose scheme publishes the next day's prices the day before: WA (FuelWatch, about
 * 14:30 WA time, in force from 06:00 the next day). The advice and `backtest` read tomorrow's
 * prices only there.
 */
export const PUBLISHES_TOMORROW: ReadonlySet<StateId> = new Set<StateId>(['wa']);
