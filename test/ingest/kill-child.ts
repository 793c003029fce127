/**
 * The process test/ingest/kill.test.ts and scripts/chaos.ts kill: the crash feed
 * (crash-feed.ts) run once against DATABASE_URL, resuming after its stored cursor. It writes
 * "ready" on stdout once the store is open, so the killer's random delay starts when batches
 * start, not while the process is still loading its modules.
 */
import { runFeed } from '../../src/ingest/runner.ts';
import { openStore } from '../../src/storage/open.ts';
import { NOW } from '../fixture.ts';
import { crashAdapter, silentLog } from './crash-feed.ts';

const store = await openStore(process.env.DATABASE_URL ?? '', { migrate: false });
process.stdout.write('ready\n');
try {
  const run = await runFeed({ store, adapter: crashAdapter, config: { url: '', credentials: {} }, clock: { now: () => NOW }, log: silentLog });
  if (run.error) throw new Error(run.error);
} finally {
  await store.close();
}
