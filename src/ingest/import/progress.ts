/**
 * What an import says while it runs: on a terminal one line redrawn in place (a bar of bytes
 * read, rows and rows a second); elsewhere (logs, CI) a plain line every few seconds at most.
 * Each file ends with one summary line. The stream and the clock are injected for tests.
 */
import type { Rejection } from '../normalise.ts';

export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export interface ProgressState {
  bytesRead: number;
  totalBytes: number;
  rows: number;
  rejected: number;
}

/** How one file's import ended. */
export interface FileOutcome {
  format: string;
  file: string;
  status: 'imported' | 'already imported' | 'failed';
  /** Data rows of the file read by this run and the runs it resumed. */
  rows: number;
  /** Rows applied by an earlier, interrupted run and passed over by this one. */
  resumedAfter: number;
  stationsAdded: number;
  pricesAccepted: number;
  /** Reports the store had already (an earlier import, or the live feed). */
  pricesIgnored: number;
  pricesHeld: number;
  rejected: Rejection[];
  error: string | undefined;
}

/** Plain lines at most this often. */
export const PLAIN_INTERVAL_MS = 5_000;
/** The terminal line is redrawn at most this often. */
const TTY_INTERVAL_MS = 200;
const BAR_WIDTH = 20;

function percent(state: ProgressState): number {
  return state.totalBytes > 0 ? Math.min(100, Math.floor((state.bytesRead / state.totalBytes) * 100)) : 100;
}

/** `import nsw-history may.csv: 50% 120000 rows, 0 rejected` */
export function progressLine(label: string, state: ProgressState): string {
  return `${label}: ${percent(state)}% ${state.rows} rows, ${state.rejected} rejected`;
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The one line that closes a file: rows, accepted, already known, rejected by reason (most first). */
export function summaryLine(outcome: FileOutcome): string {
  const label = `import ${outcome.format} ${outcome.file}`;
  if (outcome.status === 'already imported') return `${label}: already imported (${count(outcome.rows, 'row')}), skipped (--restart reads it again)`;
  const parts = [count(outcome.rows, 'row')];
  if (outcome.resumedAfter > 0) parts.push(`resumed after ${outcome.resumedAfter}`);
  if (outcome.stationsAdded > 0) parts.push(`${count(outcome.stationsAdded, 'station')} added`);
  parts.push(`${outcome.pricesAccepted} accepted`, `${outcome.pricesIgnored} ignored as already known`);
  if (outcome.pricesHeld > 0) parts.push(`${outcome.pricesHeld} held until due`);
  const rejected = [...outcome.rejected].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  const total = rejected.reduce((sum, r) => sum + r.count, 0);
  parts.push(total === 0 ? '0 rejected' : `${total} rejected (${rejected.map((r) => `${r.count} ${r.reason}`).join('; ')})`);
  const head = outcome.status === 'failed' ? `${label}: FAILED: ${outcome.error ?? 'unknown error'}; so far` : `${label}:`;
  return `${head} ${parts.join(', ')}`;
}

export class ImportProgress {
  private readonly startedMs: number;
  private lastShownMs: number;
  private drawn = false;

  constructor(
    private readonly out: ProgressStream,
    private readonly nowMs: () => number,
    private readonly label: string,
  ) {
    this.startedMs = nowMs();
    this.lastShownMs = this.startedMs;
  }

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  update(state: ProgressState): void {
    const now = this.nowMs();
    if (now - this.lastShownMs < (this.tty ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS)) return;
    this.lastShownMs = now;
    if (!this.tty) {
      this.out.write(`${progressLine(this.label, state)}\n`);
      return;
    }
    const p = percent(state);
    const filled = Math.round((p / 100) * BAR_WIDTH);
    const seconds = Math.max(0.001, (now - this.startedMs) / 1000);
    const rate = Math.round(state.rows / seconds);
    this.out.write(`\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${p}% ${state.rows} rows ${rate} rows/s `);
    this.drawn = true;
  }

  /** A line of its own (a skipped file, say), ending the bar first on a terminal. */
  say(line: string): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
    this.out.write(`${line}\n`);
  }

  finish(outcome: FileOutcome): void {
    this.say(summaryLine(outcome));
  }
}
