/**
 * The dashboard page: asks for a token once (kept in sessionStorage, or localStorage when the
 * user ticks "remember"), then shows for a city or a location and a fuel: the cheapest stations
 * nearby, a plot of them by position, the city's daily average with its price cycle, today's
 * spread and the stations out of stock. Every number comes from this server's /v1 API.
 */
import 'uplot/dist/uPlot.min.css';
import './dashboard.css';
import type uPlot from 'uplot';
import {
  ApiProblem, type Cheapest, type City, type CityHistory, type Cycle, type FuelType, type Spread, type Unavailable, allPages, apiGet,
} from './api.ts';
import { STATE_TIME_ZONES, type StateId } from '../../domain/states.ts';
import { drawChart, seriesOf } from './chart.ts';
import { type Point, addDays, adviceText, ageText, apiDate, centsOf, dollarUnit, nearest, parseLocation, priceColour, retryText } from './format.ts';
import { drawScatter } from './scatter.ts';

const TOKEN_KEY = 'fuelprice-token';
/** Rows shown in the cheapest list; the plot shows every station found (up to the API's page of 100). */
const LIST_ROWS = 10;

function element<T extends Element = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as unknown as T;
}

const ui = {
  status: element('status'), statusText: element('status-text'), retry: element<HTMLButtonElement>('retry'), forget: element<HTMLButtonElement>('forget'),
  tokenPanel: element('token-panel'), tokenForm: element<HTMLFormElement>('token-form'), token: element<HTMLInputElement>('token'), remember: element<HTMLInputElement>('remember'),
  queryPanel: element('query-panel'), queryForm: element<HTMLFormElement>('query-form'), city: element<HTMLSelectElement>('city'), noData: element('no-data'),
  go: element<HTMLButtonElement>('go'),
  location: element<HTMLInputElement>('location'), locate: element<HTMLButtonElement>('locate'), locationError: element('location-error'),
  fuel: element<HTMLSelectElement>('fuel'), radius: element<HTMLSelectElement>('radius'), timeframe: element<HTMLSelectElement>('timeframe'),
  results: element('results'),
  cheapestTitle: element('cheapest-title'), cheapestWhere: element('cheapest-where'), cheapest: element<HTMLTableElement>('cheapest'), cheapestEmpty: element('cheapest-empty'),
  scatter: element<SVGSVGElement>('scatter'), picked: element('scatter-picked'), legend: element('scatter-legend'), legendMin: element('legend-min'), legendMax: element('legend-max'), mapEmpty: element('map-empty'),
  chartTitle: element('chart-title'), cycle: element('cycle'), chart: element('chart'), chartEmpty: element('chart-empty'),
  spreadTitle: element('spread-title'), spread: element<HTMLTableElement>('spread'), spreadEmpty: element('spread-empty'),
  outagesTitle: element('outages-title'), outages: element('outages'), outagesEmpty: element('outages-empty'),
};

let token = '';
let cities: City[] = [];
let fuels: FuelType[] = [];
let chart: uPlot | undefined;
/** Station names by id, as /v1/stations/{id} answered them (the out-of-stock lists give ids). */
const stationNames = new Map<string, string>();
let lastAction: (() => Promise<void>) | undefined;
let countdown: ReturnType<typeof setInterval> | undefined;

// ---- the token -------------------------------------------------------------------------------

function storedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY) ?? localStorage.getItem(TOKEN_KEY);
}

function keepToken(value: string, remember: boolean): void {
  (remember ? localStorage : sessionStorage).setItem(TOKEN_KEY, value);
  (remember ? sessionStorage : localStorage).removeItem(TOKEN_KEY);
}

function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(TOKEN_KEY);
  token = '';
}

/** A token given in the URL's fragment (`/#token=…`, as `serve --demo` prints it): read, then taken out of the address bar. */
function tokenFromFragment(): string | undefined {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match?.[1]) return undefined;
  history.replaceState(null, '', location.pathname + location.search);
  return decodeURIComponent(match[1]);
}

