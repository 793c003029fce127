/**
 * The data version (storage/versions.ts newDataVersion): a random number, changed by every write
 * that changes an answer and never to the number it had. Everything keyed by it compares for
 * equality, so the property that matters is the one a count lacks: the same writes from the same
 * starting point (a database restored from a backup under a running server, then written to as
 * before) do not come back to the versions seen the first time.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CITIES, NOW, PRICES, STATIONS } from '../fixture.ts';
import { testBackends } from '../helpers.ts';
import { VersionReuse } from '../../src/storage/versions.ts';

for (const backend of testBackends()) {
  describe(`the data version on ${backend.name}`, () => {
    test('the same writes into two databases give other versions; each write changes it, a write of nothing does not', async () => {
      const runs: number[][] = [];
      for (let run = 0; run < 2; run++) {
        const { store, drop } = await backend.create();
        try {
          const seen = [await store.dataVersion()];
          await store.upsertCities(CITIES);
          seen.push(await store.dataVersion());
          await store.applyBatch({ stations: STATIONS, prices: [] });
          seen.push(await store.dataVersion());
          for (const price of PRICES) {
            await store.applyBatch({ stations: [], prices: [price] });
            seen.push(await store.dataVersion());
          }
          const last = seen.at(-1);
          await store.applyBatch({ stations: [], prices: PRICES.slice(0, 3) });
          assert.equal(await store.dataVersion(), last, 'reports already stored change nothing');
          await store.seal(NOW);
          seen.push(await store.dataVersion());
          for (let i = 1; i < seen.length; i++) assert.notEqual(seen[i], seen[i - 1], `write ${i} changed the version`);
          assert.equal(seen[0], 0, 'a new database starts at 0');
          for (const version of seen) assert.ok(Number.isSafeInteger(version) && version >= 0 && version <= 2 ** 48, String(version));
          runs.push(seen);
        } finally {
          await drop();
        }
      }
      const [first, second] = runs as [number[], number[]];
      assert.equal(first.length, second.length);
      // Past the common start, no version of the second history is one of the first's.
      const firstSeen = new Set(first.slice(1));
      assert.deepEqual(second.slice(1).filter((version) => firstSeen.has(version)), []);
    });
  });
}

describe('a versions reading reused for VERSION_REUSE_MS (VersionReuse)', () => {
  const reader = () => {
    let reads = 0;
    return { read: () => ({ data: ++reads, tokens: 1 }), reads: () => reads };
  };

  test('read once while it may be reused, at once again after forget(), and on every request with no reuse', async () => {
    const versions = reader();
    const reuse = new VersionReuse(60_000);
    assert.equal(reuse.peek(), undefined, 'nothing read yet');
    assert.deepEqual(reuse.getNow(versions.read), { data: 1, tokens: 1 });
    assert.deepEqual(reuse.getNow(versions.read), { data: 1, tokens: 1 });
    assert.deepEqual(await reuse.get(async () => versions.read()), { data: 1, tokens: 1 });
    assert.deepEqual(reuse.peek(), { data: 1, tokens: 1 });
    assert.equal(versions.reads(), 1);
    reuse.forget(); // a write through this store
    assert.equal(reuse.peek(), undefined);
    assert.deepEqual(reuse.getNow(versions.read), { data: 2, tokens: 1 });
    reuse.setReuseMs(0);
    assert.deepEqual(reuse.getNow(versions.read), { data: 3, tokens: 1 });
    assert.deepEqual(await reuse.get(async () => versions.read()), { data: 4, tokens: 1 });
    assert.equal(reuse.peek(), undefined);
  });

  test('a reading is not reused past its time', async () => {
    const versions = reader();
    const reuse = new VersionReuse(20);
    reuse.getNow(versions.read);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(reuse.peek(), undefined);
    assert.deepEqual(reuse.getNow(versions.read), { data: 2, tokens: 1 });
  });
});
