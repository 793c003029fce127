import type { Config } from '../config.ts';
import { openStore } from '../storage/open.ts';
import { parseOptions } from './args.ts';

export async function migrateCommand(config: Config, args: string[]): Promise<number> {
  parseOptions(args, {});
  const store = await openStore(config.databaseUrl);
  await store.close();
  process.stderr.write(`Schema is up to date (${config.databaseUrl}).\n`);
  return 0;
}
