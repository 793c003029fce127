import { FUELS, type FuelId } from './fuels.ts';
import { type DailyMean, type FuelSeries, sealedByFuel } from './history.ts';
import type { CityDayRow } from './price-rows.ts';
import type { StateId } from './states.ts';
import { type LocalDay, dayStart, formatLocalDay } from './time.ts';

/**
 * A long city history as JSON put together from pieces, for the sealed part of a history is the
 * same from one request to the next: kept formatted per block of days (derived/history-blocks.ts),
 * its bytes go into the answer as they are rather than read, built and serialised again. The
 * answer is byte for byte what the route's schema serialiser makes of historyEntries
 * (test/http/cache/history-blocks.test.ts). Station history is written by historyPieces too, with no
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
 * Per day, the start of its record (`{"timestamp":...,"date":"...","average":`, ASCII), the same
 * for every fuel: worked out once per answer or block rather than once per fuel.
 */
export type DayHeads = Map<LocalDay, string>;

/**
 * Records of daily means (newest first) as HistoryRecordSchema serialises them: a change to that
 * schema changes this too. Written straight into one buffer (ten years of a station are 30,000
 * records): each record's head copied from `heads`, its average as JSON.stringify would write it.
 */
export function recordsText(
  days: readonly DailyMean[], state: StateId, format: (meanTenths: number) => string, heads: DayHeads = new Map(),
): RecordsText {
  const averages = new Array<string>(days.length);
  const starts = new Array<string>(days.length);
  let size = days.length === 0 ? 0 : days.length - 1; // the commas
  let plain = true;
  for (let i = 0; i < days.length; i++) {
    const d = days[i] as DailyMean;
    let head = heads.get(d.day);
    if (head === undefined) heads.set(d.day, (head = `{"timestamp":${dayStart(state, d.day)},"date":"${formatLocalDay(d.day)}","average":`));
    const average = format(d.meanTenths);
    plain &&= plainAscii(average);
    averages[i] = average;
    starts[i] = head;
    size += head.length + average.length + 3; // "average"}
  }
  // Anything but plain ASCII averages (a format this file does not expect): as JSON.stringify writes it.
  if (!plain) return Buffer.from(days.map((_, i) => `${starts[i] as string}${JSON.stringify(averages[i])}}`).join(','));
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < days.length; i++) {
    if (i > 0) out[at++] = 0x2c; // ,
    at += out.write(starts[i] as string, at, 'latin1');
    const average = averages[i] as string;
    out[at++] = 0x22; // "
    for (let c = 0; c < average.length; c++) out[at++] = average.charCodeAt(c);
    out[at++] = 0x22;
    out[at++] = 0x7d; // }
  }
  return out;
}

/** Printable ASCII with nothing JSON escapes (no quote, no backslash): JSON writes it between quotes as it is. */
export function plainAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
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
 * held blocks are among them as they are, not copied (http/representation/pieced-body.ts sends them).
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
