/**
 * The cities every installation serves: the 304 real towns of src/ingest/demo/towns.json
 * (GeoNames, CC BY 4.0; see TOWNS.md), the same list the demo uses. Live feeds and imports
 * need them before their first station arrives, so that each station is placed in its city.
 */
import type { IngestStore, ReadStore } from '../storage/store.ts';
import { TOWNS } from './demo/towns.ts';

/** Writes the towns when the database has no city yet; an installation's own cities are left alone. */
export async function ensureCities(store: IngestStore & Pick<ReadStore, 'listCities'>): Promise<boolean> {
  if ((await store.listCities({ state: undefined, limit: 1, offset: 0 })).total > 0) return false;
  await store.upsertCities(TOWNS.map((t) => ({ id: t.id, name: t.name, state: t.state, latitude: t.latitude, longitude: t.longitude })));
  return true;
}
