import type { FuelId } from './fuels.ts';
import { formatCents } from './rounding.ts';

/** A change of a current price (storage/sql/changes.ts): its number, and the price as it is now. */
export interface PriceChange {
  seq: number;
  stationId: string;
  fuel: FuelId;
  priceTenths: number;
  available: boolean;
  reportedAt: number;
  /** The report's own price when available; when out of stock, the last available report's (undefined: there was none). */
  lastAvailableTenths: number | undefined;
}

/** A change as GET /v1/prices/changes answers it (and its event stream sends it). */
export interface ChangeOut {
  cursor: string;
  station_id: string;
  fuel: FuelId;
  price: string | false;
  available: boolean;
  updated_at: number;
}

/** The price shown is the one /v1/stations/{id}/prices shows: out of stock, the last price reported in stock. */
export function changeEntry(c: PriceChange): ChangeOut {
  const shown = c.available ? c.priceTenths : c.lastAvailableTenths;
  return {
    cursor: String(c.seq), station_id: c.stationId, fuel: c.fuel, price: shown === undefined ? false : formatCents(shown),
    available: c.available, updated_at: c.reportedAt,
  };
}

/** One change as a server-sent event: its cursor as the event id (what a reconnecting client sends back as Last-Event-ID). */
export function changeEvent(change: ChangeOut): string {
  return `id: ${change.cursor}\nevent: change\ndata: ${JSON.stringify(change)}\n\n`;
}

/** The event a stream starts with: the cursor it follows from, as the event id (a client that reconnects resumes from it). */
export function cursorEvent(cursor: number): string {
  return `id: ${cursor}\nevent: cursor\ndata: ${JSON.stringify({ next: String(cursor) })}\n\n`;
}

/** A comment line, ignored by clients: keeps proxies from closing an idle stream. */
export const KEEP_ALIVE = ': keep-alive\n\n';
