import { Type } from '@sinclair/typebox';
import type { UnavailableReason } from './unavailable.ts';

/**
 * The error catalogue: every error the API can answer, each with its one status. The ErrorCode
 * type, codeToStatus, the OpenAPI document's Error schema and every error body (errorPayload,
 * errorText) all come from this one map: a code cannot be added without a status, nor answered
 * without being documented.
 */
export const ERRORS = {
  invalid_parameter: { status: 400 },
  unauthorized: { status: 401 },
  invalid_token: { status: 401 },
  not_found: { status: 404 },
  method_not_allowed: { status: 405 },
  not_acceptable: { status: 406 },
  rate_limited: { status: 429 },
  request_too_large: { status: 431 },
  unavailable: { status: 503 },
  internal: { status: 500 },
} as const satisfies Record<string, { status: ErrorStatus }>;

/** The statuses an error may answer with. */
export type ErrorStatus = 400 | 401 | 404 | 405 | 406 | 429 | 431 | 500 | 503;

export type ErrorCode = keyof typeof ERRORS;

/** The codes in the catalogue's order (the order the Error schema lists them in). */
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

export function codeToStatus(code: ErrorCode): ErrorStatus {
  return ERRORS[code].status;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** Extra response headers this error must carry (WWW-Authenticate, Allow, Retry-After). */
  readonly headers: Readonly<Record<string, string>>;
  /** Why, for a 503 (`unavailable`): written in the access line and counted in the metrics (unavailable.ts). */
  readonly reason: UnavailableReason | undefined;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}, reason?: UnavailableReason) {
    super(message);
    this.code = code;
    this.statusCode = codeToStatus(code);
    this.headers = headers;
    this.reason = reason;
  }
}

export function apiError(code: ErrorCode, message: string, headers?: Record<string, string>, reason?: UnavailableReason): never {
  throw new ApiError(code, message, headers, reason);
}

export function notFound(kind: 'city' | 'station', id: string): never {
  throw new ApiError('not_found', `No ${kind} has the id '${truncate(id, 100)}'.`);
}

export function truncate(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(ERROR_CODES.map((c) => Type.Literal(c))),
      message: Type.String(),
      request_id: Type.String(),
    }),
  },
  {
    $id: 'Error',
    description: 'Every error answers with this shape.',
    examples: [{ error: { code: 'not_found', message: "No city has the id 'atlantis'.", request_id: '5b0c1c1e-7f8e-4a2b-9d61-0b6f3c2a9e10' } }],
  },
);

export interface ErrorPayload {
  error: { code: ErrorCode; message: string; request_id: string };
}

/** The body of every error answer: sent as this object through Fastify, as errorText where an answer is written by hand. */
export function errorPayload(code: ErrorCode, message: string, requestId: string): ErrorPayload {
  return { error: { code, message, request_id: requestId } };
}

/** errorPayload as the JSON text sent in front of Fastify (load shedding) and on the raw socket (requests Node refuses). */
export function errorText(code: ErrorCode, message: string, requestId: string): string {
  return JSON.stringify(errorPayload(code, message, requestId));
}
