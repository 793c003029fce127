import { blockOf } from '../../domain/history-json.ts';
import type { LocalDay } from '../../domain/time.ts';
import type { Connection } from './connection.ts';
import type { ForKeys } from './dialect.ts';
import { BULK, INGEST_STATEMENTS as SQL } from './ingest-statements.ts';

/**
 * City means stored as runs (city_runs, issue 46): one row per city, output fuel and run of
 * consecutive days with the same mean, bit for bit. Runs are maximal: two runs of a city and
 * fuel never touch with the same mean, so the rows are a function of the day-by-day means (the
 * same means give the same rows whatever the order of the writes that made them). A city's mean
 * holds still between two reports of its stations: a NSW history month imported after the live
 * feed changed 1.6 M day means and 25,541 runs hold them.
 *
 * Each block of HISTORY_BLOCK_DAYS days of a city has a change mark (city_daily_marks,
 * derived/history-blocks.ts) that moves whenever the mean of one of its days changes; here the
 * writer moves it, once a block, for exactly the blocks whose days' means changed (a run spans
 * many blocks: lengthening it by a day changes one).
 */

/** Slots per day (a window's slot is (day − low) × SLOTS + fuel): every output fuel index is below 32. */
export const SLOTS = 32;

/** Runs gone, by (city, last day, fuel): the table's key. */
const DELETE_CITY_RUNS: ForKeys = {
  width: 3,
  each: 'DELETE FROM city_runs WHERE city_id = $1 AND to_day = $2 AND fuel = $3',
  all: `DELETE FROM city_runs c USING unnest($1::text[], $2::int[], $3::smallint[]) AS k (city_id, to_day, fuel)
    WHERE c.city_id = k.city_id AND c.to_day = k.to_day AND c.fuel = k.fuel`,
};

/** A fresh mark (a random number within 2^53) for each (city, block). */
export const MOVE_MARKS: ForKeys = {
  width: 2,
  each: `INSERT INTO city_daily_marks (city_id, block, mark) VALUES ($1, $2, random() % 9007199254740991)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark`,
  all: `INSERT INTO city_daily_marks (city_id, block, mark)
    SELECT k.city_id, k.block, (random() * 9007199254740991)::bigint FROM unnest($1::text[], $2::int[]) AS k (city_id, block)
    ON CONFLICT (city_id, block) DO UPDATE SET mark = excluded.mark`,
};

/** Every (city, block) the runs cover, as MOVE_MARKS's keys: the marks a copy of city_runs rows moves. */
export function runBlocks(rows: ReadonlyArray<Record<string, unknown>>): unknown[] {
  const blocks = new Set<string>();
  const keys: unknown[] = [];
  for (const row of rows) {
    for (let block = blockOf(Number(row.from_day)); block <= blockOf(Number(row.to_day)); block++) {
      const key = `${String(row.city_id)}\u0000${block}`;
      if (!blocks.has(key)) { blocks.add(key); keys.push(row.city_id, block); }
    }
  }
  return keys;
}

/** A stored run: [fuel, from_day, to_day, mean_tenths]. */
export type CityRun = [number, number, number, number];

/**
 * The day means a city's runs give over days [low, high], in (day, fuel) order (the order the
 * rows of city_daily, a row a day before schema 17, were read in), to `visit`. The runs may come in any order.
 */
export function eachRunDay(runs: readonly CityRun[], low: LocalDay, high: LocalDay, visit: (fuel: number, day: LocalDay, mean: number) => void): void {
  if (runs.length === 0) return;
  let first = high;
  let last = low;
  for (const [, from, to] of runs) {
    first = Math.min(first, Math.max(low, Number(from)));
    last = Math.max(last, Math.min(high, Number(to)));
  }
  if (last < first) return;
  const means = new Float64Array((last - first + 1) * SLOTS).fill(NaN);
  for (const [fuel, from, to, mean] of runs) {
    for (let day = Math.max(first, Number(from)); day <= Math.min(last, Number(to)); day++) means[(day - first) * SLOTS + Number(fuel)] = Number(mean);
  }
  for (let slot = 0; slot < means.length; slot++) {
    const mean = means[slot] ?? NaN;
    if (!Number.isNaN(mean)) visit(slot % SLOTS, first + Math.floor(slot / SLOTS), mean);
  }
}

