/**
 * What the bench reports: the rows (each a side-by-side figure with its target), the table on
 * stdout, bench/out/results.json, the latency-against-history chart (SVG drawn here, a few
 * lines) and bench/RESULTS.md.
 */
import { cpus, totalmem, type as osType, release } from 'node:os';
import { median } from './stats.ts';

export type Group = 'cached' | 'uncached' | 'find' | 'way' | 'shipped' | 'floor' | 'offset' | 'windows' | 'ingest' | 'startup' | 'memory' | 'postgres';

/** Every group, in the order the bench runs them and reports them. */
export const GROUPS: readonly Group[] = ['cached', 'uncached', 'find', 'way', 'shipped', 'floor', 'offset', 'windows', 'ingest', 'startup', 'memory', 'postgres'];
/** What `npm run bench` runs without --only: every group but postgres, which needs a PostgreSQL server (FUELPRICE_BENCH_POSTGRES). */
export const DEFAULT_GROUPS: readonly Group[] = GROUPS.filter((g) => g !== 'postgres');

export interface Row {
  group: Group;
  name: string;
  /** What A and B are, e.g. `server, cache on, au-10y` and `ceiling`. */
  a: string;
  b: string;
  unit: 'req/s' | 'events/s' | 'ms' | 'MB';
  aValue: number;
  bValue?: number;
  ratio?: number;
  aP99Ms?: number;
  bP99Ms?: number;
  p99Ratio?: number;
  /** CPU time (user + system) each side's process spent per answer, median over the rounds; NaN when not measured. */
  aCpuUs?: number;
  bCpuUs?: number;
  /** Empty for a figure shown for information only. */
  target: string;
  met: boolean | undefined;
  /** Non-200 answers or errors during its runs: the figure is not to be trusted. */
  failures?: number;
  /** The path measured, where the explanation of a short row pairs it with other rows of its group (shipped). */
  path?: string;
}

export interface Machine {
  os: string;
  cpuModel: string;
  cores: number;
  totalMemoryBytes: number;
  node: string;
}

export function machine(): Machine {
  const list = cpus();
  return { os: `${osType()} ${release()}`, cpuModel: list[0]?.model ?? 'unknown', cores: list.length, totalMemoryBytes: totalmem(), node: process.version };
}

export function describeMachine(m: Machine): string {
  return `${m.cpuModel}, ${m.cores} cores, ${(m.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB, ${m.os}, Node ${m.node}`;
}

/** Thousands separated, or fixed decimals below 100 (ratios, milliseconds). */
export function formatNumber(value: number | undefined, decimals = 2): string {
  if (value === undefined) return '';
  if (!Number.isFinite(value)) return 'n/a';
  return Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en-AU') : value.toFixed(decimals);
}

function withUnit(row: Row, value: number | undefined): string {
  if (value === undefined) return '';
  return row.unit === 'req/s' ? formatNumber(value) : `${formatNumber(value)} ${row.unit}`;
}

function metText(row: Row): string {
  if (row.failures) return `FAILED (${row.failures} errors)`;
  return row.met === undefined ? 'info' : row.met ? 'yes' : 'NO';
}

export const TABLE_HEADERS = ['endpoint', 'A', 'B', 'ratio', 'p99 A ms', 'p99 B ms', 'p99 ratio', 'CPU µs A', 'CPU µs B', 'target', 'met?'] as const;

/** Columns of words (left-aligned): the row's name, its target and whether it is met. */
const TEXT_COLUMNS: ReadonlySet<number> = new Set([0, TABLE_HEADERS.indexOf('target'), TABLE_HEADERS.indexOf('met?')]);

export function tableCells(row: Row): string[] {
  return [
    row.name, withUnit(row, row.aValue), withUnit(row, row.bValue), formatNumber(row.ratio), formatNumber(row.aP99Ms, 3),
    formatNumber(row.bP99Ms, 3), formatNumber(row.p99Ratio), formatNumber(row.aCpuUs, 1), formatNumber(row.bCpuUs, 1), row.target, metText(row),
  ];
}

