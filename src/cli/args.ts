import { parseArgs } from 'node:util';
import type { OptionSpec } from './spec.ts';

export class UsageError extends Error {}

/** node:util parseArgs over a command's table (spec.ts), with usage errors instead of exceptions of its own. */
export function parseCommand<O extends Readonly<Record<string, OptionSpec>>>(spec: { readonly options: O; readonly args?: string }, args: string[]) {
  try {
    return parseArgs({ args, options: spec.options, allowPositionals: spec.args !== undefined, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** `--help` or `-h` among a command's arguments (before a `--` that ends the options). */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** A whole number within bounds, or a usage error naming the option. */
export function intOption(value: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]{1,10}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got '${value.slice(0, 20)}'`);
  }
  return Number(value);
}
