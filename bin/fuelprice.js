#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so the command works right after npm install.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
