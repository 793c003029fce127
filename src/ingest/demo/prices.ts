/**
 * One station's prices over the history, a local day at a time. Fuels move in groups (the
 * petrol grades together, the diesels together, LPG, EV, gas), each group at its own pace:
 * daily in a cycling capital, every few days elsewhere, every week or more in the country.
 * A report is emitted only when a price or an availability changes.
 */
import type { FuelId } from '../../domain/fuels.ts';
import type { StateId } from '../../domain/states.ts';
import { utcOffsetSeconds } from '../../domain/time.ts';
import type { PriceEvent } from '../../storage/store.ts';
import { COSTCO } from './brands.ts';
import type { CityCycle, Market } from './market.ts';
import { Rng } from './random.ts';
import type { StationPlan } from './stations.ts';

const HOUR = 3_600;
const DAY = 86_400;

/** Market levels today, in tenths of a cent: ULP91 and diesel in the big capitals before brand and place. */
const PETROL_BASE = 1765;
const DIESEL_BASE = 1790;
/** Mean time between two outages of one fuel at one station, and their length. */
const OUTAGE_EVERY = 200 * DAY;
const OUTAGE_MIN = 2 * HOUR;
const OUTAGE_MAX = 72 * HOUR;

/** Place premium in tenths over the big-capital level. */
const CAPITAL_PREMIUM: Readonly<Record<string, number>> = {
  sydney: 0, melbourne: 0, brisbane: 5, perth: -15, adelaide: -5, canberra: 60, hobart: 70, darwin: 110,
};

type GroupKind = 'petrol' | 'diesel' | 'lpg' | 'ev' | 'gas';

const GROUP_OF: Readonly<Record<FuelId, GroupKind | null>> = {
  ulp91: 'petrol', e10: 'petrol', ulp95: 'petrol', ulp98: 'petrol', e5: 'petrol', e85: 'petrol', lrp: 'petrol', opal: 'petrol',
  diesel: 'diesel', pdiesel: 'diesel', b20: 'diesel', ulsd: 'diesel', lpg: 'lpg', ev: 'ev', cng: 'gas', lng: 'gas',
  'ulp-combined': null, 'pulp-combined': null, 'diesel-combined': null,
};

interface FuelSim {
  fuel: FuelId;
  /** Offset in tenths from the group's level. */
  delta: number;
  price: number;
  available: boolean;
  lastAt: number;
  outStart: number;
  outEnd: number;
  /** No random outages (an anchor's main grade, or a fuel whose outage is set by hand). */
  steady: boolean;
}

interface GroupSim {
  kind: GroupKind;
  fuels: FuelSim[];
  level: number;
  noise: number;
  nextDay: number;
  /** Days between opportunities to change, inclusive bounds. */
  every: readonly [number, number];
  rise: number;
  fall: number;
}

interface Action {
  at: number;
  group: GroupSim;
  level: number;
  /** False for Victoria's changes after the morning: a fuel whose price lags stays put rather than rise. */
  mayRise: boolean;
}

/** Day starts of a state, indexed from a first local day. */
export interface DayStarts {
  firstDay: number;
  starts: Float64Array;
}

export interface SimContext {
  market: Market;
  startSec: number;
  nowSec: number;
  /** The day index of the market series is localDay - firstDay. */
  firstDay: number;
  dayStarts: Readonly<Record<StateId, DayStarts>>;
}

export class StationSim {
  private readonly rng: Rng;
  private readonly state: StateId;
  private readonly feedCode: string;
  private readonly groups: GroupSim[] = [];
  private readonly fuels: FuelSim[] = [];
  private readonly cycle: CityCycle | undefined;
  private readonly lag: number;
  private readonly cycleDepth: number;
  private readonly wholesaleLag: number;
  private readonly petrolPremium: number;
  private readonly dieselPremium: number;
  private readonly lpgBase: number;
  private readonly gasBase: number;
  private readonly roundTo9: boolean;
  private readonly initAt: number;
  private readonly initDay: number;
  private readonly lastDay: number;
  private readonly vic: boolean;
  private readonly wa: boolean;
  private initDone = false;
  private morningDay = Number.NaN;
  private morning = 0;
  private evProposal = 0;
  private readonly actions: Action[] = [];

