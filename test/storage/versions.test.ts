import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VersionReuse } from '../../src/storage/versions.ts';

test('versions are read once per window, and afresh after a write through the same store', async () => {
  let reads = 0;
  const read = async () => ({ data: ++reads, tokens: 0 });
  const reuse = new VersionReuse(60_000);
  assert.deepEqual(await reuse.get(read), { data: 1, tokens: 0 });
  assert.deepEqual(await reuse.get(read), { data: 1, tokens: 0 });
  reuse.forget();
  assert.deepEqual(await reuse.get(read), { data: 2, tokens: 0 });
  const never = new VersionReuse(0);
  await never.get(read);
  await never.get(read);
  assert.equal(reads, 4);
});
