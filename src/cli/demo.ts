import { type Config, clockFor } from '../config.ts';
import type { DemoOptions } from '../ingest/demo.ts';
import type { IngestStore } from '../storage/store.ts';
import { UsageError, intOption, parseCommand } from './args.ts';
import { openDatabase } from './database.ts';
import { COMMANDS } from './spec.ts';

export const DEFAULT_DEMO: Omit<DemoOptions, 'nowSec'> = { seed: 1, years: 2, scale: 'small' };

export async function demoCommand(config: Config, args: string[]): Promise<number> {
  const { values } = parseCommand(COMMANDS.demo, args);
  const scale = values.scale ?? 'small';
  if (scale !== 'small' && scale !== 'au') throw new UsageError(`--scale must be small or au, got '${scale.slice(0, 20)}'`);
  const options: DemoOptions = {
    seed: intOption(values.seed, 'seed', 0, 2 ** 31 - 1, DEFAULT_DEMO.seed),
    years: intOption(values.years, 'years', 1, 20, DEFAULT_DEMO.years),
    scale,
    nowSec: clockFor(config).now(),
  };
  const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL', create: true });
  try {
    if ((await store.counts()).stations > 0) {
      process.stderr.write('fuelprice: the database already has stations; the demo writes only into an empty one (use a new DATABASE_URL or remove ./data).\n');
      return 2;
    }
    await writeDemoWithProgress(store, options);
  } finally {
    await store.close();
  }
  return 0;
}

/** Writes the demo with a progress line on stderr (a bar on a terminal, a few plain lines otherwise). */
export async function writeDemoWithProgress(store: IngestStore, options: DemoOptions): Promise<void> {
  // Loaded only when needed: serving an existing database never pays for the generator.
  const { writeDemo } = await import('../ingest/demo.ts');
  const tty = process.stderr.isTTY === true;
  let lastShown = -1;
  const result = await writeDemo(store, options, (done: number, total: number) => {
    const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
    if (tty) {
      const filled = Math.round(percent / 4);
      process.stderr.write(`\r  [${'#'.repeat(filled)}${'.'.repeat(25 - filled)}] ${percent}%`);
    } else if (percent >= lastShown + 25) {
      lastShown = percent;
      process.stderr.write(`  demo data: ${percent}%\n`);
    }
  });
  if (tty) process.stderr.write('\n');
  process.stderr.write(`Demo dataset written: ${result.stations} stations, ${result.prices} price changes in ${result.seconds.toFixed(1)} s.\n`);
}
