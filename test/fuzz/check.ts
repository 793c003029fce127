/**
 * The checker: what every answer must be, whatever was asked. Never 5xx, never a hang, a status
 * the document lists for the operation, a body valid against the schema documented for that
 * status (Ajv, $refs resolved against the document's components), the right Content-Type, and
 * the API's own conventions on errors (code matching status, request id echoed, the headers
 * each error needs).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { codeToStatus, type ErrorCode } from '../../src/http/errors/catalogue.ts';
import type { FuzzRequest } from './generate.ts';
import { type ApiDocument, type Operation, type ResponseObject, matchPath, operationsOf, pathPart } from './openapi.ts';

export interface FuzzResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** No complete answer within the client's timeout. */
  timedOut: boolean;
  /** The connection failed or closed without an answer (for raw requests, possibly fine). */
  error?: string;
}

const DOC_ID = 'https://fuelprice.invalid/openapi.json';
const JSON_TYPE = 'application/json; charset=utf-8';

export class Checker {
  readonly operations: Operation[];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly errorResponse: ResponseObject;
  /** Statuses every operation documents: the refusals any request may meet. */
  private readonly everywhere: Set<number>;

  constructor(doc: ApiDocument) {
    this.operations = operationsOf(doc);
    this.ajv = new Ajv2020({ strict: false, allErrors: false });
    formats.default(this.ajv);
    this.ajv.addSchema({ $id: DOC_ID, components: doc.components ?? {} });
    const documented = this.operations.map((o) => new Set(Object.keys(o.responses).map(Number)));
    this.everywhere = new Set([...(documented[0] ?? [])].filter((status) => documented.every((set) => set.has(status))));
    this.errorResponse = { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }

  /** Everything wrong with this answer to this request; empty when it is right. */
  check(request: FuzzRequest, response: FuzzResponse): string[] {
    if (response.timedOut) return ['no answer within the client timeout (hang)'];
    if (request.raw !== undefined) return this.checkRaw(response);
    if (response.error) return [`no answer: ${response.error}`];
    const problems: string[] = [];
    if (response.status >= 500) problems.push(`5xx: ${response.status}`);
    const expected = this.expectation(request);
    if (!expected.statuses.has(response.status)) {
      problems.push(`status ${response.status} not documented for ${expected.label} (documented: ${[...expected.statuses].sort().join(', ')})`);
      return problems;
    }
    const documented = expected.responses[String(response.status)] ?? this.errorResponse;
    problems.push(...this.checkBody(request, response, documented));
    problems.push(...checkHeaders(response));
    return problems;
  }

  /**
   * A malformed request may never reach a route (node's parser refuses it), so no operation
   * applies: it must still be answered, without a 5xx, and a refusal in the documented error shape.
   */
  private checkRaw(response: FuzzResponse): string[] {
    if (response.status === 0) return [`no answer: ${response.error ?? 'the connection closed'}`];
    if (response.status >= 500) return [`5xx: ${response.status}`];
    if (response.status < 400 || response.body.length === 0) return [];
    return this.checkBody({ method: 'GET', target: '', headers: {} }, response, this.errorResponse);
  }

  private expectation(request: FuzzRequest): { statuses: Set<number>; responses: Record<string, ResponseObject>; label: string } {
    const match = matchPath(this.operations, pathPart(request.target));
    if (match.kind !== 'routed') {
      // No operation: what every operation documents as refusals, the 404, and (under /v1/, where the token is checked first) the 401.
      const statuses = new Set([...this.everywhere, 404]);
      if (pathPart(request.target).startsWith('/v1/')) statuses.add(401);
      if (request.method === 'OPTIONS') statuses.add(204);
      return { statuses, responses: {}, label: match.kind === 'undecodable' ? 'an undecodable path' : 'an unknown path' };
    }
    const ownMethod = request.method === 'HEAD' ? 'GET' : request.method;
    const operation = match.operations.find((o) => o.method === ownMethod);
    // Other methods on a documented path: the statuses the path's GET documents for refusals.
    const responses = operation?.responses ?? match.operations[0]?.responses ?? {};
    const statuses = new Set(Object.keys(responses).map(Number));
    if (!operation) {
      // A CORS preflight is answered for any path. A path documenting 405 answers it to POST, PUT, PATCH and DELETE;
      // other paths, and methods Fastify does not route (PROPFIND, ...), find no route at all.
      if (request.method === 'OPTIONS') statuses.add(204);
      if (!statuses.has(405) || !['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].includes(request.method)) statuses.add(404);
      for (const status of [200, 206, 302, 304, 416]) statuses.delete(status);
    }
    return { statuses, responses, label: `${request.method} ${match.template}` };
  }

  private checkBody(request: FuzzRequest, response: FuzzResponse, documented: ResponseObject): string[] {
    const type = headerText(response.headers['content-type']);
    if (request.method === 'HEAD' || response.status === 304 || response.status === 204) {
      return response.body.length === 0 ? [] : [`a ${request.method} ${response.status} answer has a body of ${response.body.length} bytes`];
    }
    const content = documented.content ?? {};
    const media = Object.keys(content);
    if (media.length === 0) return response.body.length === 0 ? [] : [`status ${response.status} documents no body, got ${response.body.length} bytes`];
    const given = type?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
    const mediaType = media.find((m) => m === given || m === '*/*' || (m.endsWith('/*') && given.startsWith(m.slice(0, -1))));
    if (!mediaType) return [`Content-Type ${String(type)} is not a documented one (${media.join(', ')})`];
    if (mediaType !== 'application/json') return given === '' ? ['no Content-Type'] : [];
    const problems: string[] = [];
    if (type !== JSON_TYPE) problems.push(`Content-Type is '${type}', not '${JSON_TYPE}'`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body.toString('utf8'));
    } catch {
      return [...problems, 'the body is not JSON'];
    }
    const validate = this.validator(content[mediaType]?.schema ?? {});
    if (!validate(parsed)) {
      problems.push(`body does not match the documented schema: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
      return problems;
    }
    if (response.status >= 400) problems.push(...checkErrorBody(parsed as ErrorBody, response));
    return problems;
  }

  private validator(schema: unknown): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      // Refs are `#/components/...` of the document: resolve them against it.
      validate = this.ajv.compile(rebase(schema) as object);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

interface ErrorBody { error: { code: ErrorCode; message: string; request_id: string } }

function checkErrorBody(body: ErrorBody, response: FuzzResponse): string[] {
  const problems: string[] = [];
  const { code, request_id: requestId } = body.error;
  if (codeToStatus(code) !== response.status) problems.push(`error code ${code} with status ${response.status}`);
  const header = headerText(response.headers['x-request-id']);
  if (header !== requestId) problems.push(`request_id ${requestId} differs from X-Request-Id ${String(header)}`);
  return problems;
}

/** What every answer from the app must carry, by status. */
function checkHeaders(response: FuzzResponse): string[] {
  const problems: string[] = [];
  const has = (name: string): boolean => headerText(response.headers[name]) !== undefined;
  if (!has('x-request-id')) problems.push('no X-Request-Id');
  if (response.status === 401 && !/^Bearer realm="fuelprice"/.test(headerText(response.headers['www-authenticate']) ?? '')) problems.push('401 without WWW-Authenticate');
  if (response.status === 405 && !has('allow')) problems.push('405 without Allow');
  if (response.status === 429 && !/^[0-9]+$/.test(headerText(response.headers['retry-after']) ?? '')) problems.push('429 without Retry-After');
  if (response.status >= 400 && headerText(response.headers['cache-control']) !== 'no-store') problems.push('an error without Cache-Control: no-store');
  return problems;
}

/** A copy of `schema` whose local refs point into the document. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOC_ID}${value}` : rebase(value);
  }
  return out;
}

export function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}
