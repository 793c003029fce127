/**
 * One station's prices over the history, a local day at a time. Fuels move in groups (the
 * petrol grades together, the diesels together, LPG, EV, gas), each group at its own pace:
 * daily in a cycling capital, every few days elsewhere, every week or more in the country.
 * A report is emitted only when a price or an availability changes. This file says when a
 * group moves and when a fuel runs out; price-levels.ts says to what level a group moves, and
 * local-days.ts where the station's local days start.
 */
import type { FuelId } from '../../domain/fuels.ts';
import type { StateId } from '../../domain/states.ts';
import type { PriceEvent } from '../../storage/store.ts';
import { type DayStarts, LocalDays, secondOfDay } from './local-days.ts';
import type { Market } from './market.ts';
import { clamp, fuelDeltas, GROUP_OF, type GroupKind, type GroupLevel, PriceLevels } from './price-levels.ts';
import { Rng } from './random.ts';
import type { StationPlan } from './stations.ts';

const HOUR = 3_600;
const DAY = 86_400;

/** Mean time between two outages of one fuel at one station, and their length. */
const OUTAGE_EVERY = 200 * DAY;
const OUTAGE_MIN = 2 * HOUR;
const OUTAGE_MAX = 72 * HOUR;

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

interface GroupSim extends GroupLevel {
  fuels: FuelSim[];
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
  private readonly levels: PriceLevels;
  private readonly days: LocalDays;
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
    const days = (this.days = new LocalDays(this.state, ctx.dayStarts[this.state]));
    const town = plan.town;
    const levels = (this.levels = new PriceLevels(plan, ctx.market, ctx.firstDay, rng));
    const cycles = levels.cycle !== undefined;

    const petrolEvery: readonly [number, number] = town.capital ? (cycles ? [1, 1] : [2, 5]) : plan.area === 'remote' ? [5, 14] : [3, 9];
    const spec: Record<GroupKind, { every: readonly [number, number]; rise: number; fall: number }> = {
      petrol: { every: petrolEvery, rise: cycles ? 20 : 5, fall: cycles ? rng.int(10, 25) : 5 },
      diesel: { every: town.capital ? [2, 6] : plan.area === 'remote' ? [6, 16] : [4, 10], rise: 5, fall: 5 },
      lpg: { every: [7, 21], rise: 10, fall: 10 },
      ev: { every: [30, 120], rise: 1, fall: 1 },
      gas: { every: [20, 60], rise: 10, fall: 10 },
    };

    this.initAt = Math.min(ctx.nowSec, ctx.startSec + rng.int(0, 900));
    this.initDay = days.dayOf(this.initAt);
    this.lastDay = days.dayOf(ctx.nowSec);
    const deltas = fuelDeltas(rng);
    for (const fuel of plan.fuels) {
      const kind = GROUP_OF[fuel];
      if (!kind) continue;
      let group = this.groups.find((g) => g.kind === kind);
      if (!group) {
        const s = spec[kind];
        group = { kind, fuels: [], level: 0, noise: 0, nextDay: this.initDay + rng.int(1, s.every[1]), every: s.every, rise: s.rise, fall: s.fall };
        group.level = kind === 'ev' ? rng.range(450, 700) : levels.target(group, this.initAt, this.initDay, rng);
        this.groups.push(group);
      }
      const sim: FuelSim = {
        fuel, delta: deltas[fuel], price: 0, available: true, lastAt: -Infinity, outStart: Infinity, outEnd: Infinity,
        steady: plan.anchor && (fuel === 'ulp91' || fuel === 'e10' || fuel === 'ulp95' || fuel === 'ulp98' || fuel === 'diesel'),
      };
      sim.price = levels.priceOf(group, sim.delta);
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
      const sod = secondOfDay('vic', start);
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
    const ws = this.days.start(day);
    const we = this.days.start(day + 1);
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
          const price = this.levels.priceOf(group, f.delta);
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
      const at = this.days.wallTime(ws, we, 6 * HOUR);
      const level = this.want(group, at, day);
      if (level >= group.level + group.rise || level <= group.level - group.fall) actions.push({ at, group, level, mayRise: true });
      return;
    }
    if (this.vic) {
      // Victoria: a price may only go up at the day's first change, early in the morning; all
      // of a day's rises share that instant.
      if (this.morningDay !== day) {
        this.morningDay = day;
        this.morning = this.days.wallTime(ws, we, rng.int(5 * HOUR, 7 * HOUR - 1));
      }
      const up = this.want(group, this.morning, day);
      if (up >= group.level + group.rise) {
        actions.push({ at: this.morning, group, level: up, mayRise: true });
        return;
      }
      const later = this.days.wallTime(ws, we, rng.int(7 * HOUR, 22 * HOUR - 1));
      const down = this.want(group, later, day);
      if (down <= group.level - group.fall) actions.push({ at: later, group, level: down, mayRise: false });
      return;
    }
    const at = this.days.wallTime(ws, we, rng.int(6 * HOUR, 22 * HOUR - 1));
    const level = this.want(group, at, day);
    if (level >= group.level + group.rise || level <= group.level - group.fall) actions.push({ at, group, level, mayRise: true });
  }

  private want(group: GroupSim, at: number, day: number): number {
    return group.kind === 'ev' ? this.evProposal : this.levels.target(group, at, day, this.rng);
  }

  private emit(out: PriceEvent[], fuel: FuelSim, at: number, priceTenths: number, available: boolean): void {
    // One report per instant and fuel: the store keeps only the first of two at the same second.
    const when = at > fuel.lastAt ? at : fuel.lastAt + 1;
    out.push({ feed: 'demo', feedCode: this.feedCode, fuel: fuel.fuel, at: when, priceTenths, available });
    fuel.lastAt = when;
    fuel.price = priceTenths;
    fuel.available = available;
  }

  /** Victoria's outages start and end in shop hours (07:00-22:00), so no report precedes the morning rise. */
  private daytime(t: number): number {
    if (!this.vic || !Number.isFinite(t)) return Math.floor(t);
    const at = Math.floor(t);
    const sod = secondOfDay('vic', at);
    if (sod >= 7 * HOUR && sod < 22 * HOUR) return at;
    const toSeven = sod < 7 * HOUR ? 7 * HOUR - sod : DAY - sod + 7 * HOUR;
    return at + toSeven + this.rng.int(0, 3 * HOUR);
  }
}
