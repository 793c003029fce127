/** The 19 fuel ids, in the order every per-fuel array of the API uses. */
export const FUELS = [
  'e10', 'ulp91', 'ulp95', 'ulp98', 'diesel', 'pdiesel', 'lpg', 'e85', 'e5', 'ev',
  'b20', 'cng', 'lng', 'opal', 'lrp', 'ulsd', 'ulp-combined', 'pulp-combined', 'diesel-combined',
] as const;

export type FuelId = (typeof FUELS)[number];

const FUEL_SET: ReadonlySet<string> = new Set(FUELS);

export function isFuelId(s: string): s is FuelId {
  return FUEL_SET.has(s);
}

/**
 * Combined ids are derived, never reported by a station directly (unless a feed
 * reports the combined code itself): each groups the fuels listed here.
 */
export const COMBINED_FUELS: Readonly<Record<'ulp-combined' | 'pulp-combined' | 'diesel-combined', readonly FuelId[]>> = {
  'ulp-combined': ['ulp91', 'e10'],
  'pulp-combined': ['ulp95', 'ulp98'],
  'diesel-combined': ['diesel', 'pdiesel'],
};

/** Answer one entry per fuel id, in order, from a lookup that may have no value. */
export function perFuel<T>(lookup: (fuel: FuelId) => T): Array<{ fuel: FuelId } & T> {
  return FUELS.map((fuel) => ({ fuel, ...lookup(fuel) }));
}

const OUTPUTS: ReadonlyMap<FuelId, readonly FuelId[]> = new Map(
  FUELS.map((fuel) => [
    fuel,
    [fuel, ...Object.entries(COMBINED_FUELS).filter(([, members]) => members.includes(fuel)).map(([combined]) => combined as FuelId)],
  ]),
);

/** The output ids a reported fuel counts towards: itself, and the combined id that groups it. */
export function outputsOf(fuel: FuelId): readonly FuelId[] {
  return OUTPUTS.get(fuel) ?? [fuel];
}

export function fuelIndex(fuel: FuelId): number {
  return FUELS.indexOf(fuel);
}
