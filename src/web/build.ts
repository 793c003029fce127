/**
 * `npm run build` (after tsc): the dashboard bundled into dist/web, so that the compiled server
 * sends it without starting esbuild (src/web/serve.ts reads it back).
 */
import { builtFolder, bundleDashboard, projectRoot, writeBuilt } from './bundle.ts';

const root = projectRoot();
const files = await bundleDashboard(root);
writeBuilt(builtFolder(root), files);
process.stdout.write(`dashboard bundled into ${builtFolder(root)}: ${[...files.assets.keys()].join(', ')}\n`);
