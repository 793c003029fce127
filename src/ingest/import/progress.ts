/**
 * What an import says while it runs: on a terminal one line redrawn in place (one bar over all
 * the files of the command: bytes read, the file it is on, rows and rows a second); elsewhere
 * (logs, CI) a plain line every few seconds at most. Each file ends with one summary line, an
 * equation that accounts for every row it read, and a command of several files with the same
 * equation over all of them. The stream and the clock are injected for tests.
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
  /** Reports stored: new to the store. */
  pricesAccepted: number;
  /** Reports the store had already, byte for byte (an earlier import, or the live feed). */
  pricesIgnored: number;
  /** Same station, fuel and instant as a stored report with another price: the later row wins. */
  pricesCorrected: number;
  /** Dated after the clock: stored aside and applied once due. */
  pricesHeld: number;
  rejected: Rejection[];
  /** The line (a workbook's row number) of the first row rejected for each reason the file's rows were read with. */
  firstRejectedLine?: Readonly<Record<string, number>>;
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

function rejectedTotal(outcome: Pick<FileOutcome, 'rejected'>): number {
  return outcome.rejected.reduce((sum, r) => sum + r.count, 0);
}

/**
 * Every row this run read, accounted for: `read = stored + already known + corrected (+ held
 * until due) + rejected (by reason, most first)`.
 */
export function rowEquation(outcome: Omit<FileOutcome, 'format' | 'file' | 'status' | 'error'>): string {
  const at = (reason: string): string => {
    const line = outcome.firstRejectedLine?.[reason];
    return line === undefined || line === 0 ? '' : ` [first: line ${line}]`;
  };
  const read = outcome.rows - outcome.resumedAfter;
  const terms = [`${outcome.pricesAccepted} stored`, `${outcome.pricesIgnored} already known`, `${outcome.pricesCorrected} corrected`];
  if (outcome.pricesHeld > 0) terms.push(`${outcome.pricesHeld} held until due`);
  const rejected = [...outcome.rejected].sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
  const total = rejectedTotal(outcome);
  terms.push(total === 0 ? '0 rejected' : `${total} rejected (${rejected.map((r) => `${r.count} ${r.reason}${at(r.reason)}`).join('; ')})`);
  return `${count(read, 'row')} read = ${terms.join(' + ')}`;
}

/** Whether the equation adds up (it should, always; a summary that does not is a bug worth seeing). */
export function accountedFor(outcome: Omit<FileOutcome, 'format' | 'file' | 'status' | 'error'>): boolean {
  return outcome.rows - outcome.resumedAfter
    === outcome.pricesAccepted + outcome.pricesIgnored + outcome.pricesCorrected + outcome.pricesHeld + rejectedTotal(outcome);
}

function tail(outcome: FileOutcome): string {
  const parts: string[] = [];
  if (outcome.stationsAdded > 0) parts.push(`${count(outcome.stationsAdded, 'station')} added`);
  if (outcome.resumedAfter > 0) parts.push(`resumed after ${count(outcome.resumedAfter, 'row')}`);
  if (!accountedFor(outcome)) parts.push('THESE DO NOT ADD UP: please report it');
  return parts.map((p) => `; ${p}`).join('');
}

/** The one line that closes a file: every row read accounted for, then stations added and where it resumed. */
export function summaryLine(outcome: FileOutcome): string {
  const label = `import ${outcome.format} ${outcome.file}`;
  if (outcome.status === 'already imported') return `${label}: already imported (${count(outcome.rows, 'row')}), skipped (--restart reads it again)`;
  const head = outcome.status === 'failed' ? `${label}: FAILED: ${outcome.error ?? 'unknown error'}; so far` : `${label}:`;
  return `${head} ${rowEquation(outcome)}${tail(outcome)}`;
}

