#!/usr/bin/env node
// Runs the compiled build when it is at least as new as every source file (`npm install` makes
// it; starting from it is about twice as fast), else the TypeScript sources through tsx, so
// the command works right after a checkout and while the sources are being edited.
// tsx's compile cache would live in the system temp folder: off, so a run writes only under ./data.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// Node 24 (LTS) is the supported runtime and 22.12 the oldest that package.json's engines allow.
// Under Node 20 (past its end of life) better-sqlite3 13's addon crashes the process when loaded,
// so an older Node is refused here, with what to do, before anything is loaded.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`fuelprice: needs Node.js 22.12 or later (24 LTS is the supported release), not ${process.version}. `
    + '`. scripts/node24.sh` installs Node 24 from the npm registry and puts it first on the PATH of this shell.\n');
  process.exit(1);
}
const built = join(root, 'dist', 'src', 'main.js');

/** The newest modification time under a folder, in ms. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const fresh = process.env.FUELPRICE_FROM_SOURCE !== '1' && existsSync(built) && statSync(built).mtimeMs >= newest(join(root, 'src'));
let main;
if (fresh) {
  ({ main } = await import(built));
} else {
  process.env.TSX_DISABLE_CACHE ??= '1';
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
