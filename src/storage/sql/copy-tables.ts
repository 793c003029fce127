import { STATION_COLUMN_TYPES, STATION_FIELD_COLUMNS } from '../station-shape.ts';
import type { BulkInsert, Dialect, Row } from './dialect.ts';

/**
 * The tables `fuelprice copy` moves (BulkStore), whole and in primary-key order, with the same
 * columns and canonical values on both backends (flags as 0/1, bytes as Buffers). Table and
 * column names in SQL come only from this fixed list, never from input.
 */
export const COPY_TABLES = {
  meta: { columns: ['key', 'value'], key: ['key'] },
  cities: { columns: ['id', 'name', 'state', 'latitude', 'longitude'], key: ['id'] },
  /** A station's fields are station-shape.ts's. */
  stations: { columns: ['key', 'id', 'feed', 'feed_code', ...STATION_FIELD_COLUMNS, 'city_id', 'named_at'], key: ['key'] },
  /** Ids a station answered before (docs/DATA.md "Ids"). */
  station_aliases: { columns: ['id', 'station_key'], key: ['id'] },
  price_events: { columns: ['station_key', 'fuel', 'at', 'price_tenths', 'available'], key: ['station_key', 'fuel', 'at'] },
  current_prices: {
    columns: ['station_key', 'fuel', 'price_tenths', 'available', 'reported_at', 'open_from', 'city_id', 'state', 'change_seq'], key: ['station_key', 'fuel'],
  },
  station_daily: { columns: ['station_key', 'day', 'fuel', 'weighted_tenths', 'seconds'], key: ['station_key', 'day', 'fuel'] },
  station_runs: { columns: ['station_key', 'to_day', 'fuel', 'from_day', 'price_tenths'], key: ['station_key', 'to_day', 'fuel'] },
  /** City means as runs within blocks of 128 days (city-runs.ts); the marks' triggers mark their blocks as they are copied in. */
  city_runs: { columns: ['city_id', 'to_day', 'fuel', 'from_day', 'mean_tenths'], key: ['city_id', 'to_day', 'fuel'] },
  /** Sealed city days an import left to the next seal (stale-city-days.ts): their city means are not final yet. */
  city_days_stale: { columns: ['city_id', 'from_day', 'to_day'], key: ['city_id'] },
  seals: { columns: ['state', 'sealed_before'], key: ['state'] },
  tokens: { columns: ['id', 'name', 'hash', 'created_at', 'expires_at', 'revoked_at', 'rate_limit'], key: ['id'] },
  feed_cursors: { columns: ['key', 'value', 'updated_at'], key: ['key'] },
  pending_prices: { columns: ['feed', 'feed_code', 'fuel', 'at', 'price_tenths', 'available'], key: ['feed', 'feed_code', 'fuel', 'at'] },
} as const satisfies Record<string, { columns: readonly string[]; key: readonly string[] }>;

export type CopyTable = keyof typeof COPY_TABLES;
/** In copy order: cities before the stations that reference them. */
export const COPY_ORDER = Object.keys(COPY_TABLES) as CopyTable[];

export type CopyValue = string | number | Buffer | null;
export type CopyRow = Record<string, CopyValue>;
/** The primary-key values of a row, in key order: where the next chunk starts after. */
export type CopyKey = Array<string | number>;

export interface TableChunk {
  rows: CopyRow[];
  /** The key of the last row, or undefined when the chunk is empty. */
  last: CopyKey | undefined;
}

/** How far a copy into this store got, per table; written in the same transaction as each chunk. */
export interface CopyProgress {
  table: CopyTable;
  /** Names the source (its URL, password left out): a different source is a different copy. */
  source: string;
  after: CopyKey | undefined;
  rows: number;
  done: boolean;
}

/** The table's spec, checked at run time too: SQL names only ever come from COPY_TABLES. */
export function copySpec(table: CopyTable): (typeof COPY_TABLES)[CopyTable] {
  if (!Object.hasOwn(COPY_TABLES, table)) throw new Error(`'${String(table).slice(0, 40)}' is not a table a copy moves`);
  return COPY_TABLES[table];
}

