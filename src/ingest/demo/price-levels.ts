/**
 * Where one demo station's prices sit: the market's level, the brand's and the place's
 * premium, its city's petrol cycle (followed with a lag), each fuel's offset from its group,
 * and the rounding to a price board's tenths. prices.ts decides when a group moves; this file
 * says to what.
 */
import type { FuelId } from '../../domain/fuels.ts';
import { COSTCO } from './brands.ts';
import type { CityCycle, Market } from './market.ts';
import type { Rng } from './random.ts';
import type { StationPlan } from './stations.ts';

const HOUR = 3_600;

/** Market levels today, in tenths of a cent: ULP91 and diesel in the big capitals before brand and place. */
const PETROL_BASE = 1765;
const DIESEL_BASE = 1790;

/** Place premium in tenths over the big-capital level. */
const CAPITAL_PREMIUM: Readonly<Record<string, number>> = {
  sydney: 0, melbourne: 0, brisbane: 5, perth: -15, adelaide: -5, canberra: 60, hobart: 70, darwin: 110,
};

/** Fuels that move together: the petrol grades, the diesels, LPG, EV, gas. */
export type GroupKind = 'petrol' | 'diesel' | 'lpg' | 'ev' | 'gas';

export const GROUP_OF: Readonly<Record<FuelId, GroupKind | null>> = {
  ulp91: 'petrol', e10: 'petrol', ulp95: 'petrol', ulp98: 'petrol', e5: 'petrol', e85: 'petrol', lrp: 'petrol', opal: 'petrol',
  diesel: 'diesel', pdiesel: 'diesel', b20: 'diesel', ulsd: 'diesel', lpg: 'lpg', ev: 'ev', cng: 'gas', lng: 'gas',
  'ulp-combined': null, 'pulp-combined': null, 'diesel-combined': null,
};

/** A group's level, in tenths before a fuel's own offset, and the noise it wanders by. */
export interface GroupLevel {
  readonly kind: GroupKind;
  level: number;
  noise: number;
}

/** One station's place in the market; draws its premiums from the station's own random stream. */
export class PriceLevels {
  /** The city's petrol cycle, for a capital that cycles. */
  readonly cycle: CityCycle | undefined;
  private readonly lag: number;
  private readonly cycleDepth: number;
  private readonly wholesaleLag: number;
  private readonly petrolPremium: number;
  private readonly dieselPremium: number;
  private readonly lpgBase: number;
  private readonly gasBase: number;
  private readonly roundTo9: boolean;

  constructor(plan: StationPlan, private readonly market: Market, private readonly firstDay: number, rng: Rng) {
    const town = plan.town;
    this.cycle = town.capital ? market.cycles.get(town.id) : undefined;
    this.lag = Math.round((this.cycle?.lagHours ?? 0) * HOUR * rng.next() ** 2);
    this.cycleDepth = rng.range(0.85, 1.1);
    this.wholesaleLag = town.capital ? 1 : rng.int(3, 8);
    const place = town.capital
      ? (CAPITAL_PREMIUM[town.id] ?? 0)
      : 30 + Math.min(200, town.capitalKm * 0.08) + (plan.area === 'remote' ? 60 : 0);
    this.petrolPremium = plan.brand.offset + place + clamp(rng.normal() * 15, -40, 40);
    this.dieselPremium = 0.5 * plan.brand.offset + 0.8 * place + clamp(rng.normal() * 12, -30, 30);
    this.lpgBase = 950 + rng.range(0, 200) + 0.5 * place;
    this.gasBase = rng.range(1550, 1800);
    this.roundTo9 = plan.brand.name === COSTCO || rng.chance(0.75);
  }

  /** Where the group's level wants to be at an instant, in tenths (before a fuel's own offset). */
  target(group: GroupLevel, at: number, day: number, rng: Rng): number {
    const market = this.market;
    const k = day - this.firstDay;
    const lagged = Math.max(0, k - this.wholesaleLag);
    const sd = this.cycle ? 4 : 8;
    group.noise = 0.6 * group.noise + sd * rng.normal();
    switch (group.kind) {
      case 'petrol': {
        const cycle = this.cycle ? this.cycleDepth * this.cycle.at(at - this.lag) : 0;
        return PETROL_BASE + (market.petrol[lagged] ?? 0) + this.petrolPremium + cycle + group.noise;
      }
      case 'diesel':
        return DIESEL_BASE + (market.diesel[lagged] ?? 0) + this.dieselPremium + group.noise;
      case 'lpg':
        return this.lpgBase + (market.lpg[lagged] ?? 0) + group.noise;
      case 'gas':
        return this.gasBase + 0.3 * (market.diesel[lagged] ?? 0) + group.noise;
      case 'ev':
        return group.level;
    }
  }

  /** A fuel's board price in tenths: its group's level plus its offset, rounded and kept in bounds. */
  priceOf(group: GroupLevel, delta: number): number {
    const value = group.level + delta;
    if (group.kind === 'ev') return clamp(Math.round(value / 10) * 10, 300, 850);
    const tenths = this.roundTo9 ? Math.floor(value / 10) * 10 + 9 : Math.round(value);
    return clamp(tenths, 850, 3400);
  }
}

/** Each fuel's offset in tenths from its group's level (ULP91 and diesel are the levels). */
export function fuelDeltas(rng: Rng): Record<FuelId, number> {
  const d95 = rng.int(120, 170);
  return {
    ulp91: 0, e10: -rng.int(20, 40), ulp95: d95, ulp98: d95 + rng.int(70, 110), e5: rng.int(20, 50), e85: -rng.int(150, 250),
    lrp: rng.int(120, 200), opal: rng.int(0, 60), diesel: 0, pdiesel: rng.int(80, 160), b20: -rng.int(0, 30), ulsd: rng.int(0, 20),
    lpg: 0, ev: 0, cng: rng.int(-100, 150), lng: rng.int(-150, 100), 'ulp-combined': 0, 'pulp-combined': 0, 'diesel-combined': 0,
  };
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}
