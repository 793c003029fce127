/**
 * The rule for tomorrow's published prices, checked on data it was not built on (docs/BACKTEST.md,
 * "Against the issue's bar"): the advice's tomorrow rule was made on WA's days (April–May 2026, and its weekly
 * hold on June–August), the only ones where tomorrow is published. Here every QLD city of scripts/advice-backtest.sh is replayed
 * *as if* QLD published tomorrow's prices (the advisor is told the next day's mean, as in WA), on
 * both periods, beside WA's own cities; and so is a variant tried for Perth's 19 April 2026 window:
 *
 *   pace: when tomorrow is dearer by less than prices fell a day over the last week (today's mean
 *   against the same weekday's a week before, over 7), wait: the day after is expected below today.
 *
 * The variant lives here only; the advice does not use it (it lost on the QLD check). Prints, per city
 * and period, the advice's saving (c/L a fill against the due day, share of the oracle) and the variant's.
 * Reads the databases scripts/advice-backtest.sh leaves in WORKDIR. START_DAYS as `fuelprice backtest
 * --start-day`: `all` (default) pools a driver starting on each of the 7 days; `first` starts on the period's first day only.
 *
 *   npx tsx scripts/advice-tomorrow-check.ts [WORKDIR] [all|first]   (default /tmp/fuelprice-advice all)
 */
import { join } from 'node:path';
import { type AdviceInput, fillUpAdvice } from '../src/domain/advice.ts';
import { type Advisor, type BacktestResult, type StartDays, backtest } from '../src/domain/backtest.ts';
import { FRESH_DAYS, cycleSeries, freshDailyMeans } from '../src/domain/fresh.ts';
import { type DailyMean, cityHistory } from '../src/domain/history.ts';
import { type LocalDay, localDayFromYmd, localDayOf } from '../src/domain/time.ts';
import { openStore } from '../src/storage/open.ts';

const work = process.argv[2] ?? '/tmp/fuelprice-advice';
const startArg = process.argv[3] ?? 'all';
if (startArg !== 'all' && startArg !== 'first') throw new Error(`start days: all or first, got ${startArg}`);
const startDays: StartDays = startArg;

/** The variant: tomorrow dearer, but by less than the week's fall a day: wait. Otherwise the advice. */
const pace: Advisor = (known: AdviceInput) => {
  const weekAgo = known.days.find((d) => d.day === known.today - 7)?.meanTenths;
  const change = known.tomorrowChange;
  if (change !== undefined && change > 0 && known.now !== undefined && weekAgo !== undefined && change < -(known.now - weekAgo) / 7) return 'wait';
  return fillUpAdvice(known).advice;
};
const advice: Advisor = (known) => fillUpAdvice(known).advice;

async function series(db: string, cityId: string, now: number): Promise<{ paid: DailyMean[]; read: DailyMean[]; today: LocalDay }> {
  const store = await openStore(`sqlite:${join(work, db)}`);
  try {
    const city = await store.city(cityId);
    if (!city) throw new Error(`no city ${cityId} in ${db}`);
    const today = localDayOf(city.state, now);
    const range = { from: null, to: today - 1 };
    const paid = (cityHistory(city.state, await store.cityHistoryParts(city.id, range, now), range, now).get('ulp91') ?? []).filter((d) => d.day < today);
    const first = paid.reduce((a, d) => Math.min(a, d.day), Infinity);
    const parts = await store.cityFreshParts(city.id, 'ulp91', first, today - 1);
    return { paid, read: cycleSeries(freshDailyMeans(parts, FRESH_DAYS[city.state], first, today - 1), paid, parts.sealedBefore), today };
  } finally {
    await store.close();
  }
}

const share = (r: BacktestResult): string => {
  const a = r.rules.find((x) => x.rule === 'advice');
  const o = r.rules.find((x) => x.rule === 'oracle');
  return `${((a?.savingTenths ?? 0) / 10).toFixed(2).padStart(6)} ${a?.shareOfOracle == null ? '   -' : `${Math.round(a.shareOfOracle * 100)}%`.padStart(4)}  of ${((o?.savingTenths ?? 0) / 10).toFixed(2)}`;
};

const runs: Array<[string, string, number, Array<[string, LocalDay, LocalDay | null]>]> = [];
const qldNow = Date.parse('2022-11-07T12:00:00+10:00') / 1000;
for (const city of ['brisbane', 'gold-coast', 'toowoomba', 'townsville', 'cairns', 'rockhampton', 'mackay', 'bundaberg', 'gympie', 'warwick', 'dalby']) {
  runs.push([city, 'qld.db', qldNow, [['tune', localDayFromYmd(2021, 9, 7), localDayFromYmd(2022, 3, 31)], ['held', localDayFromYmd(2022, 4, 1), localDayFromYmd(2022, 11, 3)]]]);
}
const waNow = Date.parse('2026-06-01T12:00:00+08:00') / 1000;
for (const city of ['perth', 'mandurah', 'bunbury', 'geraldton', 'albany', 'kalgoorlie']) runs.push([city, 'wa.db', waNow, [['with tomorrow', localDayFromYmd(2026, 4, 12), null]]]);

console.log(`start days: ${startDays === 'all' ? 'each of the 7 from the period\'s first, pooled' : 'the period\'s first only'}`);
console.log(`${'city ulp91, period (tomorrow known)'.padEnd(36)} ${'advice'.padStart(22)}   ${'variant "pace"'.padStart(22)}`);
let sum = 0;
let worse = 0;
let better = 0;
for (const [city, db, now, periods] of runs) {
  const s = await series(db, city, now);
  for (const [label, from, to] of periods) {
    const options = { from, to: to ?? s.today - 1 - 3, startDays, every: 7, delay: 3, learnWeeks: 8, publishesTomorrow: true, adviceSeries: s.read };
    const a = backtest(s.paid, advice, options);
    const v = backtest(s.paid, pace, options);
    const gain = (v.rules.find((x) => x.rule === 'advice')?.savingTenths ?? 0) - (a.rules.find((x) => x.rule === 'advice')?.savingTenths ?? 0);
    if (db === 'qld.db') { sum += gain; if (gain < -1e-9) worse++; if (gain > 1e-9) better++; }
    console.log(`${`${city}, ${label}`.padEnd(36)} ${share(a).padStart(22)}   ${share(v).padStart(22)}`);
  }
}
console.log(`QLD rows: the variant worse in ${worse}, better in ${better}; its saving less the advice's, summed: ${(sum / 10).toFixed(2)} c/L a fill`);
