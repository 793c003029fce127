/**
 * The deterministic demo dataset: real towns, real brands, invented stations and prices that
 * follow the real markets (petrol cycles in five capitals, WA's 06:00 changes, Victoria's
 * morning-only rises, steadier country prices, the odd outage). The same options give the
 * same batches on every machine: all randomness comes from the seed, none from the clock.
 */
import type { FuelId } from '../domain/fuels.ts';
import { STATES, type StateId } from '../domain/states.ts';
import { dayStart, localDayOf } from '../domain/time.ts';
import type { Batch, CityInput, PriceEvent, IngestStore } from '../storage/store.ts';
import type { DayStarts } from './demo/local-days.ts';
import { Market } from './demo/market.ts';
import { StationSim } from './demo/prices.ts';
import { Rng } from './demo/random.ts';
import { planStations, type StationPlan, stationCounts } from './demo/stations.ts';
import { TOWNS } from './demo/towns.ts';

export interface DemoOptions {
  seed: number;
  years: number;
  scale: 'small' | 'au';
  nowSec: number;
}

/** Days of prices per batch of demoBatches. */
export const DAYS_PER_BATCH = 7;

const HOUR = 3_600;
const YEAR = 365.25 * 86_400;

/** Capitals where a few stations are out of a fuel at `nowSec`, whatever the seed. */
const OUT_AT_NOW: readonly string[] = ['sydney', 'melbourne', 'brisbane', 'perth'];

export function demoCities(): CityInput[] {
  return TOWNS.map((t) => ({ id: t.id, name: t.name, state: t.state, latitude: t.latitude, longitude: t.longitude }));
}

function check(options: DemoOptions): void {
  const { seed, years, scale, nowSec } = options;
  if (!Number.isFinite(seed)) throw new RangeError(`demo seed must be a number, got ${seed}`);
  if (!(years >= 0 && years <= 30)) throw new RangeError(`demo years must be between 0 and 30, got ${years}`);
  if (scale !== 'small' && scale !== 'au') throw new RangeError(`demo scale must be small or au, got ${String(scale)}`);
  if (!Number.isInteger(nowSec)) throw new RangeError(`demo nowSec must be an integer Unix second, got ${nowSec}`);
}

interface Calendar {
  startSec: number;
  firstDay: number;
  lastDay: number;
  dayStarts: Record<StateId, DayStarts>;
}

function calendar(options: DemoOptions): Calendar {
  const startSec = options.nowSec - Math.round(options.years * YEAR);
  const firstDay = Math.min(...STATES.map((s) => localDayOf(s, startSec)));
  const lastDay = Math.max(...STATES.map((s) => localDayOf(s, options.nowSec)));
  const dayStarts = {} as Record<StateId, DayStarts>;
  for (const state of STATES) {
    const starts = new Float64Array(lastDay - firstDay + 3);
    for (let k = 0; k < starts.length; k++) starts[k] = dayStart(state, firstDay + k);
    dayStarts[state] = { firstDay, starts };
  }
  return { startSec, firstDay, lastDay, dayStarts };
}

/** Hand-set outages so that, at now, a few stations in several capitals are out of some fuel. */
function outagesAtNow(options: DemoOptions, plans: readonly StationPlan[], sims: readonly StationSim[]): void {
  const rng = new Rng(options.seed, 'out-at-now');
  const perCity = options.scale === 'au' ? 4 : 2;
  const preferred: readonly FuelId[] = ['ulp98', 'diesel', 'e10', 'ulp95', 'lpg', 'ulp91'];
  for (const city of OUT_AT_NOW) {
    const candidates = plans.filter((p) => p.town.id === city && !p.anchor).map((p) => p.index);
    let done = 0;
    for (const index of rng.shuffled(candidates)) {
      if (done >= perCity) break;
      const sim = sims[index];
      if (!sim) continue;
      const sold = sim.fuelIds();
      const fuel = preferred.find((f) => sold.includes(f) && rng.chance(0.6)) ?? preferred.find((f) => sold.includes(f));
      if (fuel && sim.forceOutage(fuel, options.nowSec - rng.int(HOUR, 30 * HOUR))) done++;
    }
  }
}

