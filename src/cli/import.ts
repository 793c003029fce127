import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Config, clockFor } from '../config.ts';
import { IMPORT_FORMAT_IDS, isImportFormatId } from '../ingest/import/format.ts';
import { ImportProgress } from '../ingest/import/progress.ts';
import { IMPORT_FORMATS, importFile } from '../ingest/import/run.ts';
import { ensureCities } from '../ingest/cities.ts';
import { holdsDemo } from './guards.ts';
import { UsageError, parseCommand } from './args.ts';
import { openDatabase } from './database.ts';
import { COMMANDS } from './spec.ts';

/** The names a folder's files must end with to be read (a file named on its own is read whatever its name). */
const IMPORTABLE = /\.(csv|xlsx|json|json\.gz)$/i;

/**
 * The files the arguments name: a file as it is; a folder as the .csv, .xlsx, .json and
 * .json.gz files directly in it (not hidden ones, nor a README or manifest beside them), in
 * name order. A path that is neither is a usage error naming it.
 */
export function importFiles(paths: readonly string[]): Array<{ path: string; size: number }> {
  const files: Array<{ path: string; size: number }> = [];
  for (const path of paths) {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      throw new UsageError(`no such file: ${path.slice(0, 200)}`);
    }
    if (stats.isFile()) {
      files.push({ path, size: stats.size });
    } else if (stats.isDirectory()) {
      const inside = readdirSync(path).filter((name) => !name.startsWith('.') && IMPORTABLE.test(name)).sort()
        .map((name) => join(path, name))
        .flatMap((file) => {
          const s = statSync(file);
          return s.isFile() ? [{ path: file, size: s.size }] : [];
        });
      if (inside.length === 0) throw new UsageError(`no .csv, .xlsx, .json or .json.gz files in the folder ${path.slice(0, 200)}`);
      files.push(...inside);
    } else {
      throw new UsageError(`not a file or a folder: ${path.slice(0, 200)}`);
    }
  }
  return files;
}

/**
 * `fuelprice import FORMAT FILE|FOLDER... [--restart]`: the states' published historical price
 * files, one after another under one progress display, each streamed in batches with a
 * resumable cursor (see ingest/import/run.ts). A file that fails (missing columns, unreadable)
 * does not stop the others; the exit code is 1 if any failed. --restart reads files from their
 * first row whatever their cursor says.
 */
export async function importCommand(config: Config, args: string[]): Promise<number> {
  const { values, positionals } = parseCommand(COMMANDS.import, args);
  const [formatName, ...paths] = positionals;
  if (formatName === undefined) throw new UsageError(`name a format: ${IMPORT_FORMAT_IDS.join(', ')}`);
  if (!isImportFormatId(formatName)) throw new UsageError(`unknown import format '${formatName.slice(0, 30)}': use ${IMPORT_FORMAT_IDS.join(', ')}`);
  if (paths.length === 0) throw new UsageError(`name the ${formatName} files to import`);
  const files = importFiles(paths);

  const format = IMPORT_FORMATS[formatName];
  const clock = clockFor(config);
  const store = await openDatabase(config.databaseUrl, { from: 'DATABASE_URL' });
  let failed = 0;
  try {
    if (await holdsDemo(store)) return 2;
    await ensureCities(store);
    const label = files.length === 1 ? `import ${format.id} ${files[0]?.path ?? ''}` : `import ${format.id} (${files.length} files)`;
    const totalBytes = files.reduce((sum, f) => sum + f.size, 0);
    const display = new ImportProgress(process.stderr, () => Date.now(), label, totalBytes, files.length);
    for (const file of files) {
      // The city means of sealed days the files change are recomputed once, by the seal below, not after every batch.
      const outcome = await importFile({
        store, format, path: file.path, now: clock.now(), progress: display.file(), restart: values.restart === true, deferCityDays: true,
      });
      if (outcome.status === 'failed') failed++;
    }
    display.close(format.id);
    // Closes the days the imported history reaches, so city history answers them at once, and
    // recomputes the city means of sealed days the files changed (each city's once).
    await store.seal(clock.now());
  } finally {
    await store.close();
  }
  return failed > 0 ? 1 : 0;
}
