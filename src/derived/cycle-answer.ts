/**
 * The cycle answer of one city and fuel at one instant (GET /v1/cities/{id}/cycle's `data`):
 * every read and every domain step, in one function, so that the derived-answers worker
 * (derived-worker.ts) runs all of it off the event loop. The domain functions are used as they
 * are; what they compute is documented in domain/cycle.ts, advice.ts and fresh.ts. A value derived
 * per city and fuel that should ride with the cycle (a track record, a forecast) is added here.
 * The derived answer is its route's whole 200 as bytes (cycleAnswerBytes), written here with the
 * serialiser Fastify compiles from the same schema, so the serving thread keeps and sends one buffer.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { Static } from '@sinclair/typebox';
import { fillUpAdvice } from '../domain/advice.ts';
import type { Restoration } from '../domain/cycle.ts';
import { FRESH_DAYS, cycleSeries, freshCurrent, freshDailyMeans } from '../domain/fresh.ts';
import type { FuelId } from '../domain/fuels.ts';
import { cityHistory } from '../domain/history.ts';
import { formatCents } from '../domain/rounding.ts';
import { PUBLISHES_TOMORROW } from '../domain/states.ts';
import { formatLocalDay, localDayOf } from '../domain/time.ts';
import { cityAverages, fuelTotals } from '../domain/today.ts';
import { pairedTomorrow } from '../domain/tomorrow.ts';
import { TRACK_DAYS, trackRecord } from '../domain/track-record.ts';
import { CycleResponse, WEEKDAY_NAMES } from '../schemas/cycle.ts';
import type { ReadModels } from '../read-models/read-models.ts';
import type { City } from '../storage/store.ts';
import { type AnswerBytes, answerOf } from './answer-bytes.ts';

export type CycleData = Static<typeof CycleResponse>['data'];

/** Tenths as signed cents, +d.d or -d.d, and 0.0 for what rounds to nothing. */
function signedCents(tenths: number): string {
  const text = formatCents(Math.abs(tenths));
  return text === '0.0' ? text : `${tenths < 0 ? '-' : '+'}${text}`;
}

export async function cycleAnswer(models: ReadModels, city: City, fuel: FuelId, now: number): Promise<CycleData> {
  const store = models.store;
  const today = localDayOf(city.state, now);
  // The history's own path: a year of daily city means, one day more for the first day-on-day change, and the
  // track record's 90 days before that (each of its days is advised on the year before it).
  const range = { from: today - 365 - TRACK_DAYS, to: today };
  const series = cityHistory(city.state, await store.cityHistoryParts(city.id, range, now), range, now);
  // Every station's current price (tomorrow is compared with it station by station); the city's mean now is their
  // totals' (fuelTotals works out from them what storage keeps as citySums), so it is not read a second time.
  // The cycle reads fresh prices only (domain/fresh.ts): a station's price stops counting some days after its report.
  const [prices, held, fresh] = await Promise.all([store.currentForCity(city.id), models.heldForCity(city.id), store.cityFreshParts(city.id, fuel, range.from, range.to)]);
  const current = cityAverages(fuelTotals(freshCurrent(city.state, prices, now))).get(fuel);
  const paired = pairedTomorrow(prices, held, fuel);
  const days = cycleSeries(freshDailyMeans(fresh, FRESH_DAYS[city.state], range.from, range.to), series.get(fuel) ?? [], fresh.sealedBefore);
  const { cycle, state, history, advice, signal, reason, confidence, horizon, expectedSavingTenths } = fillUpAdvice({
    days, today, now: current, tomorrowChange: paired && paired.tomorrowTenths - paired.nowTenths,
  });
  const track = trackRecord(days, today, PUBLISHES_TOMORROW.has(city.state));
  const last = cycle.lastRestoration;
  const restoration = (r: Restoration) => ({ date: formatLocalDay(r.day), rise: formatCents(r.riseTenths) });
  return {
    id: city.id, name: city.name, fuel, cycles: cycle.cycles, period_days: cycle.periodDays ?? false as const,
    last_restoration: last ? restoration(last) : false as const, restorations: cycle.restorations.map(restoration),
    days_since_restoration: cycle.daysSinceRestoration ?? false as const, phase: cycle.phase,
    cheapest_weekday: cycle.cheapestWeekday === null ? false as const : WEEKDAY_NAMES[cycle.cheapestWeekday] ?? false as const,
    now: current === undefined ? false as const : formatCents(current),
    tomorrow: paired ? { change: signedCents(paired.tomorrowTenths - paired.nowTenths), stations: paired.count } : false as const,
    state, history, advice, signal, reason,
    horizon: { wait_days: horizon.waitDays, next_rise: horizon.nextRise === null ? false as const : formatLocalDay(horizon.nextRise) },
    expected_saving: expectedSavingTenths === null ? false as const : formatCents(expectedSavingTenths),
    track_record: track ? {
      days: track.days, windows: track.windows, advice: signedCents(track.adviceTenths),
      best_rule: { rule: track.bestRule.rule, saved: signedCents(track.bestRule.savedTenths) }, oracle: formatCents(track.oracleTenths),
    } : false as const,
    confidence,
  };
}

/** The route's 200 body serialised as Fastify would (the same compiler and schema: test/derived/derived-answers.test.ts compares them). */
let serialise: ((value: unknown) => string) | undefined;

/** GET /v1/cities/{id}/cycle's answer as the bytes the route sends, with their digest for the ETag. */
export async function cycleAnswerBytes(models: ReadModels, city: City, fuel: FuelId, now: number): Promise<AnswerBytes> {
  serialise ??= SerializerSelector()({}, {})({ schema: CycleResponse, method: 'GET', url: '/v1/cities/:id/cycle', httpStatus: '200' }) as (value: unknown) => string;
  return answerOf(Buffer.from(serialise({ data: await cycleAnswer(models, city, fuel, now) })));
}