// ---- states ----------------------------------------------------------------------------------

type StatusKind = 'idle' | 'loading' | 'bad-token' | 'rate-limited' | 'error';

function setStatus(kind: StatusKind, text = '', canRetry = false): void {
  clearInterval(countdown);
  ui.status.dataset.state = kind;
  ui.status.hidden = kind === 'idle';
  ui.statusText.textContent = text;
  ui.retry.hidden = !canRetry;
  ui.retry.disabled = false;
}

function showTokenPanel(): void {
  ui.tokenPanel.hidden = false;
  ui.queryPanel.hidden = true;
  ui.results.hidden = true;
  ui.forget.hidden = true;
}

function failed(error: unknown): void {
  ui.results.removeAttribute('aria-busy');
  if (!(error instanceof ApiProblem)) {
    setStatus('error', `Something went wrong: ${error instanceof Error ? error.message : String(error)}`, true);
    return;
  }
  switch (error.kind) {
    case 'bad-token':
      forgetToken();
      showTokenPanel();
      setStatus('bad-token', `The token was refused (${error.message}) Enter a valid token.`);
      ui.token.value = '';
      ui.token.focus();
      return;
    case 'rate-limited': {
      const until = Date.now() + error.retryAfterSec * 1000;
      const tick = (): void => {
        const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
        ui.statusText.textContent = `Too many requests with this token: its rate limit is reached. ${retryText(left)}`;
        ui.retry.disabled = left > 0;
        if (left === 0) clearInterval(countdown);
      };
      setStatus('rate-limited', '', true);
      ui.status.dataset.retryAfter = String(error.retryAfterSec);
      tick();
      countdown = setInterval(tick, 1000);
      return;
    }
    case 'failed':
      setStatus('error', error.message, true);
      return;
  }
}

/** Runs an action (kept for "Try again"), turning its failure into the matching state. */
function run(action: () => Promise<void>): void {
  lastAction = action;
  action().catch(failed);
}

// ---- connecting ------------------------------------------------------------------------------

function option(value: string, text: string): HTMLOptionElement {
  const item = document.createElement('option');
  item.value = value;
  item.textContent = text;
  return item;
}

async function connect(): Promise<void> {
  setStatus('loading', 'Connecting…');
  const [fuelTypes, cityList] = await Promise.all([apiGet<{ data: FuelType[] }>('/v1/fuel-types', token), allPages<City>('/v1/cities', token)]);
  fuels = fuelTypes.data;
  cities = cityList;
  const previousFuel = ui.fuel.value || 'ulp91';
  ui.fuel.replaceChildren(...fuels.map((f) => option(f.id, f.name)));
  ui.fuel.value = fuels.some((f) => f.id === previousFuel) ? previousFuel : fuels[0]?.id ?? '';
  const previousCity = ui.city.value || 'sydney';
  const states = [...new Set(cities.map((c) => c.state))];
  ui.city.replaceChildren(...states.map((state) => {
    const group = document.createElement('optgroup');
    group.label = state.toUpperCase();
    group.append(...cities.filter((c) => c.state === state).map((c) => option(c.id, c.name)));
    return group;
  }));
  ui.city.value = cities.some((c) => c.id === previousCity) ? previousCity : cities[0]?.id ?? '';
  ui.tokenPanel.hidden = true;
  ui.queryPanel.hidden = false;
  ui.forget.hidden = false;
  setStatus('idle');
  // An empty database (no feed, import or demo has run yet): say so, rather than an empty list and a button that does nothing.
  const noData = cities.length === 0;
  ui.noData.hidden = !noData;
  ui.queryForm.hidden = noData;
  ui.go.disabled = noData;
  if (!noData) ui.city.focus();
}

// ---- the results -----------------------------------------------------------------------------

