/**
 * Every read model of the house: what a process builds from stored rows and keeps in memory for
 * as long as the data it was built from holds. One entry each, saying what data it depends on
 * (and what makes it stale), which thread builds it, and its bound. The code reads its bounds
 * from here (read-models.ts's holders, http/cache/station-texts.ts, derived/history-blocks.ts,
 * derived/derived-answers.ts, derived/computer.ts); test/read-models/registry.test.ts holds each
 * bound to what is enforced. The answer cache (http/cache/answer-store.ts) is not a read model:
 * it keeps answers sent, not data to answer from.
 */
import { FUELS } from '../domain/fuels.ts';

/** Which thread builds and keeps it (docs/DERIVED.md: the derived worker and the search worker each have their own connection). */
export type Builder = 'serving thread' | 'search worker' | 'derived worker';

export interface ReadModelSpec {
  /** Where it is defined. */
  file: string;
  /** The tables its rows come from. */
  tables: readonly string[];
  /** What makes what is kept stale: the data version (every write that can change an answer moves it), or a block's change mark. */
  staleWhen: 'data version' | 'data version or clock slice' | 'change mark';
  builtBy: readonly Builder[];
  /** What is kept at most: values (one per key, of the one data version kept) and bytes. */
  bound: { entries: number; bytes?: number };
}

const MB = 1024 * 1024;

export const READ_MODELS = {
  /** Every positioned station's position, sorted by latitude (positions.ts Positions), with its grid for along. */
  positions: {
    file: 'src/read-models/positions.ts', tables: ['stations'], staleWhen: 'data version', builtBy: ['search worker'], bound: { entries: 1 },
  },
  /** Each output fuel's lowest available price by slot of the positions (positions.ts FuelPrices): one per output fuel. */
  fuelPrices: {
    file: 'src/read-models/positions.ts', tables: ['current_prices', 'fuel_groups'], staleWhen: 'data version', builtBy: ['search worker'],
    bound: { entries: FUELS.length },
  },
  /** The station rows of the pages searches showed (read-models.ts KeptStations), read once a data version. */
  pageStations: {
    file: 'src/read-models/read-models.ts', tables: ['stations'], staleWhen: 'data version', builtBy: ['search worker'], bound: { entries: 65_536 },
  },
  /** Each output fuel's available prices by city and state, each area's ranking made once (area-prices.ts): one per output fuel. */
  areaPrices: {
    file: 'src/read-models/area-prices.ts', tables: ['current_prices', 'fuel_groups', 'stations'], staleWhen: 'data version', builtBy: ['search worker'],
    bound: { entries: FUELS.length },
  },
  /** Every held price by station, city, state and position (held-index.ts). */
  heldPrices: {
    file: 'src/read-models/held-index.ts', tables: ['pending_prices', 'stations'], staleWhen: 'data version',
    builtBy: ['serving thread', 'search worker', 'derived worker'], bound: { entries: 1 },
  },
  /** Each station's prices answer as text with its SHA-256. */
  stationTexts: {
    file: 'src/http/cache/station-texts.ts', tables: ['stations', 'current_prices', 'pending_prices'], staleWhen: 'data version',
    builtBy: ['serving thread'], bound: { entries: Number.POSITIVE_INFINITY, bytes: 32 * MB },
  },
  /** A city's sealed history as JSON text per block of 128 days, each with its block's change mark (city_daily_marks, moved by city_runs' triggers). */
  historyBlocks: {
    file: 'src/derived/history-blocks.ts', tables: ['city_runs', 'city_daily_marks'], staleWhen: 'change mark', builtBy: ['derived worker'],
    bound: { entries: Number.POSITIVE_INFINITY, bytes: 16 * MB },
  },
  /** Derived answers (a cycle, a history) kept where the routes ask for them, computed on the derived worker. */
  derivedAnswers: {
    file: 'src/derived/derived-answers.ts', tables: ['city_runs', 'current_prices', 'pending_prices', 'station_daily', 'station_runs'],
    staleWhen: 'data version or clock slice', builtBy: ['serving thread'], bound: { entries: 4096, bytes: 64 * MB },
  },
  /** The derived worker's answers just computed (computer.ts), for a request that comes as one computed ahead is on its way. */
  recentDerived: {
    file: 'src/derived/computer.ts', tables: ['city_runs', 'current_prices', 'pending_prices', 'station_daily', 'station_runs'],
    staleWhen: 'data version or clock slice', builtBy: ['derived worker'], bound: { entries: 256, bytes: 32 * MB },
  },
} as const satisfies Record<string, ReadModelSpec>;

export type ReadModelName = keyof typeof READ_MODELS;

/** A model's bound in bytes (those bounded in bytes). */
export function boundBytes(name: 'stationTexts' | 'historyBlocks' | 'derivedAnswers' | 'recentDerived'): number {
  return READ_MODELS[name].bound.bytes;
}
