/**
 * The dashboard's files for the server: read from dist/web when the server runs compiled
 * (`npm run build` wrote both together, and bin/fuelprice.js runs the build only while it is
 * newer than every source), else bundled in memory by esbuild on the first request for the page
 * (about 100 ms, once a process), so that the sources (`npm test`, tsx) need no build step.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type DashboardFiles, type PageFile, builtFolder, bundleDashboard, projectRoot } from './bundle.ts';

const TYPES: Readonly<Record<string, string>> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

/** The files `npm run build` wrote, if it did. */
export function readBuilt(folder: string): DashboardFiles | undefined {
  const html = join(folder, 'index.html');
  if (!existsSync(html)) return undefined;
  const assets = new Map<string, PageFile>();
  for (const name of readdirSync(join(folder, 'assets'))) {
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)];
    if (type) assets.set(name, { name, type, body: readFileSync(join(folder, 'assets', name)) });
  }
  return { html: readFileSync(html), assets };
}

const compiled = import.meta.url.endsWith('.js');
let loading: Promise<DashboardFiles> | undefined;

/** The dashboard's files, made once a process; a failure is not kept, so the next request tries again. */
export function dashboardFiles(): Promise<DashboardFiles> {
  loading ??= (async () => {
    const root = projectRoot();
    return (compiled ? readBuilt(builtFolder(root)) : undefined) ?? await bundleDashboard(root);
  })();
  loading.catch(() => { loading = undefined; });
  return loading;
}
