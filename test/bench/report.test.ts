import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  BARE_FASTIFY, RESULTS_HAND_WRITTEN, type Row, TABLE_HEADERS, accessLineRowName, groupsOf, markdownTable, shippedRowName, tableCells, whyNotMet, withHandWritten,
} from '../../bench/report.ts';

/** A request-rate row of the bench, met unless said otherwise. */
function row(fields: Partial<Row> & Pick<Row, 'group' | 'name'>): Row {
  return { a: 'server, cache off, au-10y', b: 'ceiling (same bytes, bare node:http)', unit: 'req/s', aValue: 1000, bValue: 2000, target: 'req ≥0.60', met: true, ...fields };
}

const FLOOR_HOOKS = row({ group: 'floor', name: 'fixed bytes through every hook', ratio: 0.46, aCpuUs: 62, bCpuUs: 27, target: '', met: undefined });
const FLOOR_BARE = row({ group: 'floor', name: 'bare Fastify', a: BARE_FASTIFY, ratio: 0.92, aCpuUs: 34, bCpuUs: 27, target: '', met: undefined });

describe('bench report: targets not met, by how much and why', () => {
  test('nothing to say when every target is met', () => {
    assert.deepEqual(whyNotMet([row({ group: 'cached', name: '/v1/cities', ratio: 0.9, aCpuUs: 27, bCpuUs: 25 }), FLOOR_HOOKS]), []);
  });

  test('cached: the short rows, then the CPU per answer of each side (medians over the group)', () => {
    const lines = whyNotMet([
      row({ group: 'cached', name: '/v1/cities', ratio: 0.7, p99Ratio: 1.2, aCpuUs: 34, bCpuUs: 25, met: false }),
      row({ group: 'cached', name: '/v1/stations', ratio: 0.9, p99Ratio: 1.1, aCpuUs: 30, bCpuUs: 26 }),
      row({ group: 'cached', name: '/v1/cities/sydney', ratio: 0.85, p99Ratio: 1.6, aCpuUs: 28, bCpuUs: 23, met: false }),
    ]);
    assert.equal(lines.length, 1);
    assert.ok(lines[0]?.startsWith('**cached**: 2 of 3 rows short of it: `/v1/cities` 0.70 (p99 1.20), `/v1/cities/sydney` 0.85 (p99 1.60). '), lines[0]);
    assert.ok(lines[0]?.includes('the server spent 30.0 µs of CPU and the ceiling 25.0 µs: 5.0 µs more. '), lines[0]);
  });

  test('uncached: the floor measured beside it, and what each short route adds to it', () => {
    const lines = whyNotMet([
      row({ group: 'uncached', name: '/v1/cities', ratio: 0.22, aCpuUs: 150, bCpuUs: 27, met: false }),
      row({ group: 'uncached', name: '/v1/stations/{station}', ratio: 0.35, aCpuUs: 96.5, bCpuUs: 26, met: false }),
      row({ group: 'uncached', name: 'all-time', ratio: 0.69, aCpuUs: 5000, bCpuUs: 4000 }),
      FLOOR_HOOKS, FLOOR_BARE,
    ]);
    assert.equal(lines.length, 1);
    const line = lines[0] ?? '';
    assert.ok(line.startsWith('**uncached**: 2 of 3 rows short of it: `/v1/cities` 0.22, `/v1/stations/{station}` 0.35. '), line);
    assert.ok(line.includes(': 0.46 of the ceiling, 62.0 µs of CPU per answer against the ceiling\'s 27.0 µs; through bare Fastify (no hooks, no plugins) 0.92, 34.0 µs.'), line);
    assert.ok(line.includes('0.60 is out of reach before the route does any work of its own.'), line);
    assert.ok(line.endsWith('in CPU per answer: `/v1/cities` +88.0 µs, `/v1/stations/{station}` +34.5 µs.'), line);
  });

  test('uncached: a floor over 0.60 puts it on the routes; no floor run, says which group to run', () => {
    const over = whyNotMet([row({ group: 'uncached', name: '/v1/cities', ratio: 0.5, aCpuUs: 80, bCpuUs: 27, met: false }), { ...FLOOR_HOOKS, ratio: 0.65 }]);
    assert.ok(over[0]?.includes('The floor itself reached 0.60 in this run, at 2.30 times the ceiling\'s CPU per answer; the routes\' own work comes on top of it.'), over[0]);
    assert.ok(!over[0]?.includes('out of reach'), over[0]);
    const alone = whyNotMet([row({ group: 'uncached', name: '/v1/cities', ratio: 0.5, aCpuUs: 80, bCpuUs: 27, met: false })]);
    assert.deepEqual(alone, ['**uncached**: 1 of 1 row short of it: `/v1/cities` 0.50. The floor group (`--only floor`) was not run beside them: it is the measurement that explains these rows.']);
  });

  test('ingest: where the real path\'s time went against the bare loop', () => {
    const ingestRow = row({ group: 'ingest', name: '903,930 events', unit: 'events/s', aValue: 271_659, bValue: 964_908, ratio: 0.28, target: 'ratio ≥0.5, A ≥200,000/s', met: false });
    const split = { realEventsPerSec: 271_659, bareEventsPerSec: 964_908, ratio: 0.28, batchesSec: 2.6, sealSec: 0.8, bareSec: 0.9 };
    const line = whyNotMet([ingestRow], split)[0] ?? '';
    assert.ok(line.startsWith('**ingest**: 271,659 events/s, 0.28 of the bare loop\'s 964,908 (targets 0.50 and 200,000). '), line);
    assert.ok(line.includes('The real path took 3.40 s (median): its batches 2.60 s and the seal that works out the city means 0.80 s; the bare loop 0.90 s for the same rows. The batches alone take 2.89 times the loop:'), line);
    // Without the split (an older results file), the row is listed with its figures only.
    assert.deepEqual(whyNotMet([ingestRow]), ['**ingest**: `903,930 events` 0.28 against ratio ≥0.5, A ≥200,000/s. This run has no measurement of why; what was measured about it is in docs/PERFORMANCE.md.']);
  });

  test('shipped: each short row split into what the access line keeps and what the server without it reaches', () => {
    const shipped = (path: string, infoRatio: number, warnRatio: number, lineRatio: number): Row[] => [
      row({ group: 'shipped', name: shippedRowName(path, 'info'), path, ratio: infoRatio, p99Ratio: 1.4, aCpuUs: 29.4, bCpuUs: 21.5, target: 'req ≥0.90, p99 ≤1.5', met: infoRatio >= 0.9 }),
      row({ group: 'shipped', name: shippedRowName(path, 'warn'), path, ratio: warnRatio, aCpuUs: 22.8, bCpuUs: 21.1, target: '', met: undefined }),
      row({ group: 'shipped', name: accessLineRowName(path), path, ratio: lineRatio, aCpuUs: 29.5, bCpuUs: 23, target: '', met: undefined }),
    ];
    const lines = whyNotMet([...shipped('/v1/stations?state=vic', 0.85, 0.97, 0.88), ...shipped('/v1/cities/sydney/spread', 0.93, 0.95, 0.97)]);
    assert.deepEqual(lines, [
      '**shipped**: `/v1/stations?state=vic, fuelprice serve, LOG_LEVEL unset (info)` 0.85 (p99 1.40) against req ≥0.90, p99 ≤1.5. '
      + 'On `/v1/stations?state=vic`, 0.85 ≈ 0.88 × 0.97: the access line (info against warn, side by side) kept 0.88 of the rate, at 29.5 µs against 23.0 µs of CPU per answer '
      + '(6.5 µs for the line); without it (warn) the server reached 0.97 of the ceiling, at 22.8 µs against 21.1 µs: that part is the fast path\'s own cost, the cached group\'s shortfall.',
    ]);
    // A run without the side-by-side rows (an older results file) says which measurement is missing.
    const alone = whyNotMet(shipped('/v1/stations?state=vic', 0.85, 0.97, 0.88).slice(0, 1));
    assert.deepEqual(alone, ['**shipped**: `/v1/stations?state=vic, fuelprice serve, LOG_LEVEL unset (info)` 0.85 (p99 1.40) against req ≥0.90, p99 ≤1.5. '
      + 'This run did not measure info against warn beside them: the rows that split the shortfall between the access line and the rest are missing.']);
  });

  test('other groups: each short row with its figure and its target', () => {
    assert.deepEqual(whyNotMet([
      row({ group: 'offset', name: 'deep page', ratio: 0.6, target: 'cost ≤1.5×: req ≥0.67, p99 ≤1.5', met: false }),
      row({ group: 'memory', name: 'peak RSS', unit: 'MB', aValue: 209.4, bValue: undefined, target: '<200 MB', met: false }),
      row({ group: 'startup', name: 'serve', unit: 'ms', aValue: 700, target: '<1000 ms' }),
    ]), [
      '**offset**: `deep page` 0.60 against cost ≤1.5×: req ≥0.67, p99 ≤1.5. This run has no measurement of why; what was measured about it is in docs/PERFORMANCE.md.',
      '**memory**: `peak RSS` 209 MB against <200 MB. This run has no measurement of why; what was measured about it is in docs/PERFORMANCE.md.',
    ]);
  });
});