  constructor(plan: StationPlan, private readonly ctx: SimContext, seed: number) {
    const rng = (this.rng = new Rng(seed, 'prices', plan.index));
    this.state = plan.input.state;
    this.feedCode = plan.input.feedCode;
    this.vic = this.state === 'vic';
    this.wa = this.state === 'wa';
    const town = plan.town;
    this.cycle = town.capital ? ctx.market.cycles.get(town.id) : undefined;
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

    const days: readonly [number, number] = town.capital ? (this.cycle ? [1, 1] : [2, 5]) : plan.area === 'remote' ? [5, 14] : [3, 9];
    const spec: Record<GroupKind, { every: readonly [number, number]; rise: number; fall: number }> = {
      petrol: { every: days, rise: this.cycle ? 20 : 5, fall: this.cycle ? rng.int(10, 25) : 5 },
      diesel: { every: town.capital ? [2, 6] : plan.area === 'remote' ? [6, 16] : [4, 10], rise: 5, fall: 5 },
      lpg: { every: [7, 21], rise: 10, fall: 10 },
      ev: { every: [30, 120], rise: 1, fall: 1 },
      gas: { every: [20, 60], rise: 10, fall: 10 },
    };

    this.initAt = Math.min(ctx.nowSec, ctx.startSec + rng.int(0, 900));
    this.initDay = this.localDay(this.initAt);
    this.lastDay = this.localDay(ctx.nowSec);
    const d95 = rng.int(120, 170);
    const deltas: Record<FuelId, number> = {
      ulp91: 0, e10: -rng.int(20, 40), ulp95: d95, ulp98: d95 + rng.int(70, 110), e5: rng.int(20, 50), e85: -rng.int(150, 250),
      lrp: rng.int(120, 200), opal: rng.int(0, 60), diesel: 0, pdiesel: rng.int(80, 160), b20: -rng.int(0, 30), ulsd: rng.int(0, 20),
      lpg: 0, ev: 0, cng: rng.int(-100, 150), lng: rng.int(-150, 100), 'ulp-combined': 0, 'pulp-combined': 0, 'diesel-combined': 0,
    };
    for (const fuel of plan.fuels) {
      const kind = GROUP_OF[fuel];
      if (!kind) continue;
      let group = this.groups.find((g) => g.kind === kind);
      if (!group) {
        const s = spec[kind];
        group = { kind, fuels: [], level: 0, noise: 0, nextDay: this.initDay + rng.int(1, s.every[1]), every: s.every, rise: s.rise, fall: s.fall };
        group.level = kind === 'ev' ? rng.range(450, 700) : this.target(group, this.initAt, this.initDay);
        this.groups.push(group);
      }
      const sim: FuelSim = {
        fuel, delta: deltas[fuel], price: 0, available: true, lastAt: -Infinity, outStart: Infinity, outEnd: Infinity,
        steady: plan.anchor && (fuel === 'ulp91' || fuel === 'e10' || fuel === 'ulp95' || fuel === 'ulp98' || fuel === 'diesel'),
      };
      sim.price = this.priceOf(group, sim);
      if (!sim.steady) sim.outStart = this.daytime(this.initAt + HOUR + rng.exponential(OUTAGE_EVERY));
      group.fuels.push(sim);
      this.fuels.push(sim);
    }
  }

  /** Fuels sold, for the choice of hand-set outages. */
  fuelIds(): FuelId[] {
    return this.fuels.map((f) => f.fuel);
  }

