import { existsSync } from 'node:fs';
import type { Config } from '../config.ts';
import { maskSecrets } from '../secrets.ts';
import type { Migration } from '../storage/store.ts';
import { parseCommand } from './args.ts';
import { openDatabase, sqlitePath } from './database.ts';
import { COMMANDS } from './spec.ts';

/** `fuelprice migrate`: creates or upgrades the schema, and says which it did (on stderr). */
export async function migrateCommand(config: Config, args: string[]): Promise<number> {
  parseCommand(COMMANDS.migrate, args);
  const path = sqlitePath(config.databaseUrl);
  const newFile = path !== undefined && !existsSync(path);
  let done: Migration | undefined;
  const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL', create: true, onMigrated: (m) => { done = m; } });
  await store.close();
  process.stderr.write(`${migrationSummary(maskSecrets(config.databaseUrl), done, newFile ? path : undefined)}\n`);
  return 0;
}

/** "Created …", "Upgraded … from version N to M." or "… already up to date (version N); nothing changed." */
export function migrationSummary(database: string, migration: Migration | undefined, newFile: string | undefined): string {
  if (migration === undefined) return `Opened ${database}.`;
  const { from, to } = migration;
  if (newFile !== undefined) return `Created a new database at ${newFile} (schema version ${to}).`;
  if (from === 0) return `Created the schema (version ${to}) in ${database}.`;
  if (from < to) return `Upgraded the schema of ${database} from version ${from} to ${to}.`;
  return `The schema of ${database} is already up to date (version ${to}); nothing changed.`;
}
