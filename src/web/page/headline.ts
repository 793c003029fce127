/** The first thing the page shows: "Fill up today?", answered by the city's advice, and the cheapest station near the place asked. */
import type { Cheapest, Cycle } from './api.ts';
import { adviceDetails, adviceText } from './format.ts';
import { ageCell } from './stations.ts';
import { type Query, ui } from './ui.ts';

export function renderHeadline(q: Query, cycle: Cycle['data'], cheapest: Cheapest | undefined, name: string | undefined, timeZone: string): void {
  ui.headline.dataset.advice = cycle.advice;
  ui.headline.dataset.confidence = cycle.confidence;
  ui.advice.className = `advice ${cycle.advice}`;
  ui.advice.textContent = adviceText(cycle.advice, cycle.confidence);
  ui.adviceReason.textContent = cycle.reason;
  // The advice's state, horizon and track record, where the server gives them (older servers do not).
  const details = adviceDetails(cycle, q.fuel.unit);
  if (details.state) ui.headline.dataset.state = details.state;
  else delete ui.headline.dataset.state;
  if (cycle.signal) ui.headline.dataset.signal = cycle.signal;
  else delete ui.headline.dataset.signal;
  ui.adviceMore.replaceChildren(...details.lines.map((line) => {
    const li = document.createElement('li');
    li.textContent = line;
    return li;
  }));
  ui.adviceMore.hidden = details.lines.length === 0;
  if (!cheapest) {
    ui.best.textContent = `No station within ${q.radius} km of ${q.where} has ${q.fuel.name} for sale now.`;
    delete ui.best.dataset.station;
    return;
  }
  const label = document.createElement('strong');
  label.textContent = name ?? cheapest.name;
  const price = document.createElement('span');
  price.className = 'best-price';
  price.textContent = `${cheapest.price} ${q.fuel.unit}`;
  const where = cheapest.distance_km === undefined ? '' : `, ${cheapest.distance_km} km away`;
  ui.best.replaceChildren('Cheapest near ', q.where, ': ', label, ` (${cheapest.brand})`, where, ' at ', price, ', ', ageCell(cheapest.updated_at, Date.now() / 1000, timeZone), '.');
  ui.best.dataset.station = cheapest.station_id;
}
