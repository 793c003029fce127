/**
 * The pure parts of the real-traffic bench (traffic.ts): the users it models, the search for the
 * capacity (the offered rate of sessions a second at which p99 stays under the target), and the
 * report. test/bench/traffic.test.ts checks them.
 */
import { percentile } from './stats.ts';

/** Per dashboard session offered, the other users' work offered in the same second. */
export const MIX = {
  /** Home Assistant polls (a batch of 5 favourites, then cheapest near home) per dashboard session. */
  haPolls: 10,
  /** App sessions (cheapest near, then along a route on one session in four) per dashboard session. */
  apps: 2,
} as const;

/** A Home Assistant installation polls every 10 minutes. */
export const HA_INTERVAL_SEC = 600;

export interface StepResult {
  /** Dashboard sessions a second offered (and MIX's other users with them). */
  rate: number;
  /** Every request's latency in ms (an SSE stream's not included), and their statuses. */
  latenciesMs: number[];
  statuses: number[];
  /** Requests not answered within the step's drain (counted as failures, with connection errors: status 0). */
  unanswered: number;
  /** Longest event-loop stall seen by the server during the step (ms), when read. */
  stallMs?: number;
  /** Server RSS at the step's end (bytes, every process of it), when read. */
  rssBytes?: number;
}

export interface StepSummary {
  rate: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  errors5xx: number;
  unavailable503: number;
  unanswered: number;
  stallMs: number | undefined;
  rssMb: number | undefined;
  /** p99 under the target, no 5xx and nothing unanswered. */
  ok: boolean;
}

export function summarise(step: StepResult, targetP99Ms: number): StepSummary {
  const sorted = [...step.latenciesMs].sort((a, b) => a - b);
  const p99Ms = sorted.length === 0 ? Number.POSITIVE_INFINITY : percentile(sorted, 0.99);
  const errors5xx = step.statuses.filter((s) => s >= 500).length;
  // A connection error (status 0) is a request that got no answer.
  const unanswered = step.unanswered + step.statuses.filter((s) => s === 0).length;
  return {
    rate: step.rate, requests: step.statuses.length, p50Ms: sorted.length === 0 ? Number.NaN : percentile(sorted, 0.5), p99Ms,
    errors5xx, unavailable503: step.statuses.filter((s) => s === 503).length, unanswered,
    stallMs: step.stallMs, rssMb: step.rssBytes === undefined ? undefined : step.rssBytes / 1048576,
    ok: p99Ms < targetP99Ms && errors5xx === 0 && unanswered === 0,
  };
}

export interface SearchOptions {
  start: number;
  max: number;
  /** The lowest rate tried: below it the capacity is reported as none. */
  min: number;
  /** Bisections once a passing rate lies below a failing one. */
  refinements: number;
}

/**
 * The next rate to offer, from the steps so far (in the order run), or undefined once the capacity
 * is found: from `start`, doubling while every step passes (up to `max`) or halving while every
 * step fails (down to `min`); then, once a passing rate lies below a failing one, bisecting
 * between the highest such pass and the lowest failure `refinements` times.
 */
export function nextRate(steps: readonly Pick<StepSummary, 'rate' | 'ok'>[], options: SearchOptions): number | undefined {
  if (steps.length === 0) return options.start;
  const failing = steps.filter((s) => !s.ok).map((s) => s.rate);
  const passing = steps.filter((s) => s.ok).map((s) => s.rate);
  if (failing.length === 0) {
    const last = Math.max(...passing);
    return last >= options.max ? undefined : Math.min(options.max, last * 2);
  }
  const high = Math.min(...failing);
  const below = passing.filter((r) => r < high);
  if (below.length === 0) {
    const lower = Math.round((high / 2) * 100) / 100;
    return lower < options.min ? undefined : lower;
  }
  // Steps run since the first pass below a failure made the bracket.
  const bracketed = steps.findIndex((_, i) => {
    const before = steps.slice(0, i + 1);
    const worst = Math.min(...before.filter((b) => !b.ok).map((b) => b.rate));
    return Number.isFinite(worst) && before.some((b) => b.ok && b.rate < worst);
  });
  if (steps.length - bracketed - 1 >= options.refinements) return undefined;
  const low = Math.max(...below);
  const mid = Math.round(((low + high) / 2) * 100) / 100;
  return mid <= low || mid >= high ? undefined : mid;
}

/** The capacity: the highest rate that passed below every failing rate (0 if none passed). */
export function capacityOf(steps: readonly Pick<StepSummary, 'rate' | 'ok'>[]): number {
  const failing = Math.min(...steps.filter((s) => !s.ok).map((s) => s.rate));
  return Math.max(0, ...steps.filter((s) => s.ok && s.rate < failing).map((s) => s.rate));
}

/** The capacity in users: Home Assistant installations carried (each polling every 10 minutes) and dashboard sessions a minute. */
export function inUsers(capacity: number): { haInstallations: number; dashboardSessionsPerMinute: number } {
  return { haInstallations: Math.floor(capacity * MIX.haPolls * HA_INTERVAL_SEC), dashboardSessionsPerMinute: Math.floor(capacity * 60) };
}

const fixed = (value: number | undefined, digits = 0): string => (value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits));

/** A Markdown table of the steps, then the capacity and what it means in users. */
export function reportTable(title: string, search: readonly StepSummary[], checks: readonly StepSummary[]): string {
  const row = (s: StepSummary, what: string): string =>
    `| ${what} | ${fixed(s.rate, 2)} | ${s.requests} | ${fixed(s.p50Ms, 1)} | ${fixed(s.p99Ms, 1)} | ${s.errors5xx} | ${s.unavailable503} | ${s.unanswered} | ${fixed(s.stallMs)} | ${fixed(s.rssMb)} | ${s.ok ? 'yes' : 'no'} |`;
  const capacity = capacityOf(search);
  const users = inUsers(capacity);
  const atCapacity = checks.find((c) => c.rate === capacity);
  const confirmed = atCapacity === undefined ? '' : atCapacity.ok
    ? ' Confirmed: the run again at 100% passed.'
    : ' NOT confirmed: the run again at 100% failed, so the pass that found it was within this machine\'s noise.';
  return [
    `### ${title}`,
    '',
    '| step | dashboard sessions/s | requests | p50 ms | p99 ms | 5xx | 503 | unanswered | longest stall ms | RSS MB | p99 < target, no 5xx |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...search.map((s) => row(s, 'search')),
    ...checks.map((s) => row(s, `${Math.round((s.rate / (capacity || 1)) * 100)}% of capacity`)),
    '',
    `capacity: ${fixed(capacity, 2)} dashboard sessions a second with ${MIX.haPolls} Home Assistant polls and ${MIX.apps} app sessions each `
      + `(p99 under target); in users: ${users.haInstallations} Home Assistant installations polling every 10 minutes and `
      + `${users.dashboardSessionsPerMinute} dashboard sessions a minute.${capacity > 0 ? confirmed : ''}`,
  ].join('\n');
}
