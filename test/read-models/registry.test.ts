/**
 * The registry of read models (src/read-models/registry.ts): every model declares its bound, and
 * the bound each one enforces is the one declared, checked by filling it past its bound.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { MAX_KEPT, MAX_KEPT_BYTES } from '../../src/derived/derived-answers.ts';
import { HistoryBlocks } from '../../src/derived/history-blocks.ts';
import { FUELS, type FuelId } from '../../src/domain/fuels.ts';
import { StationTexts } from '../../src/http/cache/station-texts.ts';
import { PerVersion } from '../../src/read-models/per-version.ts';
import { KeptStations, ReadModels } from '../../src/read-models/read-models.ts';
import { READ_MODELS } from '../../src/read-models/registry.ts';
import type { Station } from '../../src/storage/store.ts';
import { loadFixture } from '../fixture.ts';
import { testBackends } from '../helpers.ts';

const MB = 1024 * 1024;

describe('the registry of read models', () => {
  test('lists every model once, each with a file, its tables, what makes it stale, who builds it and a bound', () => {
    assert.deepEqual(Object.keys(READ_MODELS).sort(),
      ['areaPrices', 'derivedAnswers', 'fuelPrices', 'heldPrices', 'historyBlocks', 'pageStations', 'positions', 'recentDerived', 'stationTexts']);
    for (const [name, spec] of Object.entries(READ_MODELS)) {
      assert.match(spec.file, /^src\/.+\.ts$/, name);
      assert.ok(spec.tables.length > 0, name);
      assert.ok(spec.builtBy.length > 0, name);
      assert.ok(spec.bound.entries > 0, name);
    }
  });

  test('a PerVersion holder keeps at most its bound of keys, the least recently read out first', async () => {
    const kept = new PerVersion<string, string>(2);
    for (const key of ['a', 'b', 'c']) await kept.get(key, 1, async () => key);
    assert.equal(kept.size, 2);
    assert.equal(kept.peek('a', 1), undefined);
    assert.equal(await kept.peek('c', 1), 'c');
  });

  test('the page stations kept stop at their bound', () => {
    const kept = new KeptStations(2);
    const station = (id: string): Station => ({ id } as Station);
    kept.kept(7, []);
    kept.keep(7, [station('a'), station('b'), station('c')]);
    assert.equal(kept.size, 2);
    assert.deepEqual(kept.kept(7, ['a', 'b', 'c']).missing, ['c']);
  });

  test('station texts stop at 32 MB', async () => {
    assert.equal(READ_MODELS.stationTexts.bound.bytes, 32 * MB);
    const texts = new StationTexts();
    const ids = Array.from({ length: 40 }, (_, i) => `station-${String(i).padStart(2, '0')}`);
    const make = async (missing: readonly string[]) => new Map(missing.map((id) => [id, Buffer.alloc(MB, 'x')]));
    await texts.get(ids, 1, make);
    // The reference: each kept id costs its text, 128 bytes and its id as UTF-16, until the next would pass 32 MB.
    const each = MB + 128 + 'station-00'.length * 2;
    let remade = 0;
    await texts.get(ids, 1, async (missing) => { remade = missing.length; return make(missing); });
    assert.equal(ids.length - remade, Math.floor((32 * MB) / each));
  });

  test('history blocks stop at 16 MB', () => {
    assert.equal(READ_MODELS.historyBlocks.bound.bytes, 16 * MB);
    const blocks = new HistoryBlocks();
    for (let block = 0; block < 40; block++) blocks.set('sydney', block, 1, new Map<FuelId, Buffer>([['e10', Buffer.alloc(MB)]]));
    assert.equal(blocks.heldBytes, 16 * MB);
  });

  test('derived answers are bounded as declared', () => {
    assert.deepEqual([MAX_KEPT, MAX_KEPT_BYTES], [4096, 64 * MB]);
    assert.deepEqual([READ_MODELS.derivedAnswers.bound.entries, READ_MODELS.derivedAnswers.bound.bytes], [4096, 64 * MB]);
  });
});

for (const backend of testBackends()) {
  describe(`a thread's read models on ${backend.name}`, () => {
    const drops: Array<() => Promise<void>> = [];
    after(async () => { for (const drop of drops) await drop(); });

    test('each holder is bounded as the registry declares, and holds one value a key after every fuel was asked for', async () => {
      const created = await backend.create();
      drops.push(created.drop);
      await loadFixture(created.store);
      const models = new ReadModels(created.store);
      const version = await models.version();
      for (const fuel of FUELS) {
        await models.areaPrices(version, fuel);
        await models.fuelPrices(version, fuel);
      }
      await models.held(version);
      const kept = models.kept();
      for (const name of ['positions', 'fuelPrices', 'areaPrices', 'heldPrices', 'pageStations'] as const) {
        assert.equal(kept[name].bound, READ_MODELS[name].bound.entries, name);
        assert.ok(kept[name].size <= kept[name].bound, name);
      }
      assert.deepEqual([kept.positions.size, kept.fuelPrices.size, kept.areaPrices.size, kept.heldPrices.size], [1, FUELS.length, FUELS.length, 1]);
    });
  });
}
