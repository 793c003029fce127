import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { openStore } from '../storage/open.ts';
import type { Migration, PriceStore } from '../storage/store.ts';
import { postgresConnectError, sqliteMissing, sqliteOpenError } from './errors.ts';

export interface OpenOptions {
  /** The setting the URL came from, as messages name it: `DATABASE_URL`, `--to`. */
  from: string;
  /**
   * Make a SQLite database that does not exist, its folder too (migrate, demo, serve --demo or
   * --create, copy's target); otherwise a missing file is an error, as it is most often a
   * mistyped name, and opening it would make a new, empty database.
   */
  create?: boolean;
  /** How to make it, for the error when it is missing: `fuelprice migrate` by default. */
  createHint?: string;
  /** false: the schema is known to be current (serve's workers, after their primary). */
  migrate?: boolean;
  /** Told what the migration did (the schema version found and the one left). */
  onMigrated?: (migration: Migration) => void;
  /** PostgreSQL: how long a statement may run before the server cancels it (the pool's 5 s unless told). */
  statementTimeoutMs?: number;
  /** PostgreSQL: how long to wait for a connection (5 s unless told). */
  connectTimeoutMs?: number;
}

/** The SQLite file a sqlite: URL names, absolute; undefined for :memory: and postgres://. */
export function sqlitePath(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  return path === '' || path === ':memory:' ? undefined : resolve(path);
}

function parentIsFile(path: string): boolean {
  try {
    return !statSync(dirname(path)).isDirectory();
  } catch {
    return false;
  }
}

/** openStore, with failures that say which setting named which database and what went wrong there. */
export async function openDatabase(url: string, options: OpenOptions): Promise<PriceStore> {
  const path = sqlitePath(url);
  // (A parent that is a file is left to the open, whose error says so.)
  if (path !== undefined && !options.create && !existsSync(path) && !parentIsFile(path)) {
    throw sqliteMissing(url, path, existsSync(dirname(path)) ? undefined : dirname(path), options.from, options.createHint ?? '`fuelprice migrate`');
  }
  try {
    return await openStore(url, {
      migrate: options.migrate ?? true,
      ...(options.onMigrated ? { onMigrated: options.onMigrated } : {}),
      ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    });
  } catch (error) {
    const explained = path === undefined
      ? (url.startsWith('sqlite:') ? undefined : postgresConnectError(error, url, options.from))
      : sqliteOpenError(error, path, options.from);
    throw explained ?? error;
  }
}