interface Query { city: City; near: string; centre: Point; where: string; fuel: FuelType; radius: string; timeframe: string; timeframeText: string }

const fuelName = (id: string): string => fuels.find((f) => f.id === id)?.name ?? id;

function cell(text: string, className?: string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function empty(panel: HTMLElement, text: string | undefined): void {
  panel.hidden = text === undefined;
  panel.textContent = text ?? '';
}

/**
 * The cheapest list; with `tomorrow` (the same search's `day=tomorrow` answer, WA after about
 * 14:30) a Tomorrow column beside Price: each listed station's published next price, or a dash.
 */
function renderCheapest(q: Query, items: readonly Cheapest[], total: number, tomorrow: readonly Cheapest[]): void {
  const nowSec = Date.now() / 1000;
  ui.cheapestTitle.textContent = `Cheapest ${q.fuel.name} near ${q.where}`;
  ui.cheapestWhere.textContent = total > 0
    ? `${total} station${total === 1 ? '' : 's'} within ${q.radius} km selling it now; the ${Math.min(LIST_ROWS, items.length)} cheapest, in ${q.fuel.unit}.`
    : '';
  // Every station at the lowest price is the cheapest, marked alike (in the list and in green on the plot).
  const lowest = Math.min(...items.map((item) => Number(item.price)));
  const next = new Map(tomorrow.map((item) => [item.station_id, item.price]));
  const head = ui.cheapest.tHead?.rows[0];
  head?.querySelector('th.tomorrow')?.remove();
  if (next.size > 0) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.className = 'num tomorrow';
    th.textContent = 'Tomorrow';
    th.title = 'Published for tomorrow, in force from 06:00';
    head?.cells[2]?.after(th);
  }
  const rows = items.slice(0, LIST_ROWS).map((item) => {
    const tr = document.createElement('tr');
    tr.dataset.station = item.station_id;
    if (Number(item.price) === lowest) tr.classList.add('cheapest');
    const name = cell(item.name, 'name');
    const price = cell(item.price, 'num price');
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.setAttribute('aria-hidden', 'true');
    const updated = document.createElement('td');
    const time = document.createElement('time');
    time.dateTime = new Date(item.updated_at * 1000).toISOString();
    time.title = new Date(item.updated_at * 1000).toLocaleString();
    time.textContent = ageText(item.updated_at, nowSec);
    updated.className = 'age';
    updated.append(time);
    tr.append(name, cell(item.brand, 'brand'), price);
    if (next.size > 0) tr.append(cell(next.get(item.station_id) ?? '–', 'num tomorrow'));
    tr.append(cell(item.distance_km === undefined ? '' : `${item.distance_km} km`, 'num distance'), updated);
    return tr;
  });
  const body = ui.cheapest.tBodies[0];
  body?.replaceChildren(...rows);
  ui.cheapest.hidden = rows.length === 0;
  empty(ui.cheapestEmpty, rows.length === 0 ? `No station within ${q.radius} km of ${q.where} has ${q.fuel.name} for sale now.` : undefined);

  ui.picked.textContent = '';
  if (items.length === 0) {
    ui.scatter.replaceChildren();
    ui.scatter.setAttribute('data-points', '0');
    ui.legend.hidden = true;
    ui.scatter.classList.add('none');
    empty(ui.mapEmpty, 'No stations to plot.');
    return;
  }
  ui.scatter.classList.remove('none');
  const range = drawScatter(ui.scatter, items, q.centre, q.fuel.unit);
  ui.legend.hidden = false;
  ui.legendMin.textContent = `${range.min.toFixed(1)} (cheapest)`;
  ui.legendMax.textContent = `${range.max.toFixed(1)} ${q.fuel.unit}`;
  ui.legendMin.style.color = priceColour(0);
  ui.legendMax.style.color = priceColour(1);
  empty(ui.mapEmpty, undefined);
}

