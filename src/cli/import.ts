import { statSync } from 'node:fs';
import { type Config, clockFor } from '../config.ts';
import { IMPORT_FORMAT_IDS, isImportFormatId } from '../ingest/import/format.ts';
import { ImportProgress } from '../ingest/import/progress.ts';
import { IMPORT_FORMATS, importFile } from '../ingest/import/run.ts';
import { ensureCities } from '../ingest/cities.ts';
import { holdsDemo } from './guards.ts';
import { UsageError, parseCommand } from './args.ts';
import { openDatabase } from './database.ts';
import { COMMANDS } from './spec.ts';

/**
 * `fuelprice import FORMAT FILE... [--restart]`: the states' published historical price files,
 * one after another, each streamed in batches with a resumable cursor (see ingest/import/run.ts).
 * A file that fails (missing columns, unreadable) does not stop the others; the exit code is 1
 * if any failed. --restart reads files from their first row whatever their cursor says.
 */
export async function importCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(COMMANDS.import, args);
  const [formatName, ...files] = positionals;
  if (formatName === undefined) throw new UsageError(`name a format: ${IMPORT_FORMAT_IDS.join(', ')}`);
  if (!isImportFormatId(formatName)) throw new UsageError(`unknown import format '${formatName.slice(0, 30)}': use ${IMPORT_FORMAT_IDS.join(', ')}`);
  if (files.length === 0) throw new UsageError(`name the ${formatName} files to import`);
  for (const file of files) {
    let isFile: boolean;
    try {
      isFile = statSync(file).isFile();
    } catch {
      throw new UsageError(`no such file: ${file.slice(0, 200)}`);
    }
    if (!isFile) throw new UsageError(`not a file: ${file.slice(0, 200)}`);
  }

  const format = IMPORT_FORMATS[formatName];
  const clock = clockFor(config);
  const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL' });
  let failed = 0;
  try {
    if (await holdsDemo(store)) return 2;
    await ensureCities(store);
    for (const file of files) {
      const progress = new ImportProgress(process.stderr, () => Date.now(), `import ${format.id} ${file}`);
      const outcome = await importFile({ store, format, path: file, now: clock.now(), progress, restart: values.restart === true });
      if (outcome.status === 'failed') failed++;
    }
    // Closes the days the imported history reaches, so city history answers them at once.
    await store.seal(clock.now());
  } finally {
    await store.close();
  }
  return failed > 0 ? 1 : 0;
}
