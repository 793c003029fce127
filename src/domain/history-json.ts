import { FUELS, type FuelId } from './fuels.ts';
import { type CityDayRow, type DailyMean, type FuelSeries, sealedByFuel } from './history.ts';
import type { StateId } from './states.ts';
import { type LocalDay, dayStart, formatLocalDay } from './time.ts';

/**
 * A long city history as JSON put together from pieces, for the sealed part of a history is the
 * same from one request to the next: kept formatted per block of days (http/history-blocks.ts),
 * its bytes go into the answer as they are rather than read, built and serialised again. The
 * answer is byte for byte what the route's schema serialiser makes of historyEntries
 * (test/http/history-blocks.test.ts). Station history is written by historyPieces too, with no
 * held pieces: one string per record instead of an object per record for the serialiser.
 */

/** Days per block: a block is formatted once and reused while its sealed days do not change. */
export const HISTORY_BLOCK_DAYS = 128;

export function blockOf(day: LocalDay): number {
  return Math.floor(day / HISTORY_BLOCK_DAYS);
}

export function firstDayOf(block: number): LocalDay {
  return block * HISTORY_BLOCK_DAYS;
}

export function lastDayOf(block: number): LocalDay {
  return (block + 1) * HISTORY_BLOCK_DAYS - 1;
}

/**
 * One fuel's records, newest first, as JSON objects joined by commas (no brackets), in UTF-8:
 * bytes, so that an answer is put together by copying them once and hashed and written as they are.
 */
export type RecordsText = Buffer;

/**
 * Per day, the start of its record (`{"timestamp":...,"date":"...","average":`), the same for
 * every fuel: worked out once per answer or block rather than once per fuel.
 */
export type DayHeads = Map<LocalDay, string>;

/** Records of daily means (newest first) as HistoryRecordSchema serialises them: a change to that schema changes this too. */
export function recordsText(
  days: readonly DailyMean[], state: StateId, format: (meanTenths: number) => string, heads: DayHeads = new Map(),
): RecordsText {
  const records = new Array<string>(days.length);
  for (let i = 0; i < days.length; i++) {
    const d = days[i] as DailyMean;
    let head = heads.get(d.day);
    if (head === undefined) heads.set(d.day, (head = `{"timestamp":${dayStart(state, d.day)},"date":"${formatLocalDay(d.day)}","average":`));
    records[i] = `${head}${JSON.stringify(format(d.meanTenths))}}`;
  }
  return Buffer.from(records.join(','));
}

/** Sealed rows of some days (any order) as each fuel's records text, newest first. */
export function sealedText(rows: readonly CityDayRow[], state: StateId, format: (meanTenths: number) => string): Map<FuelId, RecordsText> {
  const out = new Map<FuelId, RecordsText>();
  const heads: DayHeads = new Map();
  for (const [fuel, days] of sealedByFuel(rows)) out.set(fuel, recordsText(days, state, format, heads));
  return out;
}

/**
 * The whole answer: { data: { id, name, history: [{ fuel, records }] } }, every fuel in the
 * spec's order, its records the live days (newest first) and then each sealed piece in turn
 * (pieces newest first); `false` for a fuel with none. As the pieces that make it up, in order:
 * held blocks are among them as they are, not copied (http/body.ts sends them).
 */
export function historyPieces(
  id: string, name: string, live: FuelSeries, sealed: ReadonlyArray<ReadonlyMap<FuelId, RecordsText>>,
  state: StateId, format: (meanTenths: number) => string,
): Buffer[] {
  const out: Buffer[] = [Buffer.from(`{"data":{"id":${JSON.stringify(id)},"name":${JSON.stringify(name)},"history":[`)];
  const heads: DayHeads = new Map();
  FUELS.forEach((fuel, i) => {
    const parts: Buffer[] = [];
    const liveDays = live.get(fuel);
    if (liveDays && liveDays.length > 0) parts.push(recordsText(liveDays, state, format, heads));
    for (const piece of sealed) {
      const text = piece.get(fuel);
      if (text && text.length > 0) parts.push(text);
    }
    out.push(Buffer.from(`${i === 0 ? '' : ','}{"fuel":"${fuel}","records":${parts.length === 0 ? 'false}' : '['}`));
    if (parts.length === 0) return;
    parts.forEach((part, j) => { if (j > 0) out.push(COMMA); out.push(part); });
    out.push(CLOSE_RECORDS);
  });
  out.push(CLOSE_ANSWER);
  return out;
}

const COMMA = Buffer.from(',');
const CLOSE_RECORDS = Buffer.from(']}');
const CLOSE_ANSWER = Buffer.from(']}}');
