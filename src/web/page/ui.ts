/** The page's elements, found once, and the small DOM helpers every panel uses. */
import type { City, FuelType } from './api.ts';
import type { Point } from './format.ts';

export function element<T extends Element = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`the page has no #${id}`);
  return found as unknown as T;
}

export const ui = {
  status: element('status'), statusText: element('status-text'), retry: element<HTMLButtonElement>('retry'), forget: element<HTMLButtonElement>('forget'),
  tokenPanel: element('token-panel'), tokenForm: element<HTMLFormElement>('token-form'), token: element<HTMLInputElement>('token'), remember: element<HTMLInputElement>('remember'),
  queryPanel: element('query-panel'), queryForm: element<HTMLFormElement>('query-form'), city: element<HTMLSelectElement>('city'), noData: element('no-data'),
  querySummary: element('query-summary'), querySummaryText: element('query-summary-text'), change: element<HTMLButtonElement>('change'),
  go: element<HTMLButtonElement>('go'),
  location: element<HTMLInputElement>('location'), locate: element<HTMLButtonElement>('locate'), locationError: element('location-error'),
  fuel: element<HTMLSelectElement>('fuel'), radius: element<HTMLSelectElement>('radius'), timeframe: element<HTMLSelectElement>('timeframe'),
  results: element('results'),
  headline: element('headline'), advice: element('advice'), adviceReason: element('advice-reason'), adviceMore: element('advice-more'), best: element('best'),
  cheapestTitle: element('cheapest-title'), cheapestWhere: element('cheapest-where'), cheapest: element<HTMLTableElement>('cheapest'), cheapestEmpty: element('cheapest-empty'),
  mapPanel: element('map-panel'), map: element('map'), mapNote: element('map-note'), mapFailed: element('map-failed'),
  scatter: element<SVGSVGElement>('scatter'), picked: element('scatter-picked'), legend: element('scatter-legend'), legendMin: element('legend-min'), legendMax: element('legend-max'), mapEmpty: element('map-empty'),
  chartTitle: element('chart-title'), cycle: element('cycle'), chart: element('chart'), chartEmpty: element('chart-empty'),
  spreadTitle: element('spread-title'), spread: element<HTMLTableElement>('spread'), spreadEmpty: element('spread-empty'),
  outagesTitle: element('outages-title'), outages: element('outages'), outagesEmpty: element('outages-empty'),
};

/** What the form asks for: the city (the nearest one to a typed location), the point searched from, the fuel and the rest. */
export interface Query { city: City; near: string; centre: Point; where: string; fuel: FuelType; radius: string; timeframe: string; timeframeText: string }

export function option(value: string, text: string): HTMLOptionElement {
  const item = document.createElement('option');
  item.value = value;
  item.textContent = text;
  return item;
}

export function cell(text: string, className?: string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

/** Shows `text` in an empty-state paragraph, or hides it (undefined). */
export function empty(panel: HTMLElement, text: string | undefined): void {
  panel.hidden = text === undefined;
  panel.textContent = text ?? '';
}
