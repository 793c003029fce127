/**
 * A station's shape, defined once. A feed reports a station's fields (StationFields), the
 * stations table keeps each in its column, and the store gives them back as a Station. Built
 * from STATION_FIELDS below, not written out again: the reads' column list and row mapper
 * (toStation), the writer's read of stored stations (storedFields), what counts as a change
 * (sameFields), the values of its insert and update (fieldValues; the statements are
 * sql/ingest-statements.ts's), the copied columns and their types (sql/copy-tables.ts), and
 * which fields the Normaliser takes as free text (STATION_TEXT_KEYS).
 *
 * A new station column: its line in Station and in STATION_FIELDS here, a migration on each
 * backend, its property in the API's StationSchema (src/schemas/api.ts), and the feed that
 * fills it (CONTRIBUTING.md "Add a station column").
 */
import { formatCoordinate } from '../domain/rounding.ts';
import type { StateId } from '../domain/states.ts';

/** A station as the store gives it (the API's StationSchema, src/schemas/api.ts). */
export interface Station {
  id: string;
  name: string;
  brand: string;
  address: string;
  street: string;
  suburb: string;
  postcode: string;
  state: StateId;
  phone: string;
  website: string;
  /** Decimal degrees as text, or false for a station whose source gives no position (never made up). */
  latitude: string | false;
  longitude: string | false;
}

/** A field the API shows as false for "no value" is stored as NULL. */
type Stored<T> = false extends T ? Exclude<T, false> | null : T;

/**
 * What a feed reports of a station and what is stored of it: a Station's fields but its id,
 * each "no value" (false) as NULL, and the coordinates as numbers (both null: no position).
 */
export type StationFields = { [K in Exclude<keyof Station, 'id' | 'latitude' | 'longitude'>]: Stored<Station[K]> }
  & { latitude: number | null; longitude: number | null };

/**
 * The fields a report may leave out, stored as NULL then: those of a nullable column (kind
 * optionalText), not the coordinates, which a report always gives (both null: no position).
 */
type OptionalKey = Exclude<{ [K in keyof StationFields]: null extends StationFields[K] ? K : never }[keyof StationFields], 'latitude' | 'longitude'>;

/** A station's fields as a report gives them (StationInput): every one, but those of a nullable column may be left out. */
export type ReportedFields = Omit<StationFields, OptionalKey> & Partial<Pick<StationFields, OptionalKey>>;

/** A row as either backend returns it (sql/dialect.ts Row). */
type StationRow = Readonly<Record<string, unknown>>;

/**
 * How a kind of field is kept: its column's type (PostgreSQL's name: a copy binds its arrays by
 * it), a row's value as stored (StationFields) and as shown (Station), and, for a field a feed
 * gives as free text, the value stored when the feed gives none (`absent`).
 */
interface Kind<Stored, Shown> {
  readonly type: string;
  stored(value: unknown): Stored;
  shown(value: unknown): Shown;
  readonly absent?: Stored;
}

const text: Kind<string, string> = { type: 'text', stored: String, shown: String, absent: '' };
/** Text that may be unknown: NULL, which the API shows as false (its "no value", as a coordinate's): the kind of a nullable text column. */
const optionalText: Kind<string | null, string | false> = {
  type: 'text',
  stored: (v) => (v === null || v === undefined ? null : text.stored(v)),
  shown: (v) => (v === null || v === undefined ? false : text.shown(v)),
  absent: null,
};
const state: Kind<StateId, StateId> = { type: 'text', stored: (v) => v as StateId, shown: (v) => v as StateId };
const coordinate: Kind<number | null, string | false> = {
  type: 'double precision',
  stored: (v) => (v === null || v === undefined ? null : Number(v)),
  shown: (v) => (v === null || v === undefined ? false : formatCoordinate(Number(v))),
};

/** The kinds a field may be of (a new kind goes here, with what it needs of the Normaliser). */
export const FIELD_KINDS = { text, optionalText, state, coordinate } as const;

/** Each field's column and kind, in column order (the order of the reads, the copies and the writes). */
export const STATION_FIELDS: { readonly [K in keyof StationFields]: { readonly column: string; readonly kind: Kind<StationFields[K], Station[K]> } } = {
  name: { column: 'name', kind: text },
  brand: { column: 'brand', kind: text },
  address: { column: 'address', kind: text },
  street: { column: 'street', kind: text },
  suburb: { column: 'suburb', kind: text },
  postcode: { column: 'postcode', kind: text },
  state: { column: 'state', kind: state },
  phone: { column: 'phone', kind: text },
  website: { column: 'website', kind: text },
  latitude: { column: 'latitude', kind: coordinate },
  longitude: { column: 'longitude', kind: coordinate },
};

type FieldKey = keyof StationFields;
type AnyField = { readonly column: string; readonly kind: Kind<unknown, unknown> };

/** Each field with its key, in column order. */
const FIELDS: ReadonlyArray<AnyField & { readonly key: FieldKey }> =
  (Object.keys(STATION_FIELDS) as FieldKey[]).map((key) => ({ key, ...(STATION_FIELDS[key] as AnyField) }));

/** The fields' columns, in order. */
export const STATION_FIELD_COLUMNS: readonly string[] = FIELDS.map((f) => f.column);

/** What a read of stations selects for toStation. */
export const STATION_SELECT = ['id', ...STATION_FIELD_COLUMNS].join(', ');

/** Each field's column type (PostgreSQL's name), by column. */
export const STATION_COLUMN_TYPES: Readonly<Record<string, string>> = Object.fromEntries(FIELDS.map((f) => [f.column, f.kind.type]));

/** A row of STATION_SELECT's columns as the store gives it. */
export function toStation(r: StationRow): Station {
  const station: Record<string, unknown> = { id: String(r.id) };
  for (const f of FIELDS) station[f.key] = f.kind.shown(r[f.column]);
  return station as unknown as Station;
}

/** A stored station's fields as the writer compares them with a report's (the row holds STATION_FIELD_COLUMNS). */
export function storedFields(r: StationRow): StationFields {
  const fields: Record<string, unknown> = {};
  for (const f of FIELDS) fields[f.key] = f.kind.stored(r[f.column]);
  return fields as unknown as StationFields;
}

/** True when a report's fields are those stored (coordinates rounded as stored; a field left out is NULL): it changes nothing. */
export function sameFields(stored: ReportedFields, reported: ReportedFields): boolean {
  for (const f of FIELDS) if ((stored[f.key] ?? null) !== (reported[f.key] ?? null)) return false;
  return true;
}

/** A report's fields in column order, as the writer binds them (a field left out: NULL). */
export function fieldValues(s: ReportedFields): unknown[] {
  return FIELDS.map((f) => s[f.key] ?? null);
}

/** The fields a feed gives as free text (all but the state and the coordinates), each optional in what a feed reports. */
export type StationTextKey = {
  [K in FieldKey]: StationFields[K] extends StateId ? never : StationFields[K] extends string | null ? K : never;
}[FieldKey];

/** Those fields' keys, each with the value stored when the feed gives none ('' ; null: left out of the report, so stored NULL). */
export const STATION_TEXT_KEYS: ReadonlyArray<{ key: StationTextKey; absent: string | null }> = FIELDS.flatMap((f) =>
  (f.kind.absent === undefined ? [] : [{ key: f.key as StationTextKey, absent: f.kind.absent as string | null }]));
