/**
 * The docs page's routes are registered by @fastify/swagger-ui (src/app.ts), which hides them
 * from the API document. Everything the server answers is documented (test/http/
 * routes-documented.test.ts), so @fastify/swagger's `transform` shows them under a `Docs` tag
 * with the answers they really give.
 */
import type { FastifySchema } from 'fastify';
import type { SwaggerTransformObject } from '@fastify/swagger';
import { commonResponses } from './responses.ts';

const tags = ['Docs'];
const text = { type: 'string' };

/** The answers of the swagger-ui plugin's own routes (not /v1): no 405 route, so another method is a 404. */
const refusals = (): Record<string, unknown> => {
  const responses: Record<string, unknown> = commonResponses();
  delete responses[405];
  return responses;
};

const ok = (description: string, ...types: string[]) => ({
  200: { description, content: Object.fromEntries(types.map((type) => [type, { schema: type === 'application/json' ? {} : text }])) },
});

const DOCS_ROUTES: Record<string, Record<string, unknown>> = {
  '/docs': { summary: 'The docs page', response: { ...ok('The interactive docs page (HTML).', 'text/html'), ...refusals() } },
  '/docs/': { summary: 'The docs page', response: { ...ok('The interactive docs page (HTML).', 'text/html'), ...refusals() } },
  '/docs/json': {
    summary: 'This API as an OpenAPI document, for the docs page',
    description: 'The same document as /v1/openapi.json, which is the one to use.',
    response: { 200: { description: 'The OpenAPI document.', type: 'object', additionalProperties: true }, ...refusals() },
  },
  '/docs/yaml': {
    summary: 'This API as an OpenAPI document in YAML',
    response: { ...ok('The OpenAPI document, as YAML.', 'application/x-yaml'), ...refusals() },
  },
  '/docs/static/index.html': {
    summary: 'Redirects to the docs page',
    response: { 302: { description: 'To /docs/ (Location).', type: 'null' }, ...refusals() },
  },
  '/docs/static/swagger-initializer.js': {
    summary: "The docs page's start-up script",
    response: { ...ok('JavaScript.', 'application/javascript'), ...refusals() },
  },
  '/docs/static/*': {
    summary: "The docs page's scripts, styles and images",
    description: 'Static files, with ETag, Last-Modified and byte ranges.',
    response: {
      ...ok('The file.', 'text/css', 'text/javascript', 'application/javascript', 'application/json', 'image/png', 'image/svg+xml', 'text/html'),
      206: { description: 'Part of the file (Range).', content: { '*/*': { schema: text } } },
      304: { description: 'Not modified (If-None-Match, If-Modified-Since).', type: 'null' },
      404: { $ref: 'Error#', description: 'No such file.' },
      416: { description: 'Range not satisfiable.', content: { '*/*': { schema: text } } },
      ...refusals(),
    },
  },
};

/** @fastify/swagger's `transform`: the docs page's routes shown with their answers; every other route as it is. */
export function documentDocsRoutes({ schema, url }: { schema: FastifySchema; url: string }): { schema: FastifySchema; url: string } {
  const documented = DOCS_ROUTES[url];
  return documented ? { schema: { ...schema, ...documented, tags, hide: false }, url } : { schema, url };
}

/**
 * @fastify/swagger's `transformObject`: the page answers at /docs as at /docs/ (Fastify registers
 * both for the plugin's root route, but shows the plugin only the second).
 */
export const documentDocsRoot: SwaggerTransformObject = (document) => {
  if (!('openapiObject' in document)) return document.swaggerObject;
  const { openapiObject } = document;
  const page = openapiObject.paths?.['/docs/'];
  if (page && openapiObject.paths) openapiObject.paths['/docs'] = page;
  return openapiObject;
};
