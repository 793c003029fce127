/**
 * The stations of a batch, written inside the writer's transaction (writer.ts applyBatch): each
 * one added, updated, left as it is (the same fields, or fields a later history row gave), or
 * taking over the stored station of another code of its feed (StationInput.adopts); with its
 * city (the nearest of its state within 25 km), its id and the aliases its old ids leave
 * (docs/DATA.md "Ids").
 */
import type { StateId } from '../../domain/states.ts';
import { assignCity, slugify, uniqueSlug } from '../../domain/places.ts';
import type { StationInput } from '../store.ts';
import { type ReportedFields, fieldValues, sameFields, storedFields } from '../station-shape.ts';
import { type StoredStation, feedKey, storedCoordinates } from '../write-plan/batch-plan.ts';
import type { Connection } from './connection.ts';
import type { Row } from './dialect.ts';
import { INGEST_STATEMENTS as SQL } from './ingest-statements.ts';

/** A stored station as the writer knows it within a batch: as read, or as this batch wrote it (ReportedFields). */
export type KnownStation = StoredStation & ReportedFields & { namedAt: number | null };
/** A city's position, for the city a station is in. */
export type CityPoint = { id: string; latitude: number; longitude: number };

/** A stations row read by STATIONS_BY_FEED: its keys and place, and its fields (station-shape.ts). */
export function toKnown(r: Row): KnownStation {
  return {
    ...storedFields(r), key: Number(r.key), id: String(r.id), cityId: typeof r.city_id === 'string' ? r.city_id : null,
    namedAt: r.named_at === null || r.named_at === undefined ? null : Number(r.named_at),
  };
}

/** The fields a NSW history station shows, in the order that breaks a tie of dates. */
function shownKey(s: Pick<StationInput, 'name' | 'brand' | 'address' | 'street' | 'suburb' | 'postcode' | 'state'>): string {
  return JSON.stringify([s.name, s.brand, s.address, s.street, s.suburb, s.postcode, s.state]);
}

/** Whether stored fields from a history row win over these (a later row's, or the same date's sorting after). */
function storedNamedLater(existing: KnownStation, input: StationInput): boolean {
  if (input.namedAt === undefined || existing.namedAt === null) return false;
  return existing.namedAt > input.namedAt || (existing.namedAt === input.namedAt && shownKey(existing) >= shownKey(input));
}

/** Writes one station of a batch and notes it in `known`; `cities` keeps each state's cities for the batch. */
export async function upsertStation(tx: Connection, input: StationInput, known: Map<string, KnownStation>, cities: Map<StateId, CityPoint[]>): Promise<'added' | 'updated' | 'same'> {
  const key = feedKey(input.feed, input.feedCode);
  const wanted = { ...input, ...storedCoordinates(input) };
  let existing = known.get(key);
  const adopted = existing === undefined && input.adopts !== undefined ? feedKey(input.feed, input.adopts) : undefined;
  if (adopted !== undefined && known.has(adopted)) {
    // The station stored under the adopted code becomes this one: same key, id and history, this code (docs/DATA.md).
    existing = known.get(adopted);
    known.delete(adopted);
    await tx.run(SQL.adoptStation, [input.feedCode, existing?.key]);
    // It takes the id the live station has when stored first; the id it had keeps answering (docs/DATA.md "Ids").
    if (existing) known.set(key, (existing = { ...existing, id: await takeId(tx, existing, input.slug) }));
  }
  if (existing && adopted === undefined) {
    if (storedNamedLater(existing, input)) return 'same';
    if (sameFields(existing, wanted)) {
      // The same fields from a later row: the date moves, so that an earlier row's other fields never win over them
      // (and a station of a database made before these rules takes the id of its fields: docs/DATA.md "Ids").
      if (input.namedAt !== undefined && existing.namedAt !== input.namedAt) {
        const id = await takeId(tx, existing, input.slug);
        await tx.run(SQL.stationNamedAt, [input.namedAt, existing.key]);
        known.set(key, { ...existing, id, namedAt: input.namedAt });
      }
      return 'same';
    }
  }
  let inState = cities.get(input.state);
  // The cities of a state, read once per batch: a batch does not change them.
  if (!inState) cities.set(input.state, (inState = (await tx.rows(SQL.citiesInState, [input.state])).map((r) => ({ id: String(r.id), latitude: Number(r.latitude), longitude: Number(r.longitude) }))));
  const cityId = assignCity(inState, wanted.latitude, wanted.longitude);
  const fields = [...fieldValues(wanted), cityId, input.namedAt ?? null];
  if (existing) {
    // A history station named by a later row takes the id of its name (docs/DATA.md "Ids").
    if (input.namedAt !== undefined && adopted === undefined) existing = { ...existing, id: await takeId(tx, existing, input.slug) };
    await tx.run(SQL.updateStation, [...fields, existing.key]);
    if (existing.cityId !== cityId || existing.state !== input.state) await tx.run(SQL.moveCurrentPrices, [cityId, input.state, existing.key]);
    known.set(key, { ...wanted, cityId, key: existing.key, id: existing.id, namedAt: input.namedAt ?? null });
    return 'updated';
  }
  const taken = await takenIds(tx, input.slug);
  const id = uniqueSlug(input.slug, (candidate) => taken.has(candidate));
  const inserted = await tx.row(SQL.insertStation, [...fields, id, input.feed, input.feedCode]);
  known.set(key, { ...wanted, key: Number(inserted?.key), id, cityId, namedAt: input.namedAt ?? null });
  return 'added';
}

/** The ids of the slug and its numbered forms that a station has or had, each with that station's key. */
async function takenIds(tx: Connection, slug: string): Promise<Map<string, number>> {
  const base = slugify(slug);
  return new Map((await tx.rows(SQL.takenIds, [base, `${base}-`, `${base}.`])).map((r) => [String(r.id), Number(r.station_key)]));
}

/**
 * A stored station takes the id of the slug (or its first free numbered form; its own ids count
 * as free): the id it had becomes its alias, and an alias of its own it takes back is one no more.
 */
async function takeId(tx: Connection, station: KnownStation, slug: string): Promise<string> {
  const taken = await takenIds(tx, slug);
  const id = uniqueSlug(slug, (candidate) => taken.has(candidate) && taken.get(candidate) !== station.key);
  if (id === station.id) return id;
  await tx.run(SQL.dropAlias, [id, station.key]);
  await tx.run(SQL.renameStation, [id, station.key]);
  await tx.run(SQL.keepAlias, [station.id, station.key]);
  return id;
}
