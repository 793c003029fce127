import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { smallestFirst } from '../../src/domain/smallest.ts';

/** Keys as the rankings make them: whole numbers with many repeats (prices), and any finite doubles. */
const keys = fc.oneof(
  fc.array(fc.integer({ min: 0, max: 12 }), { maxLength: 300 }),
  fc.array(fc.double({ noNaN: true }).map((v) => v + 0), { maxLength: 300 }),
  // Already sorted, reversed and constant runs: the arrangements a simple quickselect is slow on.
  fc.integer({ min: 0, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
  fc.integer({ min: 0, max: 3000 }).map((n) => Array.from({ length: n }, (_, i) => n - i)),
  fc.integer({ min: 0, max: 3000 }).map((n) => new Array<number>(n).fill(7)),
);

test('the count smallest keys come first, sorted, as a full sort puts them; the rest follow, none smaller, none lost', () => {
  fc.assert(fc.property(keys, fc.nat({ max: 400 }), (values, count) => {
    const reference = Float64Array.from(values).sort();
    const work = Float64Array.from(values);
    const front = smallestFirst(work, count);
    const k = Math.min(count, values.length);
    assert.deepEqual([...front], [...reference.subarray(0, k)]);
    assert.equal(front.buffer, work.buffer);
    // The whole array holds the same keys, and every key after the front is at least its last.
    assert.deepEqual([...Float64Array.from(work).sort()], [...reference]);
    for (const rest of work.subarray(k)) assert.ok(k === 0 || rest >= (front[k - 1] as number));
  }), { numRuns: 2000 });
});

test('worked: the 3 smallest of 9, repeats kept; none asked, none given; more asked than there are, all sorted', () => {
  const work = Float64Array.from([5, 1, 9, 1, 7, 3, 8, 2, 6]);
  assert.deepEqual([...smallestFirst(work, 3)], [1, 1, 2]);
  assert.deepEqual([...smallestFirst(Float64Array.from([4, 2]), 0)], []);
  assert.deepEqual([...smallestFirst(Float64Array.from([4, -0.5, 2]), 10)], [-0.5, 2, 4]);
});
