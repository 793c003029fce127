import type { Config } from '../config.ts';
import { parseCommand } from './args.ts';
import { openDatabase } from './database.ts';
import { COMMANDS } from './spec.ts';
import { maskSecrets } from '../secrets.ts';

export async function migrateCommand(config: Config, args: string[]): Promise<number> {
  parseCommand(COMMANDS.migrate, args);
  const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL', createFolder: true });
  await store.close();
  process.stderr.write(`Schema is up to date (${maskSecrets(config.databaseUrl)}).\n`);
  return 0;
}
