/** The demo's places: real towns (GeoNames, see TOWNS.md) with what the generator derives from them. */
import { STATES, isStateId, type StateId } from '../../domain/states.ts';
import { distanceKm } from '../../domain/places.ts';
import townsJson from './towns.json' with { type: 'json' };

export interface Town {
  id: string;
  name: string;
  state: StateId;
  latitude: number;
  longitude: number;
  population: number;
  capital: boolean;
  /** Great-circle distance to the state's capital. */
  capitalKm: number;
  /** Postcode shared by the town's stations (capitals give each suburb its own). */
  postcode: string;
}

export const CAPITALS: Readonly<Record<StateId, string>> = {
  nsw: 'sydney', vic: 'melbourne', qld: 'brisbane', wa: 'perth', sa: 'adelaide', tas: 'hobart', nt: 'darwin', act: 'canberra',
};

/** Country postcodes per state, handed out in order of distance from the capital. */
const COUNTRY_POSTCODES: Readonly<Record<StateId, readonly [number, number]>> = {
  nsw: [2250, 2880], vic: [3211, 3996], qld: [4207, 4890], wa: [6207, 6770], sa: [5201, 5734], tas: [7109, 7470], nt: [822, 886], act: [2600, 2617],
};

interface RawTown { id: string; name: string; state: string; latitude: string; longitude: string; population: number }

function load(): Town[] {
  const raw: readonly RawTown[] = townsJson;
  const parsed = raw.map((t) => {
    if (!isStateId(t.state)) throw new Error(`towns.json: unknown state ${t.state} for ${t.id}`);
    return {
      id: t.id, name: t.name, state: t.state, latitude: Number(t.latitude), longitude: Number(t.longitude),
      population: t.population, capital: CAPITALS[t.state] === t.id, capitalKm: 0, postcode: '',
    };
  });
  const byId = new Map(parsed.map((t) => [t.id, t]));
  for (const state of STATES) {
    const capital = byId.get(CAPITALS[state]);
    if (!capital) throw new Error(`towns.json: capital ${CAPITALS[state]} missing`);
    const country = parsed.filter((t) => t.state === state && !t.capital);
    for (const t of country) t.capitalKm = distanceKm(t.latitude, t.longitude, capital.latitude, capital.longitude);
    country.sort((a, b) => a.capitalKm - b.capitalKm || (a.id < b.id ? -1 : 1));
    const [lo, hi] = COUNTRY_POSTCODES[state];
    country.forEach((t, rank) => {
      let code = lo + Math.floor(((rank + 0.5) / country.length) * (hi - lo));
      if (state === 'nsw' && code >= 2600 && code <= 2619) code += 20; // ACT's codes
      t.postcode = String(code).padStart(4, '0');
    });
  }
  return parsed;
}

export const TOWNS: readonly Town[] = load();

export function townsOf(state: StateId): Town[] {
  return TOWNS.filter((t) => t.state === state);
}