  /** Makes a fuel run out at `at` and stay out past now; false when that cannot be (history too short). */
  forceOutage(fuel: FuelId, at: number): boolean {
    const sim = this.fuels.find((f) => f.fuel === fuel);
    if (!sim) return false;
    let start = Math.floor(at);
    if (this.vic) {
      // Shop hours, counted back from `at` so the outage is still on at now.
      const sod = (((start + utcOffsetSeconds('vic', start)) % DAY) + DAY) % DAY;
      if (sod < 7 * HOUR) start -= sod + 3 * HOUR;
      else if (sod >= 22 * HOUR) start -= sod - 21 * HOUR;
    }
    if (start <= this.initAt + HOUR || start > this.ctx.nowSec) return false;
    sim.steady = true;
    sim.outStart = start;
    sim.outEnd = Infinity;
    return true;
  }

  /** Appends the reports of the station's local day `day` (none outside the history). */
  runDay(day: number, out: PriceEvent[]): void {
    if (day < this.initDay || day > this.lastDay) return;
    if (!this.initDone) {
      this.initDone = true;
      for (const f of this.fuels) this.emit(out, f, this.initAt, f.price, true);
    }
    const ws = this.dayStart(day);
    const we = this.dayStart(day + 1);
    const actions = this.actions;
    actions.length = 0;
    for (const group of this.groups) {
      if (group.nextDay !== day) continue;
      group.nextDay = day + this.rng.int(group.every[0], group.every[1]);
      this.decide(group, day, ws, we, actions);
    }
    if (actions.length > 1) actions.sort((a, b) => a.at - b.at);
    // Merge the day's price changes with the outages in time order; an outage that starts
    // and ends within the day is seen through, as is a change skipping a fuel that is out.
    const until = Math.min(we, this.ctx.nowSec + 1);
    let next = 0;
    for (;;) {
      let fuel: FuelSim | undefined;
      let fuelAt = until;
      for (const f of this.fuels) {
        const t = f.available ? f.outStart : f.outEnd;
        if (t < fuelAt) {
          fuel = f;
          fuelAt = t;
        }
      }
      const action = actions[next];
      if (action && action.at < until && action.at <= fuelAt) {
        next++;
        const group = action.group;
        group.level = action.level;
        for (const f of group.fuels) {
          if (!f.available) continue;
          const price = this.priceOf(group, f);
          if (price < f.price || (price > f.price && action.mayRise)) this.emit(out, f, action.at, price, true);
        }
        continue;
      }
      if (!fuel) break;
      if (fuel.available) {
        this.emit(out, fuel, fuelAt, fuel.price, false);
        fuel.outEnd = fuel.steady ? Infinity : this.daytime(fuel.lastAt + OUTAGE_MIN * (OUTAGE_MAX / OUTAGE_MIN) ** this.rng.next());
      } else {
        // Back in stock at the price it had: a change of price waits for the next opportunity.
        this.emit(out, fuel, fuelAt, fuel.price, true);
        fuel.outEnd = Infinity;
        fuel.outStart = this.daytime(fuel.lastAt + 1 + this.rng.exponential(OUTAGE_EVERY));
      }
    }
  }

  /** Whether and when a group changes on its opportunity day; pushes the action. */
  private decide(group: GroupSim, day: number, ws: number, we: number, actions: Action[]): void {
    const rng = this.rng;
    if (group.kind === 'ev') {
      // EV tariffs step now and then rather than follow a market.
      if (!rng.chance(0.4)) return;
      this.evProposal = clamp(group.level + rng.normal() * 40, 400, 750);
    }
    if (this.wa) {
      // FuelWatch: tomorrow's price is set the day before and takes effect at 06:00.
      const at = this.wallTime(ws, we, 6 * HOUR);
      const level = this.want(group, at, day);
      if (level >= group.level + group.rise || level <= group.level - group.fall) actions.push({ at, group, level, mayRise: true });
      return;
    }
    if (this.vic) {
      // Victoria: a price may only go up at the day's first change, early in the morning; all
      // of a day's rises share that instant.
      if (this.morningDay !== day) {
        this.morningDay = day;
        this.morning = this.wallTime(ws, we, rng.int(5 * HOUR, 7 * HOUR - 1));
      }
      const up = this.want(group, this.morning, day);
      if (up >= group.level + group.rise) {
        actions.push({ at: this.morning, group, level: up, mayRise: true });
        return;
      }
      const later = this.wallTime(ws, we, rng.int(7 * HOUR, 22 * HOUR - 1));
      const down = this.want(group, later, day);
      if (down <= group.level - group.fall) actions.push({ at: later, group, level: down, mayRise: false });
      return;
    }
    const at = this.wallTime(ws, we, rng.int(6 * HOUR, 22 * HOUR - 1));
    const level = this.want(group, at, day);
    if (level >= group.level + group.rise || level <= group.level - group.fall) actions.push({ at, group, level, mayRise: true });
  }

