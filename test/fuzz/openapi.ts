/**
 * The parts of the served OpenAPI document the fuzzer reads: operations (method, path template,
 * parameters, documented responses), and how a raw request path maps onto them the way the
 * router does (literal segments compared after percent-decoding, a parameter takes one segment).
 */

export interface JsonSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  [keyword: string]: unknown;
}

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

export interface ResponseObject {
  description?: string;
  content?: Record<string, { schema?: unknown }>;
}

export interface OperationObject {
  parameters?: ParameterObject[];
  responses?: Record<string, ResponseObject>;
  security?: unknown[];
}

export interface ApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, unknown> };
}

export interface Operation {
  /** Upper-case HTTP method. */
  method: string;
  /** The OpenAPI path, e.g. `/v1/cities/{id}/history`. */
  template: string;
  segments: string[];
  parameters: ParameterObject[];
  responses: Record<string, ResponseObject>;
  /** Whether the operation needs a bearer token. */
  secured: boolean;
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'];

export function operationsOf(doc: ApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      operations.push({
        method: method.toUpperCase(),
        template,
        segments: template.split('/'),
        parameters: operation.parameters ?? [],
        responses: operation.responses ?? {},
        secured: (operation.security ?? []).length > 0,
      });
    }
  }
  return operations;
}

/** The path part of a request target as the router sees it: up to the first `?` or `#`. */
export function pathPart(target: string): string {
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

export type RouteMatch =
  | { kind: 'undecodable' }
  | { kind: 'unrouted' }
  | { kind: 'routed'; template: string; operations: Operation[] };

/** Which documented path a raw request path reaches, if any; like the router, the most specific template wins. */
export function matchPath(operations: readonly Operation[], rawPath: string): RouteMatch {
  const segments: string[] = [];
  for (const raw of rawPath.split('/')) {
    try {
      segments.push(decodeURIComponent(raw));
    } catch {
      return { kind: 'undecodable' };
    }
  }
  let best: { template: string; literals: number } | undefined;
  for (const operation of operations) {
    const literals = literalsMatched(operation.segments, segments);
    if (literals !== undefined && (!best || literals > best.literals)) best = { template: operation.template, literals };
  }
  if (!best) return { kind: 'unrouted' };
  const template = best.template;
  return { kind: 'routed', template, operations: operations.filter((o) => o.template === template) };
}

/** How many literal segments of `template` the path matched, or undefined when it does not match. `{*}` takes the rest. */
function literalsMatched(template: readonly string[], segments: readonly string[]): number | undefined {
  let literals = 0;
  for (let i = 0; i < template.length; i++) {
    const part = template[i] ?? '';
    const given = segments[i];
    if (part === '{*}' && i === template.length - 1) return given === undefined ? undefined : literals;
    if (given === undefined) return undefined;
    // A parameter may be empty, as in the router: `/v1/cities/` reaches `/v1/cities/{id}` with the id ''.
    if (/^\{[^}]+\}$/.test(part)) continue;
    if (part === given) {
      literals++;
    } else {
      return undefined;
    }
  }
  return template.length === segments.length ? literals : undefined;
}
