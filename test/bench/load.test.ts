import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Comparison, type LoadRun, type Round, mergeStarts, summarise } from '../../bench/load.ts';

const run = (requestsPerSec: number, p99Ms: number, non200 = 0): LoadRun => ({
  requests: 1000, seconds: 1, requestsPerSec, p50Ms: p99Ms / 2, p99Ms, non200, errors: 0, extended: false,
});
const round = (a: number, b: number, aCpuUs: number, bCpuUs: number, non200 = 0): Round => ({
  a: run(a, 2), b: run(b, 1.5, non200), requestsRatio: a / b, p99Ratio: 2 / 1.5, aCpuUs, bCpuUs,
});
const comparison = (rounds: Round[], failures: number): Comparison => ({
  a: { label: 'A', url: 'http://a', token: 't' }, b: { label: 'B', url: 'http://b', token: 't' }, rounds, median: summarise(rounds), failures,
});

describe('bench: comparisons from several starts of the same sides', () => {
  test('every round of every start, medians over all of them, failures summed', () => {
    const first = comparison([round(80, 100, 70, 50), round(90, 100, 66, 51)], 0);
    const second = comparison([round(70, 100, 75, 52), round(99, 100, 60, 49), round(85, 100, 68, 50, 3)], 3);
    const merged = mergeStarts([first, second]);
    assert.equal(merged.rounds.length, 5);
    assert.equal(merged.failures, 3);
    assert.equal(merged.a.label, 'A');
    // Medians worked out here: ratios 0.80, 0.90, 0.70, 0.99, 0.85 → 0.85; A's CPU 70, 66, 75, 60, 68 → 68.
    assert.equal(merged.median.requestsRatio, 0.85);
    assert.equal(merged.median.aCpuUs, 68);
    assert.equal(merged.median.bCpuUs, 50);
    assert.equal(merged.median.aRequestsPerSec, 85);
    // Not the median of the starts' medians (0.85 and 0.85 here would agree; these do not).
    const lopsided = mergeStarts([comparison([round(50, 100, 1, 1)], 0), comparison([round(90, 100, 1, 1), round(95, 100, 1, 1), round(99, 100, 1, 1)], 0)]);
    assert.equal(lopsided.median.requestsRatio, (0.9 + 0.95) / 2);
  });

  test('nothing to merge is an error, not an empty row', () => {
    assert.throws(() => mergeStarts([]), /no comparison/);
  });
});
