import { DEMO_FEED } from '../ingest/demo/stations.ts';
import type { IngestStore } from '../storage/store.ts';

/** Real prices never go into a demo database: its invented stations would sit among the real ones. */
export async function holdsDemo(store: Pick<IngestStore, 'feedStations'>): Promise<boolean> {
  if ((await store.feedStations(DEMO_FEED)).length === 0) return false;
  process.stderr.write('fuelprice: this database holds the demo dataset; point DATABASE_URL at a new database for real data '
    + '(e.g. DATABASE_URL=sqlite:./data/live.db).\n');
  return true;
}
