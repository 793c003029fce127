import type { FastifyInstance, RouteShorthandOptions } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import type { Clock } from '../../config.ts';
import type { PriceStore } from '../../storage/store.ts';
import { ApiError, ErrorBody } from '../errors.ts';

export interface RouteDeps {
  store: PriceStore;
  clock: Clock;
}

const ALLOW = 'GET, HEAD, OPTIONS';

/** Answers every other method on a GET route with 405 and Allow, hidden from the API document. */
export function methodNotAllowed(app: FastifyInstance, url: string): void {
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'],
    url,
    schema: { hide: true },
    handler: async (request) => {
      throw new ApiError('method_not_allowed', `${request.method} is not allowed here; this API is read-only (GET, HEAD).`, { allow: ALLOW });
    },
  });
}

const ref = { $ref: 'Error#' };

/** Error responses documented for every /v1 route. */
export function errorResponses(...extra: Array<400 | 404>): Record<number, TSchema | { $ref: string; description: string }> {
  const responses: Record<number, { $ref: string; description: string }> = {
    401: { ...ref, description: 'Missing, malformed, unknown, revoked or expired token.' },
    405: { ...ref, description: 'Only GET and HEAD are allowed.' },
    429: { ...ref, description: 'Rate limit exceeded; see Retry-After.' },
    500: { ...ref, description: 'Unexpected error.' },
    503: { ...ref, description: 'Storage unavailable.' },
  };
  if (extra.includes(400)) responses[400] = { ...ref, description: 'Invalid parameter; the message names it and what it accepts.' };
  if (extra.includes(404)) responses[404] = { ...ref, description: 'No city or station has that id.' };
  return responses;
}

export const ErrorSchema = ErrorBody;
export type { RouteShorthandOptions };