interface Setup {
  plans: StationPlan[];
  cal: Calendar;
  sims: StationSim[];
}

function setup(options: DemoOptions): Setup {
  check(options);
  const plans = planStations(options.seed, options.scale);
  const cal = calendar(options);
  const market = new Market(options.seed, cal.lastDay - cal.firstDay + 1, cal.startSec, options.nowSec);
  const ctx = { market, startSec: cal.startSec, nowSec: options.nowSec, firstDay: cal.firstDay, dayStarts: cal.dayStarts };
  const sims = plans.map((p) => new StationSim(p, ctx, options.seed));
  outagesAtNow(options, plans, sims);
  return { plans, cal, sims };
}

/**
 * Stations first (one batch), then the price reports in time order, a batch per
 * DAYS_PER_BATCH local days. States' days start at different instants, so a report later
 * than the earliest state's next midnight waits for the next batch: batches never overlap.
 */
export function* demoBatches(options: DemoOptions): Generator<Batch> {
  const { plans, cal, sims } = setup(options);
  yield { stations: plans.map((p) => p.input), prices: [] };
  let carried: PriceEvent[] = [];
  for (let from = cal.firstDay; from <= cal.lastDay; from += DAYS_PER_BATCH) {
    const to = Math.min(cal.lastDay, from + DAYS_PER_BATCH - 1);
    const prices = carried;
    for (let day = from; day <= to; day++) for (const sim of sims) sim.runDay(day, prices);
    // Stable: a station's reports for one fuel are already in order.
    prices.sort((a, b) => a.at - b.at);
    const next = to + 1 - cal.firstDay;
    const complete = to === cal.lastDay ? Infinity : Math.min(...STATES.map((s) => cal.dayStarts[s].starts[next] ?? Infinity));
    let cut = prices.length;
    while (cut > 0 && (prices[cut - 1]?.at ?? 0) >= complete) cut--;
    carried = prices.slice(cut);
    prices.length = cut;
    yield { stations: [], prices };
  }
}

/** Stations per batch of stationBatches: about 150,000 reports a batch whatever the history's length. */
export function stationsPerBatch(options: DemoOptions): number {
  return Math.max(10, Math.min(1000, Math.round(400 / Math.max(options.years, 0.1))));
}

/**
 * Exactly the reports of demoBatches, grouped by station instead of by time: stations first,
 * then batches that each hold a few stations' whole history, in time order per station.
 * Every station's prices come from its own random stream, so the order of generation
 * changes nothing. The writer is faster this way: each batch touches a few stations' rows
 * instead of every station's.
 */
export function* stationBatches(options: DemoOptions): Generator<Batch> {
  const { plans, cal, sims } = setup(options);
  yield { stations: plans.map((p) => p.input), prices: [] };
  const size = stationsPerBatch(options);
  for (let first = 0; first < sims.length; first += size) {
    const prices: PriceEvent[] = [];
    for (const sim of sims.slice(first, first + size)) {
      for (let day = cal.firstDay; day <= cal.lastDay; day++) sim.runDay(day, prices);
    }
    yield { stations: [], prices };
  }
}

/**
 * Writes the cities, the stations and every report (through stationBatches: the same data as
 * demoBatches, faster), then seals at now. Progress counts batches: the largest scales take
 * minutes (bench/RESULTS.md, "Datasets").
 */
export async function writeDemo(
  store: IngestStore, options: DemoOptions, onProgress?: (done: number, total: number) => void,
): Promise<{ stations: number; prices: number; seconds: number }> {
  const started = performance.now();
  check(options);
  let count = 0;
  for (const n of stationCounts(options.scale).values()) count += n;
  const total = 2 + Math.ceil(count / stationsPerBatch(options));
  await store.upsertCities(demoCities());
  let stations = 0;
  let prices = 0;
  let done = 0;
  onProgress?.(0, total);
  for (const batch of stationBatches(options)) {
    const result = await store.applyBatch(batch);
    stations += result.stationsAdded;
    prices += result.pricesAccepted;
    onProgress?.(++done, total);
  }
  await store.seal(options.nowSec);
  onProgress?.(total, total);
  return { stations, prices, seconds: (performance.now() - started) / 1000 };
}
