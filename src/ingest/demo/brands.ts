/** Real brands of the Australian retail fuel market, weighted roughly by their share of sites. */
import type { StateId } from '../../domain/states.ts';

export type Area = 'capital' | 'town' | 'remote';

export interface Brand {
  /** As shown in the feeds and the `brand` field. */
  name: string;
  /** Relative number of sites, before the state and area factors. */
  weight: number;
  /** Factor per state; a state not listed uses 1, 0 means absent. */
  states?: Partial<Record<StateId, number>>;
  /** Factor per area; an area not listed uses 1. */
  areas?: Partial<Record<Area, number>>;
  /** How station names start; `{s}` is the suburb. Picked at random. */
  names: readonly string[];
  /** Country-only names (truck stops, roadhouses). */
  countryNames?: readonly string[];
  /** A major: sells premium diesel at most sites, prices a little above the independents. */
  major: boolean;
  /** Typical price offset in tenths of a cent against the market (before the station's own). */
  offset: number;
  website?: string;
}

export const COSTCO = 'Costco';

export const BRANDS: readonly Brand[] = [
  { name: 'Ampol', weight: 16, major: true, offset: 15, names: ['Ampol {s}', 'Ampol {s}', 'Ampol Foodary {s}'], countryNames: ['Ampol Truckstop {s}'], website: 'https://www.ampol.com.au' },
  { name: 'bp', weight: 15, major: true, offset: 15, names: ['bp {s}', 'bp {s}', 'bp Connect {s}'], countryNames: ['bp Truckstop {s}'] },
  { name: 'Caltex', weight: 5, major: true, offset: 10, names: ['Caltex {s}'], states: { qld: 1.5, wa: 1.5, nt: 1.5 } },
  { name: 'United', weight: 7, major: false, offset: -5, names: ['United {s}'], countryNames: ['United Truckstop {s}'], states: { vic: 1.5, nt: 0.3 }, website: 'https://www.unitedpetroleum.com.au' },
  { name: '7-Eleven', weight: 9, major: true, offset: 5, names: ['7-Eleven {s}'], states: { tas: 0, nt: 0, sa: 0.4 }, areas: { capital: 1.6, town: 0.35, remote: 0 }, website: 'https://www.7eleven.com.au' },
  { name: 'EG', weight: 6, major: true, offset: 20, names: ['EG Ampol {s}'], states: { sa: 0.2, tas: 0, nt: 0 }, areas: { remote: 0.2 } },
  { name: 'Reddy Express', weight: 8, major: true, offset: 20, names: ['Reddy Express {s}'], states: { nt: 0.3 }, areas: { remote: 0.3 } },
  { name: 'On The Run', weight: 1, major: true, offset: 0, names: ['OTR {s}'], states: { sa: 18, nsw: 0.5, qld: 0.3, tas: 0, nt: 0, act: 0 } },
  { name: 'Metro', weight: 3.5, major: false, offset: -25, names: ['Metro Petroleum {s}', 'Metro Fuel {s}'], states: { wa: 0.3, tas: 0, nt: 0, sa: 0.5 } },
  { name: 'Speedway', weight: 1.5, major: false, offset: -25, names: ['Speedway {s}'], states: { nsw: 0, qld: 0, wa: 0, sa: 0, tas: 0, nt: 0, act: 0, vic: 5 } },
  { name: 'Liberty', weight: 4, major: false, offset: -20, names: ['Liberty {s}'], states: { act: 0.3 }, website: 'https://www.libertyoil.com.au' },
  { name: 'Freedom', weight: 2, major: false, offset: -25, names: ['Freedom Fuels {s}'], states: { vic: 0, wa: 0, sa: 0, tas: 0, nt: 0, act: 0, nsw: 2, qld: 2 } },
  { name: 'Budget', weight: 1.5, major: false, offset: -30, names: ['Budget Petrol {s}'], states: { nsw: 0.3, vic: 0, wa: 0, sa: 0, tas: 0, act: 0, qld: 3, nt: 4 } },
  { name: 'Vibe', weight: 1.5, major: false, offset: -15, names: ['Vibe {s}'], states: { sa: 0, tas: 0, nt: 0, act: 0, wa: 2, vic: 1.5 } },
  { name: 'Pearl', weight: 1, major: false, offset: -30, names: ['Pearl Energy {s}'], states: { vic: 0, wa: 0, sa: 0, tas: 0, nt: 0, act: 0, nsw: 0.5, qld: 3 } },
  { name: 'Mobil', weight: 3, major: true, offset: 10, names: ['Mobil {s}'], states: { nt: 0, tas: 0, act: 0.5 }, website: 'https://www.mobil.com.au' },
  { name: 'Shell', weight: 2, major: true, offset: 20, names: ['Shell {s}'], website: 'https://www.shell.com.au' },
  { name: 'Puma', weight: 4, major: false, offset: 0, names: ['Puma {s}'], states: { qld: 2, wa: 2, nt: 3, tas: 3, nsw: 0.5, vic: 0.4, act: 0 } },
  { name: 'Independent', weight: 4, major: false, offset: 0, names: ['{s} Service Station', '{s} Fuel Stop', '{s} Motors'], countryNames: ['{s} Roadhouse'], areas: { capital: 0.6, town: 1.5, remote: 4 } },
];

/** Costco: a few warehouses in the large capitals only, placed explicitly rather than drawn. */
export const COSTCO_BRAND: Brand = {
  name: COSTCO, weight: 0, major: false, offset: -150, names: ['Costco {s}'], website: 'https://www.costco.com.au',
};

export const COSTCO_CAPITALS: readonly string[] = ['sydney', 'melbourne', 'brisbane', 'perth', 'adelaide', 'canberra'];

export function brandWeight(brand: Brand, state: StateId, area: Area): number {
  return brand.weight * (brand.states?.[state] ?? 1) * (brand.areas?.[area] ?? 1);
}
