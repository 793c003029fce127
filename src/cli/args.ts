import { parseArgs } from 'node:util';

export class UsageError extends Error {}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

/** node:util parseArgs with usage errors instead of exceptions of its own. */
export function parseOptions<T extends OptionSpec>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** A whole number within bounds, or a usage error naming the option. */
export function intOption(value: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]{1,10}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got '${value.slice(0, 20)}'`);
  }
  return Number(value);
}
