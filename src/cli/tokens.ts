import { formatInstant } from '../domain/time.ts';
import { type Config, clockFor } from '../config.ts';
import { newToken, parseDuration } from '../tokens.ts';
import { UsageError, intOption, parseCommand } from './args.ts';
import { openDatabase } from './database.ts';
import { COMMANDS } from './spec.ts';

export async function tokensCommand(config: Config, args: string[]): Promise<number> {
  const [action, ...rest] = args;
  const now = clockFor(config).now();
  if (action === 'create') {
    const { values } = parseCommand(COMMANDS['tokens create'], rest);
    const name = values.name?.trim();
    if (!name || name.length > 100) throw new UsageError('tokens create needs --name NAME (1 to 100 characters)');
    const expiresIn = values['expires-in'] === undefined ? undefined : parseDuration(values['expires-in']);
    if (values['expires-in'] !== undefined && expiresIn === undefined) throw new UsageError('--expires-in must look like 90d, 12h, 30m or 3600s');
    const rateLimit = values['rate-limit'] === undefined ? undefined : intOption(values['rate-limit'], 'rate-limit', 1, 1_000_000, 0);
    const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL' });
    try {
      const created = newToken(name, now, { ...(expiresIn === undefined ? {} : { expiresInSec: expiresIn }), ...(rateLimit === undefined ? {} : { rateLimit }) });
      await store.createToken(created.record);
      process.stdout.write(`${created.token}\n`);
      process.stderr.write(`Token ${created.record.id} '${name}' created; the secret is shown this once.\n`);
    } finally {
      await store.close();
    }
    return 0;
  }
  if (action === 'list') {
    parseCommand(COMMANDS['tokens list'], rest);
    const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL' });
    try {
      const tokens = await store.listTokens();
      const iso = (sec: number | null) => (sec === null ? '-' : formatInstant(sec));
      process.stdout.write('ID        NAME                 CREATED               EXPIRES               REVOKED               RATE/MIN\n');
      for (const t of tokens) {
        process.stdout.write(`${t.id}  ${t.name.padEnd(20).slice(0, 20)} ${iso(t.createdAt).padEnd(21)} ${iso(t.expiresAt).padEnd(21)} ${iso(t.revokedAt).padEnd(21)} ${t.rateLimit ?? 'default'}\n`);
      }
    } finally {
      await store.close();
    }
    return 0;
  }
  if (action === 'revoke') {
    const { positionals } = parseCommand(COMMANDS['tokens revoke'], rest);
    const id = positionals[0];
    if (!id || positionals.length > 1) throw new UsageError('tokens revoke needs exactly one token ID (see tokens list)');
    const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL' });
    try {
      if (!(await store.revokeToken(id, now))) {
        process.stderr.write(`fuelprice: no active token has the id '${id.slice(0, 40)}'\n`);
        return 1;
      }
      process.stderr.write(`Token ${id} revoked.\n`);
    } finally {
      await store.close();
    }
    return 0;
  }
  throw new UsageError(`tokens needs create, list or revoke${action ? `, not '${action.slice(0, 20)}'` : ''}`);
}
