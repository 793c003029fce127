import { blockOf, firstDayOf, lastDayOf } from '../../domain/history-json.ts';
import type { LocalDay } from '../../domain/time.ts';
import type { Connection } from './connection.ts';
import type { ForKeys } from './dialect.ts';
import { BULK, INGEST_STATEMENTS as SQL } from './ingest-statements.ts';

/**
 * City means stored as runs (city_runs, schema 17, issue 46): one row per city, output fuel and
 * run of consecutive days with the same mean, bit for bit, within one block of
 * HISTORY_BLOCK_DAYS days. A city's mean holds still between two reports of its stations: the
 * 2.1 M day means of the NSW data after a history month was imported behind the live feed are
 * 42,268 runs, and that import changed 1.6 M of them.
 *
 * Runs are maximal within their block (two runs of a city, fuel and block never touch with the
 * same mean), so a block's rows are a function of its days' means: the same means give the same
 * rows whatever the writes that made them, and the schema's triggers move a block's change mark
 * (city_daily_marks, derived/history-blocks.ts) exactly when its means change. A run never
 * crosses a block, so the runs that reach into days [low, high] all end in [low, the last day of
 * high's block]: a bounded range of the key (city_id, to_day, fuel).
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

/** A stored run: [fuel, from_day, to_day, mean_tenths]. */
export type CityRun = [number, number, number, number];

/** The parameters of statements.ts cityRuns for days [low, high]: city, low, high, and the last day a run reaching into them can end. */
export function cityRunsArgs(cityId: string, low: LocalDay, high: LocalDay): [string, number, number, number] {
  return [cityId, low, high, lastDayOf(blockOf(high))];
}

/**
 * The day means a city's runs give over days [low, high], in (day, fuel) order (the order the
 * rows of city_daily, a row a day before schema 17, were read in), to `visit`. The runs may
 * come in any order.
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

/** Pieces of runs (one fuel's, or several) sorted by fuel and first day, joined where they touch within a block with the same mean. */
function joinRuns(pieces: Run[]): Run[] {
  pieces.sort((a, b) => a.fuel - b.fuel || a.from - b.from);
  const runs: Run[] = [];
  for (const piece of pieces) {
    const last = runs[runs.length - 1];
    if (last && last.fuel === piece.fuel && last.to === piece.from - 1 && last.mean === piece.mean && blockOf(last.to) === blockOf(piece.from)) last.to = piece.to;
    else runs.push({ ...piece });
  }
  return runs;
}

/**
 * Writes a city's new means of days [low, high] over its stored runs: `drain` gives each day's
 * mean by slot ((day − low) × SLOTS + fuel) in slot order, and no day the city has no mean for.
 * The stored runs that reach into the window or touch it are read; what they hold outside the
 * window stays; the window's means are grouped into runs and joined to those parts where they
 * touch within a block with the same mean; runs that differ from the stored ones are deleted and
 * inserted, the others left alone (and so are their blocks' marks).
 */
export async function writeCityRuns(
  tx: Connection, cityId: string, low: LocalDay, high: LocalDay, drain: (emit: (slot: number, mean: number) => void) => void,
): Promise<void> {
  // Every run that reaches into the window or touches it within its blocks: those ending from the day before it (or the
  // start of its first block) to the end of its last block, and beginning by the day after it.
  const near = [cityId, Math.max(low - 1, firstDayOf(blockOf(low))), lastDayOf(blockOf(high)), high + 1];
  const stored: Run[] = (await tx.arrays<CityRun>(SQL.cityRunsNear, near))
    .map(([fuel, from, to, mean]) => ({ fuel: Number(fuel), from: Number(from), to: Number(to), mean: Number(mean) }));
  // The window's means as runs, per fuel: the open one lengthened while the next day, in its block, has its mean.
  const open: Array<Run | undefined> = [];
  const pieces: Run[] = [];
  drain((slot, mean) => {
    const fuel = slot % SLOTS;
    const day = low + Math.floor(slot / SLOTS);
    const run = open[fuel];
    if (run && run.to === day - 1 && run.mean === mean && blockOf(run.from) === blockOf(day)) { run.to = day; return; }
    if (run) pieces.push(run);
    open[fuel] = { fuel, from: day, to: day, mean };
  });
  for (const run of open) if (run) pieces.push(run);
  // The stored runs' parts outside the window.
  for (const run of stored) {
    if (run.from < low) pieces.push({ ...run, to: Math.min(run.to, low - 1) });
    if (run.to > high) pieces.push({ ...run, from: Math.max(run.from, high + 1) });
  }
  // Only the runs that differ are written.
  const key = (r: Run): string => `${r.fuel}:${r.from}:${r.to}`;
  const wanted = new Map(joinRuns(pieces).map((r) => [key(r), r]));
  const deletes: unknown[] = [];
  for (const run of stored) {
    const same = wanted.get(key(run));
    if (same && same.mean === run.mean) wanted.delete(key(run));
    else deletes.push(cityId, run.to, run.fuel);
  }
  await tx.forKeys(DELETE_CITY_RUNS, deletes);
  if (wanted.size === 0) return;
  const inserts = tx.bulkRows(BULK.cityRuns);
  for (const run of wanted.values()) {
    inserts.values.push(cityId, run.to, run.fuel, run.from, run.mean);
    inserts.added();
  }
  await inserts.done();
}