/**
 * Groups in order, each with the one line saying what its A and B are: a group whose rows
 * compare different sides (shipped: each level against the ceiling, then the two levels) gets
 * a line for each run of rows with the same A and B.
 */
export function groupsOf(rows: readonly Row[]): Array<{ group: Group; heading: string; rows: Row[] }> {
  const out: Array<{ group: Group; heading: string; rows: Row[] }> = [];
  for (const row of rows) {
    const heading = `${row.group}: A = ${row.a}${row.b ? `, B = ${row.b}` : ''}`;
    let last = out[out.length - 1];
    if (!last || last.group !== row.group || last.heading !== heading) {
      last = { group: row.group, heading, rows: [] };
      out.push(last);
    }
    last.rows.push(row);
  }
  return out;
}

export function textTable(rows: readonly Row[]): string {
  const lines: string[] = [];
  const all = [[...TABLE_HEADERS], ...rows.map(tableCells)];
  const widths = TABLE_HEADERS.map((_, i) => Math.max(...all.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((cell, i) => (TEXT_COLUMNS.has(i) ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  lines.push(line(TABLE_HEADERS));
  for (const { heading, rows: inGroup } of groupsOf(rows)) {
    lines.push('', heading);
    for (const row of inGroup) lines.push(line(tableCells(row)));
  }
  return lines.join('\n');
}

export function markdownTable(rows: readonly Row[]): string {
  const lines = [`| ${TABLE_HEADERS.join(' | ')} |`, `|${TABLE_HEADERS.map((_, i) => (TEXT_COLUMNS.has(i) ? '---' : '---:')).join('|')}|`];
  for (const { heading, rows: inGroup } of groupsOf(rows)) {
    lines.push(`| **${heading}** |${' |'.repeat(TABLE_HEADERS.length - 1)}`);
    for (const row of inGroup) lines.push(`| ${tableCells(row).map((cell, i) => (i === 0 ? `\`${cell}\`` : cell).replaceAll('|', '\\|')).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** What the ingest comparison's medians say of where the real path's time goes. */
export interface IngestSplit {
  realEventsPerSec: number;
  bareEventsPerSec: number;
  ratio: number;
  batchesSec: number;
  sealSec: number;
  bareSec: number;
}

/** Side A's label in the floor row that goes through bare Fastify (the other floor row goes through every hook). */
export const BARE_FASTIFY = 'bare Fastify, same bytes';

/** The two log levels the shipped group runs `fuelprice serve` at: its default, and without access lines. */
export const SHIPPED_LEVELS = { info: 'LOG_LEVEL unset (info)', warn: 'LOG_LEVEL=warn' } as const;

/** A shipped row against the ceiling: `fuelprice serve` at one of its two log levels. */
export function shippedRowName(path: string, level: keyof typeof SHIPPED_LEVELS): string {
  return `${path}, fuelprice serve, ${SHIPPED_LEVELS[level]}`;
}

/** The shipped row that measures the access line itself: `fuelprice serve` at info against the same at warn, side by side. */
export function accessLineRowName(path: string): string {
  return `${path}, fuelprice serve, ${SHIPPED_LEVELS.info} against ${SHIPPED_LEVELS.warn}`;
}

/**
 * For each group with a target not met, by how much and the measurement of the same run that
 * says why: CPU time per answer against the ceiling's (cached), the floor of fixed bytes through
 * every hook and what each route adds to it (uncached), the access line's cost and the rest
 * (shipped), where the real path's time goes (ingest).
 * Groups without such a measurement are listed with their figures only.
 */
export function whyNotMet(rows: readonly Row[], ingest?: IngestSplit): string[] {
  const lines: string[] = [];
  const us = (value: number | undefined): string => `${formatNumber(value, 1)} µs`;
  const missed = (group: Group): Row[] => rows.filter((r) => r.group === group && r.met === false);
  const inGroup = (group: Group): Row[] => rows.filter((r) => r.group === group);
  const of = (part: readonly Row[], group: Group): string => {
    const all = inGroup(group).length;
    return `${part.length} of ${all} row${all === 1 ? '' : 's'}`;
  };
  const listed = (list: readonly Row[]): string => list.map((r) => `\`${r.name}\` ${formatNumber(r.ratio)}${r.p99Ratio !== undefined && r.group === 'cached' ? ` (p99 ${formatNumber(r.p99Ratio)})` : ''}`).join(', ');
  const midCpu = (list: readonly Row[], side: 'aCpuUs' | 'bCpuUs'): number => median(list.map((r) => r[side] ?? NaN).filter(Number.isFinite));

  const cached = missed('cached');
  if (cached.length > 0) {
    const all = inGroup('cached');
    const server = midCpu(all, 'aCpuUs');
    const ceiling = midCpu(all, 'bCpuUs');
    lines.push(`**cached**: ${of(cached, 'cached')} short of it: ${listed(cached)}. `
      + `Per answer (medians over the group's rows), the server spent ${us(server)} of CPU and the ceiling ${us(ceiling)}: `
      + `${us(server - ceiling)} more. What the server does beyond the ceiling is the fast path in front of Fastify (token, rate limit, versions, request id, headers), `
      + 'in a process that also holds the app, the data and the cache (its profile: bench/RESULTS.md). '
      + 'The load generator shares the two cores, so the ceiling\'s rate is largely the load generator\'s own limit, and whatever the server spends is taken from it.');
  }

  const uncached = missed('uncached');
  if (uncached.length > 0) {
    const floor = inGroup('floor');
    const hooks = floor.find((r) => r.a !== BARE_FASTIFY);
    const bare = floor.find((r) => r.a === BARE_FASTIFY);
    let text = `**uncached**: ${of(uncached, 'uncached')} short of it: ${listed(uncached)}.`;
    const floorUs = hooks?.aCpuUs;
    if (hooks?.ratio !== undefined && floorUs !== undefined && Number.isFinite(floorUs)) {
      text += ` The floor group answers fixed bytes through every hook of the app, with no storage read but the versions: ${formatNumber(hooks.ratio)} of the ceiling, `
        + `${us(floorUs)} of CPU per answer against the ceiling's ${us(hooks.bCpuUs)}`
        + (bare ? `; through bare Fastify (no hooks, no plugins) ${formatNumber(bare.ratio)}, ${us(bare.aCpuUs)}. ` : '. ')
        + (hooks.ratio < 0.6
          ? 'A route that also reads storage spends at least the floor\'s CPU per answer; where the ceiling sends its answer about as fast as the floor\'s (compare their B columns), 0.60 is out of reach before the route does any work of its own.'
          : `The floor itself reached 0.60 in this run, at ${formatNumber(floorUs / (hooks.bCpuUs ?? NaN))} times the ceiling's CPU per answer; the routes' own work comes on top of it.`)
        + ` What each short row's route adds to the floor (storage read, domain work, serialisation), in CPU per answer: `
        + uncached.map((r) => `\`${r.name}\` ${r.aCpuUs !== undefined && Number.isFinite(r.aCpuUs) ? `+${us(r.aCpuUs - floorUs)}` : 'n/a'}`).join(', ') + '.';
    } else {
      text += ' The floor group (`--only floor`) was not run beside them: it is the measurement that explains these rows.';
    }
    lines.push(text);
  }

  const shipped = missed('shipped');
  if (shipped.length > 0) {
    const byName = new Map(inGroup('shipped').map((r) => [r.name, r]));
    const perPath = shipped.map((r) => {
      const warn = r.path === undefined ? undefined : byName.get(shippedRowName(r.path, 'warn'));
      const line = r.path === undefined ? undefined : byName.get(accessLineRowName(r.path));
      if (warn?.ratio === undefined || line?.ratio === undefined) return undefined;
      return `On \`${r.path}\`, ${formatNumber(r.ratio)} ≈ ${formatNumber(line.ratio)} × ${formatNumber(warn.ratio)}: `
        + `the access line (info against warn, side by side) kept ${formatNumber(line.ratio)} of the rate, at ${us(line.aCpuUs)} against ${us(line.bCpuUs)} of CPU per answer `
        + `(${us((line.aCpuUs ?? NaN) - (line.bCpuUs ?? NaN))} for the line); without it (warn) the server reached ${formatNumber(warn.ratio)} of the ceiling, `
        + `at ${us(warn.aCpuUs)} against ${us(warn.bCpuUs)}: that part is the fast path's own cost, the cached group's shortfall.`;
    });
    lines.push(`**shipped**: ${shipped.map((r) => `\`${r.name}\` ${formatNumber(r.ratio)} (p99 ${formatNumber(r.p99Ratio)})`).join(', ')} against ${shipped[0]?.target}. `
      + (perPath.every((text) => text !== undefined)
        ? perPath.join(' ')
        : 'This run did not measure info against warn beside them: the rows that split the shortfall between the access line and the rest are missing.'));
  }

  const ingestRows = missed('ingest');
  if (ingestRows.length > 0 && ingest) {
    const totalSec = ingest.batchesSec + ingest.sealSec;
    lines.push(`**ingest**: ${formatNumber(ingest.realEventsPerSec)} events/s, ${formatNumber(ingest.ratio)} of the bare loop's ${formatNumber(ingest.bareEventsPerSec)} (targets 0.50 and 200,000). `
      + `The real path took ${formatNumber(totalSec)} s (median): its batches ${formatNumber(ingest.batchesSec)} s and the seal that works out the city means ${formatNumber(ingest.sealSec)} s; `
      + `the bare loop ${formatNumber(ingest.bareSec)} s for the same rows. The batches alone take ${formatNumber(ingest.batchesSec / ingest.bareSec)} times the loop: `
      + 'they write each report into price_events under its key and keep current_prices, station_daily and station_runs (and, through triggers, city_current) on every write, '
      + 'where the loop appends to one table with no key and no index. The loop\'s own rate shows how fast the machine was in this run.');
  }

  for (const group of GROUPS) {
    if (group === 'cached' || group === 'uncached' || group === 'shipped' || (group === 'ingest' && ingest)) continue;
    const short = missed(group);
    if (short.length > 0) {
      lines.push(`**${group}**: ${short.map((r) => `\`${r.name}\` ${r.ratio !== undefined ? formatNumber(r.ratio) : withUnit(r, r.aValue)} against ${r.target}`).join(', ')}. `
        + 'This run has no measurement of why; what was measured about it is in docs/PERFORMANCE.md.');
    }
  }
  return lines;
}

/** One measured point of the chart: a history query on a dataset of some length. */
export interface ChartPoint {
  query: string;
  dataset: string;
  years: number;
  p50Ms: number;
  p99Ms: number;
  /** False for a point from another scale (small beside au): drawn hollow and not joined. */
  sameScale: boolean;
}

/**
 * Ticks of a log axis covering [min, max]: 1, 2 and 5 times each power of ten, from the power
 * of ten at or below `min` to the first tick at or above `max`. Latencies here span four
 * decades (a cached station under a millisecond, ten years of city history near a second).
 */
export function logTicks(min: number, max: number): number[] {
  if (!(min > 0) || !(max >= min)) return [1];
  const ticks: number[] = [];
  for (let power = Math.floor(Math.log10(min)); ; power++) {
    for (const factor of [1, 2, 5]) {
      // toPrecision: 2 * 0.1 is 0.2 here, not 0.20000000000000004.
      const tick = Number((factor * 10 ** power).toPrecision(6));
      ticks.push(tick);
      if (tick >= max) return ticks;
    }
  }
}

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

/**
 * Latency (p50 solid, p99 dashed, log scale) of each query against history length in years.
 * Points of the same scale are joined; others are hollow circles.
 */
export function latencySvg(points: readonly ChartPoint[], title: string): string {
  const width = 760;
  const height = 440;
  const margin = { left: 64, right: 260, top: 44, bottom: 52 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const years = [...new Set(points.map((p) => p.years))].sort((x, y) => x - y);
  const maxYears = Math.max(1, ...years);
  const measured = points.flatMap((p) => [p.p50Ms, p.p99Ms]).filter((ms) => Number.isFinite(ms) && ms > 0);
  const ticks = logTicks(Math.min(...measured), Math.max(...measured));
  const low = Math.log10(ticks[0] ?? 1);
  const high = Math.max(low + 1, Math.log10(ticks[ticks.length - 1] ?? 10));
  const x = (yr: number): number => margin.left + (yr / maxYears) * plotW;
  const y = (ms: number): number => margin.top + plotH - ((Math.log10(ms) - low) / (high - low)) * plotH;
  const f = (n: number): string => n.toFixed(1);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${margin.left}" y="24" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  for (const ms of ticks) {
    out.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${f(y(ms))}" y2="${f(y(ms))}" stroke="#ddd"/>`,
      `<text x="${margin.left - 6}" y="${f(y(ms) + 4)}" text-anchor="end">${ms}</text>`);
  }
  for (const yr of years) {
    out.push(`<line x1="${f(x(yr))}" x2="${f(x(yr))}" y1="${margin.top + plotH}" y2="${margin.top + plotH + 5}" stroke="#333"/>`,
      `<text x="${f(x(yr))}" y="${margin.top + plotH + 18}" text-anchor="middle">${yr}</text>`);
  }
  out.push(`<line x1="${margin.left}" x2="${margin.left + plotW}" y1="${margin.top + plotH}" y2="${margin.top + plotH}" stroke="#333"/>`,
    `<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${margin.top + plotH}" stroke="#333"/>`,
    `<text x="${margin.left + plotW / 2}" y="${height - 12}" text-anchor="middle">history length (years)</text>`,
    `<text transform="translate(16 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">latency (ms, log scale)</text>`);

  const queries = [...new Set(points.map((p) => p.query))];
  queries.forEach((query, i) => {
    const colour = COLOURS[i % COLOURS.length] ?? '#000';
    const mine = points.filter((p) => p.query === query).sort((p, q) => p.years - q.years);
    for (const [key, dash] of [['p50Ms', ''], ['p99Ms', ' stroke-dasharray="6 4"']] as const) {
      const joined = mine.filter((p) => p.sameScale && p[key] > 0);
      if (joined.length > 1) {
        out.push(`<polyline fill="none" stroke="${colour}" stroke-width="2"${dash} points="${joined.map((p) => `${f(x(p.years))},${f(y(p[key]))}`).join(' ')}"/>`);
      }
      for (const p of mine.filter((q) => q[key] > 0)) {
        out.push(`<circle cx="${f(x(p.years))}" cy="${f(y(p[key]))}" r="3.5" stroke="${colour}" stroke-width="1.5" fill="${p.sameScale ? colour : 'white'}"><title>${escapeXml(`${query} on ${p.dataset}: ${key === 'p50Ms' ? 'p50' : 'p99'} ${p[key].toFixed(3)} ms`)}</title></circle>`);
      }
    }
    const ly = margin.top + 10 + i * 20;
    out.push(`<line x1="${width - margin.right + 16}" x2="${width - margin.right + 40}" y1="${ly}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${width - margin.right + 46}" y="${ly + 4}">${escapeXml(query)}</text>`);
  });
  const ly = margin.top + 20 + queries.length * 20;
  out.push(`<line x1="${width - margin.right + 16}" x2="${width - margin.right + 40}" y1="${ly}" y2="${ly}" stroke="#333" stroke-width="2"/>`,
    `<text x="${width - margin.right + 46}" y="${ly + 4}">p50</text>`,
    `<line x1="${width - margin.right + 16}" x2="${width - margin.right + 40}" y1="${ly + 20}" y2="${ly + 20}" stroke="#333" stroke-width="2" stroke-dasharray="6 4"/>`,
    `<text x="${width - margin.right + 46}" y="${ly + 24}">p99</text>`);
  if (points.some((p) => !p.sameScale)) {
    out.push(`<circle cx="${width - margin.right + 28}" cy="${ly + 40}" r="3.5" stroke="#333" stroke-width="1.5" fill="white"/>`,
      `<text x="${width - margin.right + 46}" y="${ly + 44}">small scale (fewer stations)</text>`);
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

export interface ResultsPage {
  date: string;
  command: string;
  machine: Machine;
  settings: string;
  durationSec: number;
  datasets: string[];
  rows: Row[];
  chartFile: string | undefined;
  chartNote: string;
  notes: string[];
  /** whyNotMet's lines for this run. */
  reasons: string[];
}

export function resultsMarkdown(page: ResultsPage): string {
  const met = page.rows.filter((r) => r.met === true && !r.failures).length;
  const judged = page.rows.filter((r) => r.met !== undefined).length;
  return [
    '# Benchmark results',
    '',
    `Generated by \`${page.command}\` on ${page.date} (the whole bench took ${page.durationSec.toFixed(0)} s). Regenerate with \`npm run bench -- --scale au --rounds 3 --write-results\`.`,
    '',
    `Machine: ${describeMachine(page.machine)}. Load generator (autocannon, in the bench process) and servers (each in its own process) share it, over loopback.`,
    '',
    'This machine is shared and noisy, so every figure is a **ratio of two things measured side by side in the same run**:',
    'A then B, then B then A, and so on (so that the machine\'s drift within a run falls on both alike), each run bounded by time and',
    'by a number of requests; the value shown for A and B is the median',
    'over the rounds, and each ratio is the median of the per-round ratios A/B (so it may differ a little from A÷B of the medians).',
    '"ceiling" is `bench/ceiling.ts`, a bare `node:http` server answering each path with the very bytes the real server answered',
    '(status, body and every header, the recorded X-Request-Id and RateLimit values included; node:http adds Date, Connection and',
    'Keep-Alive to both): what this machine and load generator allow at best. The load generator',
    'shares the two cores with the server under test, so the ceiling is largely the load generator\'s own limit.',
    '',
    `Settings: ${page.settings}.`,
    '',
    `Targets met: ${met} of ${judged}.${page.reasons.length > 0 ? ' By how much and why the others are not, from the measurements of this same run: below the table (what was tried, and how the figures move from run to run: docs/PERFORMANCE.md).' : ''}`,
    '',
    markdownTable(page.rows),
    '',
    'CPU µs: CPU time (user and system, all threads, from /proc) that the process of each side spent per answer, median over the rounds.',
    '',
    ...(page.reasons.length > 0 ? ['## Targets not met: by how much, and why', '', ...page.reasons.flatMap((r) => [r, '']).slice(0, -1), ''] : []),
    '## Datasets',
    '',
    ...page.datasets.map((d) => `- ${d}`),
    '',
    ...(page.chartFile ? ['## Latency against history length', '', `![latency against history length](${page.chartFile})`, '', page.chartNote, ''] : []),
    ...(page.notes.length > 0 ? ['## Notes', '', ...page.notes.map((n) => `- ${n}`), ''] : []),
  ].join('\n');
}

/** The line in bench/RESULTS.md below which everything is written by hand. */
export const RESULTS_HAND_WRITTEN = '<!-- Everything below is written by hand; `--write-results` keeps it (bench/run.ts). -->';

/** A run's generated page, followed by the previous page's hand-written part (from its marker on) when it has one. */
export function withHandWritten(page: string, previous: string): string {
  const at = previous.indexOf(RESULTS_HAND_WRITTEN);
  return at < 0 ? page : `${page.trimEnd()}\n\n${previous.slice(at)}`;
}
