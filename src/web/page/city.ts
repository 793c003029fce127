/** The city's panels: its price cycle, the chart of its daily average, today's spread and the stations out of stock. */
import type uPlot from 'uplot';
import { ApiProblem, type CityHistory, type Cycle, type FuelType, type Spread, type Unavailable, apiGet } from './api.ts';
import { drawChart, seriesOf } from './chart.ts';
import { addDays, apiDate, centsOf, dollarUnit } from './format.ts';
import { type Query, cell, empty, ui } from './ui.ts';

/** When the next restoration is due: the last one plus the cycle's period (with a cycle), and the days from today to it. */
function nextRestoration(cycle: Cycle['data']): { date: string; inDays: number } | undefined {
  if (!cycle.cycles || cycle.period_days === false || cycle.last_restoration === false || cycle.days_since_restoration === false) return undefined;
  const date = addDays(cycle.last_restoration.date, cycle.period_days);
  return date === undefined ? undefined : { date, inDays: cycle.period_days - cycle.days_since_restoration };
}

export function renderCycle(q: Query, cycle: Cycle['data']): void {
  const lines: Array<[string, string]> = [];
  lines.push(['Cycle', cycle.cycles && cycle.period_days !== false ? `every ${cycle.period_days} days`
    : cycle.state === 'insufficient-history' ? 'not known yet: too little history' : 'none in the last year']);
  // Restorations are a cycle's: without one, a lone rise is not called a restoration.
  if (cycle.cycles) {
    lines.push(['Last restoration', cycle.last_restoration === false
      ? 'none in the last year'
      : `${cycle.last_restoration.date} (+${cycle.last_restoration.rise} ${q.fuel.unit}), ${cycle.days_since_restoration === false ? '' : `${cycle.days_since_restoration} days ago`}`]);
  }
  const next = nextRestoration(cycle);
  if (next) {
    const left = next.inDays;
    lines.push(['Next restoration', `due ${next.date} (${left > 1 ? `in ${left} days` : left === 1 ? 'tomorrow' : left === 0 ? 'today' : `${-left} day${left === -1 ? '' : 's'} overdue`})`]);
  }
  lines.push(['Phase now', cycle.phase]);
  if (cycle.cheapest_weekday !== false) lines.push(['Cheapest day', `${cycle.cheapest_weekday[0]?.toUpperCase() ?? ''}${cycle.cheapest_weekday.slice(1)}s, over the last 8 weeks`]);
  if (cycle.now !== false) lines.push(['Average now', `${cycle.now} ${q.fuel.unit}`]);
  if (cycle.tomorrow !== false) {
    const n = cycle.tomorrow.stations;
    lines.push(['Tomorrow (published)', `${cycle.tomorrow.change} ${q.fuel.unit} against today, at the ${n === 1 ? 'station' : `${n} stations`} that published`]);
  }
  const list = document.createElement('dl');
  for (const [term, value] of lines) {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    if (term === 'Phase now') dd.className = 'phase';
    list.append(dt, dd);
  }
  ui.cycle.replaceChildren(list);
  ui.cycle.dataset.phase = cycle.phase;
  ui.cycle.setAttribute('aria-label', `Price cycle of ${q.fuel.name} in ${q.city.name}`);
}

/**
 * The chart, with the cycle's restorations on the days it shows marked: only with a cycle, and
 * only where the line does rise that day (a flat line is never labelled a restoration).
 */
export function renderChart(q: Query, history: CityHistory['data'], cycle: Cycle['data'], timeZone: string, previous: uPlot | undefined): uPlot | undefined {
  ui.chartTitle.textContent = `Daily average of ${q.fuel.name} in ${history.name}, ${q.timeframeText.toLowerCase()}`;
  const records = history.history.find((h) => h.fuel === q.fuel.id)?.records;
  previous?.destroy();
  if (!records || records.length === 0) {
    ui.chart.dataset.points = '0';
    ui.chart.dataset.restorations = '0';
    ui.chart.hidden = true;
    empty(ui.chartEmpty, `No daily averages of ${q.fuel.name} in ${history.name} over ${q.timeframeText.toLowerCase()}.`);
    return undefined;
  }
  const data = seriesOf(records);
  const dayStarts = new Map(records.map((r) => [r.date, r.timestamp]));
  const rises = new Set(data[0].filter((_, i) => i > 0 && (data[1][i] ?? 0) > (data[1][i - 1] ?? 0)));
  const restorationsAt = cycle.cycles ? cycle.restorations.flatMap((r) => dayStarts.get(r.date) ?? []).filter((at) => rises.has(at)) : [];
  const restoration = cycle.last_restoration === false ? undefined : cycle.last_restoration;
  const restorationAt = restoration && dayStarts.get(restoration.date);
  const dayOf = restoration && apiDate(restoration.date);
  const dueAt = cycle.cycles && cycle.period_days !== false && dayOf ? (restorationAt ?? dayOf.getTime() / 1000) + cycle.period_days * 86_400 : undefined;
  // Marked when it falls in the days shown or within one period after the last of them (the axis then reaches it).
  const lastDay = data[0][data[0].length - 1] ?? 0;
  const nextDueAt = dueAt !== undefined && cycle.period_days !== false && dueAt >= (data[0][0] ?? 0) && dueAt <= lastDay + cycle.period_days * 86_400 ? dueAt : undefined;
  ui.chart.hidden = false;
  empty(ui.chartEmpty, undefined);
  ui.chart.dataset.points = String(data[0].length);
  ui.chart.dataset.restorations = String(restorationsAt.length);
  if (nextDueAt === undefined) delete ui.chart.dataset.nextDue;
  else ui.chart.dataset.nextDue = String(nextDueAt);
  return drawChart(ui.chart, data, q.fuel.name, dollarUnit(q.fuel.unit), { restorationsAt, nextDueAt }, timeZone);
}

