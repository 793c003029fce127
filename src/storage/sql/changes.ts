import { fuelIndex } from '../../domain/fuels.ts';
import { boxAround, metresTo } from '../../domain/nearby.ts';
import type { ChangesPage, ChangesQuery, PriceChange } from '../store-records.ts';
import type { Connection } from './connection.ts';
import { flag, fuelAt } from './row-mappers.ts';

/**
 * The price changes feed (GET /v1/prices/changes). A change is a current price (one station,
 * one reported fuel) whose price or availability was changed by a stored report; the writer
 * gives it the next change number (current_prices.change_seq), and meta.change_seq holds the
 * last number handed out. Numbers are handed out inside the writer transaction, under the
 * writer's lock (SQLite: one writer of the file; PostgreSQL: the advisory lock every writer
 * transaction takes), so numbers commit in the order they were handed out: once a number is
 * visible, every lower one is too. The cursor is the last number a client has seen.
 *
 * A page reads the last number handed out (`latest`) first, then the changed prices numbered
 * after the cursor and up to `latest`, in number order: every one of those has committed. A
 * price that changes again moves to a new, higher number, so it is served again (its new state)
 * and never skipped; one number is one change, served once. A price changed twice between two
 * reads is served once, at its latest state (the feed keeps a copy exact; it is not a log of
 * every report).
 */

const COLUMNS = `c.change_seq, s.id AS station_id, c.fuel, c.price_tenths, c.available, c.reported_at, s.latitude, s.longitude,
  CASE WHEN c.available = TRUE THEN c.price_tenths ELSE (
    SELECT p.price_tenths FROM price_events p WHERE p.station_key = c.station_key AND p.fuel = c.fuel AND p.available = TRUE
    AND p.at <= c.reported_at ORDER BY p.at DESC LIMIT 1) END AS last_available_tenths`;

export const LAST_CHANGE = "SELECT value FROM meta WHERE key = 'change_seq'";

/** The statement for a query's filters, and its parameters ($1 the cursor, $2 latest, the limit last). */
function changesStatement(query: ChangesQuery, latest: number): { text: string; params: unknown[] } {
  const where = ['c.change_seq > $1', 'c.change_seq <= $2'];
  const params: unknown[] = [query.since, latest];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (query.fuel !== undefined) where.push(`c.fuel IN (SELECT fuel FROM fuel_groups WHERE output = ${param(fuelIndex(query.fuel))})`);
  const area = query.area;
  if (area && 'state' in area) where.push(`c.state = ${param(area.state)}`);
  else if (area && 'city' in area) where.push(`c.city_id = ${param(area.city)}`);
  else if (area && 'near' in area) {
    const box = boxAround(area.near.centre, area.near.radiusKm);
    where.push(`s.latitude BETWEEN ${param(box.south)} AND ${param(box.north)}`, `s.longitude BETWEEN ${param(box.west)} AND ${param(box.east)}`);
  }
  const text = `SELECT ${COLUMNS} FROM current_prices c JOIN stations s ON s.key = c.station_key
    WHERE ${where.join(' AND ')} ORDER BY c.change_seq LIMIT ${param(query.limit)}`;
  return { text, params };
}

function toChange(r: Record<string, unknown>): PriceChange {
  const last = r.last_available_tenths;
  return {
    seq: Number(r.change_seq), stationId: String(r.station_id), fuel: fuelAt(r.fuel), priceTenths: Number(r.price_tenths),
    available: flag(r.available), reportedAt: Number(r.reported_at), lastAvailableTenths: last === null || last === undefined ? undefined : Number(last),
  };
}

/** The last change number handed out. */
export async function lastChange(db: Connection): Promise<number> {
  return Number((await db.row(LAST_CHANGE))?.value ?? 0);
}

/**
 * Up to `limit` changes after the cursor that match the filters, oldest first. `next` is the
 * cursor to ask with next: the last change looked at when the page was full (`more`: there may
 * be others), else `latest` (every change up to it has been looked at). With near, the box is
 * narrowed to the radius here, after the page was read: a full page may then hold fewer items.
 */
export async function readChanges(db: Connection, query: ChangesQuery): Promise<ChangesPage> {
  return db.transaction('reads', async (tx) => {
    const latest = await lastChange(tx);
    if (query.since >= latest) return { changes: [], next: Math.max(query.since, latest), more: false, latest };
    const { text, params } = changesStatement(query, latest);
    const rows = await tx.rows(text, params);
    const more = rows.length === query.limit;
    const next = more ? Number(rows[rows.length - 1]?.change_seq) : latest;
    const area = query.area;
    const kept = area && 'near' in area
      ? rows.filter((r) => r.latitude !== null && metresTo(area.near.centre, Number(r.latitude), Number(r.longitude)) <= Math.round(area.near.radiusKm * 1000))
      : rows;
    return { changes: kept.map(toChange), next, more, latest };
  });
}
