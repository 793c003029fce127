/**
 * The demo's live feed: while `serve --demo` runs, prices keep moving through the same ingest
 * path as a real feed (adapter -> Normaliser -> applyFeedBatch -> run log), so today's spread,
 * averages, the out-of-stock lists and today's point of every history change as you watch.
 *
 * Each poll moves a few stations, deterministically for (seed, poll time): petrol grades move
 * together and diesel grades together; in the states whose capitals have price cycles prices
 * mostly creep down a little and now and then jump back up (never in the afternoon in
 * Victoria); elsewhere they drift either way. WA prices move only at 06:00, as the law there
 * says. Now and then a fuel runs out, and fuels that ran out come back.
 */
import { FUELS, type FuelId } from '../../domain/fuels.ts';
import type { StateId } from '../../domain/states.ts';
import { localDayOf, localTimeToUnix, ymdOfLocalDay } from '../../domain/time.ts';
import type { FeedStation, IngestStore, ReadStore } from '../../storage/store.ts';
import type { FeedAdapter, PullContext, Pulled } from '../feed.ts';
import type { FuelMap } from '../normalise.ts';
import { Rng } from './random.ts';
import { DEMO_FEED } from './stations.ts';

export const DEMO_LIVE_INTERVAL_SEC = 60;
/** Share of the demo's stations that report a change in each poll. */
const MOVING_SHARE = 0.02;
const CYCLE_STATES: ReadonlySet<StateId> = new Set(['nsw', 'vic', 'qld', 'sa', 'wa']);
const GROUPS: ReadonlyArray<readonly FuelId[]> = [
  ['e10', 'ulp91', 'ulp95', 'ulp98', 'e5', 'e85', 'lrp', 'opal'],
  ['diesel', 'pdiesel', 'b20', 'ulsd'],
  ['lpg'],
];
const IDENTITY: FuelMap = Object.fromEntries(FUELS.map((fuel) => [fuel, fuel]));

export function demoLiveAdapter(store: IngestStore & Pick<ReadStore, 'currentForStation'>, seed: number): FeedAdapter {
  let stations: FeedStation[] | undefined;
  return {
    id: DEMO_FEED,
    name: 'demo (simulated live prices)',
    states: [],
    intervalSec: DEMO_LIVE_INTERVAL_SEC,
    requires: [],
    fuels: IDENTITY,
    async pull(ctx: PullContext): Promise<Pulled[]> {
      stations ??= await store.feedStations(DEMO_FEED);
      const tick = Math.floor(ctx.now / DEMO_LIVE_INTERVAL_SEC);
      const rng = new Rng(seed, 'live', tick);
      const normaliser = ctx.normaliser();
      const moving = new Set<FeedStation>();
      const count = Math.max(1, Math.round(stations.length * MOVING_SHARE));
      for (let i = 0; i < count && stations.length > 0; i++) moving.add(stations[rng.int(0, stations.length - 1)] as FeedStation);
      // WA: every station may change at 06:00, none at any other time.
      const waMorning = isWaSixAm(ctx.now);
      for (const station of stations) if (station.state === 'wa' && waMorning && rng.chance(0.6)) moving.add(station);
      for (const station of moving) {
        if (station.state === 'wa' && !waMorning) continue;
        const current = await store.currentForStation(station.id);
        for (const group of GROUPS) {
          const sold = current.filter((c) => group.includes(c.fuel));
          if (sold.length === 0) continue;
          const delta = step(rng, station.state, ctx.now);
          const outage = rng.chance(0.03) ? rng.int(0, sold.length - 1) : -1;
          sold.forEach((c, i) => {
            if (c.priceTenths <= 0) return;
            const available = i === outage ? false : c.available ? true : rng.chance(0.5);
            const priceTenths = available ? c.priceTenths + delta : c.priceTenths;
            if (available === c.available && priceTenths === c.priceTenths) return;
            normaliser.price({ code: station.feedCode, fuelCode: c.fuel, at: ctx.now, priceTenths, available });
          });
        }
      }
      return [{ normaliser, cursor: String(tick) }];
    },
  };
}

/** A price change in tenths of a cent. */
function step(rng: Rng, state: StateId, now: number): number {
  if (!CYCLE_STATES.has(state)) return rng.chance(0.5) ? rng.int(2, 12) : -rng.int(2, 12);
  const afternoonInVictoria = state === 'vic' && localHour(state, now) >= 12;
  if (!afternoonInVictoria && rng.chance(0.08)) return rng.int(150, 300);
  return -rng.int(2, 15);
}

function localHour(state: StateId, now: number): number {
  const { y, m, d } = ymdOfLocalDay(localDayOf(state, now));
  return Math.floor((now - localTimeToUnix(state, y, m, d, 0, 0, 0)) / 3_600);
}

/** True for the one poll that falls in the first interval after 06:00 in Perth. */
function isWaSixAm(now: number): boolean {
  const { y, m, d } = ymdOfLocalDay(localDayOf('wa', now));
  const six = localTimeToUnix('wa', y, m, d, 6, 0, 0);
  return now >= six && now < six + DEMO_LIVE_INTERVAL_SEC;
}
