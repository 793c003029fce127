/**
 * kill -9 of the ingest process at seeded random points, a few times per backend (the long run
 * is `npm run chaos`, scripts/chaos.ts). After each kill the database is intact, holds exactly
 * what an uninterrupted run holds after some whole batch, never less than before the kill, and
 * a run let finish ends exactly where the uninterrupted run ends. FUELPRICE_TEST_SEED picks
 * other kill points.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { openStore } from '../../src/storage/open.ts';
import { postgresServerUrl } from '../helpers.ts';
import { type BackendName, type KillScenario, crashScenario, createDb, dumpOf, integrityProblems, killRounds, seededRandom } from './kill-harness.ts';
import { prepare } from './crash-feed.ts';

const SEED = Number(process.env.FUELPRICE_TEST_SEED ?? 20261123);
const PLAN: Record<BackendName, { kills: number; killsPerStep: number }> = {
  sqlite: { kills: 6, killsPerStep: 3 },
  postgres: { kills: 4, killsPerStep: 4 },
};
const backends: BackendName[] = postgresServerUrl() ? ['sqlite', 'postgres'] : ['sqlite'];

for (const backend of backends) {
  describe(`ingest killed with SIGKILL at random points on ${backend}`, () => {
    let scenario: KillScenario;
    before(async () => { scenario = await crashScenario(backend); });
    after(async () => scenario?.close());

    const { kills, killsPerStep } = PLAN[backend];
    test(`${kills} kills: intact, whole batches only, nothing lost, and the finished run equals an uninterrupted one (seed ${SEED})`, async () => {
      const figures = await killRounds(scenario, { backend, kills, killsPerStep, random: seededRandom(SEED) });
      assert.deepEqual(figures.problems, []);
      assert.deepEqual(
        { kills: figures.kills, integrityFailures: figures.integrityFailures, halfApplied: figures.halfApplied, wentBack: figures.wentBack, finalMismatches: figures.finalMismatches },
        { kills, integrityFailures: 0, halfApplied: 0, wentBack: 0, finalMismatches: 0 },
      );
    });

    if (backend === 'sqlite') {
      test('the checks can fail: half a batch matches no reference state, an orphan row is an integrity problem', async () => {
        const db = await createDb(backend);
        try {
          await prepare(db.url);
          const store = await openStore(db.url, { migrate: false });
          try {
            // A batch's stations without its prices: what a batch applied by halves would leave.
            await store.applyBatch({ stations: [{
              feed: 'crash', feedCode: 'C0', slug: 'crash-test-0', name: 'Crash Test 0', brand: 'Ampol', address: '0 George Street, Sydney NSW 2000',
              street: '', suburb: 'Sydney', postcode: '2000', state: 'nsw', phone: '', website: '', latitude: -33.87, longitude: 151.2,
            }], prices: [] });
          } finally {
            await store.close();
          }
          assert.deepEqual(await integrityProblems(db.url), []);
          assert.equal(scenario.references.indexOf(await dumpOf(db.url)), -1);
          const raw = new Database(db.url.slice('sqlite:'.length));
          try {
            raw.prepare('INSERT INTO price_events (station_key, fuel, at, price_tenths, available) VALUES (999999, 0, 1, 1800, 1)').run();
          } finally {
            raw.close();
          }
          assert.deepEqual(await integrityProblems(db.url), ['1 price events of no station']);
        } finally {
          await db.drop();
        }
      });
    }
  });
}
