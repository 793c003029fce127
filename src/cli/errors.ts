/**
 * Failures a command reports in one line that names its context: which setting (an environment
 * variable or an option) led where, and what went wrong there. Exit codes: 1 for what failed
 * when tried (a server out of reach, a port in use), 2 for a setting that cannot work as given.
 */

import { maskSecrets } from '../secrets.ts';

export class CommandError extends Error {
  constructor(message: string, readonly exitCode: 1 | 2) {
    super(message);
  }
}

/** The system's or the driver's code of an error (the first one's, for the AggregateError of a multi-address connect). */
function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors } = error as { code?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  return Array.isArray(errors) ? codeOf(errors[0]) : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** `127.0.0.1:5432` from a postgres:// URL, never its user or password. */
export function postgresAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'the address in it';
  }
}

/**
 * "cannot connect to PostgreSQL at 127.0.0.1:5999 (from DATABASE_URL): connection refused", or
 * undefined when the error is not about reaching the server (a failing migration, say).
 */
export function postgresConnectError(error: unknown, url: string, from: string): CommandError | undefined {
  const code = codeOf(error);
  const message = messageOf(error);
  let reason = code === undefined ? undefined : NETWORK_REASONS[code];
  // The server's own words for these name the user or the database, never a password.
  if (code !== undefined && /^(28|3D)/.test(code)) reason = message.slice(0, 200);
  if (/timeout/i.test(message) && /connect/i.test(message)) reason = 'timed out';
  if (reason === undefined) return undefined;
  return new CommandError(`cannot connect to PostgreSQL at ${postgresAddress(url)} (from ${from}): ${reason}`, 1);
}

const FILE_REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder',
  SQLITE_CANTOPEN: 'the file cannot be opened (a folder, or no permission?)',
  SQLITE_NOTADB: 'not a SQLite database',
  SQLITE_CORRUPT: 'the database file is corrupt',
  SQLITE_READONLY: 'the file is read-only',
  SQLITE_PERM: 'permission denied',
  SQLITE_BUSY: 'another process holds it locked',
};

/** "cannot open the SQLite database at /srv/x.db (from DATABASE_URL): permission denied", or undefined for other errors. */
export function sqliteOpenError(error: unknown, path: string, from: string): CommandError | undefined {
  const code = codeOf(error);
  if (code === undefined || !/^(E[A-Z]+|SQLITE_[A-Z_]+)$/.test(code)) return undefined;
  const reason = FILE_REASONS[code] ?? FILE_REASONS[code.replace(/^(SQLITE_[A-Z]+)_.*/, '$1')] ?? messageOf(error).slice(0, 200);
  return new CommandError(`cannot open the SQLite database at ${path} (from ${from}): ${reason}`, 1);
}

/**
 * A SQLite file that does not exist is a typo more often than a wish: only the commands that
 * create databases make one (migrate, demo, serve --demo or --create, copy's target).
 */
export function sqliteMissing(url: string, path: string, missingFolder: string | undefined, from: string, createHint: string): CommandError {
  const where = missingFolder === undefined ? `there is no database at ${path}` : `the folder ${missingFolder} does not exist`;
  return new CommandError(`${from} names ${maskSecrets(url)}, but ${where} (check the name, or create it with ${createHint})`, 2);
}

export interface ListenSettings {
  port: number;
  host: string;
  /** `--port`, `PORT`, or `default` (neither set: 8080). */
  portFrom: '--port' | 'PORT' | 'default';
  /** `--host` or `HOST`. */
  hostFrom: string;
}

/**
 * "port 8080 is in use (the default: neither --port nor PORT is set); choose a free port with
 * --port N or PORT=N", or undefined for other errors. Both ways are always named, whichever was used.
 */
export function listenError(error: unknown, listen: ListenSettings): CommandError | undefined {
  const from = listen.portFrom === 'default' ? 'the default: neither --port nor PORT is set' : `from ${listen.portFrom}`;
  const change = listen.portFrom === 'PORT' ? 'PORT=N or --port N' : '--port N or PORT=N';
  const tail = listen.portFrom === '--port' ? ' (--port wins over PORT)' : '';
  switch (codeOf(error)) {
    case 'EADDRINUSE':
      return new CommandError(`port ${listen.port} is in use (${from}); choose a free port with ${change}${tail}`, 1);
    case 'EACCES':
      return new CommandError(`port ${listen.port} needs privileges this process lacks (${from}); choose a port from 1024 up with ${change}${tail}`, 1);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new CommandError(`cannot listen on ${listen.host} (from ${listen.hostFrom}): not an address of this machine`, 1);
    default:
      return undefined;
  }
}
