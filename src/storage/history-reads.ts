import { firstDayOf, lastDayOf } from '../domain/history-json.ts';
import type { StateId } from '../domain/states.ts';
import { type LocalDay, dayStart, localDayOf } from '../domain/time.ts';
import type { DayRange } from './store.ts';

/** How a city's history is read: which sealed days to fetch, and when today can be totalled by storage. */

/**
 * Which sealed days of [from, sealedEnd] to read when the caller holds some blocks already
 * (derived/history-blocks.ts). Without `known`, all of them. With it: every complete block (all its
 * days within the range; a block with rows always has a mark, see migration 7) with its mark, and
 * those the caller holds at that very mark skipped; the day ranges around them are read.
 */
export function planSealedRead(
  from: LocalDay, sealedEnd: LocalDay, marks: ReadonlyMap<number, number> | undefined, known: ReadonlyMap<number, number> | undefined,
): { ranges: Array<[LocalDay, LocalDay]>; blocks?: { marks: Map<number, number>; skipped: Set<number> } } {
  if (sealedEnd < from) return { ranges: [], ...(known && { blocks: { marks: new Map(), skipped: new Set() } }) };
  if (!known || !marks) return { ranges: [[from, sealedEnd]] };
  const complete = new Map<number, number>();
  const skipped: number[] = [];
  for (const [block, mark] of marks) {
    if (firstDayOf(block) < from || lastDayOf(block) > sealedEnd) continue;
    complete.set(block, mark);
    if (known.get(block) === mark) skipped.push(block);
  }
  const ranges: Array<[LocalDay, LocalDay]> = [];
  let next = from;
  for (const block of skipped.sort((a, b) => a - b)) {
    if (firstDayOf(block) > next) ranges.push([next, firstDayOf(block) - 1]);
    next = lastDayOf(block) + 1;
  }
  if (next <= sealedEnd) ranges.push([next, sealedEnd]);
  return { ranges, blocks: { marks: complete, skipped: new Set(skipped) } };
}

/** The parameters of cityLiveDaySql when the range's only live day (from liveFrom on) is today; otherwise undefined. */
export function onlyLiveDayIsToday(state: StateId, liveFrom: LocalDay, range: DayRange, nowSec: number): { day: LocalDay; start: number; now: number } | undefined {
  const today = localDayOf(state, nowSec);
  const start = dayStart(state, today);
  // At the day's very first second nothing has been open yet: the rows path says so exactly.
  return liveFrom === today && range.to === today && start < nowSec ? { day: today, start, now: nowSec } : undefined;
}
