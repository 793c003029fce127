/**
 * The demo's stations: invented sites with real brands, placed around real towns in
 * proportion to the real number of sites per state, each within reach of its own town so
 * the store's city rule (nearest city of the state within 25 km) puts it there.
 */
import type { FuelId } from '../../domain/fuels.ts';
import { STATES, type StateId } from '../../domain/states.ts';
import { assignCity } from '../../domain/places.ts';
import type { StationInput } from '../../storage/store.ts';
import { type Area, type Brand, BRANDS, COSTCO_BRAND, COSTCO_CAPITALS, brandWeight } from './brands.ts';
import { Rng } from './random.ts';
import { capitalSuburbs, phone, street, townSuburb } from './names.ts';
import { type Town, townsOf } from './towns.ts';

export type Scale = 'small' | 'au';

export const DEMO_FEED = 'demo';

/** Real retail sites per state (ACCC, rounded). */
export const REAL_SITES: Readonly<Record<StateId, number>> = {
  nsw: 2200, vic: 1500, qld: 1650, wa: 800, sa: 550, tas: 200, nt: 130, act: 60,
};

const SCALE_TOTAL: Readonly<Record<Scale, number>> = { small: 1600, au: 8000 };

/** Stations of every capital that sell the five main grades and never run out of them. */
export const ANCHORS_PER_CAPITAL = 3;

export interface StationPlan {
  index: number;
  input: StationInput;
  town: Town;
  area: Area;
  brand: Brand;
  fuels: FuelId[];
  anchor: boolean;
  truckstop: boolean;
}

