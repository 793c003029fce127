/**
 * The dashboard page: asks for a token once (kept in sessionStorage, or localStorage when the
 * user ticks "remember"), then shows for a city or a location and a fuel: the cheapest stations
 * nearby, a plot of them by position, the city's daily average with its price cycle, today's
 * spread and the stations out of stock. Every number comes from this server's /v1 API.
 */
import 'uplot/dist/uPlot.min.css';
import './dashboard.css';
import type uPlot from 'uplot';
import { ApiProblem, type Cheapest, type City, type CityHistory, type Cycle, type FuelType, type Spread, type Unavailable, allPages, apiGet } from './api.ts';
import { STATE_TIME_ZONES, type StateId } from '../../domain/states.ts';
import { loadStationNames, outageStations, renderChart, renderCycle, renderOutages, renderSpread } from './city.ts';
import { nearest, parseLocation } from './format.ts';
import { renderHeadline } from './headline.ts';
import { StationMap, tileSettings } from './map.ts';
import { renderCheapest, renderStations, usePlot } from './stations.ts';
import { setStatus, showRateLimited } from './status.ts';
import { type Query, option, ui } from './ui.ts';

const TOKEN_KEY = 'fuelprice-token';

let token = '';
let cities: City[] = [];
let fuels: FuelType[] = [];
let chart: uPlot | undefined;
/** The action "Try again" repeats: the last one run. */
let lastAction: ((signal: AbortSignal) => Promise<void>) | undefined;
/** The running action's: aborted when another starts, so that only the newest one's answers are ever shown. */
let running: AbortController | undefined;

/** Pick a station on the map or the plot: its name and price under it, its row in the list marked. */
function pickStation(id: string, label: string): void {
  ui.picked.textContent = label;
  stationMap?.pick(id);
  for (const dot of ui.scatter.querySelectorAll('circle.station')) dot.classList.toggle('picked', dot.getAttribute('data-station') === id);
  for (const row of ui.cheapest.tBodies[0]?.rows ?? []) row.classList.toggle('picked', row.dataset.station === id);
}

const tiles = tileSettings(ui.map);
const stationMap = tiles ? new StationMap(ui.map, tiles, () => usePlot('failed'), pickStation) : undefined;
if (!tiles) usePlot('off');

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
    case 'rate-limited':
      showRateLimited(error.retryAfterSec);
      return;
    case 'failed':
      setStatus('error', error.message, true);
      return;
  }
}

/**
 * Runs an action (kept for "Try again"), turning its failure into the matching state. A newer
 * action aborts it: its requests are cancelled, and its answers or failures, however late, dropped.
 */
function run(action: (signal: AbortSignal) => Promise<void>): void {
  lastAction = action;
  running?.abort();
  const control = new AbortController();
  running = control;
  action(control.signal).catch((error: unknown) => { if (!control.signal.aborted) failed(error); });
}

// ---- connecting ------------------------------------------------------------------------------

async function connect(signal: AbortSignal): Promise<void> {
  setStatus('loading', 'Connecting…');
  const [fuelTypes, cityList] = await Promise.all([apiGet<{ data: FuelType[] }>('/v1/fuel-types', token, signal), allPages<City>('/v1/cities', token, signal)]);
  if (signal.aborted) return;
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

/**
 * Fetches and shows one query's answers. `signal` is aborted when a newer query (or action) is
 * made: its answers, however late, are then dropped, never shown under the newer query.
 */
async function showResults(q: Query, signal: AbortSignal): Promise<void> {
  setStatus('loading', `Loading ${q.fuel.name} near ${q.where}…`);
  ui.results.hidden = false;
  ui.results.dataset.state = 'loading';
  ui.results.setAttribute('aria-busy', 'true');
  const city = encodeURIComponent(q.city.id);
  const fuel = encodeURIComponent(q.fuel.id);
  const [cheapest, tomorrow, history, cycle, spread, unavailable] = await Promise.all([
    apiGet<{ data: Cheapest[]; total_items: number }>(`/v1/prices/cheapest?fuel=${fuel}&near=${q.near}&radius=${q.radius}&limit=100`, token, signal),
    apiGet<{ data: Cheapest[] }>(`/v1/prices/cheapest?fuel=${fuel}&near=${q.near}&radius=${q.radius}&limit=100&day=tomorrow`, token, signal),
    apiGet<CityHistory>(`/v1/cities/${city}/history?timeframe=${encodeURIComponent(q.timeframe)}`, token, signal),
    apiGet<Cycle>(`/v1/cities/${city}/cycle?fuel=${fuel}`, token, signal),
    apiGet<Spread>(`/v1/cities/${city}/spread`, token, signal),
    apiGet<Unavailable>(`/v1/cities/${city}/unavailable`, token, signal),
  ]);
  await loadStationNames(outageStations(unavailable.data), token, signal);
  if (signal.aborted) return;
  const timeZone = STATE_TIME_ZONES[q.city.state as StateId] ?? 'Australia/Sydney';
  ui.results.dataset.query = `${q.city.id} ${q.near} ${q.fuel.id} ${q.radius} ${q.timeframe}`;
  const names = renderCheapest(q, cheapest.data, cheapest.total_items, tomorrow.data, timeZone);
  const first = cheapest.data[0];
  renderHeadline(q, cycle.data, first, first && names.get(first.station_id), timeZone);
  renderCycle(q, cycle.data);
  chart = renderChart(q, history.data, cycle.data, timeZone, chart);
  renderSpread(q, spread.data, fuels);
  renderOutages(unavailable.data, fuels);
  ui.results.dataset.state = cheapest.data.length === 0 ? 'empty' : 'ready';
  ui.results.removeAttribute('aria-busy');
  setStatus('idle');
  // The form folds into one line (on a phone; CSS) so that the advice and the cheapest station come first.
  ui.querySummaryText.textContent = `${q.fuel.name} near ${q.where}, within ${q.radius} km`;
  ui.queryPanel.classList.add('folded');
  // On a phone the page may have been scrolled down to the form: the answer comes into view.
  if (ui.headline.getBoundingClientRect().top < 0 || ui.headline.getBoundingClientRect().top > window.innerHeight * 0.5) ui.queryPanel.scrollIntoView({ block: 'start' });
  // After the layout settles: the map needs its size.
  renderStations(q, cheapest.data, stationMap, names);
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
  if (query) run((signal) => showResults(query, signal));
});

ui.change.addEventListener('click', () => {
  ui.queryPanel.classList.remove('folded');
  ui.city.focus();
});

ui.city.addEventListener('change', () => { ui.location.value = ''; });

// A tap (or a click) on a point says which station it is, as hovering does with a mouse; its row in the list is marked too.
ui.scatter.addEventListener('click', (event) => {
  const dot = (event.target as Element).closest('circle.station');
  if (dot instanceof SVGElement) pickStation(dot.dataset.station ?? '', dot.dataset.label ?? '');
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
  run(async (signal) => {
    await connect(signal);
    const query = cities.length > 0 && !signal.aborted ? readQuery() : undefined;
    if (query) await showResults(query, signal);
  });
} else if (kept) {
  token = kept;
  ui.remember.checked = localStorage.getItem(TOKEN_KEY) !== null;
  run(connect);
} else {
  ui.token.focus();
}
