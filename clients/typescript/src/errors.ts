/**
 * What a call throws: a FuelPriceError, or one of its subclasses for the answers a caller
 * handles differently. `code` is the server's error code (`invalid_parameter`, `not_found`,
 * `rate_limited`...), or one of the client's own: `network_error`, `timeout`,
 * `unexpected_response` (an answer that is not the server's error shape).
 */
export class FuelPriceError extends Error {
  /** The HTTP status; 0 when no answer arrived (network error, timeout). */
  readonly status: number;
  readonly code: string;
  /** The request id the server gave (`request_id`, else the `X-Request-Id` header); undefined without an answer. */
  readonly requestId: string | undefined;

  constructor(message: string, details: { status: number; code: string; requestId?: string | undefined; cause?: unknown }) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code;
    this.requestId = details.requestId;
  }
}

/** 400: a parameter is invalid; the message names it and what it accepts. */
export class BadRequestError extends FuelPriceError {}

/** 401: the token is missing, malformed, unknown, revoked or expired (`unauthorized` or `invalid_token`). */
export class AuthError extends FuelPriceError {}

/** 404: no city or station has the id. */
export class NotFoundError extends FuelPriceError {}

/** 429, once the client's retries are spent (or the wait asked for is longer than it may wait). */
export class RateLimitedError extends FuelPriceError {
  /** The seconds the server asked to wait (Retry-After, else the RateLimit header's reset), if it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, details: { status: number; code: string; requestId?: string | undefined; retryAfterSeconds: number | undefined }) {
    super(message, details);
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}

/** 503: storage out of reach or the server over capacity, once the client's retries are spent. */
export class UnavailableError extends FuelPriceError {}

/** No answer: the connection failed or the call timed out (`code` is `network_error` or `timeout`). */
export class NetworkError extends FuelPriceError {}

/** The server's error body: `{"error": {"code", "message", "request_id"}}`. */
interface ErrorBody { error: { code: string; message: string; request_id?: string } }

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = body.error;
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    && 'message' in error && typeof error.message === 'string';
}

/** The typed error for an answer that is not a 2xx, from its status, body text and headers. */
export function errorFromResponse(status: number, text: string, headers: Headers, retryAfterSeconds: number | undefined): FuelPriceError {
  const headerId = headers.get('x-request-id') ?? undefined;
  let body: unknown;
  try { body = JSON.parse(text); } catch { body = undefined; }
  if (!isErrorBody(body)) {
    return new FuelPriceError(`Unexpected answer: HTTP ${status} without the API's error body.`, { status, code: 'unexpected_response', requestId: headerId });
  }
  const details = { status, code: body.error.code, requestId: body.error.request_id ?? headerId };
  const message = body.error.message;
  switch (status) {
    case 400: return new BadRequestError(message, details);
    case 401: return new AuthError(message, details);
    case 404: return new NotFoundError(message, details);
    case 429: return new RateLimitedError(message, { ...details, retryAfterSeconds });
    case 503: return new UnavailableError(message, details);
    default: return new FuelPriceError(message, details);
  }
}
