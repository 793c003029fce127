import { type Config, clockFor } from '../config.ts';
import { type BacktestResult, backtest } from '../domain/backtest.ts';
import { FRESH_DAYS, cycleSeries, freshDailyMeans } from '../domain/fresh.ts';
import { fillUpAdvice } from '../domain/advice.ts';
import { isFuelId } from '../domain/fuels.ts';
import { PUBLISHES_TOMORROW } from '../domain/states.ts';
import { cityHistory } from '../domain/history.ts';
import { type LocalDay, localDayOf } from '../domain/time.ts';
import { UsageError, intOption, parseCommand } from './args.ts';
import { CommandError } from './errors.ts';
import { openDatabase } from './database.ts';
import { COMMANDS } from './spec.ts';

/** A YYYY-MM-DD date as a local day number (days since 1970-01-01). */
function dayOption(value: string | undefined, name: string): LocalDay | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const day = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) / 86_400_000 : NaN;
  if (!m || !Number.isInteger(day) || new Date(day * 86_400_000).toISOString().slice(0, 10) !== value) {
    throw new UsageError(`--${name} must be a date YYYY-MM-DD, got '${value.slice(0, 20)}'`);
  }
  return day;
}

const isoDay = (day: LocalDay): string => new Date(day * 86_400_000).toISOString().slice(0, 10);
const cents = (tenths: number): string => (tenths / 10).toFixed(2);

const percent = (share: number | null): string => (share === null ? '-' : `${Math.round(share * 100)}%`);

/** The advice's spread over the start days replayed: its saving and its share of each start's own oracle, least to most. */
export function startDaysLine(result: BacktestResult): string {
  const advice = result.starts.map((s) => s.rules.find((r) => r.rule === 'advice')).filter((r) => r !== undefined);
  const savings = advice.map((r) => r.savingTenths);
  const shares = advice.flatMap((r) => (r.shareOfOracle === null ? [] : [r.shareOfOracle]));
  const first = result.starts[0]?.first ?? 0;
  const last = result.starts[result.starts.length - 1]?.first ?? 0;
  const range = (values: number[], show: (v: number) => string): string => (values.length === 0 ? '-' : `${show(Math.min(...values))} to ${show(Math.max(...values))}`);
  return `by start day (first due ${isoDay(first)} to ${isoDay(last)}): the advice saved ${range(savings, cents)} c/L, `
    + `${range(shares, (v) => percent(v))} of that start's oracle`;
}

/** The result as the command prints it: one line of what was replayed, a row per rule, and with several start days their spread. */
export function backtestTable(head: string, result: BacktestResult): string {
  const lines = [head, `${'rule'.padEnd(18)}${'paid c/L'.padStart(10)}${'saved c/L'.padStart(11)}${'of oracle'.padStart(11)}`];
  for (const r of result.rules) {
    lines.push(`${r.rule.padEnd(18)}${cents(r.meanPaidTenths).padStart(10)}${cents(r.savingTenths).padStart(11)}${percent(r.shareOfOracle).padStart(11)}`);
  }
  if (result.starts.length > 1) lines.push(startDaysLine(result));
  return `${lines.join('\n')}\n`;
}

export async function backtestCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(COMMANDS.backtest, args);
  const cityId = values.city ?? '';
  const fuel = values.fuel ?? 'ulp91';
  if (!isFuelId(fuel)) throw new UsageError(`--fuel must be a fuel id such as ulp91, got '${fuel.slice(0, 20)}'`);
  const every = intOption(values.every, 'every', 1, 60, 7);
  const delay = intOption(values.delay, 'delay', 0, 30, 3);
  const startDays = values['start-day'] ?? 'all';
  if (startDays !== 'all' && startDays !== 'first') throw new UsageError(`--start-day must be all or first, got '${startDays.slice(0, 20)}'`);
  const learnWeeks = 8;
  const now = clockFor(config).now();
  const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL' });
  try {
    const city = await store.city(cityId);
    if (!city) throw new CommandError(`no city '${cityId.slice(0, 60)}' (ids as /v1/cities lists them)`, 2);
    const today = localDayOf(city.state, now);
    const range = { from: null, to: today - 1 };
    const series = (cityHistory(city.state, await store.cityHistoryParts(city.id, range, now), range, now).get(fuel) ?? []).filter((d) => d.day < today);
    const first = series.reduce((a, d) => Math.min(a, d.day), Infinity);
    if (first === Infinity) throw new CommandError(`${city.id} has no ${fuel} history to replay`, 1);
    const from = dayOption(values.from, 'from') ?? first + 7 * learnWeeks;
    const to = dayOption(values.to, 'to') ?? today - 1 - delay;
    if (from > to) throw new UsageError(`nothing to replay: from ${isoDay(from)} is after to ${isoDay(to)} (the history runs from ${isoDay(first)} to ${isoDay(today - 1)})`);
    const publishesTomorrow = PUBLISHES_TOMORROW.has(city.state) && values['without-tomorrow'] !== true;
    // The advice reads the fresh series, as /v1/cities/{id}/cycle does; purchases are paid at the history's means.
    const parts = await store.cityFreshParts(city.id, fuel, first, today - 1);
    const adviceSeries = cycleSeries(freshDailyMeans(parts, FRESH_DAYS[city.state], first, today - 1), series, parts.sealedBefore);
    const result = backtest(series, (known) => fillUpAdvice(known).advice, { from, to, startDays, every, delay, learnWeeks, publishesTomorrow, adviceSeries });
    const starts = result.starts.length;
    const due = startDays === 'first' || starts === 1
      ? `purchases due every ${every} days from ${isoDay(from)} to ${isoDay(to)}`
      : `purchases due every ${every} days, a driver starting on each of the ${starts} days from ${isoDay(from)} (one due on every day from ${isoDay(from)} to ${isoDay(to)})`;
    const head = `${city.id} ${fuel}, ${due}, up to ${delay} days late: `
      + `${result.purchases} purchases (${result.skipped} windows without data left out); `
      + `the advice ${publishesTomorrow ? 'knows tomorrow\'s published prices' : 'knows the days before only'}; savings against buying on the due day`;
    process.stdout.write(backtestTable(head, result));
    return 0;
  } finally {
    await store.close();
  }
}
