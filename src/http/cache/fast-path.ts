/**
 * The fast path for cached answers: in front of Fastify, a GET whose answer is in the response
 * cache for the current data version, carrying the Authorization header a token has already
 * passed the full path with at the current tokens version (auth/token-cache.ts), within
 * its rate limit, is answered straight from the cache. Everything else (a miss, a first sight
 * of a token, a conditional or HEAD request, an error of any kind, a shared Redis limiter)
 * goes to Fastify untouched. Every rule it applies is request/rules.ts's, which the full path's
 * hooks call too: the fast path only repeats a success the full path has already produced.
 *
 * What it sends is what the full path sent for the same URL: the headers captured from that
 * answer (content type, ETag, Cache-Control, CORS, ...), plus this request's own X-Request-Id
 * and RateLimit fields. test/http/cache/fast-path.test.ts compares the two byte for byte.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RATE_WINDOW_SEC, rateLimitHeaders } from '../auth/rate-limits.ts';
import { acceptsJson } from '../representation/negotiation.ts';
import { type RequestRules, lengthOverLimit, requestIdOf } from '../request/rules.ts';
import type { AccessLog } from '../server/request-log.ts';
import type { AnswerStore } from './answer-store.ts';

export interface FastPathDeps {
  /** The request rules, over a limiter that counts in this process: the fast path never waits. */
  rules: RequestRules;
  cache: AnswerStore;
  /** The client's address as Fastify's request.ip gives it (TRUST_PROXY), for the log line. */
  address: (req: IncomingMessage) => string;
  /** Request logging as Fastify's own (when the logger is on), resolved once the app exists. */
  log: () => AccessLog | undefined;
  /** Told of each answer sent here, with its route pattern and when the request reached the fast path (metrics.ts), when metrics are on. */
  answered?: ((route: string | undefined, startedMs: number) => void) | undefined;
}

/** A request listener front: true when it answered, false to hand the request to Fastify. */
export function fastPath(deps: FastPathDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { rules, cache, answered } = deps;
  const { clock } = rules;
  return (req, res) => {
    const log = deps.log();
    const begun = answered || log ? performance.now() : 0;
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith('/v1/')) return false;
    const headers = scanHeaders(req.rawHeaders);
    if (!headers) return false;
    let versions: ReturnType<RequestRules['versionsNow']>;
    try {
      versions = rules.versionsNow();
    } catch {
      return false; // storage out of reach: the full path answers it (503 unavailable)
    }
    if (!versions) return false;
    const now = clock.now();
    // Keyed by the URL alone: a CSV answer asked for by Accept has a key no URL is (answerKey), and scanHeaders sent such a request on.
    const hit = cache.get(url, versions.data, now);
    if (!hit?.head) {
      rules.handOn(req, versions);
      return false;
    }
    // Only the very header a token already passed the full path with (compared in constant time).
    const token = rules.passedToken(versions.tokens, headers.authorization, now);
    const decision = token && rules.consumeNow(rules.limitKey(token, ''));
    if (!token || !decision?.allowed) {
      rules.handOn(req, versions);
      return false;
    }
    const requestId = requestIdOf(headers.requestId);
    // A flat list: node writes it as given, with no header object built and merged per request.
    const limits = rateLimitHeaders(decision, RATE_WINDOW_SEC);
    res.writeHead(200, [
      'x-request-id', requestId, ...hit.head, 'ratelimit-policy', limits['ratelimit-policy'], 'ratelimit', limits.ratelimit, 'content-length', hit.length,
    ]);
    // The text when kept (answer-store.ts: one write with the header block), else the bytes.
    if (hit.text !== undefined) res.end(hit.text, 'latin1');
    else res.end(hit.body);
    answered?.(hit.route, begun);
    // The same access line as the full path's (server/request-log.ts).
    if (log) {
      // The answer's part of the line is the same for every request it answers: built once, kept on the entry.
      const part = hit.accessPart ??= log.answerPart({ method: 'GET', url, route: hit.route, status: 200, bytes: hit.body.length });
      log.withPart(part, requestId, performance.now() - begun, token.id, deps.address(req));
    }
    return true;
  };
}

/**
 * The request headers the fast path reads, in one pass over the raw list, so that Node never
 * builds `req.headers` for a request answered here (that object cost a fifth of the fast
 * path). Undefined when the full path must answer: no Authorization header, more than one (a
 * proxy may have read another), a conditional request, an Accept not answered by JSON
 * (representation/negotiation.ts: CSV or a 406), or a declared body over MAX_BODY_BYTES
 * or chunked (declaresLargeBody: refused, connection closed). A repeated X-Request-Id is left
 * out, as the full path's `req.headers` would join the copies with a comma REQUEST_ID refuses.
 */
export function scanHeaders(raw: readonly string[]): { authorization: string; requestId: string | undefined } | undefined {
  let authorization: string | undefined;
  let requestId: string | undefined;
  let requestIds = 0;
  let accepts = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    // Lowercased (a copy only when it has capitals) only when the length is one of these names'.
    switch (name.length) {
      case 13: {
        const lower = name.toLowerCase();
        if (lower === 'authorization') {
          if (authorization !== undefined) return undefined;
          authorization = raw[i + 1];
        } else if (lower === 'if-none-match') {
          return undefined;
        }
        break;
      }
      case 12:
        if (name.toLowerCase() === 'x-request-id') requestId = requestIds++ === 0 ? raw[i + 1] : undefined;
        break;
      case 6:
        // A cached answer under a URL is JSON unless the URL says format=csv: an Accept that asks for
        // CSV, or for neither (406), goes to the full path, as does a second Accept (the two read together).
        if (name.toLowerCase() === 'accept' && (accepts++ > 0 || !acceptsJson(raw[i + 1] as string))) return undefined;
        break;
      case 14:
        if (name.toLowerCase() === 'content-length' && lengthOverLimit(raw[i + 1] as string)) return undefined;
        break;
      case 17:
        if (name.toLowerCase() === 'transfer-encoding') return undefined;
        break;
    }
  }
  return authorization === undefined ? undefined : { authorization, requestId };
}
