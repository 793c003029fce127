import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../../config.ts';
import type { StoreBase, TokenRecord, TokenStore } from '../../storage/store.ts';
import { sameText, tokenUsable, verifyToken } from '../../tokens.ts';
import { ApiError } from '../errors/catalogue.ts';
import { RATE_WINDOW_SEC, type RateLimiter, rateLimitHeaders } from './rate-limits.ts';
import { admission } from '../server/server-limits.ts';

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
 * request. A header seen for the first time is parsed, its secret hashed and compared in
 * constant time (authenticate); once a token has passed, the exact Authorization header that
 * carried it is kept beside its record, so that both paths (the fast path, and the full one's
 * auth hook below) accept the same header again by a constant-time comparison of the text
 * instead of hashing it anew (a SHA-256 per request was a large part of a cached answer's cost:
 * bench/RESULTS.md). Both are dropped together when the tokens version moves, and bounded in
 * entries.
 */
export class TokenCache {
  private version = Number.NaN;
  private readonly records = new Map<string, TokenRecord>();
  private readonly passed = new Map<string, string>();

  constructor(private readonly store: Pick<TokenStore, 'tokenById'>, private readonly maxEntries = 10_000) {}

  /** A lookup for verifyToken, valid for the tokens version just read. */
  lookupAt(tokensVersion: number): (id: string) => Promise<TokenRecord | undefined> {
    this.at(tokensVersion);
    return async (id) => {
      const known = this.records.get(id);
      if (known) return known;
      const record = await this.store.tokenById(id);
      // Not if the version moved while reading: the record may be from before a revocation.
      if (record && this.version === tokensVersion && this.records.size < this.maxEntries) this.records.set(id, record);
      return record;
    };
  }

  /** Keeps the Authorization header with which `record` just passed verifyToken at `tokensVersion`. */
  passedWith(tokensVersion: number, record: TokenRecord, header: string): void {
    if (tokensVersion !== this.version || this.records.get(record.id) !== record) return;
    if (this.passed.size < this.maxEntries || this.passed.has(record.id)) this.passed.set(record.id, header);
  }

  /**
   * The record whose token passed with exactly this header at this tokens version, if it is
   * still unexpired at `nowSec`; otherwise undefined (the full path decides). The header is
   * compared in constant time; the id read from its fixed place only picks what to compare.
   */
  passedBefore(tokensVersion: number, header: string, nowSec: number): TokenRecord | undefined {
    if (tokensVersion !== this.version) return undefined;
    const id = header.slice(ID_AT, ID_AT + ID_LENGTH);
    const kept = this.passed.get(id);
    if (kept === undefined || !sameText(header, kept)) return undefined;
    const record = this.records.get(id);
    return record && tokenUsable(record, nowSec) ? record : undefined;
  }

  private at(tokensVersion: number): void {
    if (tokensVersion === this.version) return;
    this.records.clear();
    this.passed.clear();
    this.version = tokensVersion;
  }
}

/** Where a token's id sits in `Bearer fp_<id>_<secret>`. */
const ID_AT = 'Bearer fp_'.length;
const ID_LENGTH = 8;

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

export interface AuthAndLimitsOptions {
  store: Pick<StoreBase, 'versions' | 'versionsNow'> & Pick<TokenStore, 'tokenById'>;
  clock: Clock;
  tokens: TokenCache;
  limiter: RateLimiter;
  /** Requests per minute per token when the token sets none, and per address without a token. */
  defaultLimit: number;
  maxUrlLength: number;
  /** Told the data version read with the tokens version, so that the answer cache need not read it again. */
  onDataVersion: (request: FastifyRequest, dataVersion: number) => void;
}

/** The id of the token each request passed with, for the access log (a WeakMap: gone with the request). */
const tokenIds = new WeakMap<FastifyRequest, string>();

/** The id (the public part) of the token the request passed with, if it did. */
export function tokenIdOf(request: FastifyRequest): string | undefined {
  return tokenIds.get(request);
}

/**
 * The bearer check and the rate limit, in one onRequest hook: a request is counted against its
 * token's limit, or its address's when it has no valid token, before its 401 is sent, so that
 * guessing tokens is rate limited too. Public paths (isPublicPath) are counted by address.
 */
export const authAndLimits = fp<AuthAndLimitsOptions>(async (app, options) => {
  const { store, clock, tokens, limiter, defaultLimit, maxUrlLength, onDataVersion } = options;
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    const refused = admission(request, maxUrlLength);
    if (refused) throw refused;
    // The route the router chose, so that `/v1/openapi.json#x` or `/v1/%6Fpenapi.json` is as public as `/v1/openapi.json`.
    const path = request.routeOptions.url ?? request.url.split(/[?#]/, 1)[0] ?? '';
    let key: string | undefined;
    let limit = defaultLimit;
    let authError: ApiError | undefined;
    if (!isPublicPath(path)) {
      try {
        // One read gives the tokens version (for the token cache) and the data version (for the answer cache);
        // on SQLite, and on PostgreSQL while the last reading may be reused, without waiting.
        const versions = store.versionsNow() ?? await store.versions();
        onDataVersion(request, versions.data);
        const header = request.headers.authorization ?? '';
        // The very header a token has already passed with at this tokens version (compared in constant time,
        // as the fast path does) is not hashed and looked up again; any other goes through every check.
        let token = authorizationCount(request.raw.rawHeaders) === 1 ? tokens.passedBefore(versions.tokens, header, clock.now()) : undefined;
        if (!token) {
          token = await authenticate(request, store, clock, tokens.lookupAt(versions.tokens));
          tokens.passedWith(versions.tokens, token, header);
        }
        key = `token:${token.id}`;
        tokenIds.set(request, token.id);
        limit = token.rateLimit ?? defaultLimit;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        authError = error;
      }
    }
    key ??= `ip:${request.ip}`;
    // A limiter that counts in this process is not waited for; a shared one (Redis) is.
    const decision = limiter.consumeNow ? limiter.consumeNow(key, limit, Date.now()) : await limiter.consume(key, limit, Date.now());
    reply.headers(rateLimitHeaders(decision, RATE_WINDOW_SEC));
    if (!decision.allowed) {
      throw new ApiError('rate_limited', `Rate limit of ${decision.limit} requests a minute exceeded; retry in ${decision.resetSec} s.`, {
        'retry-after': String(decision.resetSec),
      });
    }
    if (authError) throw authError;
  });
}, { name: 'auth-and-limits' });
