/**
 * The dashboard (src/web): a page at `/` and its two bundled files under /assets/, public like
 * the docs page (the page asks for a token, and its own calls to /v1 carry it). Like the docs
 * page's files, they are served beside the API but are no part of it: hidden from the API
 * document, and described here instead (DASHBOARD_PAGE_FILES), for the tests that check
 * everything served is documented (test/http/routes-documented.test.ts, test/fuzz).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import type { TileConfig } from '../../config.ts';
import { ASSET_PREFIX, type DashboardFiles } from '../../web/bundle.ts';
import { requestPath } from '../request/rules.ts';
import { dashboardFiles } from '../../web/serve.ts';
import { commonResponses } from './responses.ts';

/**
 * The page's own policy, in place of the JSON API's `default-src 'none'`: its script and style
 * sheet from this origin (nothing inline; uPlot and Leaflet size and place their elements
 * through CSSOM, which CSP allows), its calls to this origin, a data: favicon and images, the
 * map's tiles from the configured tile server (TILE_URL) when there is one, and never framed.
 */
export function dashboardCsp(tiles: TileConfig | null): string {
  return [
    "default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", `img-src 'self' data:${tiles ? ` ${tiles.cspSource}` : ''}`,
    "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
  ].join('; ');
}

const escapeAttribute = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page with the tile server's settings in #map's attributes (`none`: the page plots the stations instead). */
export function withTiles(html: Buffer, tiles: TileConfig | null): Buffer {
  return Buffer.from(html.toString()
    .replace('{{tile-url}}', escapeAttribute(tiles?.url ?? 'none'))
    .replace('{{tile-attribution}}', escapeAttribute(tiles?.attribution ?? ''))
    .replace('{{tile-attribution-url}}', escapeAttribute(tiles?.attributionUrl ?? '')));
}

/** The page is checked on every load (its ETag); the hashed assets never change under their name. */
const PAGE_CACHE = 'no-cache';
const ASSET_CACHE = 'public, max-age=31536000, immutable';

const etags = new WeakMap<Buffer, string>();
const etagOf = (body: Buffer): string => {
  let etag = etags.get(body);
  if (etag === undefined) {
    etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    etags.set(body, etag);
  }
  return etag;
};

function sendFile(request: FastifyRequest, reply: FastifyReply, body: Buffer, type: string, cacheControl: string, csp: string): FastifyReply {
  const etag = etagOf(body);
  reply.header('content-security-policy', csp).header('cache-control', cacheControl).header('etag', etag);
  const asked = request.headers['if-none-match'];
  if (asked !== undefined && asked.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) return reply.code(304).send();
  return reply.type(type).send(body);
}

export async function dashboardRoutes(app: FastifyInstance, options: { tiles: TileConfig | null }): Promise<void> {
  const csp = dashboardCsp(options.tiles);
  // The page with this server's tile settings, made once for the files bundled once a process.
  const pages = new WeakMap<DashboardFiles, Buffer>();
  const pageOf = (files: DashboardFiles): Buffer => {
    let page = pages.get(files);
    if (page === undefined) {
      page = withTiles(files.html, options.tiles);
      pages.set(files, page);
    }
    return page;
  };
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    // The router also sends `GET *` (the asterisk form) here; only the path `/` is the page (`/#top`
    // too: a raw client may send a fragment).
    if (requestPath(request.url) !== '/') return reply.callNotFound();
    const files = await dashboardFiles();
    return sendFile(request, reply, pageOf(files), 'text/html; charset=utf-8', PAGE_CACHE, csp);
  });
  app.get<{ Params: { file: string } }>(`${ASSET_PREFIX}:file`, { schema: { hide: true } }, async (request, reply) => {
    const asset = (await dashboardFiles()).assets.get(request.params.file);
    if (!asset) return reply.callNotFound();
    return sendFile(request, reply, asset.body, asset.type, ASSET_CACHE, csp);
  });
}

interface OpenApiResponse { description: string; content?: Record<string, { schema: unknown }> }

const text = { type: 'string' };
const error = (description: string): OpenApiResponse => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

/** As the docs page's files: what any route may answer, but no 405 (another method is a 404 here). */
function refusals(): Record<string, OpenApiResponse> {
  const common = Object.entries(commonResponses()).filter(([status]) => status !== '405');
  return Object.fromEntries(common.map(([status, response]) => [status, error((response as { description?: string }).description ?? '')]));
}

const notModified = { 304: { description: 'Not modified (If-None-Match named the current ETag); no body.' } };

/** The dashboard's files, as OpenAPI paths: served, but not in the API document (see above). */
export const DASHBOARD_PAGE_FILES = {
  '/': {
    get: {
      summary: 'The dashboard', tags: ['Docs'], security: [],
      description: 'A page showing the cheapest fuel near a place, a city\'s daily averages and price cycle, today\'s spread and the stations out of stock; its calls to /v1 carry the token the user gives it.',
      responses: { 200: { description: 'The page (HTML), with an ETag.', content: { 'text/html': { schema: text } } }, ...notModified, ...refusals() },
    },
  },
  '/assets/{file}': {
    get: {
      summary: "The dashboard's script and style sheet", tags: ['Docs'], security: [],
      description: 'Named by a hash of their content, so cached for good.',
      parameters: [{ name: 'file', in: 'path' as const, required: true as const, description: 'The file name, as the page names it.', schema: text }],
      responses: {
        200: { description: 'The file.', content: { 'text/javascript': { schema: text }, 'text/css': { schema: text } } },
        ...notModified, 404: error('No such file.'), ...refusals(),
      },
    },
  },
};
