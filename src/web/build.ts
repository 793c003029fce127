/**
 * `npm run build` (after tsc): the dashboard bundled into dist/web, so that the compiled server
 * sends it without starting esbuild (src/web/serve.ts reads it back).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtFolder, bundleDashboard, projectRoot } from './bundle.ts';

const root = projectRoot();
const out = builtFolder(root);
const files = await bundleDashboard(root);
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });
for (const asset of files.assets.values()) writeFileSync(join(out, 'assets', asset.name), asset.body);
writeFileSync(join(out, 'index.html'), files.html);
process.stdout.write(`dashboard bundled into ${out}: ${[...files.assets.keys()].join(', ')}\n`);
