import { ConfigError, loadConfig } from './config.ts';
import { UsageError, asksForHelp } from './cli/args.ts';
import { CommandError } from './cli/errors.ts';
import { commandHelp, overview, usageHint } from './cli/help.ts';
import { type CommandSpec, specFor } from './cli/spec.ts';
import { packageVersion } from './cli/version.ts';
import { maskSecrets } from './secrets.ts';

/**
 * Runs one subcommand and returns its exit code: 0 done, 1 failed, 2 bad usage or configuration.
 * Help and the version need no configuration: they answer even when the environment is wrong.
 */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    process.stderr.write(overview());
    return 2;
  }
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  if (command === '--help' || command === '-h' || (command === 'help' && (rest.length === 0 || asksForHelp(rest.slice(0, 1))))) {
    process.stdout.write(overview());
    return 0;
  }
  const helpFor = command === 'help' ? rest : undefined;
  const spec: CommandSpec | undefined = helpFor ? specFor(helpFor[0] ?? '', helpFor.slice(1)) : specFor(command, rest);
  try {
    const named = helpFor ? (helpFor[0] ?? '') : command;
    if (spec === undefined) throw new UsageError(`unknown command '${named.slice(0, 40)}'`);
    if (helpFor || asksForHelp(rest)) {
      process.stdout.write(commandHelp(spec));
      return 0;
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
      case 'backtest': return await (await import('./cli/backtest.ts')).backtestCommand(config, rest);
      default:
        throw new UsageError(`unknown command '${command.slice(0, 40)}'`);
    }
  } catch (error) {
    // Every failure's words pass through maskSecrets: a driver's or a parser's message may quote a
    // URL with its password (DATABASE_URL=postgres://app:pw@…), which is never written out.
    const say = (text: string): void => { process.stderr.write(maskSecrets(text)); };
    if (error instanceof UsageError) {
      say(`fuelprice: ${error.message}\n${usageHint(spec)}`);
      return 2;
    }
    if (error instanceof ConfigError) {
      say(`fuelprice: ${error.message}\n`);
      return 2;
    }
    if (error instanceof CommandError) {
      say(`fuelprice: ${error.message}\n`);
      return error.exitCode;
    }
    say(`fuelprice: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