export function renderSpread(q: Query, spread: Spread['data'], fuels: readonly FuelType[]): void {
  ui.spreadTitle.textContent = `Today's spread in ${spread.name}`;
  const rows = spread.spread.filter((s) => s.average !== false || s.min !== false).map((s) => {
    const tr = document.createElement('tr');
    tr.dataset.fuel = s.fuel;
    if (s.fuel === q.fuel.id) tr.className = 'current';
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = fuels.find((f) => f.id === s.fuel)?.name ?? s.fuel;
    // One unit a row, the fuel's own (c/L, c/kWh for EV, c/kg for CNG and LNG): the API's average (dollars) in cents like min and max.
    const unit = fuels.find((f) => f.id === s.fuel)?.unit ?? 'c/L';
    tr.append(th, cell(s.min === false ? '–' : s.min, 'num'), cell(s.average === false ? '–' : centsOf(s.average), 'num'), cell(s.max === false ? '–' : s.max, 'num'), cell(unit, 'unit'));
    return tr;
  });
  ui.spread.tBodies[0]?.replaceChildren(...rows);
  ui.spread.hidden = rows.length === 0;
  empty(ui.spreadEmpty, rows.length === 0 ? `No prices in ${spread.name} today.` : undefined);
}

/** How many out-of-stock stations a fuel lists by name; the rest are counted ("and 12 more"). */
export const OUTAGE_NAMES = 25;
/** Waits before each new try of a name that failed (a 503 while the server sheds load, a dropped connection). */
const NAME_RETRIES_MS = [400, 1_500];

/** Station names by id, as /v1/stations/{id} answered them (kept for the page's life). */
const stationNames = new Map<string, string>();

/**
 * Loads the names of these stations, each tried again (twice) when its answer fails; a refused
 * token or the rate limit stops the whole query. Returns the ids whose names could still not be had.
 */
export async function loadStationNames(ids: readonly string[], token: string, signal: AbortSignal): Promise<Set<string>> {
  const missing = new Set<string>();
  const wanted = [...new Set(ids)].filter((id) => !stationNames.has(id));
  await Promise.all(wanted.map(async (id) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await apiGet<{ data: { name: string } }>(`/v1/stations/${encodeURIComponent(id)}`, token, signal);
        stationNames.set(id, answer.data.name);
        return;
      } catch (error) {
        if (signal.aborted || (error instanceof ApiProblem && error.kind !== 'failed')) throw error;
        const wait = NAME_RETRIES_MS[attempt];
        if (wait === undefined) { missing.add(id); return; }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }));
  return missing;
}

export function outageStations(unavailable: Unavailable['data']): string[] {
  return unavailable.unavailable.flatMap((u) => (u.stations || []).slice(0, OUTAGE_NAMES));
}

/** The stations out of stock, by name; a station whose name could not be loaded is counted as such, never shown as its id. */
export function renderOutages(unavailable: Unavailable['data'], fuels: readonly FuelType[]): void {
  ui.outagesTitle.textContent = `Out of stock now in ${unavailable.name}`;
  let unnamedTotal = 0;
  const items = unavailable.unavailable.filter((u) => u.stations !== false && u.stations.length > 0).map((u) => {
    const stations = u.stations || [];
    const li = document.createElement('li');
    li.dataset.fuel = u.fuel;
    li.dataset.stations = stations.join(' ');
    const name = document.createElement('strong');
    name.textContent = fuels.find((f) => f.id === u.fuel)?.name ?? u.fuel;
    const names = document.createElement('span');
    names.className = 'stations';
    const listed = stations.slice(0, OUTAGE_NAMES);
    const shown = listed.flatMap((id) => stationNames.get(id) ?? []);
    const unnamed = listed.length - shown.length;
    unnamedTotal += unnamed;
    const parts = [...shown];
    if (unnamed > 0) parts.push(`${unnamed} station${unnamed === 1 ? '' : 's'} whose name${unnamed === 1 ? '' : 's'} could not be loaded`);
    names.textContent = parts.join(', ') + (stations.length > listed.length ? ` and ${stations.length - listed.length} more` : '');
    li.append(name, ` (${u.count}): `, names);
    return li;
  });
  ui.outages.replaceChildren(...items);
  ui.outages.hidden = items.length === 0;
  ui.outages.dataset.unnamed = String(unnamedTotal);
  empty(ui.outagesEmpty, items.length === 0
    ? `Every station in ${unavailable.name} has every fuel it sells.`
    : unnamedTotal > 0 ? 'Some station names could not be loaded: the server did not answer for them. Show prices again to retry.' : undefined);
}
