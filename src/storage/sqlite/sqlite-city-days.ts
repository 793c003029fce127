import type { LocalDay } from '../../domain/time.ts';
import { type CityDaysSource, SLOTS } from '../sql/city-means.ts';
import type { SqliteFile } from './sqlite-file.ts';

/** Days summed in one pass on SQLite: a city's sums over this many days stay in memory (some 5 MB). */
const WINDOW_DAYS = 4096;

/**
 * SQLite's way of reading a city's rows for the city means (sql/city-means.ts): each station's
 * rows in key order, one station after another, with statements that return a column of numbers
 * (no row object, no array per row). One statement over the city's stations ordered by key has
 * SQLite sort them; reading a station at a time walks station_daily's and station_runs' own keys.
 * It runs synchronously on the writer's file, inside its transaction.
 */
// Parameters are written `+?`, as sqliteText (sqlite-file.ts) writes every other statement's, so that
// SQLite does not compile these again at each station, which doubled a read's cost (bench/RESULTS.md,
// "Statements compiled once").
// Two reads in the same (key) order, numbers only: each row's day and fuel, and its mean.
const DAILY = 'FROM station_daily WHERE station_key = +? AND day BETWEEN +? AND +? AND seconds > 0 ORDER BY day, fuel';
const SLOTS_OF = `SELECT (day - +?) * ${SLOTS} + fuel ${DAILY}`;
const MEANS_OF = `SELECT CAST(weighted_tenths AS REAL) / seconds ${DAILY}`;
// Runs overlapping the window, in key order (no sort), clipped to it: the slot of the first day
// and the last day (an offset in the window, below WINDOW_DAYS) as one number, then the price
// (two reads of the same rows: numbers, not a row array each).
const RUNS = 'FROM station_runs WHERE station_key = +? AND to_day >= +? AND from_day <= +? ORDER BY to_day, fuel';
const RUN_SPANS_OF = `SELECT ((max(from_day, +?) - +?) * ${SLOTS} + fuel) * ${WINDOW_DAYS} + min(to_day, +?) - +? ${RUNS}`;
const RUN_PRICES_OF = `SELECT price_tenths ${RUNS}`;

export function sqliteCityDays(db: SqliteFile): CityDaysSource {
  return {
    windowDays: WINDOW_DAYS,
    read(_tx, _cityId, keys, low: LocalDay, high: LocalDay, visit): Promise<void> {
      // Prepared once by the file (kept by text), on first use: the tables exist only after migration.
      const slotsOf = db.columnStatement(SLOTS_OF);
      const meansOf = db.columnStatement(MEANS_OF);
      const runSpansOf = db.columnStatement(RUN_SPANS_OF);
      const runPricesOf = db.columnStatement(RUN_PRICES_OF);
      for (const key of keys) {
        const slots = slotsOf.all(low, key, low, high) as number[];
        const means = meansOf.all(key, low, high) as number[];
        if (slots.length !== means.length) throw new Error('station_daily changed between two reads of one transaction');
        for (let i = 0; i < slots.length; i++) visit.mean(slots[i] ?? 0, means[i] ?? 0);
        const spans = runSpansOf.all(low, low, high, low, key, low, high) as number[];
        if (spans.length === 0) continue;
        const prices = runPricesOf.all(key, low, high) as number[];
        if (prices.length !== spans.length) throw new Error('station_runs changed between two reads of one transaction');
        for (let i = 0; i < spans.length; i++) {
          const span = spans[i] ?? 0;
          visit.run(Math.floor(span / WINDOW_DAYS), span % WINDOW_DAYS, prices[i] ?? 0);
        }
      }
      return Promise.resolve();
    },
  };
}
