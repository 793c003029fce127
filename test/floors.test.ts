/**
 * The floors of src/ (ARCHITECTURE.md, "Floors and what each may import"): no file imports from a
 * floor it may not, and no files import each other in a loop. Imports are read from the sources'
 * text (`from '…'` and `import('…')` of relative paths), type-only imports included.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** What each floor may import besides itself: folders, and the files at src/'s top (as the table says). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  domain: [],
  schemas: ['domain'],
  storage: ['domain', 'config.ts'],
  'read-models': ['storage', 'domain'],
  derived: ['read-models', 'storage', 'domain', 'schemas', 'config.ts'],
  http: ['derived', 'read-models', 'storage', 'schemas', 'domain', 'config.ts', 'ingest/health.ts', 'web', 'secrets.ts', 'tokens.ts'],
  ingest: ['storage', 'domain', 'config.ts', 'logger.ts'],
  web: ['domain'],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.isFile() && entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file's relative imports, as paths from src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)) {
    found.push(relative(SRC, resolve(dirname(file), match[1] ?? '')).split(/[\\/]/).join('/'));
  }
  return found;
}

const files = sourceFiles(SRC).map((file) => relative(SRC, file).split(/[\\/]/).join('/'));
const graph = new Map(files.map((file) => [file, importsOf(join(SRC, file)).filter((target) => target.endsWith('.ts'))]));

describe('the floors of src/', () => {
  test('the walk finds every floor', () => {
    for (const floor of Object.keys(MAY_IMPORT)) assert.ok(files.some((file) => file.startsWith(`${floor}/`)), floor);
  });

  test('no file imports from a floor it may not', () => {
    const wrong: string[] = [];
    for (const [file, targets] of graph) {
      const floor = file.split('/')[0] ?? '';
      const allowed = MAY_IMPORT[floor];
      if (!allowed) continue; // cli/, app.ts, main.ts and the files at the top wire everything
      for (const target of targets) {
        if (target.startsWith(`${floor}/`)) continue;
        if (!allowed.some((a) => (a.endsWith('.ts') ? target === a : target.startsWith(`${a}/`)))) wrong.push(`${file} -> ${target}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  test('no files import each other in a loop', () => {
    const state = new Map<string, 'open' | 'done'>();
    const loops: string[] = [];
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') { loops.push([...path.slice(path.indexOf(file)), file].join(' -> ')); return; }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) if (graph.has(target)) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    assert.deepEqual(loops, []);
  });
});