describe('bench report: the table', () => {
  test('one cell per header, CPU per answer to one decimal and blank where not measured', () => {
    const cells = tableCells(row({ group: 'uncached', name: '/v1/cities', aValue: 5926, bValue: 26_314, ratio: 0.2252, aP99Ms: 3.437, bP99Ms: 1.036, p99Ratio: 3.318, aCpuUs: 150.04, bCpuUs: 26.96 }));
    assert.equal(cells.length, TABLE_HEADERS.length);
    assert.deepEqual(cells, ['/v1/cities', '5,926', '26,314', '0.23', '3.437', '1.036', '3.32', '150', '27.0', 'req ≥0.60', 'yes']);
    assert.deepEqual(tableCells(row({ group: 'memory', name: 'peak', unit: 'MB', aValue: 160, bValue: undefined, target: '<200 MB' })).slice(7, 9), ['', '']);
  });

  test('a group gets a heading for each run of rows with the same A and B', () => {
    const rows = [
      row({ group: 'cached', name: '/v1/cities' }), row({ group: 'cached', name: '/v1/stations' }),
      row({ group: 'shipped', name: 'info', a: 'serve at info', b: 'ceiling' }), row({ group: 'shipped', name: 'warn', a: 'serve at warn', b: 'ceiling' }),
      row({ group: 'shipped', name: 'info against warn', a: 'serve at info', b: 'serve at warn' }),
    ];
    assert.deepEqual(groupsOf(rows).map((g) => [g.heading, g.rows.map((r) => r.name)]), [
      ['cached: A = server, cache off, au-10y, B = ceiling (same bytes, bare node:http)', ['/v1/cities', '/v1/stations']],
      ['shipped: A = serve at info, B = ceiling', ['info']],
      ['shipped: A = serve at warn, B = ceiling', ['warn']],
      ['shipped: A = serve at info, B = serve at warn', ['info against warn']],
    ]);
  });

  test('markdown: numbers right-aligned, words left-aligned', () => {
    const [head, rule] = markdownTable([]).split('\n');
    assert.equal(head, '| endpoint | A | B | ratio | p99 A ms | p99 B ms | p99 ratio | CPU µs A | CPU µs B | target | met? |');
    assert.equal(rule, '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|');
  });
});

describe('--write-results keeps what is written by hand', () => {
  test('the generated part is replaced; from the marker on, the previous page stays as it was', () => {
    const previous = `# Benchmark results\n\nold table\n\n${RESULTS_HAND_WRITTEN}\n\n## A step\n\nby hand\n`;
    assert.equal(withHandWritten('# Benchmark results\n\nnew table\n', previous),
      `# Benchmark results\n\nnew table\n\n${RESULTS_HAND_WRITTEN}\n\n## A step\n\nby hand\n`);
  });
  test('a page without the marker (or none at all) is replaced whole', () => {
    assert.equal(withHandWritten('new\n', 'old\n'), 'new\n');
    assert.equal(withHandWritten('new\n', ''), 'new\n');
  });
  test('bench/RESULTS.md carries the marker once', () => {
    const page = readFileSync(join(import.meta.dirname, '..', '..', 'bench', 'RESULTS.md'), 'utf8');
    assert.equal(page.split(RESULTS_HAND_WRITTEN).length, 2);
  });
});
