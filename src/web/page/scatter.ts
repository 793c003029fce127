/** The stations as points on their coordinates, coloured by price, with the search centre marked: the map's stand-in when it has no tiles (map.ts). */
import type { Cheapest } from './api.ts';
import { type Point, fractionOf, priceColour, project } from './format.ts';

const SVG = 'http://www.w3.org/2000/svg';
const BOX = { width: 600, height: 420, padding: 24 };

function svg<K extends keyof SVGElementTagNameMap>(name: K, attributes: Record<string, string | number>): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return element;
}

/** Fills the <svg> with one circle per station (cheapest green, dearest red) and a cross at the centre; returns the price range. */
export function drawScatter(host: SVGSVGElement, stations: readonly Cheapest[], centre: Point, unit: string, names: ReadonlyMap<string, string>): { min: number; max: number } {
  const title = host.querySelector('title');
  host.replaceChildren(...(title ? [title] : []));
  const prices = stations.map((s) => Number(s.price));
  const min = Math.min(...prices);
  const max = Math.max(...prices);
  const points: Point[] = [centre, ...stations.map((s) => ({ latitude: Number(s.latitude), longitude: Number(s.longitude) }))];
  const [middle, ...placed] = project(points, BOX);
  host.append(svg('rect', { x: 0, y: 0, width: BOX.width, height: BOX.height, class: 'plot-bg' }));
  // Dearest first, so that the cheapest are drawn on top.
  const order = stations.map((_, i) => i).sort((a, b) => (prices[b] ?? 0) - (prices[a] ?? 0));
  for (const i of order) {
    const station = stations[i];
    const at = placed[i];
    if (!station || !at) continue;
    const dot = svg('circle', { cx: at.x.toFixed(1), cy: at.y.toFixed(1), r: 7, fill: priceColour(fractionOf(prices[i] ?? 0, min, max)), class: 'station' });
    const tip = svg('title', {});
    const name = names.get(station.station_id) ?? station.name;
    tip.textContent = `${name}: ${station.price} ${unit}`;
    // For a tap, which has no hover: the page shows this under the plot (main.ts).
    dot.dataset.station = station.station_id;
    dot.dataset.label = `${name}: ${station.price} ${unit}${station.distance_km === undefined ? '' : `, ${station.distance_km} km`}`;
    dot.append(tip);
    host.append(dot);
  }
  if (middle) {
    const cross = svg('path', { d: `M${middle.x - 9},${middle.y}h18M${middle.x},${middle.y - 9}v18`, class: 'centre' });
    host.append(cross);
  }
  host.setAttribute('data-points', String(stations.length));
  return { min, max };
}