  private want(group: GroupSim, at: number, day: number): number {
    return group.kind === 'ev' ? this.evProposal : this.target(group, at, day);
  }

  /** Where the group's level wants to be at an instant, in tenths (before a fuel's own offset). */
  private target(group: GroupSim, at: number, day: number): number {
    const { market } = this.ctx;
    const k = day - this.ctx.firstDay;
    const lagged = Math.max(0, k - this.wholesaleLag);
    const sd = this.cycle ? 4 : 8;
    group.noise = 0.6 * group.noise + sd * this.rng.normal();
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

  private priceOf(group: GroupSim, fuel: FuelSim): number {
    const value = group.level + fuel.delta;
    if (group.kind === 'ev') return clamp(Math.round(value / 10) * 10, 300, 850);
    const tenths = this.roundTo9 ? Math.floor(value / 10) * 10 + 9 : Math.round(value);
    return clamp(tenths, 850, 3400);
  }

  private emit(out: PriceEvent[], fuel: FuelSim, at: number, priceTenths: number, available: boolean): void {
    // One report per instant and fuel: the store keeps only the first of two at the same second.
    const when = at > fuel.lastAt ? at : fuel.lastAt + 1;
    out.push({ feed: 'demo', feedCode: this.feedCode, fuel: fuel.fuel, at: when, priceTenths, available });
    fuel.lastAt = when;
    fuel.price = priceTenths;
    fuel.available = available;
  }

  private localDay(t: number): number {
    const { firstDay, starts } = this.ctx.dayStarts[this.state];
    let k = Math.floor((t - (starts[0] ?? 0)) / DAY);
    while (k > 0 && (starts[k] ?? Infinity) > t) k--;
    while ((starts[k + 1] ?? Infinity) <= t) k++;
    return firstDay + k;
  }

  private dayStart(day: number): number {
    const { firstDay, starts } = this.ctx.dayStarts[this.state];
    const s = starts[day - firstDay];
    if (s === undefined) throw new RangeError(`day ${day} outside the demo's calendar`);
    return s;
  }

  /** The instant of a wall-clock time on the local day starting at ws (correct on DST days). */
  private wallTime(ws: number, we: number, secondsAfterMidnight: number): number {
    const t = ws + secondsAfterMidnight;
    if (we - ws === DAY) return t;
    return t + utcOffsetSeconds(this.state, ws) - utcOffsetSeconds(this.state, t);
  }

  /** Victoria's outages start and end in shop hours (07:00-22:00), so no report precedes the morning rise. */
  private daytime(t: number): number {
    if (!this.vic || !Number.isFinite(t)) return Math.floor(t);
    const at = Math.floor(t);
    const sod = (((at + utcOffsetSeconds('vic', at)) % DAY) + DAY) % DAY;
    if (sod >= 7 * HOUR && sod < 22 * HOUR) return at;
    const toSeven = sod < 7 * HOUR ? 7 * HOUR - sod : DAY - sod + 7 * HOUR;
    return at + toSeven + this.rng.int(0, 3 * HOUR);
  }
}

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}
