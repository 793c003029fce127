/**
 * The docs page (/docs), served by @fastify/swagger-ui (src/http/routes/openapi.ts). The API document
 * shows one operation for it, the page itself. The files the page is made of (/docs/ as the same
 * page, /docs/json, /docs/yaml, /docs/static/...) are served beside the API but are no part of
 * it: a client generated from the document has no use for them. They are described here instead,
 * as OpenAPI paths (DOCS_PAGE_FILES), which the tests add to the served document to check that
 * everything served is documented and answers as documented (test/http/routes-documented.test.ts,
 * test/fuzz).
 */
import type { FastifySchema } from 'fastify';
import { commonResponses } from './responses.ts';

const tags = ['Docs'];
const text = { type: 'string' };

/** What the swagger-ui plugin's own routes (not /v1) refuse with: no 405 route, so another method is a 404. */
const refusals = (): Record<string, { description?: string }> => {
  const responses: Record<string, { description?: string }> = commonResponses();
  delete responses[405];
  return responses;
};

/** @fastify/swagger's `transform`: GET /docs/ (the one of the page's routes the plugin sees) shown as the page, GET /docs. */
export function documentDocsPage({ schema, url }: { schema: FastifySchema; url: string }): { schema: FastifySchema; url: string } {
  if (url !== '/docs/') return { schema, url };
  const page: FastifySchema = {
    summary: 'The docs page',
    description: 'This document as an interactive page (swagger-ui), served with its scripts and styles from this server.',
    tags,
    response: { 200: { description: 'The page (HTML).', content: { 'text/html': { schema: text } } }, ...refusals() },
  };
  return { schema: { ...schema, ...page, hide: false }, url: '/docs' };
}

interface OpenApiResponse { description: string; content?: Record<string, { schema: unknown }> }

const error = (description: string): OpenApiResponse => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const ok = (description: string, ...types: string[]): Record<string, OpenApiResponse> => ({
  200: { description, content: Object.fromEntries(types.map((type) => [type, { schema: type === 'application/json' ? {} : text }])) },
});
interface PathParameter { name: string; in: 'path'; required: true; description: string; schema: typeof text }

const file = (summary: string, responses: Record<string, OpenApiResponse>, more: { description?: string; parameters?: PathParameter[] } = {}) => ({
  get: {
    summary, ...more, tags, security: [],
    responses: { ...responses, ...Object.fromEntries(Object.entries(refusals()).map(([status, r]) => [status, error(r.description ?? '')])) },
  },
});

/** The docs page's own files, as OpenAPI paths: served, but not in the API document (see above). */
export const DOCS_PAGE_FILES = {
  '/docs/': file('The docs page', ok('The page (HTML); the same as /docs.', 'text/html')),
  '/docs/json': file('This API as an OpenAPI document, for the docs page', {
    200: { description: 'The same document as /v1/openapi.json, which is the one to use.', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } },
  }),
  '/docs/yaml': file('This API as an OpenAPI document in YAML', ok('The document, as YAML.', 'application/x-yaml')),
  '/docs/static/index.html': file('Redirects to the docs page', { 302: { description: 'To /docs/ (Location).' } }),
  '/docs/static/swagger-initializer.js': file("The docs page's start-up script", ok('JavaScript.', 'application/javascript')),
  '/docs/static/theme/a11y.css': file("The docs page's accessibility fixes: colours", ok('CSS.', 'text/css')),
  '/docs/static/theme/a11y.js': file("The docs page's accessibility fixes: names of controls", ok('JavaScript.', 'application/javascript')),
  '/docs/static/{*}': file("The docs page's scripts, styles and images", {
    ...ok('The file.', 'text/css', 'text/javascript', 'application/javascript', 'application/json', 'image/png', 'image/svg+xml', 'text/html'),
    206: { description: 'Part of the file (Range).', content: { '*/*': { schema: text } } },
    304: { description: 'Not modified (If-None-Match, If-Modified-Since).' },
    404: error('No such file.'),
    416: { description: 'Range not satisfiable.', content: { '*/*': { schema: text } } },
  }, {
    description: 'Static files, with ETag, Last-Modified and byte ranges.',
    parameters: [{ name: '*', in: 'path', required: true, description: 'The file, under static/.', schema: text }],
  }),
};

/**
 * Small fixes to swagger-ui's page so that axe-core finds nothing serious on it
 * (test/browser/dashboard-driver.test.ts), served as the plugin's theme files
 * (/docs/static/theme/…; allowed by the page's CSP as its own scripts and styles): colours dark
 * enough to read (the method badges, the version badges, links, the Authorize button), the top
 * bar hidden (its URL box only reloads this same document, and its logo and input carry no
 * text), and a name for the servers list.
 */
export const DOCS_THEME = {
  css: [{
    filename: 'a11y.css',
    content: [
      '.swagger-ui .topbar { display: none; }',
      '.swagger-ui .info .title small { background: #4d5461; }',
      '.swagger-ui .info .title small.version-stamp { background: #3d6b00; }',
      '.swagger-ui .info a, .swagger-ui .info .url, .swagger-ui .info .link { color: #1a5fb4; }',
      '.swagger-ui .btn.authorize span { color: #0b6e4f; }',
      '.swagger-ui .btn.authorize { border-color: #0b6e4f; }',
      '.swagger-ui .btn.authorize svg { fill: #0b6e4f; }',
      '.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #0f5ea8; }',
      '.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1b7a4e; }',
      '.swagger-ui .json-schema-2020-12-expand-deep-button { color: #4a4a4a; }',
    ].join('\n'),
  }],
  js: [{
    filename: 'a11y.js',
    content: [
      '// Names for the controls swagger-ui renders without one, kept as it re-renders.',
      '(function () {',
      '  function fix() {',
      '    var servers = document.getElementById("servers");',
      '    if (servers && !servers.hasAttribute("aria-label")) servers.setAttribute("aria-label", "Server");',
      '  }',
      '  new MutationObserver(fix).observe(document.documentElement, { childList: true, subtree: true });',
      '})();',
    ].join('\n'),
  }],
};
