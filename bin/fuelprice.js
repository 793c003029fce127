#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so the command works right after npm install.
// tsx's compile cache would live in the system temp folder: off, so a run writes only under ./data.
process.env.TSX_DISABLE_CACHE ??= '1';
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
