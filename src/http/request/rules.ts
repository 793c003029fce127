/**
 * The rules every request is held to, written once: what may enter (URL length, body: within
 * what its route declares, request/policy.ts), its id, the versions it is answered at (read once a request), its token
 * and its rate limit. Both paths call these and nothing else for those rules: the fast path in
 * front of Fastify (cache/fast-path.ts), which answers only what the full path has already
 * answered, and Fastify's hooks (request/hooks.ts and cache/answer-cache.ts). The answer cache's
 * key and validity are AnswerStore.get's (cache/answer-store.ts), also called by both. test/http/cache/fast-path.test.ts holds the two paths' answers byte for byte.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Clock } from '../../config.ts';
import type { StoreBase, TokenRecord, TokenStore } from '../../storage/store.ts';
import type { TokenCache } from '../auth/token-cache.ts';
import type { RateDecision, RateLimiter } from '../auth/rate-limits.ts';
import { ApiError } from '../errors/catalogue.ts';
import type { RoutePolicy } from './policy.ts';

/** The path of a request target as the router reads it: up to its query (`?`) or a fragment (`#`) a raw client sent. */
export function requestPath(url: string): string {
  return url.split(/[?#]/, 1)[0] ?? '';
}

/** The header that carries a request's id, both ways. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** An X-Request-Id a client may choose (anything else is replaced by a fresh UUID). */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the client's X-Request-Id when it is one sane value, else a new UUID. */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** A GET carries no body here; one past this (or of unknown length) is refused and its connection closed. */
export const MAX_BODY_BYTES = 1_024;

/** True when a request declares a body longer than MAX_BODY_BYTES, or chunked (of no stated length). */
export function declaresLargeBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && lengthOverLimit(length));
}

/** Whether a Content-Length value states more than MAX_BODY_BYTES, or is not a number at all. */
export function lengthOverLimit(contentLength: string): boolean {
  return !(Number(contentLength) <= MAX_BODY_BYTES);
}

/**
 * /v1/prices/along carries a route (an encoded polyline) in its URL: it may be as long as the
 * request line fits in the header limit (8 KiB), whatever the limit for other URLs (its route
 * declares it: `maxUrl`, request/policy.ts).
 */
export const ALONG_MAX_URL_LENGTH = 8_192;

/**
 * The body of a POST form (routes/post-body.ts: many ids or a long route that a URL cannot carry)
 * may be up to this many bytes and must state its length (Content-Length); its route declares it
 * (`maxBody`). 32 KiB: 100 ids of 200 characters (20.3 KB), or a path of 7,000 characters every
 * one escaped (14 KB), with room to spare.
 */
export const MAX_POST_BODY_BYTES = 32_768;

/** Whether a request is a POST to a route that takes a JSON body (its policy declares `maxBody`). */
export function isBodyPost(method: string | undefined, policy: RoutePolicy): boolean {
  return method === 'POST' && policy.maxBody !== undefined;
}

/** What is asked of every request before auth: too long a URL or too large a body is refused. */
export function admission(
  request: { method?: string | undefined; url: string; headers: IncomingHttpHeaders }, maxUrlLength: number, policy: RoutePolicy,
): ApiError | undefined {
  const max = Math.max(maxUrlLength, policy.maxUrl ?? 0);
  if (request.url.length > max) return new ApiError('invalid_parameter', `The URL is too long (${max} characters at most).`);
  // Closing the connection is what bounds the body: Node would otherwise read and drop all of it after the answer.
  if (isBodyPost(request.method, policy)) {
    const length = request.headers['content-length'];
    const most = policy.maxBody ?? 0;
    if (request.headers['transfer-encoding'] !== undefined || (length !== undefined && !(Number(length) <= most))) {
      return new ApiError('invalid_parameter', `The body must state its length (Content-Length) and be at most ${most} bytes.`, { connection: 'close' });
    }
    return undefined;
  }
  if (declaresLargeBody(request.headers)) return new ApiError('invalid_parameter', 'This API takes no request body.', { connection: 'close' });
  return undefined;
}

