import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

/**
 * `npm pack` from a clean copy of clients/typescript (no dist/): prepack builds it, and the
 * tarball holds the licence, the package.json a registry needs (public access for the scope,
 * the repository), the JavaScript and the declarations. Installed into a project of its own
 * (unpacked into its node_modules, as npm would), it imports, works against a fetch of the
 * test's own, and its types check in a TypeScript file that uses it.
 */
test('npm pack from a clean tree gives a licensed package with its build and types, which installs and works', async () => {
  const work = mkdtempSync(join(tmpdir(), 'fuelprice-client-pack-'));
  try {
    const source = join(ROOT, 'clients', 'typescript');
    const tree = join(work, 'client');
    mkdirSync(tree);
    for (const entry of ['package.json', 'tsconfig.json', 'README.md', 'LICENSE', 'src']) cpSync(join(source, entry), join(tree, entry), { recursive: true });
    assert.equal(existsSync(join(tree, 'dist')), false, 'a clean tree: nothing built');
    // The root's TypeScript, as an `npm install` in the client's folder would bring its own.
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'), 'dir');
    const packed = await promisify(execFile)('npm', ['pack', '--json', '--pack-destination', work], { cwd: tree });
    const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.ok(report);
    const files = report.files.map((f) => f.path).sort();
    for (const needed of ['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/errors.js', 'dist/errors.d.ts', 'dist/retry.js', 'dist/schema.d.ts']) {
      assert.ok(files.includes(needed), `the tarball has ${needed}: ${files.join(' ')}`);
    }

    const consumer = join(work, 'consumer');
    const installed = join(consumer, 'node_modules', '@fuelprice', 'client');
    mkdirSync(installed, { recursive: true });
    await promisify(execFile)('tar', ['-xzf', join(work, report.filename), '-C', installed, '--strip-components=1']);
    assert.equal(readFileSync(join(installed, 'LICENSE'), 'utf8'), readFileSync(join(ROOT, 'LICENSE'), 'utf8'), 'the project\'s licence');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      license: string; publishConfig?: { access?: string }; repository?: { directory?: string }; scripts?: Record<string, string>;
    };
    assert.equal(manifest.license, 'MIT');
    assert.equal(manifest.publishConfig?.access, 'public', 'a scoped package is published public');
    assert.equal(manifest.repository?.directory, 'clients/typescript');
    assert.equal(manifest.scripts?.prepack, 'npm run build');

    writeFileSync(join(consumer, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
    writeFileSync(join(consumer, 'use.ts'), [
      "import { FuelPriceClient, NotFoundError } from '@fuelprice/client';",
      'const answers: Record<string, unknown> = { "/v1/cities/sydney": { data: { id: "sydney", name: "Sydney", state: "NSW", latitude: -33.87, longitude: 151.21 } } };',
      'const fetch = async (input: string | URL | Request): Promise<Response> => {',
      '  const path = new URL(String(input)).pathname;',
      '  const body = answers[path];',
      '  return body === undefined',
      "    ? new Response(JSON.stringify({ error: { code: 'not_found', message: 'No such city.' } }), { status: 404, headers: { 'content-type': 'application/json' } })",
      "    : new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });",
      '};',
      "const client = new FuelPriceClient({ baseUrl: 'http://fuelprice.test', token: 'fp_test', fetch, retries: 0 });",
      "const city = await client.getCity('sydney');",
      'const name: string = city.data.name;',
      "let missing = '';",
      "try { await client.getCity('atlantis'); } catch (error) { if (error instanceof NotFoundError) missing = error.code; }",
      'console.log(JSON.stringify([name, missing]));',
      '',
    ].join('\n'));
    // Types: the consumer's file checks, strictly, against the package's declarations, resolved as
    // Node resolves the package (a type error fails here); then the compiled file runs against its JavaScript.
    const checked = await tsc(['--strict', '--noEmitOnError', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', '--outDir', consumer, join(consumer, 'use.ts')]);
    assert.deepEqual(checked, { code: 0, output: '' });
    const ran = await promisify(execFile)(process.execPath, [join(consumer, 'use.js')], { cwd: consumer });
    assert.deepEqual(JSON.parse(ran.stdout), ['Sydney', 'not_found']);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