/** The files of one command added up: the same equation over all of them. */
export function totalOutcome(format: string, outcomes: readonly FileOutcome[]): FileOutcome {
  const read = outcomes.filter((o) => o.status !== 'already imported');
  const sum = (pick: (o: FileOutcome) => number): number => read.reduce((total, o) => total + pick(o), 0);
  const merged = new Map<string, Rejection>();
  for (const o of read) {
    for (const r of o.rejected) {
      const found = merged.get(r.reason);
      if (found) found.count += r.count;
      else merged.set(r.reason, { ...r });
    }
  }
  return {
    format, file: '', status: 'imported', rows: sum((o) => o.rows), resumedAfter: sum((o) => o.resumedAfter),
    stationsAdded: sum((o) => o.stationsAdded), pricesAccepted: sum((o) => o.pricesAccepted), pricesIgnored: sum((o) => o.pricesIgnored),
    pricesCorrected: sum((o) => o.pricesCorrected), pricesHeld: sum((o) => o.pricesHeld), rejected: [...merged.values()], error: undefined,
  };
}

/** `import nsw-history, 3 files (2 imported, 1 already imported): 150000 rows read = ...` */
export function totalLine(format: string, outcomes: readonly FileOutcome[]): string {
  const by = (status: FileOutcome['status']): number => outcomes.filter((o) => o.status === status).length;
  const states = [`${by('imported')} imported`];
  if (by('already imported') > 0) states.push(`${by('already imported')} already imported`);
  if (by('failed') > 0) states.push(`${by('failed')} failed`);
  const total = totalOutcome(format, outcomes);
  return `import ${format}, ${count(outcomes.length, 'file')} (${states.join(', ')}): ${rowEquation(total)}${tail(total)}`;
}

/** What an import reports while it runs (ImportProgress.file, or nothing). */
export interface ProgressSink {
  update(state: ProgressState): void;
  finish(outcome: FileOutcome): void;
}

/**
 * One display for a whole command: `file()` gives each file in turn a sink whose progress is
 * shown within the total of all the files' bytes, and whose summary is printed above the bar.
 */
export class ImportProgress {
  private readonly startedMs: number;
  private lastShownMs: number;
  private drawn = false;
  private doneBytes = 0;
  private doneRows = 0;
  private doneRejected = 0;
  private fileNumber = 0;
  private readonly outcomes: FileOutcome[] = [];

  /**
   * @param label what the lines start with (`import nsw-history a.xlsx`)
   * @param totalBytes the sizes of all the command's files added up (0: each file's own size)
   * @param fileCount how many files the command reads
   */
  constructor(
    private readonly out: ProgressStream,
    private readonly nowMs: () => number,
    private readonly label: string,
    private readonly totalBytes = 0,
    private readonly fileCount = 1,
  ) {
    this.startedMs = nowMs();
    this.lastShownMs = this.startedMs;
  }

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  /** The sink for the command's next file. */
  file(): ProgressSink {
    this.fileNumber++;
    let last: ProgressState = { bytesRead: 0, totalBytes: 0, rows: 0, rejected: 0 };
    return {
      update: (state) => {
        last = state;
        this.update(state);
      },
      finish: (outcome) => {
        this.doneBytes += last.totalBytes;
        this.doneRows += last.rows;
        this.doneRejected += last.rejected;
        this.finish(outcome);
      },
    };
  }

  /** Progress of the current file (a command of one file may use the display as its sink directly). */
  update(fileState: ProgressState): void {
    const state: ProgressState = {
      bytesRead: this.doneBytes + fileState.bytesRead,
      totalBytes: this.totalBytes > 0 ? this.totalBytes : fileState.totalBytes,
      rows: this.doneRows + fileState.rows,
      rejected: this.doneRejected + fileState.rejected,
    };
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
    const which = this.fileCount > 1 ? ` file ${Math.max(1, this.fileNumber)}/${this.fileCount}` : '';
    this.out.write(`\r${this.label} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${p}%${which} ${state.rows} rows ${rate} rows/s `);
    this.drawn = true;
  }

  /** A line of its own (a skipped file, say), ending the bar first on a terminal. */
  say(line: string): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
    this.out.write(`${line}\n`);
  }

  finish(outcome: FileOutcome): void {
    this.outcomes.push(outcome);
    this.say(summaryLine(outcome));
  }

  /** After the last file: the total line, when the command read more than one. */
  close(format: string): void {
    if (this.outcomes.length > 1) this.say(totalLine(format, this.outcomes));
  }
}
