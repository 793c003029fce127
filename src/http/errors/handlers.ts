import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStorageUnavailable } from '../../storage/errors.ts';
import { JSON_TYPE } from '../representation/negotiation.ts';
import { MAX_POST_BODY_BYTES, isBodyPost, requestPath } from '../request/rules.ts';
import { policyOf } from '../request/policy.ts';
import { ApiError, errorPayload } from './catalogue.ts';
import { markUnavailable } from './unavailable.ts';

/** The one error handler and the not-found handler: every error a route or hook raises answered in the catalogue's shape. */

/** Sends an error in the documented shape; used by the error handler and by hooks. */
export function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  reply.code(err.statusCode);
  if (err.reason) markUnavailable(reply.raw, err.reason);
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  return reply.type(JSON_TYPE).send(errorPayload(err.code, err.message, reply.request.id));
}

/** Turns anything thrown into the documented shape: no stack and no SQL ever leaves the process. */
export function toApiError(error: FastifyError | Error, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return validationError(fastifyError, request);
  if (isStorageUnavailable(error)) return new ApiError('unavailable', 'The service is temporarily unavailable; try again shortly.', { 'retry-after': '5' }, 'storage');
  const status = fastifyError.statusCode ?? 500;
  const body = bodyError(fastifyError.code);
  if (body !== undefined && isBodyPost(request.method, policyOf(request))) return new ApiError('invalid_parameter', body);
  if (status === 413 || status === 414 || status === 431) return new ApiError('invalid_parameter', 'The request is too large.');
  if (status === 415) return new ApiError('invalid_parameter', 'This API takes no request body.');
  if (status >= 400 && status < 500) return new ApiError('invalid_parameter', 'The request could not be read.');
  if (status === 503) return new ApiError('unavailable', 'The service is temporarily unavailable; try again shortly.', { 'retry-after': '5' });
  return new ApiError('internal', 'Something went wrong on our side; the request id identifies it in our logs.');
}

/** What the body of a POST (routes/post-body.ts) was refused for, by Fastify's code for it. */
function bodyError(code: string | undefined): string | undefined {
  switch (code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return 'The body must be JSON, sent as Content-Type: application/json.';
    case 'FST_ERR_CTP_INVALID_JSON_BODY': return 'The body is not valid JSON.';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return 'The body is empty; it must be a JSON object of the parameters.';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH': return `The body must state its length (Content-Length) and be at most ${MAX_POST_BODY_BYTES} bytes.`;
    default: return undefined;
  }
}

/** Fastify's schema failures become one message naming the parameter and what it accepts. */
function validationError(error: FastifyError, request: FastifyRequest): ApiError {
  const first = error.validation?.[0];
  const missing = first?.keyword === 'required' ? (first.params as { missingProperty?: unknown }).missingProperty : undefined;
  if (typeof missing === 'string') {
    const accepts = describeParameter(request, missing)?.replace(`Parameter '${missing}' `, '');
    return new ApiError('invalid_parameter', `Parameter '${missing}' is required${accepts ? `; it ${accepts}` : '.'}`);
  }
  const path = first?.instancePath ?? '';
  const name = path.replace(/^\//, '').split('/')[0] ?? '';
  const described = name ? describeParameter(request, name) : undefined;
  const message = described ?? `${error.validationContext ?? 'request'} ${first?.message ?? 'is invalid'}`;
  return new ApiError('invalid_parameter', message);
}

function describeParameter(request: FastifyRequest, name: string): string | undefined {
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, { description?: string; 'x-accepts'?: string }> } | undefined;
  const accepts = schema?.properties?.[name]?.['x-accepts'];
  return accepts ? `Parameter '${name}' ${accepts}.` : undefined;
}

/** Every error a route or hook throws, and every unknown route, answered in the documented shape. */
export function addErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const apiErr = toApiError(error instanceof Error ? error : new Error(String(error)), request);
    if (apiErr.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, apiErr);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new ApiError('not_found', `No route ${request.method} ${requestPath(request.url).slice(0, 200)}.`)));
}
