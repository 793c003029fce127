import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { openStore } from '../storage/open.ts';
import type { PriceStore } from '../storage/store.ts';
import { postgresConnectError, sqliteFolderMissing, sqliteOpenError } from './errors.ts';

export interface OpenOptions {
  /** The setting the URL came from, as messages name it: `DATABASE_URL`, `--to`. */
  from: string;
  /** Make a SQLite database's missing folder (migrate, demo, serve --demo, copy's target); otherwise it is an error. */
  createFolder?: boolean;
  /** false: the schema is known to be current (serve's workers, after their primary). */
  migrate?: boolean;
}

/** The SQLite file a sqlite: URL names, absolute; undefined for :memory: and postgres://. */
export function sqlitePath(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  return path === '' || path === ':memory:' ? undefined : resolve(path);
}

/** openStore, with failures that say which setting named which database and what went wrong there. */
export async function openDatabase(url: string, options: OpenOptions): Promise<PriceStore> {
  const path = sqlitePath(url);
  if (path !== undefined && !options.createFolder && !existsSync(dirname(path))) {
    throw sqliteFolderMissing(url, dirname(path), options.from);
  }
  try {
    return await openStore(url, { migrate: options.migrate ?? true });
  } catch (error) {
    const explained = path === undefined
      ? (url.startsWith('sqlite:') ? undefined : postgresConnectError(error, url, options.from))
      : sqliteOpenError(error, path, options.from);
    throw explained ?? error;
  }
}