function renderCycle(q: Query, cycle: Cycle['data']): void {
  const lines: Array<[string, string]> = [];
  lines.push(['Cycle', cycle.cycles && cycle.period_days !== false ? `every ${cycle.period_days} days` : 'none in the last year']);
  lines.push(['Last restoration', cycle.last_restoration === false
    ? 'none in the last year'
    : `${cycle.last_restoration.date} (+${cycle.last_restoration.rise} ${q.fuel.unit}), ${cycle.days_since_restoration === false ? '' : `${cycle.days_since_restoration} days ago`}`]);
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
    list.append(dt, dd);
  }
  const advice = document.createElement('p');
  advice.className = `advice ${cycle.advice}`;
  advice.textContent = adviceText(cycle.advice, cycle.confidence);
  const reason = document.createElement('p');
  reason.className = 'reason';
  reason.textContent = cycle.reason;
  ui.cycle.replaceChildren(list, advice, reason);
  ui.cycle.dataset.confidence = cycle.confidence;
  ui.cycle.dataset.phase = cycle.phase;
  ui.cycle.dataset.advice = cycle.advice;
  ui.cycle.setAttribute('aria-label', `Price cycle of ${q.fuel.name} in ${q.city.name}`);
}

/** When the next restoration is due: the last one plus the cycle's period (with a cycle), and the days from today to it. */
function nextRestoration(cycle: Cycle['data']): { date: string; inDays: number } | undefined {
  if (!cycle.cycles || cycle.period_days === false || cycle.last_restoration === false || cycle.days_since_restoration === false) return undefined;
  const date = addDays(cycle.last_restoration.date, cycle.period_days);
  return date === undefined ? undefined : { date, inDays: cycle.period_days - cycle.days_since_restoration };
}

function renderChart(q: Query, history: CityHistory['data'], cycle: Cycle['data']): void {
  ui.chartTitle.textContent = `Daily average of ${q.fuel.name} in ${history.name}, ${q.timeframeText.toLowerCase()}`;
  const records = history.history.find((h) => h.fuel === q.fuel.id)?.records;
  chart?.destroy();
  chart = undefined;
  if (!records || records.length === 0) {
    ui.chart.dataset.points = '0';
    ui.chart.dataset.restorations = '0';
    ui.chart.hidden = true;
    empty(ui.chartEmpty, `No daily averages of ${q.fuel.name} in ${history.name} over ${q.timeframeText.toLowerCase()}.`);
    return;
  }
  const data = seriesOf(records);
  // Every restoration of the year that falls on a day the chart shows (the cycle reads a year; the chart may show less).
  const dayStarts = new Map(records.map((r) => [r.date, r.timestamp]));
  const restorationsAt = cycle.restorations.flatMap((r) => dayStarts.get(r.date) ?? []);
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
  chart = drawChart(ui.chart, data, q.fuel.name, dollarUnit(q.fuel.unit), { restorationsAt, nextDueAt }, STATE_TIME_ZONES[q.city.state as StateId] ?? 'Australia/Sydney');
}

