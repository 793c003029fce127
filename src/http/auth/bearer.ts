import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../config.ts';
import type { TokenRecord, TokenStore } from '../../storage/store.ts';
import { verifyToken } from '../../tokens.ts';
import { ApiError } from '../errors/catalogue.ts';

const REALM = 'Bearer realm="fuelprice"';
// RFC 7235: the scheme is case-insensitive; one space, then a token68 and nothing else.
export const BEARER = /^bearer ([A-Za-z0-9._~+/-]+=*)$/i;

/**
 * How many Authorization headers the request carried. Node keeps the first and drops the others
 * (req.headers); a proxy in front may have read another one, so more than one is refused.
 */
export function authorizationCount(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 13 && name.toLowerCase() === 'authorization') count++;
  }
  return count;
}

/** The token record for the request's bearer token, or throws the documented 401. */
export async function authenticate(
  request: FastifyRequest, store: Pick<TokenStore, 'tokenById'>, clock: Clock, lookup?: (id: string) => Promise<TokenRecord | undefined>,
): Promise<TokenRecord> {
  const header = request.headers.authorization;
  if (header === undefined || header === '') {
    throw new ApiError('unauthorized', 'This request needs an Authorization header: Bearer <token>.', { 'www-authenticate': REALM });
  }
  if (authorizationCount(request.raw.rawHeaders) > 1) {
    throw new ApiError('unauthorized', 'Send exactly one Authorization header.', { 'www-authenticate': REALM });
  }
  const match = BEARER.exec(header);
  if (!match?.[1]) {
    throw new ApiError('unauthorized', "The Authorization header must be 'Bearer <token>'.", { 'www-authenticate': REALM });
  }
  const record = await verifyToken(store, match[1], clock.now(), lookup);
  if (!record) {
    throw new ApiError('invalid_token', 'The token is unknown, revoked or expired.', {
      'www-authenticate': `${REALM}, error="invalid_token"`,
    });
  }
  return record;
}
