/**
 * The dashboard (src/web/page) as the files the server sends: its HTML shell, and one script and
 * one style sheet bundled by esbuild with uPlot and Leaflet, each named by a hash of its content so that it
 * can be cached for good. Made at build time into dist/web (src/web/build.ts, part of `npm run
 * build`), or in memory by the server when it runs from the sources or that folder is missing
 * (src/web/serve.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PageFile { name: string; type: string; body: Buffer }

export interface DashboardFiles {
  /** The page itself, naming the assets below. */
  html: Buffer;
  /** The hashed assets, by file name. */
  assets: ReadonlyMap<string, PageFile>;
}

export const ASSET_PREFIX = '/assets/';

/** Where `npm run build` writes the bundle: index.html, and assets/ holding the hashed files. */
export const builtFolder = (root: string): string => join(root, 'dist', 'web');

const TYPES: Readonly<Record<string, string>> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
const typeOf = (name: string): string | undefined => TYPES[name.slice(name.lastIndexOf('.'))];

/** The project's root: the folder above this file holding package.json (from src/web or dist/src/web alike). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('fuelprice: no package.json above src/web');
    dir = up;
  }
  return dir;
}

/** `dashboard.js` with `body` -> `dashboard-<12 hex of its SHA-256>.js`. */
export function hashedName(name: string, body: Buffer): string {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}-${hash}${name.slice(dot)}`;
}

/** The shell with its two placeholders filled. */
export function pageHtml(shell: string, script: string, style: string): Buffer {
  return Buffer.from(shell.replace('{{style}}', ASSET_PREFIX + style).replace('{{script}}', ASSET_PREFIX + script));
}

/** Bundles src/web/page/main.ts (and the CSS it imports) with esbuild, in memory. */
export async function bundleDashboard(root = projectRoot()): Promise<DashboardFiles> {
  // Loaded here only: serving from dist/web never starts esbuild.
  const { build } = await import('esbuild');
  const page = join(root, 'src', 'web', 'page');
  const result = await build({
    entryPoints: { dashboard: join(page, 'main.ts') },
    bundle: true, minify: true, format: 'esm', target: ['es2022'], platform: 'browser',
    write: false, outdir: 'out', logLevel: 'silent', legalComments: 'none',
    // Leaflet's style sheet names a few small images (its layer and marker icons): inlined, so that the bundle stays two files.
    loader: { '.png': 'dataurl', '.svg': 'dataurl' },
  });
  const assets = new Map<string, PageFile>();
  let script = '';
  let style = '';
  for (const output of result.outputFiles) {
    const base = output.path.slice(output.path.lastIndexOf('/') + 1);
    const type = typeOf(base);
    if (type === undefined) throw new Error(`fuelprice: unexpected bundle output ${base}`);
    const body = Buffer.from(output.contents);
    const name = hashedName(base, body);
    assets.set(name, { name, type, body });
    if (base.endsWith('.js')) script = name;
    else style = name;
  }
  if (!script || !style) throw new Error('fuelprice: the dashboard bundle lacks its script or its style sheet');
  return { html: pageHtml(readFileSync(join(page, 'index.html'), 'utf8'), script, style), assets };
}

/** Writes the files into `folder` (emptied first): index.html, and assets/ holding the hashed files. */
export function writeBuilt(folder: string, files: DashboardFiles): void {
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(join(folder, 'assets'), { recursive: true });
  for (const asset of files.assets.values()) writeFileSync(join(folder, 'assets', asset.name), asset.body);
  writeFileSync(join(folder, 'index.html'), files.html);
}

/** The files writeBuilt wrote into `folder`, or undefined when it has none. */
export function readBuilt(folder: string): DashboardFiles | undefined {
  const html = join(folder, 'index.html');
  if (!existsSync(html)) return undefined;
  const assets = new Map<string, PageFile>();
  for (const name of readdirSync(join(folder, 'assets'))) {
    const type = typeOf(name);
    if (type) assets.set(name, { name, type, body: readFileSync(join(folder, 'assets', name)) });
  }
  return { html: readFileSync(html), assets };
}
