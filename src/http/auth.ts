import type { FastifyRequest } from 'fastify';
import type { Clock } from '../config.ts';
import type { PriceStore, TokenRecord } from '../storage/store.ts';
import { verifyToken } from '../tokens.ts';
import { ApiError } from './errors.ts';

const REALM = 'Bearer realm="fuelprice"';
// RFC 7235: the scheme is case-insensitive; one space, then a token68 and nothing else.
const BEARER = /^bearer ([A-Za-z0-9._~+/-]+=*)$/i;

/** Paths that answer without a token: probes, the API description and its docs page. */
export function isPublicPath(path: string): boolean {
  return !path.startsWith('/v1/') || path === '/v1/openapi.json';
}

/** The token record for the request's bearer token, or throws the documented 401. */
export async function authenticate(request: FastifyRequest, store: PriceStore, clock: Clock): Promise<TokenRecord> {
  const header = request.headers.authorization;
  if (header === undefined || header === '') {
    throw new ApiError('unauthorized', 'This request needs an Authorization header: Bearer <token>.', { 'www-authenticate': REALM });
  }
  const match = BEARER.exec(header);
  if (!match?.[1]) {
    throw new ApiError('unauthorized', "The Authorization header must be 'Bearer <token>'.", { 'www-authenticate': REALM });
  }
  const record = await verifyToken(store, match[1], clock.now());
  if (!record) {
    throw new ApiError('invalid_token', 'The token is unknown, revoked or expired.', {
      'www-authenticate': `${REALM}, error="invalid_token"`,
    });
  }
  return record;
}