/** Number of stations per state at a scale, then per town: at least one each, the rest by population. */
export function stationCounts(scale: Scale): Map<string, number> {
  const realTotal = STATES.reduce((sum, s) => sum + REAL_SITES[s], 0);
  const counts = new Map<string, number>();
  for (const state of STATES) {
    const towns = townsOf(state);
    const total = Math.max(towns.length, Math.round((REAL_SITES[state] * SCALE_TOTAL[scale]) / realTotal));
    const spare = total - towns.length;
    const population = towns.reduce((sum, t) => sum + t.population, 0);
    // Largest remainder: shares add up exactly to the spare stations.
    const shares = towns.map((t) => (spare * t.population) / population);
    const given = shares.map(Math.floor);
    let left = spare - given.reduce((a, b) => a + b, 0);
    const order = towns.map((_, i) => i).sort((a, b) => ((shares[b] ?? 0) - (given[b] ?? 0)) - ((shares[a] ?? 0) - (given[a] ?? 0)) || a - b);
    for (const i of order) {
      if (left <= 0) break;
      given[i] = (given[i] ?? 0) + 1;
      left--;
    }
    towns.forEach((t, i) => counts.set(t.id, 1 + (given[i] ?? 0)));
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------
// Fuels

function isOpalTown(town: Town): boolean {
  if (town.capital) return false;
  if (town.state === 'nt') return true;
  if (town.state === 'wa') return town.capitalKm > 1000;
  if (town.state === 'sa') return town.capitalKm > 270 && town.latitude > -34;
  return false;
}

function e10Chance(state: StateId, area: Area): number {
  const table: Partial<Record<StateId, readonly [number, number, number]>> = {
    nsw: [0.85, 0.65, 0.3], qld: [0.8, 0.6, 0.25], act: [0.55, 0.55, 0.55], vic: [0.25, 0.12, 0.02],
  };
  const row = table[state] ?? [0.12, 0.06, 0.02];
  return area === 'capital' ? row[0] : area === 'town' ? row[1] : row[2];
}

function chooseFuels(rng: Rng, town: Town, area: Area, brand: Brand, truckstop: boolean): FuelId[] {
  const by = (capital: number, country: number, remote: number): number => (area === 'capital' ? capital : area === 'town' ? country : remote);
  const fuels = new Set<FuelId>();
  const opal = isOpalTown(town) && rng.chance(0.5);
  if (opal) fuels.add('opal');
  if (rng.chance(opal ? 0.3 : by(0.97, 0.97, 0.92))) fuels.add('ulp91');
  if (rng.chance(e10Chance(town.state, area))) fuels.add('e10');
  if (rng.chance(by(0.85, 0.55, 0.3))) fuels.add('ulp95');
  if (rng.chance(by(0.75, 0.45, 0.2))) fuels.add('ulp98');
  if (rng.chance(truckstop ? 1 : by(0.95, 0.97, 0.99))) fuels.add('diesel');
  if (fuels.has('diesel') && rng.chance(truckstop ? 0.7 : brand.major ? by(0.55, 0.4, 0.3) : 0.08)) fuels.add('pdiesel');
  if (rng.chance(truckstop ? 0.1 : by(0.22, 0.3, 0.25))) fuels.add('lpg');
  if (town.capital && ['nsw', 'vic', 'qld'].includes(town.state) && rng.chance(brand.name === 'United' ? 0.12 : 0.004)) fuels.add('e85');
  if (rng.chance(by(0.025, 0.015, 0.005))) fuels.add('ev');
  if (rng.chance(truckstop ? 0.15 : 0.002)) fuels.add('b20');
  if (area !== 'capital' && rng.chance(0.006)) fuels.add('lrp');
  if (rng.chance(truckstop ? 0.1 : 0.004)) fuels.add('ulsd');
  if (rng.chance(0.003)) fuels.add('e5');
  if (!fuels.has('ulp91') && !fuels.has('e10') && !fuels.has('opal')) fuels.add('ulp91');
  return [...fuels];
}

const MAIN_GRADES: readonly FuelId[] = ['ulp91', 'e10', 'ulp95', 'ulp98', 'diesel'];

/** A few capitals carry gas for fleets: ids of capitals and how many stations at each scale. */
const GAS_SITES: ReadonlyArray<{ fuel: FuelId; capitals: readonly string[]; small: number; au: number }> = [
  { fuel: 'cng', capitals: ['sydney', 'melbourne', 'brisbane'], small: 1, au: 3 },
  { fuel: 'lng', capitals: ['melbourne', 'perth', 'brisbane'], small: 1, au: 2 },
];

// ---------------------------------------------------------------------------------------------
// Placement

function radiusKm(town: Town): number {
  if (town.capital) return town.id === 'hobart' || town.id === 'darwin' ? 10 : 15;
  if (town.population >= 50_000) return 5;
  if (town.population >= 15_000) return 3.5;
  return 2;
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** A point near the town whose nearest city (of the state, within 25 km) is the town itself. */
function place(rng: Rng, town: Town, cities: ReadonlyArray<{ id: string; latitude: number; longitude: number }>, around?: { x: number; y: number; km: number }): { x: number; y: number; latitude: number; longitude: number } {
  const kmPerLat = 110.574;
  const kmPerLon = 111.32 * Math.cos((town.latitude * Math.PI) / 180);
  let radius = around ? around.km : radiusKm(town);
  for (let attempt = 0; attempt < 200; attempt++) {
    if (attempt > 0 && attempt % 40 === 0) radius /= 2;
    const r = radius * Math.sqrt(rng.next());
    const a = rng.range(0, 2 * Math.PI);
    const x = (around?.x ?? 0) + r * Math.cos(a);
    const y = (around?.y ?? 0) + r * Math.sin(a);
    const latitude = round4(town.latitude + y / kmPerLat);
    const longitude = round4(town.longitude + x / kmPerLon);
    if (assignCity(cities, latitude, longitude) === town.id) return { x, y, latitude, longitude };
  }
  return { x: 0, y: 0, latitude: town.latitude, longitude: town.longitude };
}

// ---------------------------------------------------------------------------------------------

/** Every station of the demo at a scale, in a stable order: by state, then town, then within the town. */
export function planStations(seed: number, scale: Scale): StationPlan[] {
  const counts = stationCounts(scale);
  const plans: StationPlan[] = [];
  const phones = new Set<string>();
  for (const state of STATES) {
    const towns = townsOf(state);
    const cities = towns.map((t) => ({ id: t.id, latitude: t.latitude, longitude: t.longitude }));
    for (const town of towns) {
      const n = counts.get(town.id) ?? 1;
      const suburbs = town.capital ? capitalSuburbs(seed, town, n, radiusKm(town)) : [];
      const townRng = new Rng(seed, 'town', town.id);
      const costco = COSTCO_CAPITALS.includes(town.id) ? (scale === 'au' && town.id !== 'canberra' ? 3 : 1) : 0;
      const costcoAt = new Set(townRng.shuffled(range(ANCHORS_PER_CAPITAL, n)).slice(0, costco));
      const gasAt = new Map<number, FuelId[]>();
      for (const gas of GAS_SITES) {
        if (!gas.capitals.includes(town.id)) continue;
        const picks = townRng.shuffled(range(ANCHORS_PER_CAPITAL, n)).filter((i) => !costcoAt.has(i)).slice(0, gas[scale]);
        for (const i of picks) gasAt.set(i, [...(gasAt.get(i) ?? []), gas.fuel]);
      }
      for (let k = 0; k < n; k++) {
        const index = plans.length;
        const rng = new Rng(seed, 'station', index);
        const area: Area = town.capital ? 'capital' : isRemote(town) ? 'remote' : 'town';
        const anchor = town.capital && k < ANCHORS_PER_CAPITAL;
        const brand = costcoAt.has(k) ? COSTCO_BRAND : rng.weighted(BRANDS, (b) => brandWeight(b, state, area));
        const truckstop = area !== 'capital' && brand.countryNames !== undefined && rng.chance(area === 'remote' ? 0.35 : 0.1);

        let suburb: string;
        let postcode: string;
        let point: { latitude: number; longitude: number };
        if (town.capital) {
          const home = suburbs[rng.int(0, suburbs.length - 1)] ?? { name: town.name, postcode: '0000', x: 0, y: 0 };
          point = place(rng, town, cities, { x: home.x, y: home.y, km: 1.5 });
          suburb = home.name;
          postcode = home.postcode;
        } else {
          const p = place(rng, town, cities);
          point = p;
          suburb = townSuburb(town, n, p.x, p.y);
          postcode = town.postcode;
        }

        const pattern = truckstop ? rng.pick(brand.countryNames ?? brand.names) : rng.pick(brand.names);
        const name = pattern.replace('{s}', suburb);
        const streetText = street(rng, state, area);
        let fuels: FuelId[];
        if (brand === COSTCO_BRAND) {
          fuels = ['ulp91', 'ulp98', 'diesel', ...(state === 'nsw' || state === 'qld' || state === 'act' ? (['e10'] as const) : [])];
        } else {
          fuels = chooseFuels(rng, town, area, brand, truckstop);
        }
        if (anchor) for (const f of MAIN_GRADES) if (!fuels.includes(f)) fuels.push(f);
        for (const f of gasAt.get(k) ?? []) if (!fuels.includes(f)) fuels.push(f);
        const website = brand.website !== undefined && rng.chance(brand === COSTCO_BRAND ? 1 : 0.25) ? brand.website : '';

        plans.push({
          index,
          town,
          area,
          brand,
          fuels,
          anchor,
          truckstop,
          input: {
            feed: DEMO_FEED,
            feedCode: `demo-${String(index).padStart(6, '0')}`,
            slug: name,
            name,
            brand: brand.name,
            address: `${streetText}, ${suburb} ${state.toUpperCase()} ${postcode}`,
            street: streetText,
            suburb,
            postcode,
            state,
            phone: phone(rng, state, phones),
            website,
            latitude: point.latitude,
            longitude: point.longitude,
          },
        });
      }
    }
  }
  return plans;
}

function isRemote(town: Town): boolean {
  if (town.capital) return false;
  const far: Record<StateId, number> = { nsw: 600, vic: Infinity, qld: 900, wa: 500, sa: 270, tas: Infinity, nt: 0, act: Infinity };
  return town.capitalKm > far[town.state];
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i < to; i++) out.push(i);
  return out;
}

