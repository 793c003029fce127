/**
 * The dashboard's files for the server: read from dist/web when the server runs compiled
 * (`npm run build` wrote both together, and bin/fuelprice.js runs the build only while it is
 * newer than every source), else bundled in memory by esbuild on the first request for the page
 * (a few hundred ms, once a process), so that the sources (`npm test`, tsx) need no build step.
 */
import { type DashboardFiles, builtFolder, bundleDashboard, projectRoot, readBuilt } from './bundle.ts';

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
