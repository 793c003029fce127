/**
 * Every held price (pending_prices: reports dated ahead, as WA's next-day prices) with its
 * station's id, city, state and position, read in one statement (ReadStore.heldRows) and kept per data version, the
 * same on both backends: the reads of held prices (a station's, a batch's, a city's or a state's,
 * those of positioned stations, of every fuel or of one output fuel's members) are lookups here.
 *
 * Why: WA publishes its next day's prices at about 14:30 and they are held until 06:00, so for
 * some 15 hours a day about 4,500 rows wait (900 stations, 5 fuels). Joined to the stations on
 * every request, Perth's came to 1.7 ms on SQLite and Sydney's, which holds none of them,
 * still had to probe them; PostgreSQL hash-joined all of them each time (bench/RESULTS.md,
 * "Held prices, read once a data version").
 * A held price changes only with the data version (holding, correcting and releasing one bumps
 * it: test/storage/held-prices.test.ts), so one read a version serves every request of it.
 */
import { type FuelId, outputsOf } from '../domain/fuels.ts';
import type { HeldPrice } from '../domain/tomorrow.ts';
import type { HeldRow } from '../storage/store.ts';
import { pushTo } from './map-lists.ts';

const NONE: readonly HeldPrice[] = [];

export class HeldIndex {
  private readonly byStation = new Map<string, HeldPrice[]>();
  private readonly byCity = new Map<string, HeldPrice[]>();
  private readonly byState = new Map<string, HeldPrice[]>();
  private readonly positioned: HeldPrice[] = [];

  /** Over the rows with each station's together, by fuel then instant (the order a station's are answered in). */
  constructor(rows: readonly HeldRow[]) {
    for (const { price, cityId, state, positioned } of rows) {
      pushTo(this.byStation, price.stationId, price);
      if (cityId !== undefined) pushTo(this.byCity, cityId, price);
      pushTo(this.byState, state, price);
      if (positioned) this.positioned.push(price);
    }
  }

  /** The station's held prices, by fuel, then instant. */
  ofStation(stationId: string): readonly HeldPrice[] {
    return this.byStation.get(stationId) ?? NONE;
  }

  /** The held prices of the city's stations: every fuel, or those counted as `output` (a member of it, or itself). */
  ofCity(cityId: string, output?: FuelId): readonly HeldPrice[] {
    return ofOutput(this.byCity.get(cityId) ?? NONE, output);
  }

  ofState(state: string, output?: FuelId): readonly HeldPrice[] {
    return ofOutput(this.byState.get(state) ?? NONE, output);
  }

  /** The held prices of every station with a position (the near searches'). */
  ofPositioned(output?: FuelId): readonly HeldPrice[] {
    return ofOutput(this.positioned, output);
  }
}

/** The prices whose fuel counts as `output` (fuels.ts outputsOf, the fuel_groups table's rows); all of them without one. */
function ofOutput(prices: readonly HeldPrice[], output: FuelId | undefined): readonly HeldPrice[] {
  return output === undefined ? prices : prices.filter((h) => outputsOf(h.fuel).includes(output));
}
