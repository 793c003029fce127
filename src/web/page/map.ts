/**
 * The stations on a real map (Leaflet, bundled), its tiles from the tile server the server is
 * configured with (TILE_URL, OpenStreetMap's by default; the page reads it from #map's data-
 * attributes). When no tile can be had (the tile server down or unreachable, the page offline,
 * or no tile server configured), the page falls back to the plot of the stations by position
 * (scatter.ts) for the rest of its life: `failed` is called once.
 */
import 'leaflet/dist/leaflet.css';
import L from 'leaflet';
import type { Cheapest } from './api.ts';
import { type Point, fractionOf, priceColour } from './format.ts';

export interface TileSettings { url: string; attribution: string; attributionUrl: string }

/** Without a single tile loaded this long after the map is first shown, the tiles are taken as unavailable. */
const TILE_WAIT_MS = 8_000;

/** The tile settings #map carries (filled in by the server), or undefined when the map is off. */
export function tileSettings(host: HTMLElement): TileSettings | undefined {
  const url = host.dataset.tileUrl ?? '';
  if (url === '' || url === 'none') return undefined;
  return { url, attribution: host.dataset.tileAttribution ?? '', attributionUrl: host.dataset.tileAttributionUrl ?? '' };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export class StationMap {
  private map: L.Map | undefined;
  private markers: L.LayerGroup | undefined;
  private loaded = 0;
  private state: 'new' | 'waiting' | 'tiles' | 'failed' = 'new';
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: HTMLElement, private readonly settings: TileSettings,
    private readonly failed: () => void, private readonly picked: (id: string, label: string) => void) {}

  /** Whether the map can be shown: not given up on. */
  get usable(): boolean { return this.state !== 'failed'; }

  private fail(): void {
    if (this.state === 'failed') return;
    this.state = 'failed';
    clearTimeout(this.timer);
    this.failed();
  }

  private create(): L.Map {
    // No fade of tiles: Leaflet times it by the clock, and a still map is easier on the eye (and on a frozen test clock).
    const map = L.map(this.host, { zoomControl: true, attributionControl: true, scrollWheelZoom: false, fadeAnimation: false });
    map.attributionControl.setPrefix(false);
    const text = escapeHtml(this.settings.attribution);
    const attribution = this.settings.attributionUrl ? `<a href="${escapeHtml(this.settings.attributionUrl)}">${text}</a>` : text;
    const tiles = L.tileLayer(this.settings.url, { attribution, maxZoom: 19, crossOrigin: false });
    tiles.on('tileload', () => {
      this.loaded++;
      if (this.state === 'waiting') { this.state = 'tiles'; clearTimeout(this.timer); }
    });
    // Every tile in view settled (loaded or failed) and none loaded: there are no tiles to be had.
    tiles.on('load', () => { if (this.loaded === 0) this.fail(); });
    tiles.addTo(map);
    this.markers = L.layerGroup().addTo(map);
    this.state = 'waiting';
    this.timer = setTimeout(() => { if (this.loaded === 0) this.fail(); }, TILE_WAIT_MS);
    return map;
  }

  /** Shows the stations (cheapest green, dearest red, the cheapest on top) and the place searched from; the host must be visible. */
  show(stations: readonly Cheapest[], centre: Point, labels: ReadonlyMap<string, string>): void {
    if (this.state === 'failed') return;
    this.map ??= this.create();
    const map = this.map;
    map.invalidateSize();
    this.markers?.clearLayers();
    const prices = stations.map((s) => Number(s.price));
    const [min, max] = [Math.min(...prices), Math.max(...prices)];
    const points: L.LatLngExpression[] = [[centre.latitude, centre.longitude], ...stations.map((s): L.LatLngExpression => [Number(s.latitude), Number(s.longitude)])];
    // The view first: Leaflet adds a layer to a map without one only later, and the points' elements are wanted now.
    map.fitBounds(L.latLngBounds(points), { padding: [24, 24], maxZoom: 15 });
    const order = stations.map((_, i) => i).sort((a, b) => (prices[b] ?? 0) - (prices[a] ?? 0));
    for (const i of order) {
      const station = stations[i];
      if (!station) continue;
      const at: L.LatLngExpression = [Number(station.latitude), Number(station.longitude)];
      const label = labels.get(station.station_id) ?? station.name;
      const colour = priceColour(fractionOf(prices[i] ?? 0, min, max));
      const dot = L.circleMarker(at, { radius: 8, color: '#fff', weight: 1.5, fillColor: colour, fillOpacity: 1, className: 'station' })
        .bindTooltip(label)
        .on('click', () => this.picked(station.station_id, label));
      dot.addTo(this.markers as L.LayerGroup);
      dot.getElement()?.setAttribute('data-station', station.station_id);
    }
    L.circleMarker([centre.latitude, centre.longitude], { radius: 6, color: '#1c2421', weight: 3, fillColor: '#fff', fillOpacity: 1, className: 'centre', interactive: false })
      .addTo(this.markers as L.LayerGroup);
  }

  /** Marks one station's point as picked (a row chosen in the list, or a tap on it). */
  pick(id: string): void {
    for (const path of this.host.querySelectorAll('path.station')) path.classList.toggle('picked', path.getAttribute('data-station') === id);
  }
}
