/**
 * The front of the cache-hit branch (cache-hit.ts): in front of Fastify, a GET whose answer is
 * in the answer cache for the current data version, carrying the Authorization header a token
 * has already passed the full path with at the current tokens version (auth/token-cache.ts),
 * within its rate limit, is written by sendHit with the head the full path sends a hit with
 * (hitHead). Everything else (a miss, a first sight of a token, a conditional or HEAD request,
 * an error of any kind, a shared Redis limiter) goes to Fastify untouched, with the versions
 * read here (rules.handOn). Every rule it applies is request/rules.ts's, which the full path's
 * hooks call too: it only repeats a success the full path has already produced, without the
 * framework's per-request work (about half the CPU of a cached answer: bench/RESULTS.md, "The
 * fast path against none"). test/http/cache/fast-path.test.ts compares its answers with the full
 * path's byte for byte.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { acceptsJson } from '../representation/negotiation.ts';
import { REQUEST_ID_HEADER, type RequestRules, lengthOverLimit, requestIdOf } from '../request/rules.ts';
import type { AnswerStore } from './answer-store.ts';
import { type HitLog, isSendable, sendHit } from './cache-hit.ts';

export interface FastPathDeps {
  /** The request rules, over a limiter that counts in this process: the fast path never waits. */
  rules: RequestRules;
  cache: AnswerStore;
  /** Where its access lines go: the app's access log, where Fastify's hook writes the full path's (app.ts). */
  hitLog: HitLog;
  /** Told of each answer sent here, with its route pattern and when the request reached the fast path (metrics.ts), when metrics are on. */
  answered?: ((route: string | undefined, startedMs: number) => void) | undefined;
}

/** A request listener front: true when it answered, false to hand the request to Fastify. */
export function fastPath(deps: FastPathDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { rules, cache, answered, hitLog } = deps;
  const { clock } = rules;
  return (req, res) => {
    const begun = performance.now();
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
    if (!hit || !isSendable(hit)) {
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
    sendHit(req, res, hit, { url, requestId: requestIdOf(headers.requestId), decision, tokenId: token.id, startedMs: begun }, hitLog);
    answered?.(hit.route, begun);
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
        if (name.toLowerCase() === REQUEST_ID_HEADER) requestId = requestIds++ === 0 ? raw[i + 1] : undefined;
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
