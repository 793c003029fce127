import { resolve } from 'node:path';
import { ConfigError } from '../config.ts';
import { SqliteStore } from './sqlite/sqlite-store.ts';
import type { Migration, PriceStore } from './store.ts';

/**
 * The store named by DATABASE_URL, migrated and ready. `migrate: false` skips the migration for
 * a process whose parent has just migrated the same database (the workers of `serve --workers`).
 */
export async function openStore(
  databaseUrl: string,
  options: { migrate?: boolean; onMigrated?: (migration: Migration) => void; statementTimeoutMs?: number; connectTimeoutMs?: number } = {},
): Promise<PriceStore> {
  const migrate = options.migrate ?? true;
  if (databaseUrl.startsWith('sqlite:')) {
    const path = databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, e.g. sqlite:./data/fuelprice.db');
    const store = new SqliteStore(path === ':memory:' ? path : resolve(path));
    if (migrate) {
      // Migrated first, then told: `onMigrated?.(await …)` would skip the migration when no one listens.
      const done = await store.migrate();
      options.onMigrated?.(done);
    }
    return store;
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    // Loaded when asked for: loading pg would slow every start that does not use it.
    const { PostgresStore } = await import('./postgres/postgres-store.ts');
    // PostgreSQL cancels a statement after statementTimeoutMs, and a connection not had within connectTimeoutMs fails
    // (5 s each unless told: a request's); copy's whole-table reads, on a server busy with what it just wrote, need longer.
    const store = new PostgresStore({
      connectionString: databaseUrl,
      ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    });
    try {
      if (migrate) {
        const done = await store.migrate();
        options.onMigrated?.(done);
      }
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }
  throw new ConfigError('DATABASE_URL', 'must start with sqlite: or postgres://');
}
