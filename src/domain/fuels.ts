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

/** What a fuel's prices are per: litres, kilowatt-hours (EV charging) or kilograms (compressed and liquefied natural gas). */
export type FuelUnit = 'c/L' | 'c/kWh' | 'c/kg';

/** Each fuel's human name and price unit (/v1/fuel-types), beside FUELS and in its order. */
export const FUEL_INFO: Readonly<Record<FuelId, { name: string; unit: FuelUnit }>> = {
  'e10': { name: 'E10', unit: 'c/L' },
  'ulp91': { name: 'Unleaded 91', unit: 'c/L' },
  'ulp95': { name: 'Premium unleaded 95', unit: 'c/L' },
  'ulp98': { name: 'Premium unleaded 98', unit: 'c/L' },
  'diesel': { name: 'Diesel', unit: 'c/L' },
  'pdiesel': { name: 'Premium diesel', unit: 'c/L' },
  'lpg': { name: 'LPG', unit: 'c/L' },
  'e85': { name: 'E85', unit: 'c/L' },
  'e5': { name: 'E5', unit: 'c/L' },
  'ev': { name: 'Electric vehicle charging', unit: 'c/kWh' },
  'b20': { name: 'Biodiesel B20', unit: 'c/L' },
  'cng': { name: 'Compressed natural gas', unit: 'c/kg' },
  'lng': { name: 'Liquefied natural gas', unit: 'c/kg' },
  'opal': { name: 'Opal (low aromatic unleaded)', unit: 'c/L' },
  'lrp': { name: 'Lead replacement petrol', unit: 'c/L' },
  'ulsd': { name: 'Ultra-low sulphur diesel', unit: 'c/L' },
  'ulp-combined': { name: 'Unleaded 91 and E10', unit: 'c/L' },
  'pulp-combined': { name: 'Premium unleaded (95 and 98)', unit: 'c/L' },
  'diesel-combined': { name: 'Diesel and premium diesel', unit: 'c/L' },
};

/** The fuel types as /v1/fuel-types lists them: FUELS' order, a combined fuel's members, else false. */
export function fuelTypes(): Array<{ id: FuelId; name: string; unit: FuelUnit; combined_of: FuelId[] | false }> {
  return FUELS.map((id) => {
    const members = (COMBINED_FUELS as Partial<Record<FuelId, readonly FuelId[]>>)[id];
    return { id, ...FUEL_INFO[id], combined_of: members ? [...members] : false };
  });
}

/**
 * An answer's per-fuel array: one entry per fuel id, in FUELS's order, each naming its fuel
 * (`entry` builds it whole, `fuel` included, rather than the fuel being spread into what it
 * returns: a batch of 100 stations builds 1,900 of them).
 */
export function perFuel<T extends { fuel: FuelId }>(entry: (fuel: FuelId) => T): T[] {
  return FUELS.map(entry);
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
