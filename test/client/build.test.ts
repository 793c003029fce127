import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', '.bin', 'tsc');

/** Runs the root's tsc with `args`: its exit code and what it printed. */
function tsc(args: string[]): Promise<{ code: number; output: string }> {
  return promisify(execFile)(TSC, args, { cwd: ROOT })
    .then(() => ({ code: 0, output: '' }), (error: { code?: number; stdout?: string }) => ({ code: error.code ?? -1, output: error.stdout ?? '' }));
}

/**
 * The client builds with its own tsconfig (browser and Node globals only, no Node types) into
 * JavaScript and declarations, as `npm run client:build` does, here into a directory of the
 * test's own; the built module loads and exports the client and its errors.
 */
test('the TypeScript client compiles with its own tsconfig, and the built module loads', async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'fuelprice-client-build-'));
  try {
    assert.deepEqual(await tsc(['-p', join(ROOT, 'clients', 'typescript', 'tsconfig.json'), '--outDir', outDir]), { code: 0, output: '' });
    assert.deepEqual(readdirSync(outDir).filter((f) => !f.endsWith('.map')).sort(),
      ['errors.d.ts', 'errors.js', 'index.d.ts', 'index.js', 'retry.d.ts', 'retry.js', 'schema.d.ts', 'schema.js']);
    const built = await import(pathToFileURL(join(outDir, 'index.js')).href) as Record<string, unknown>;
    assert.deepEqual(Object.keys(built).sort(),
      ['AuthError', 'BadRequestError', 'FuelPriceClient', 'FuelPriceError', 'NetworkError', 'NotFoundError', 'RateLimitedError', 'UnavailableError']);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
});

/** The client's types accept the calls and answers of typed-usage.ts and refuse its misuses (its @ts-expect-error lines). */
test('the client\'s types take typed parameters and give typed answers', async () => {
  const flags = ['--noEmit', '--strict', '--noUncheckedIndexedAccess', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--allowImportingTsExtensions', '--types', 'node'];
  assert.deepEqual(await tsc([...flags, join(ROOT, 'test', 'client', 'typed-usage.ts')]), { code: 0, output: '' });
});