function renderSpread(q: Query, spread: Spread['data']): void {
  ui.spreadTitle.textContent = `Today's spread in ${spread.name}`;
  const rows = spread.spread.filter((s) => s.average !== false || s.min !== false).map((s) => {
    const tr = document.createElement('tr');
    tr.dataset.fuel = s.fuel;
    if (s.fuel === q.fuel.id) tr.className = 'current';
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = fuelName(s.fuel);
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
const OUTAGE_NAMES = 25;

/** The names of these stations (/v1/stations/{id}, kept for the page's life); an id stays as it is when its answer fails. */
async function loadStationNames(ids: readonly string[]): Promise<void> {
  const wanted = [...new Set(ids)].filter((id) => !stationNames.has(id));
  await Promise.all(wanted.map(async (id) => {
    try {
      const answer = await apiGet<{ data: { name: string } }>(`/v1/stations/${encodeURIComponent(id)}`, token);
      stationNames.set(id, answer.data.name);
    } catch (error) {
      if (error instanceof ApiProblem && error.kind !== 'failed') throw error;
    }
  }));
}

function outageStations(unavailable: Unavailable['data']): string[] {
  return unavailable.unavailable.flatMap((u) => (u.stations || []).slice(0, OUTAGE_NAMES));
}

function renderOutages(unavailable: Unavailable['data']): void {
  ui.outagesTitle.textContent = `Out of stock now in ${unavailable.name}`;
  const items = unavailable.unavailable.filter((u) => u.stations !== false && u.stations.length > 0).map((u) => {
    const stations = u.stations || [];
    const li = document.createElement('li');
    li.dataset.fuel = u.fuel;
    li.dataset.stations = stations.join(' ');
    const name = document.createElement('strong');
    name.textContent = fuelName(u.fuel);
    const names = document.createElement('span');
    names.className = 'stations';
    const shown = stations.slice(0, OUTAGE_NAMES).map((id) => stationNames.get(id) ?? id);
    names.textContent = shown.join(', ') + (stations.length > shown.length ? ` and ${stations.length - shown.length} more` : '');
    li.append(name, ` (${u.count}): `, names);
    return li;
  });
  ui.outages.replaceChildren(...items);
  ui.outages.hidden = items.length === 0;
  empty(ui.outagesEmpty, items.length === 0 ? `Every station in ${unavailable.name} has every fuel it sells.` : undefined);
}

async function showResults(q: Query): Promise<void> {
  setStatus('loading', `Loading ${q.fuel.name} near ${q.where}…`);
  ui.results.hidden = false;
  ui.results.dataset.state = 'loading';
  ui.results.setAttribute('aria-busy', 'true');
  const city = encodeURIComponent(q.city.id);
  const fuel = encodeURIComponent(q.fuel.id);
  const [cheapest, tomorrow, history, cycle, spread, unavailable] = await Promise.all([
    apiGet<{ data: Cheapest[]; total_items: number }>(`/v1/prices/cheapest?fuel=${fuel}&near=${q.near}&radius=${q.radius}&limit=100`, token),
    apiGet<{ data: Cheapest[] }>(`/v1/prices/cheapest?fuel=${fuel}&near=${q.near}&radius=${q.radius}&limit=100&day=tomorrow`, token),
    apiGet<CityHistory>(`/v1/cities/${city}/history?timeframe=${encodeURIComponent(q.timeframe)}`, token),
    apiGet<Cycle>(`/v1/cities/${city}/cycle?fuel=${fuel}`, token),
    apiGet<Spread>(`/v1/cities/${city}/spread`, token),
    apiGet<Unavailable>(`/v1/cities/${city}/unavailable`, token),
  ]);
  await loadStationNames(outageStations(unavailable.data));
  renderCheapest(q, cheapest.data, cheapest.total_items, tomorrow.data);
  renderCycle(q, cycle.data);
  renderChart(q, history.data, cycle.data);
  renderSpread(q, spread.data);
  renderOutages(unavailable.data);
  ui.results.dataset.state = cheapest.data.length === 0 ? 'empty' : 'ready';
  ui.results.removeAttribute('aria-busy');
  setStatus('idle');
  // On a phone the form fills the screen: bring the answer into view rather than leave it below the fold.
  if (ui.results.getBoundingClientRect().top > window.innerHeight * 0.5) ui.results.scrollIntoView({ block: 'start' });
}

/** The form as a query, or undefined after showing why the location cannot be read. */
function readQuery(): Query | undefined {
  const fuel = fuels.find((f) => f.id === ui.fuel.value);
  const picked = cities.find((c) => c.id === ui.city.value);
  if (!fuel || !picked) return undefined;
  const typed = ui.location.value.trim();
  const base = { fuel, radius: ui.radius.value, timeframe: ui.timeframe.value, timeframeText: ui.timeframe.selectedOptions[0]?.textContent ?? ui.timeframe.value };
  ui.locationError.hidden = true;
  ui.location.removeAttribute('aria-invalid');
  if (typed === '') {
    const centre = { latitude: Number(picked.latitude), longitude: Number(picked.longitude) };
    return { ...base, city: picked, centre, near: `${picked.latitude},${picked.longitude}`, where: picked.name };
  }
  const parsed = parseLocation(typed);
  if ('error' in parsed) {
    ui.locationError.textContent = parsed.error;
    ui.locationError.hidden = false;
    ui.location.setAttribute('aria-invalid', 'true');
    ui.location.focus();
    return undefined;
  }
  // The city panels follow the city nearest the location.
  const city = nearest(cities.map((c) => ({ ...c, latitude: Number(c.latitude), longitude: Number(c.longitude), city: c })), parsed.point)?.city ?? picked;
  ui.city.value = city.id;
  return { ...base, city, centre: parsed.point, near: parsed.near, where: parsed.near.replace(',', ', ') };
}

// ---- wiring ----------------------------------------------------------------------------------

ui.tokenForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const value = ui.token.value.trim();
  if (value === '') { ui.token.focus(); return; }
  token = value;
  keepToken(value, ui.remember.checked);
  run(connect);
});

ui.queryForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const query = readQuery();
  if (query) run(() => showResults(query));
});