interface Run { fuel: number; from: number; to: number; mean: number }

/**
 * Writes a city's new means of days [low, high] over its stored runs: `drain` gives each day's
 * mean by slot ((day − low) × SLOTS + fuel) in slot order, and no day the city has no mean for.
 * The stored runs that reach into the window or touch it are read; what they hold outside the
 * window stays; the window's means are grouped into runs and joined to those parts where they
 * touch with the same mean; runs that differ from the stored ones are deleted and inserted, the
 * others left alone. Moves the marks of the blocks whose days' means changed.
 */
export async function writeCityRuns(
  tx: Connection, cityId: string, low: LocalDay, high: LocalDay, drain: (emit: (slot: number, mean: number) => void) => void,
): Promise<void> {
  const stored: Run[] = (await tx.arrays<CityRun>(SQL.cityRunsNear, [cityId, low - 1, high + 1]))
    .map(([fuel, from, to, mean]) => ({ fuel: Number(fuel), from: Number(from), to: Number(to), mean: Number(mean) }));
  // The stored means of the window by slot (NaN: none), each consumed as the new means are compared to it.
  const old = new Float64Array((high - low + 1) * SLOTS).fill(NaN);
  for (const run of stored) {
    for (let day = Math.max(low, run.from); day <= Math.min(high, run.to); day++) old[(day - low) * SLOTS + run.fuel] = run.mean;
  }
  const changed = new Set<number>();
  // The window's means as runs, per fuel: the open one lengthened while the next day has its mean.
  const open: Array<Run | undefined> = [];
  const fresh: Run[] = [];
  drain((slot, mean) => {
    const fuel = slot % SLOTS;
    const day = low + Math.floor(slot / SLOTS);
    if (old[slot] !== mean) changed.add(blockOf(day));
    old[slot] = NaN;
    const run = open[fuel];
    if (run && run.to === day - 1 && run.mean === mean) { run.to = day; return; }
    if (run) fresh.push(run);
    open[fuel] = { fuel, from: day, to: day, mean };
  });
  for (const run of open) if (run) fresh.push(run);
  // Stored means of the window with no new mean: gone.
  for (let slot = 0; slot < old.length; slot++) if (!Number.isNaN(old[slot] ?? NaN)) changed.add(blockOf(low + Math.floor(slot / SLOTS)));
  if (changed.size === 0) return;

  // The stored runs' parts outside the window, then the window's runs, joined where they touch with the same mean.
  const pieces: Run[] = [...fresh];
  for (const run of stored) {
    if (run.from < low) pieces.push({ ...run, to: Math.min(run.to, low - 1) });
    if (run.to > high) pieces.push({ ...run, from: Math.max(run.from, high + 1) });
  }
  pieces.sort((a, b) => a.fuel - b.fuel || a.from - b.from);
  const runs: Run[] = [];
  for (const piece of pieces) {
    const last = runs[runs.length - 1];
    if (last && last.fuel === piece.fuel && last.to === piece.from - 1 && last.mean === piece.mean) last.to = piece.to;
    else runs.push({ ...piece });
  }
  // Only the runs that differ are written.
  const key = (r: Run): string => `${r.fuel}:${r.from}:${r.to}`;
  const wanted = new Map(runs.map((r) => [key(r), r]));
  const deletes: unknown[] = [];
  for (const run of stored) {
    const same = wanted.get(key(run));
    if (same && same.mean === run.mean) wanted.delete(key(run));
    else deletes.push(cityId, run.to, run.fuel);
  }
  await tx.forKeys(DELETE_CITY_RUNS, deletes);
  const inserts = tx.bulkRows(BULK.cityRuns);
  for (const run of wanted.values()) {
    inserts.values.push(cityId, run.to, run.fuel, run.from, run.mean);
    inserts.added();
  }
  await inserts.done();
  await tx.forKeys(MOVE_MARKS, [...changed].flatMap((block) => [cityId, block]));
}
