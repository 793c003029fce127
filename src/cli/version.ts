import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The version in fuelprice's package.json: the nearest one above this file, which runs from
 * src/cli/ (sources) or dist/src/cli/ (the build).
 */
export function packageVersion(from: string = import.meta.dirname): string {
  let folder = from;
  for (let up = 0; up < 4; up++) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'fuelprice' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json here (or not ours): look one folder up.
    }
    folder = dirname(folder);
  }
  return 'unknown';
}