/** The data version and the tokens version, read together once a request. */
export interface Versions {
  data: number;
  tokens: number;
}

/** Where the fast path leaves the versions it read on a request it hands to Fastify (the same turn of the event loop). */
const READ_VERSIONS = Symbol('versions read in front of Fastify');

type CarryingVersions = IncomingMessage & { [READ_VERSIONS]?: Versions };

/** Whose count a request is taken from, and its limit a minute. */
export interface LimitKey {
  readonly key: string;
  readonly limit: number;
}

export interface RequestRulesDeps {
  store: Pick<StoreBase, 'versions' | 'versionsNow'> & Pick<TokenStore, 'tokenById'>;
  clock: Clock;
  tokens: TokenCache;
  limiter: RateLimiter;
  /** Requests per minute per token when the token sets none, and per address without a token. */
  defaultLimit: number;
}

export class RequestRules {
  readonly clock: Clock;
  readonly tokens: TokenCache;
  private readonly store: RequestRulesDeps['store'];
  private readonly limiter: RateLimiter;
  private readonly defaultLimit: number;
  private readonly tokenKeys = new WeakMap<TokenRecord, LimitKey>();

  constructor(deps: RequestRulesDeps) {
    ({ store: this.store, clock: this.clock, tokens: this.tokens, limiter: this.limiter, defaultLimit: this.defaultLimit } = deps);
  }

  /**
   * The versions without waiting: on SQLite read at once, on PostgreSQL the last reading while it
   * may be reused, else undefined. Throws when storage is out of reach.
   */
  versionsNow(): Versions | undefined {
    return this.store.versionsNow();
  }

  /**
   * The versions a request is answered at: those the fast path read for it, if it did (so that a
   * request is never given two readings), else read now, waiting only when versionsNow has none.
   */
  versions(req: IncomingMessage): Versions | Promise<Versions> {
    return (req as CarryingVersions)[READ_VERSIONS] ?? this.store.versionsNow() ?? this.store.versions();
  }

  /** Leaves the fast path's reading on a request it hands to Fastify, for versions(). */
  handOn(req: IncomingMessage, versions: Versions): void {
    (req as CarryingVersions)[READ_VERSIONS] = versions;
  }

  /**
   * The token that already passed with exactly this Authorization header at this tokens version
   * (compared in constant time), still usable now; undefined when it must be checked in full.
   */
  passedToken(tokensVersion: number, authorization: string, nowSec: number): TokenRecord | undefined {
    return this.tokens.passedBefore(tokensVersion, authorization, nowSec);
  }

  /**
   * A request with a token is counted against the token's limit; one without, against its
   * address's default. A token's key is made once per record (records last a tokens version:
   * auth/token-cache.ts), so that every request it makes looks its count up by the same string,
   * hashed once, rather than by a new one built and hashed per request.
   */
  limitKey(token: TokenRecord | undefined, address: string): LimitKey {
    if (!token) return { key: `ip:${address}`, limit: this.defaultLimit };
    let kept = this.tokenKeys.get(token);
    if (kept === undefined) {
      kept = { key: `token:${token.id}`, limit: token.rateLimit ?? this.defaultLimit };
      this.tokenKeys.set(token, kept);
    }
    return kept;
  }

  /** Counts the request when the limiter counts in this process (nothing to wait for); undefined for a shared one (consume). */
  consumeNow({ key, limit }: LimitKey): RateDecision | undefined {
    return this.limiter.consumeNow?.(key, limit, Date.now());
  }

  /** Counts the request on a shared limiter (Redis), waiting for it. */
  consume({ key, limit }: LimitKey): Promise<RateDecision> {
    return this.limiter.consume(key, limit, Date.now());
  }
}
