/** The cheapest stations: the list, and the same stations on the map (or, without map tiles, on the plot). */
import type { Cheapest } from './api.ts';
import { OLD_PRICE_DAYS, ageText, distinctNames, isOld, shortDate } from './format.ts';
import { type StationMap, tileSettings } from './map.ts';
import { drawScatter } from './scatter.ts';
import { type Query, cell, empty, ui } from './ui.ts';

/** Rows shown in the cheapest list; the map shows every station found (up to the API's page of 100). */
export const LIST_ROWS = 10;

/** The age of a price as the list and the headline show it: "3 h ago", or "old: 121 days ago, on 8 Aug" past OLD_PRICE_DAYS. */
export function ageCell(atSec: number, nowSec: number, timeZone: string): HTMLTimeElement {
  const time = document.createElement('time');
  time.dateTime = new Date(atSec * 1000).toISOString();
  time.title = new Date(atSec * 1000).toLocaleString();
  const old = isOld(atSec, nowSec);
  time.textContent = old ? `old: ${ageText(atSec, nowSec)}, on ${shortDate(atSec, nowSec, timeZone)}` : ageText(atSec, nowSec);
  if (old) time.className = 'old';
  return time;
}

/**
 * The cheapest list; with `tomorrow` (the same search's `day=tomorrow` answer, WA after about
 * 14:30) a Tomorrow column beside Price: each listed station's published next price, or a dash.
 * Returns the names shown (a name two stations share, told apart by suburb or street).
 */
export function renderCheapest(q: Query, items: readonly Cheapest[], total: number, tomorrow: readonly Cheapest[], timeZone: string): Map<string, string> {
  const nowSec = Date.now() / 1000;
  const names = distinctNames(items);
  ui.cheapestTitle.textContent = `Cheapest ${q.fuel.name} near ${q.where}`;
  const shown = Math.min(LIST_ROWS, items.length);
  const olds = items.slice(0, LIST_ROWS).filter((item) => isOld(item.updated_at, nowSec)).length;
  ui.cheapestWhere.textContent = total > 0
    ? `${total} station${total === 1 ? '' : 's'} within ${q.radius} km selling it now; the ${shown} cheapest, in ${q.fuel.unit}.`
      + (olds > 0 ? ` ${olds === 1 ? 'One price is' : `${olds} prices are`} marked old: not reported for ${OLD_PRICE_DAYS} days or more.` : '')
    : '';
  // Every station at the lowest price is the cheapest, marked alike (in the list and in green on the map).
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
    if (isOld(item.updated_at, nowSec)) tr.classList.add('old');
    const updated = document.createElement('td');
    updated.className = 'age';
    updated.append(ageCell(item.updated_at, nowSec, timeZone));
    tr.append(cell(names.get(item.station_id) ?? item.name, 'name'), cell(item.brand, 'brand'), cell(item.price, 'num price'));
    if (next.size > 0) tr.append(cell(next.get(item.station_id) ?? '–', 'num tomorrow'));
    tr.append(cell(item.distance_km === undefined ? '' : `${item.distance_km} km`, 'num distance'), updated);
    return tr;
  });
  ui.cheapest.tBodies[0]?.replaceChildren(...rows);
  ui.cheapest.hidden = rows.length === 0;
  empty(ui.cheapestEmpty, rows.length === 0 ? `No station within ${q.radius} km of ${q.where} has ${q.fuel.name} for sale now.` : undefined);
  return names;
}

/** Where the map's tiles come from, for the note under the map. */
function tileHost(): string {
  const settings = tileSettings(ui.map);
  if (!settings) return 'no tile server';
  try { return new URL(settings.url.replace(/\{[a-z]+\}/g, 'a')).host; } catch { return settings.url; }
}

/** Shows the plot instead of the map from now on (no tiles), saying why. */
export function usePlot(reason: 'off' | 'failed'): void {
  ui.mapPanel.dataset.view = 'plot';
  ui.mapFailed.textContent = reason === 'off'
    ? 'No map tiles are configured on this server: the stations are shown by position.'
    : `The map's tiles could not be loaded (from ${tileHost()}): the stations are shown by position instead.`;
  ui.mapFailed.hidden = false;
}

/** The stations on the map, or on the plot when the map cannot be had; labels are the names the list shows. */
export function renderStations(q: Query, items: readonly Cheapest[], map: StationMap | undefined, labels: ReadonlyMap<string, string>): void {
  ui.picked.textContent = '';
  ui.mapPanel.dataset.stations = String(items.length);
  if (items.length === 0) {
    ui.scatter.replaceChildren();
    ui.scatter.setAttribute('data-points', '0');
    ui.legend.hidden = true;
    ui.mapPanel.classList.add('none');
    empty(ui.mapEmpty, 'No stations to show.');
    return;
  }
  ui.mapPanel.classList.remove('none');
  empty(ui.mapEmpty, undefined);
  const range = drawScatter(ui.scatter, items, q.centre, q.fuel.unit, labels);
  ui.legend.hidden = false;
  ui.legendMin.textContent = `${range.min.toFixed(1)} (cheapest)`;
  ui.legendMax.textContent = `${range.max.toFixed(1)} ${q.fuel.unit}`;
  if (map?.usable) {
    ui.mapPanel.dataset.view = 'map';
    map.show(items, q.centre, new Map(items.map((s) => [s.station_id, `${labels.get(s.station_id) ?? s.name}: ${s.price} ${q.fuel.unit}${s.distance_km === undefined ? '' : `, ${s.distance_km} km`}`])));
  }
}
