/** --help, `fuelprice help` and the usage lines under a usage error, all drawn from the table in spec.ts. */
import { COMMANDS, type CommandSpec, ENV, FEED_ENV, isCommandName } from './spec.ts';

/** `fuelprice copy --from URL --to URL [--chunk-rows N]` */
export function usageLine(spec: CommandSpec): string {
  const options = Object.entries(spec.options).map(([name, option]) => {
    const text = option.type === 'string' ? `--${name} ${option.arg ?? 'VALUE'}` : `--${name}`;
    return option.required ? text : `[${text}]`;
  });
  return ['fuelprice', spec.name, spec.args, ...options].filter((part) => part !== undefined).join(' ');
}

/** Aligned two-column lines: `  left   right`. */
function columns(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

/** The whole --help of one command: usage, summary, options with defaults, the environment it reads. */
export function commandHelp(spec: CommandSpec): string {
  const lines = [`Usage: ${usageLine(spec)}`, '', `${spec.summary[0]?.toUpperCase() ?? ''}${spec.summary.slice(1)}.`];
  if (spec.details) lines.push(...spec.details);
  if (spec.commands) {
    lines.push('', 'Commands:', ...columns(spec.commands.filter(isCommandName).map((name) => [name, COMMANDS[name].summary])));
    lines.push('', `Run 'fuelprice ${spec.name} COMMAND --help' for a command's options.`);
    return `${lines.join('\n')}\n`;
  }
  const options: Array<[string, string]> = Object.entries(spec.options).map(([name, option]) => [
    option.type === 'string' ? `--${name} ${option.arg ?? 'VALUE'}` : `--${name}`,
    `${option.about}${option.required ? ' (required)' : ''}${option.shown === undefined ? '' : ` (default: ${option.shown})`}`,
  ]);
  options.push(['-h, --help', 'show this help']);
  lines.push('', 'Options:', ...columns(options));
  const variables: Array<[string, { shown?: string; about: string }]> = [...spec.env.map((name) => [name, ENV[name]] as [string, { shown?: string; about: string }]),
    ...(spec.feedEnv ? Object.entries(FEED_ENV) : [])];
  if (variables.length > 0) {
    lines.push('', 'Environment:', ...columns(variables.map(([name, variable]) => [name, `${variable.about}${variable.shown === undefined ? '' : ` (default: ${variable.shown})`}`])));
  }
  return `${lines.join('\n')}\n`;
}

/** `fuelprice --help`: every command in one line each. */
export function overview(): string {
  const rows = Object.values(COMMANDS).flatMap((spec): Array<[string, string]> => ('commands' in spec ? [] : [[spec.name, spec.summary]]));
  rows.push(['help [COMMAND]', 'this list, or a command\'s help']);
  return [
    'Usage: fuelprice COMMAND [options]',
    '',
    'Commands:',
    ...columns(rows),
    '',
    'Options: -h, --help (after any command: its options and environment), -v, --version',
    'Run \'fuelprice COMMAND --help\' for a command\'s options, defaults and the environment it reads.',
    '',
  ].join('\n');
}

/** Under a usage error: the command's usage line and where its help is. */
export function usageHint(spec: CommandSpec | undefined): string {
  if (spec === undefined) return 'Run \'fuelprice --help\' for the commands.\n';
  return `Usage: ${usageLine(spec)}\nRun 'fuelprice ${spec.name} --help' for its options.\n`;
}
