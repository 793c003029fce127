import type { FastifyRequest } from 'fastify';
import type { Clock } from '../config.ts';
import type { PriceStore, TokenRecord } from '../storage/store.ts';
import { verifyToken } from '../tokens.ts';
import { ApiError } from './errors.ts';

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

/** Paths that answer without a token: probes, the API description and its docs page. */
export function isPublicPath(path: string): boolean {
  return !path.startsWith('/v1/') || path === '/v1/openapi.json';
}

/**
 * Token records as stored, kept while the store's tokens version stays the same: creating or
 * revoking a token (from any process) bumps it, so a revocation still counts from the next
 * request. The secret is still hashed and compared in constant time on every request.
 */
export class TokenCache {
  private version = Number.NaN;
  private readonly records = new Map<string, TokenRecord>();

  constructor(private readonly store: PriceStore, private readonly maxEntries = 10_000) {}

  /** A record already cached for this tokens version, without reading. */
  peek(tokensVersion: number, id: string): TokenRecord | undefined {
    return tokensVersion === this.version ? this.records.get(id) : undefined;
  }

  /** A lookup for verifyToken, valid for the tokens version just read. */
  lookupAt(tokensVersion: number): (id: string) => Promise<TokenRecord | undefined> {
    if (tokensVersion !== this.version) {
      this.records.clear();
      this.version = tokensVersion;
    }
    return async (id) => {
      const known = this.records.get(id);
      if (known) return known;
      const record = await this.store.tokenById(id);
      if (record && this.records.size < this.maxEntries) this.records.set(id, record);
      return record;
    };
  }
}

/** The token record for the request's bearer token, or throws the documented 401. */
export async function authenticate(
  request: FastifyRequest, store: PriceStore, clock: Clock, lookup?: (id: string) => Promise<TokenRecord | undefined>,
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
