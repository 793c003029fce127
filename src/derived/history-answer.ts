/**
 * The history answers as derived answers (docs/DERIVED.md): a city's or a station's history of a
 * timeframe, as the bytes the route sends (JSON, HistoryResponse's shape byte for byte, or CSV),
 * with the SHA-256 of those bytes for the ETag. Reading ten years of days (synchronous on SQLite),
 * pooling them and writing 30,000 to 60,000 records held the serving thread 21 to 97 ms after a
 * write at au-10y; on the worker, the serving thread only sends the bytes.
 *
 * The city's sealed blocks are held formatted in the thread that computes (one HistoryBlocks per
 * thread: the worker's, or the serving thread's for sqlite::memory:), read again only when their
 * change mark moved, as the route did before (test/http/cache/history-blocks.test.ts).
 */
import { historyEntries } from '../domain/api-entries.ts';
import { HISTORY_COLUMNS, csvText, historyRows } from '../domain/csv-text.ts';
import type { FuelSeries } from '../domain/history.ts';
import { cityHistory, stationHistory } from '../domain/history.ts';
import { historyPieces } from '../domain/history-json.ts';
import { formatCents, formatDollars } from '../domain/rounding.ts';
import type { StateId } from '../domain/states.ts';
import { type Timeframe, localDayOf, timeframeWindow } from '../domain/time.ts';
import type { ReadStore } from '../storage/store.ts';
import { type AnswerBytes, answerOf } from './answer-bytes.ts';
import { HistoryBlocks } from './history-blocks.ts';

/** What a history answer is of: a city or a station (what its route found, so a 404 stays in the route). */
export interface HistoryOf {
  id: string;
  name: string;
  state: StateId;
}

export interface HistoryArgs {
  of: HistoryOf;
  timeframe: Timeframe;
  format: 'json' | 'csv';
}

/** Sealed city history held formatted, in this thread. */
const blocks = new HistoryBlocks();

function csvOf(series: FuelSeries, state: StateId, format: (meanTenths: number) => string): AnswerBytes {
  return answerOf(Buffer.from(csvText(HISTORY_COLUMNS, historyRows(historyEntries(series, state, format)))));
}

/** GET /v1/cities/{id}/history's answer. */
export async function cityHistoryAnswer(store: ReadStore, { of: city, timeframe, format }: HistoryArgs, nowSec: number): Promise<AnswerBytes> {
  const range = timeframeWindow(timeframe, localDayOf(city.state, nowSec));
  if (format === 'csv') {
    // The whole series read at once, as the cycle reads it: the held blocks are JSON text.
    return csvOf(cityHistory(city.state, await store.cityHistoryParts(city.id, range, nowSec), range, nowSec), city.state, formatDollars);
  }
  // Sealed blocks held formatted go into the answer as they are, not read again (history-blocks.ts).
  const held = blocks.held(city.id);
  const parts = await store.cityHistoryParts(city.id, range, nowSec, new Map([...held].map(([block, h]) => [block, h.mark])));
  const live = cityHistory(city.state, { ...parts, sealed: [] }, range, nowSec);
  const sealed = blocks.sealedPieces(city.id, city.state, held, parts, formatDollars);
  return answerOf(Buffer.concat(historyPieces(city.id, city.name, live, sealed, city.state, formatDollars)));
}

/** GET /v1/stations/{id}/history's answer. */
export async function stationHistoryAnswer(store: ReadStore, { of: station, timeframe, format }: HistoryArgs, nowSec: number): Promise<AnswerBytes> {
  const range = timeframeWindow(timeframe, localDayOf(station.state, nowSec));
  const [rows, current] = await Promise.all([store.stationDays(station.id, range), store.currentForStation(station.id)]);
  const series = stationHistory(station.state, rows, current, range, nowSec);
  if (format === 'csv') return csvOf(series, station.state, formatCents);
  return answerOf(Buffer.concat(historyPieces(station.id, station.name, series, [], station.state, formatCents)));
}