/** A copied column's type, by PostgreSQL's name (see the migrations): typed arrays and key comparisons need it. */
export function columnType(table: CopyTable, column: string): string {
  const type = table === 'stations' ? (column === 'key' ? 'integer' : STATION_COLUMN_TYPES[column] ?? COLUMN_TYPES[column])
    : table === 'feed_cursors' && column === 'value' ? 'text' : COLUMN_TYPES[column];
  if (!type) throw new Error(`no column type known for ${table}.${column}`);
  return type;
}

const COLUMN_TYPES: Readonly<Record<string, string>> = {
  key: 'text', value: 'bigint', id: 'text', name: 'text', state: 'text', latitude: 'double precision', longitude: 'double precision',
  feed: 'text', feed_code: 'text', city_id: 'text', station_key: 'integer', fuel: 'smallint', at: 'bigint', price_tenths: 'integer', available: 'boolean',
  reported_at: 'bigint', open_from: 'bigint', change_seq: 'bigint', day: 'integer', from_day: 'integer', to_day: 'integer', weighted_tenths: 'bigint', seconds: 'integer', mean_tenths: 'double precision',
  sealed_before: 'integer', hash: 'bytea', created_at: 'bigint', updated_at: 'bigint', expires_at: 'bigint', revoked_at: 'bigint', rate_limit: 'integer',
  named_at: 'bigint',
};

/** Up to $n rows of the table in key order, after the key given as the first parameters when `after`. */
export function exportSql(d: Dialect, table: CopyTable, after: boolean): string {
  const { columns, key } = copySpec(table);
  // Text keys in byte order, so that both backends page alike.
  const keyed = key.map((c) => (columnType(table, c) === 'text' ? d.byteOrder(c) : c));
  const where = after ? `WHERE (${keyed.join(', ')}) > (${key.map((c, i) => d.typed(i + 1, columnType(table, c))).join(', ')})` : '';
  return `SELECT ${columns.join(', ')} FROM ${table} ${where} ORDER BY ${keyed.join(', ')} LIMIT $${after ? key.length + 1 : 1}`;
}

/** Rows copied in, those present already skipped (meta is overwritten). */
export function importBulk(table: CopyTable): BulkInsert {
  const { columns, key } = copySpec(table);
  return {
    into: `${table} (${columns.join(', ')})`,
    types: columns.map((c) => columnType(table, c)),
    tail: table === 'meta' ? 'ON CONFLICT (key) DO UPDATE SET value = excluded.value' : `ON CONFLICT (${key.join(', ')}) DO NOTHING`,
  };
}

export function countSql(table: CopyTable): string {
  copySpec(table);
  return `SELECT count(*) AS n FROM ${table}`;
}

/** The key of a row, in the table's key order. */
export function keyOf(table: CopyTable, row: CopyRow): CopyKey {
  return COPY_TABLES[table].key.map((column) => {
    const value = row[column];
    if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`${table}.${column} is not a key value`);
    return value;
  });
}

/** A column value as both backends hand it to a copy: flags 0/1, bytes as a Buffer. */
export function copyValue(value: unknown): CopyValue {
  if (value === null || typeof value === 'string' || typeof value === 'number' || Buffer.isBuffer(value)) return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint' && value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER) return Number(value);
  throw new Error(`a stored value of type ${typeof value} cannot be copied`);
}

/** A copy_progress row as either backend returns it. */
export function toCopyProgress(r: Record<string, unknown>): CopyProgress {
  const table = String(r.table_name);
  if (!Object.hasOwn(COPY_TABLES, table)) throw new Error(`copy_progress names an unknown table '${table.slice(0, 40)}'`);
  const after = typeof r.after_key === 'string' ? JSON.parse(r.after_key) as CopyKey : undefined;
  return { table: table as CopyTable, source: String(r.source), after, rows: Number(r.rows), done: r.done === true || r.done === 1 };
}

/** Rows as read for a copy, in key order, with the cursor for the next chunk. */
export function toChunk(table: CopyTable, found: readonly Row[]): TableChunk {
  const { columns } = copySpec(table);
  const rows = found.map((r): CopyRow => Object.fromEntries(columns.map((c) => [c, copyValue(r[c])])));
  const last = rows.at(-1);
  return { rows, last: last ? keyOf(table, last) : undefined };
}
