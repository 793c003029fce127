/**
 * StationTexts (src/http/cache/station-texts.ts): each station's answer text kept for one data
 * version, made only for the ids not kept yet, never kept for an older version, up to its bytes;
 * and the batch's ETag from its stations' hashes (the reference written here from node:crypto).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { StationTexts, batchEtag } from '../../../src/http/cache/station-texts.ts';

/** Texts for the ids a "store" has (a, b, c), each naming its id and the round it was made in, and what was asked. */
function maker() {
  const asked: string[][] = [];
  let round = 0;
  const make = async (missing: readonly string[]) => {
    asked.push([...missing]);
    round++;
    return new Map(missing.filter((id) => ['a', 'b', 'c'].includes(id)).map((id) => [id, Buffer.from(`{"id":"${id}","round":${round}}`)]));
  };
  return { asked, make };
}

const sha = (text: Buffer) => createHash('sha256').update(text).digest();
const texts = (stations: ReadonlyArray<{ text: Buffer } | null>) => stations.map((s) => s?.text.toString() ?? null);

describe('StationTexts', () => {
  test('made once a version for the ids not kept, unknown ids kept as such; a new version starts again', async () => {
    const kept = new StationTexts();
    const { asked, make } = maker();
    const first = await kept.get(['a', 'x', 'b'], 1, make);
    assert.deepEqual(texts(first), ['{"id":"a","round":1}', null, '{"id":"b","round":1}']);
    assert.deepEqual(first.map((s) => s?.digest), first.map((s) => (s ? sha(s.text) : undefined)));
    assert.deepEqual(texts(await kept.get(['b', 'y', 'a', 'x'], 1, make)), ['{"id":"b","round":1}', null, '{"id":"a","round":1}', null]);
    assert.deepEqual(asked, [['a', 'x', 'b'], ['y']]);
    assert.deepEqual(texts(await kept.get(['a', 'c'], 2, make)), ['{"id":"a","round":3}', '{"id":"c","round":3}']);
    assert.deepEqual(asked.at(-1), ['a', 'c']);
  });

  test('an older version (a database restored from a backup) starts again too; texts made while the version moved are not kept', async () => {
    const kept = new StationTexts();
    const { asked, make } = maker();
    await kept.get(['a'], 5, make);
    assert.deepEqual(texts(await kept.get(['a', 'b'], 4, make)), ['{"id":"a","round":2}', '{"id":"b","round":2}']);
    assert.deepEqual(texts(await kept.get(['a', 'b'], 4, make)), ['{"id":"a","round":2}', '{"id":"b","round":2}']);
    // Version 5 again (the restored database written to since): nothing of the first version 5 is served.
    assert.deepEqual(texts(await kept.get(['a'], 5, make)), ['{"id":"a","round":3}']);
    // A request at 5 whose texts are made while one at 6 comes: answered, but not kept for 6.
    const slow = kept.get(['c'], 5, make);
    assert.deepEqual(texts(await kept.get(['b'], 6, make)), ['{"id":"b","round":5}']);
    assert.deepEqual(texts(await slow), ['{"id":"c","round":4}']);
    assert.deepEqual(texts(await kept.get(['b', 'c'], 6, make)), ['{"id":"b","round":5}', '{"id":"c","round":6}']);
    assert.deepEqual(asked, [['a'], ['a', 'b'], ['a'], ['c'], ['b'], ['c']]);
  });

  test('keeps no more than its bytes: past them, texts are made and answered, not kept', async () => {
    // Each entry counts 128 bytes, its id twice over, and its text (20 bytes here): 150; room for two.
    const kept = new StationTexts(300);
    const { asked, make } = maker();
    await kept.get(['a', 'b', 'c'], 1, make);
    assert.deepEqual(texts(await kept.get(['a', 'b', 'c'], 1, make)), ['{"id":"a","round":1}', '{"id":"b","round":1}', '{"id":"c","round":2}']);
    assert.deepEqual(asked, [['a', 'b', 'c'], ['c']]);
  });
});

test('the batch ETag: 27 characters of the base64url SHA-256 of its stations\' hashes in order and the rest of its text, quoted', () => {
  const a = { digest: sha(Buffer.from('one')) };
  const b = { digest: sha(Buffer.from('two')) };
  const rest = '],"unknown":["x"]}';
  const expected = `"${createHash('sha256').update(Buffer.concat([a.digest, b.digest, Buffer.from(rest)])).digest('base64url').slice(0, 27)}"`;
  assert.equal(batchEtag([a, b], rest), expected);
  assert.notEqual(batchEtag([b, a], rest), expected, 'order matters');
  assert.notEqual(batchEtag([a, b], '],"unknown":[]}'), expected, 'the unknown ids matter');
  assert.equal(batchEtag([a, {}], rest), undefined, 'a text made for the request has no hash: the answer\'s bytes are hashed instead');
});
