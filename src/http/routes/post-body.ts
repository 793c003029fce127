/**
 * The POST forms of the GET routes whose parameters a URL cannot always carry (their routes
 * declare `maxBody`, request/policy.ts): 100 real ids, or a route's full polyline once percent-encoded. The body is a JSON
 * object of the very parameters of the GET, and is answered as the GET is, byte for byte:
 *
 * - Each member is a parameter of the GET's query: a string as the query would give it, or a JSON
 *   number for a numeric one (written back as its shortest decimal: 2, 0.5, 40); `ids` may also
 *   be an array of ids (joined with commas, as the GET's list). Members the GET does not know are
 *   ignored, as unknown query parameters are. Any other type is a 400 naming the parameter.
 * - The parameters made so are checked by the GET's own schema and checks (routes/query.ts
 *   checkQuery, then Fastify's validation of the query schema, then the handler): the same 400s,
 *   word for word.
 * - The URL carries no query (400 if it does); the body is `application/json` (400 otherwise), at
 *   most MAX_POST_BODY_BYTES with its length stated (400, connection closed, otherwise).
 * - Counted against the rate limit as one request, as the GET is. Not kept in the answer cache
 *   (keyed by URL: the cache and the fast path serve GET and HEAD only), and sent with
 *   `Cache-Control: no-store`: each POST is worked out afresh (docs/OPENAPI.md).
 */
import type { FastifyRequest } from 'fastify';
import { apiError } from '../errors/catalogue.ts';
import { type QueryProperty, checkQuery } from './query.ts';

/** The GET's query schema's properties, as the checks read them. */
type QueryProperties = Record<string, QueryProperty & { description?: string }>;

const JSON_TYPE = /^application\/json\s*(;|$)/i;
const NOT_AN_OBJECT = 'The body must be a JSON object of the parameters, as the GET takes them in its query (e.g. {"fuel": "ulp91", "path": "…"}).';

/**
 * A preValidation hook for a POST form: the body's members as the GET's query (request.query),
 * checked as strictQuery checks a query; `numeric` names the parameters besides the integers that
 * may be a JSON number, `lists` those that may be an array of strings.
 */
export function bodyAsQuery(properties: QueryProperties, numeric: readonly string[], lists: readonly string[] = []) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.url.includes('?')) apiError('invalid_parameter', 'A POST takes its parameters in its JSON body; its URL has no query string.');
    if (!JSON_TYPE.test(request.headers['content-type'] ?? '')) apiError('invalid_parameter', 'The body must be JSON, sent as Content-Type: application/json.');
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) apiError('invalid_parameter', NOT_AN_OBJECT);
    const query = Object.create(null) as Record<string, string>;
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      const property = properties[name];
      if (property === undefined) continue;
      if (typeof value === 'string') query[name] = value;
      else if (typeof value === 'number' && Number.isFinite(value) && (numeric.includes(name) || property.type === 'integer')) query[name] = String(value);
      else if (lists.includes(name) && Array.isArray(value) && value.every((v) => typeof v === 'string')) query[name] = value.join(',');
      else apiError('invalid_parameter', `Parameter '${name}' ${property['x-accepts'] ?? 'must be a string'}${lists.includes(name) ? ' (in a body: an array of strings, or one string)' : ''}.`);
    }
    (request as { query: unknown }).query = query;
    checkQuery(query, properties);
  };
}
