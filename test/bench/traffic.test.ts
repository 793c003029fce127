/** The real-traffic bench's pure parts (bench/traffic-report.ts): the capacity search, the summary of a step, the report. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type StepSummary, capacityOf, inUsers, nextRate, reportTable, summarise } from '../../bench/traffic-report.ts';

const options = { start: 1, max: 64, min: 0.05, refinements: 2 };

/** Runs the search against a server whose p99 passes up to `limit` sessions a second: the rates offered, in order. */
function search(limit: number): number[] {
  const steps: Array<{ rate: number; ok: boolean }> = [];
  for (let rate = nextRate(steps, options); rate !== undefined; rate = nextRate(steps, options)) steps.push({ rate, ok: rate <= limit });
  return steps.map((s) => s.rate);
}

describe('the capacity search', () => {
  test('doubles from the start while steps pass, then bisects twice between the last pass and the first failure', () => {
    assert.deepEqual(search(5), [1, 2, 4, 8, 6, 5]);
    assert.equal(capacityOf([1, 2, 4, 8, 6, 5].map((rate) => ({ rate, ok: rate <= 5 }))), 5);
    assert.deepEqual(search(13), [1, 2, 4, 8, 16, 12, 14]);
    assert.equal(capacityOf([1, 2, 4, 8, 16, 12, 14].map((rate) => ({ rate, ok: rate <= 13 }))), 12);
  });

  test('below the start it halves until a step passes, then bisects twice; under the minimum it stops; at the maximum too', () => {
    assert.deepEqual(search(0.3), [1, 0.5, 0.25, 0.38, 0.32]);
    assert.equal(capacityOf([1, 0.5, 0.25, 0.38, 0.32].map((rate) => ({ rate, ok: rate <= 0.3 }))), 0.25);
    assert.deepEqual(search(0.01), [1, 0.5, 0.25, 0.13, 0.07]);
    assert.equal(capacityOf([{ rate: 1, ok: false }, { rate: 0.5, ok: false }]), 0);
    assert.deepEqual(search(100), [1, 2, 4, 8, 16, 32, 64]);
  });

  test('a pass above a failure (noise) is not the capacity', () => {
    assert.equal(capacityOf([{ rate: 1, ok: true }, { rate: 2, ok: false }, { rate: 1.5, ok: true }, { rate: 4, ok: true }]), 1.5);
  });
});

describe('a step and the report', () => {
  test('p50 and p99 by nearest rank, 5xx and 503 counted, a connection error counted as unanswered and failing the step', () => {
    const latenciesMs = Array.from({ length: 200 }, (_, i) => i + 1); // 1..200 ms
    const statuses = [...Array.from({ length: 197 }, () => 200), 503, 500, 404];
    const s = summarise({ rate: 4, latenciesMs, statuses, unanswered: 0, stallMs: 12.5, rssBytes: 150 * 1048576 }, 100);
    assert.deepEqual(s, {
      rate: 4, requests: 200, p50Ms: 100, p99Ms: 198, errors5xx: 2, unavailable503: 1, unanswered: 0, stallMs: 12.5, rssMb: 150, ok: false,
    });
    const fast = summarise({ rate: 2, latenciesMs: [5, 6, 7], statuses: [200, 200, 0], unanswered: 1 }, 100);
    assert.deepEqual([fast.p99Ms, fast.unanswered, fast.ok], [7, 2, false]);
    assert.equal(summarise({ rate: 2, latenciesMs: [5, 6, 7], statuses: [200, 200, 200], unanswered: 0 }, 100).ok, true);
  });

  test('in users: each dashboard session a second is 60 a minute and carries 10 Home Assistant polls a second, 6,000 installations polling every 10 minutes', () => {
    assert.deepEqual(inUsers(2.5), { haInstallations: 15_000, dashboardSessionsPerMinute: 150 });
    assert.deepEqual(inUsers(0), { haInstallations: 0, dashboardSessionsPerMinute: 0 });
  });

  test('the table: a row per step, the checks labelled by their share of the capacity, the capacity in users', () => {
    const step = (rate: number, ok: boolean, p99Ms: number): StepSummary => ({
      rate, requests: 100, p50Ms: 3, p99Ms, errors5xx: 0, unavailable503: 0, unanswered: 0, stallMs: 20, rssMb: 140.4, ok,
    });
    const text = reportTable('SQLite', [step(1, true, 20), step(2, false, 150), step(1.5, true, 60)], [step(0.75, true, 10), step(1.5, true, 70)]);
    assert.equal(text, [
      '### SQLite',
      '',
      '| step | dashboard sessions/s | requests | p50 ms | p99 ms | 5xx | 503 | unanswered | longest stall ms | RSS MB | p99 < target, no 5xx |',
      '|---|---|---|---|---|---|---|---|---|---|---|',
      '| search | 1.00 | 100 | 3.0 | 20.0 | 0 | 0 | 0 | 20 | 140 | yes |',
      '| search | 2.00 | 100 | 3.0 | 150.0 | 0 | 0 | 0 | 20 | 140 | no |',
      '| search | 1.50 | 100 | 3.0 | 60.0 | 0 | 0 | 0 | 20 | 140 | yes |',
      '| 50% of capacity | 0.75 | 100 | 3.0 | 10.0 | 0 | 0 | 0 | 20 | 140 | yes |',
      '| 100% of capacity | 1.50 | 100 | 3.0 | 70.0 | 0 | 0 | 0 | 20 | 140 | yes |',
      '',
      'capacity: 1.50 dashboard sessions a second with 10 Home Assistant polls and 2 app sessions each (p99 under target); '
        + 'in users: 9000 Home Assistant installations polling every 10 minutes and 90 dashboard sessions a minute. Confirmed: the run again at 100% passed.',
    ].join('\n'));
    const unconfirmed = reportTable('SQLite', [step(1, true, 20), step(2, false, 150)], [step(0.5, true, 10), step(1, false, 170)]);
    assert.match(unconfirmed, /60 dashboard sessions a minute\. NOT confirmed: the run again at 100% failed/);
    assert.match(reportTable('SQLite', [step(1, false, 200)], []), /capacity: 0\.00 .* 0 dashboard sessions a minute\.$/);
  });
});
