import { ConfigError, loadConfig } from './config.ts';
import { UsageError } from './cli/args.ts';

export const USAGE = `Usage: fuelprice <command> [options]

  serve [--port N] [--host H] [--workers N] [--demo]   serve the API (--demo: fill an empty database with sample data)
  demo [--seed N] [--years N] [--scale small|au]       write the deterministic demo dataset into an empty database
  tokens create --name NAME [--expires-in 90d] [--rate-limit N]
  tokens list | tokens revoke ID
  ingest FEED... [--watch]                             pull live feeds: nsw qld sa wa vic nt, or all (--watch: keep polling)
  ingest status [--feed F] [--limit N]                 each feed's health and its recent runs
  import FORMAT FILE... [--restart]                    load history files: nsw-history, wa-history, qld-history (resumable)
  migrate                                              create or upgrade the schema
  copy --from URL --to URL [--chunk-rows N]            move a whole installation to another database (resumable, verified)

Environment: DATABASE_URL (sqlite:./data/fuelprice.db), PORT (8080), HOST (127.0.0.1), LOG_LEVEL (info),
FUELPRICE_NOW (fixed clock, ISO instant), REDIS_URL, and per-feed URLs and credentials (see README).`;

/** Runs one subcommand and returns its exit code: 0 done, 1 failed, 2 bad usage or configuration. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    }
    const config = loadConfig();
    // Each command's modules are loaded when it runs: a server start does not load the demo
    // generator, the importers or the copier.
    switch (command) {
      case 'serve': return await (await import('./cli/serve.ts')).serveCommand(config, rest);
      case 'demo': return await (await import('./cli/demo.ts')).demoCommand(config, rest);
      case 'tokens': return await (await import('./cli/tokens.ts')).tokensCommand(config, rest);
      case 'migrate': return await (await import('./cli/migrate.ts')).migrateCommand(config, rest);
      case 'copy': return await (await import('./cli/copy.ts')).copyCommand(config, rest);
      case 'ingest': return await (await import('./cli/ingest.ts')).ingestCommand(config, rest);
      case 'import': return await (await import('./cli/import.ts')).importCommand(config, rest);
      default:
        throw new UsageError(`unknown command '${command.slice(0, 40)}'`);
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      process.stderr.write(`fuelprice: ${error.message}\n`);
      if (error instanceof UsageError) process.stderr.write(`${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`fuelprice: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

