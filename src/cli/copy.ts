import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import { CopyRefused, DEFAULT_CHUNK_ROWS, copyInstallation } from '../storage/copy.ts';
import type { BulkStore } from '../storage/store.ts';
import { UsageError, intOption, parseCommand } from './args.ts';
import { openDatabase } from './database.ts';
import { COMMANDS } from './spec.ts';

/** How long one of copy's statements may run on PostgreSQL: a count of 35 M rows on a busy server, not a request's read. */
export const COPY_STATEMENT_TIMEOUT_MS = 30 * 60 * 1000;
/** How long copy waits for a connection: a server still writing out what the copy wrote can take longer than a request's 5 s to answer. */
export const COPY_CONNECT_TIMEOUT_MS = 2 * 60 * 1000;
const COPY_TIMEOUTS = { statementTimeoutMs: COPY_STATEMENT_TIMEOUT_MS, connectTimeoutMs: COPY_CONNECT_TIMEOUT_MS };

/**
 * `fuelprice copy --from URL --to URL`: moves a whole installation between databases (either
 * backend to either), resumable by running it again, verified by counts and checksums.
 */
export async function copyCommand(_config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(COMMANDS.copy, args);
  if (values.from === undefined || values.to === undefined) throw new UsageError('copy needs --from URL and --to URL (sqlite:PATH or postgres://...)');
  const chunkRows = intOption(values['chunk-rows'], 'chunk-rows', 1, 100_000, DEFAULT_CHUNK_ROWS);
  const from = databaseName(values.from, '--from');
  const to = databaseName(values.to, '--to');
  if (from === to) throw new UsageError('--from and --to name the same database');
  if (from.startsWith('sqlite:') && !existsSync(from.slice('sqlite:'.length))) {
    throw new UsageError(`--from: there is no database file at ${from.slice('sqlite:'.length)}`);
  }

  // The check at the end counts and reads whole tables: at national scale (35 M rows) a count takes longer than a request's 5 s.
  const source = await openDatabase(values.from, { from: '--from', ...COPY_TIMEOUTS });
  let target: BulkStore | undefined;
  try {
    target = await openDatabase(values.to, { from: '--to', create: true, ...COPY_TIMEOUTS });
    const tty = process.stderr.isTTY === true;
    let lastTable = '';
    let lastShown = -1;
    let started = false;
    const result = await copyInstallation(source, target, {
      source: from,
      chunkRows,
      onProgress: ({ table, tableDone, tableTotal, done, total }) => {
        if (!started) {
          started = true;
          process.stderr.write(`Copying ${from} to ${to}...\n`);
        }
        const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
        if (tty) {
          const filled = Math.round(percent / 4);
          process.stderr.write(`\r  [${'#'.repeat(filled)}${'.'.repeat(25 - filled)}] ${String(percent).padStart(3)}%  ${table} ${tableDone}/${tableTotal}\x1b[K`);
        } else if (table !== lastTable || percent >= lastShown + 10) {
          lastTable = table;
          lastShown = percent;
          process.stderr.write(`  ${percent}%  ${table} ${tableDone}/${tableTotal}\n`);
        }
      },
    });
    if (tty) process.stderr.write('\n');
    process.stdout.write('TABLE            SOURCE ROWS  TARGET ROWS  CHECKSUM (SHA-256, first 16)  RESULT\n');
    for (const c of result.checks) {
      const sum = c.source.checksum === c.target.checksum ? c.source.checksum.slice(0, 16) : `${c.source.checksum.slice(0, 7)}!=${c.target.checksum.slice(0, 7)}`;
      process.stdout.write(`${c.table.padEnd(16)} ${String(c.sourceCount).padStart(11)}  ${String(c.targetCount).padStart(11)}  ${sum.padEnd(28)}  ${c.ok ? 'ok' : 'MISMATCH'}\n`);
    }
    process.stderr.write(result.ok
      ? `Copied and verified in ${result.seconds.toFixed(1)} s${result.resumed ? ' (resumed)' : ''}: ${result.inserted} rows written.\n`
      : 'fuelprice: the copy does not match its source (see MISMATCH above); was the source written to during the copy?\n');
    return result.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof CopyRefused) {
      process.stderr.write(`fuelprice: ${error.message}\n`);
      return 2;
    }
    throw error;
  } finally {
    await source.close();
    await target?.close();
  }
}

/** The database a URL names, password left out: how the target remembers its source. */
function databaseName(url: string, option: string): string {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '' || path === ':memory:') throw new UsageError(`${option} needs a database file, e.g. sqlite:./data/fuelprice.db`);
    return `sqlite:${resolve(path)}`;
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      const parsed = new URL(url);
      parsed.password = '';
      parsed.protocol = 'postgres:';
      return parsed.toString();
    } catch {
      throw new UsageError(`${option} is not a valid postgres:// URL`);
    }
  }
  throw new UsageError(`${option} must be sqlite:PATH or postgres://...`);
}