ui.city.addEventListener('change', () => { ui.location.value = ''; });

// A tap (or a click) on a point says which station it is, as hovering does with a mouse; its row in the list is marked too.
ui.scatter.addEventListener('click', (event) => {
  const dot = (event.target as Element).closest('circle.station');
  if (!(dot instanceof SVGElement)) return;
  ui.scatter.querySelector('circle.picked')?.classList.remove('picked');
  dot.classList.add('picked');
  ui.picked.textContent = dot.dataset.label ?? '';
  for (const row of ui.cheapest.tBodies[0]?.rows ?? []) row.classList.toggle('picked', row.dataset.station === dot.dataset.station);
});

ui.retry.addEventListener('click', () => { if (lastAction) run(lastAction); });

ui.forget.addEventListener('click', () => {
  forgetToken();
  setStatus('idle');
  showTokenPanel();
  ui.token.value = '';
  ui.token.focus();
});

if ('geolocation' in navigator) {
  ui.locate.addEventListener('click', () => {
    ui.locate.disabled = true;
    navigator.geolocation.getCurrentPosition((position) => {
      ui.locate.disabled = false;
      ui.location.value = `${position.coords.latitude.toFixed(4)}, ${position.coords.longitude.toFixed(4)}`;
      ui.locationError.hidden = true;
      ui.queryForm.requestSubmit();
    }, (error) => {
      ui.locate.disabled = false;
      ui.locationError.textContent = `Your location is not available (${error.message || 'refused'}); type it or pick a city.`;
      ui.locationError.hidden = false;
    }, { timeout: 10_000, maximumAge: 300_000 });
  });
} else {
  ui.locate.hidden = true;
}

new ResizeObserver(() => {
  if (chart && ui.chart.clientWidth > 0 && Math.abs(chart.width - ui.chart.clientWidth) > 1) chart.setSize({ width: ui.chart.clientWidth, height: chart.height });
}).observe(ui.chart);

const given = tokenFromFragment();
const kept = storedToken();
if (given !== undefined) {
  // The link `serve --demo` prints: kept for this tab, connected, and straight to the prices of the first city.
  token = given;
  keepToken(given, false);
  run(async () => {
    await connect();
    const query = cities.length > 0 ? readQuery() : undefined;
    if (query) await showResults(query);
  });
} else if (kept) {
  token = kept;
  ui.remember.checked = localStorage.getItem(TOKEN_KEY) !== null;
  run(connect);
} else {
  ui.token.focus();
}
