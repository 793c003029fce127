/**
 * The cache-hit branch of the one pipeline: what a request answered from the answer cache is
 * sent, whichever path found its answer. The front (fast-path.ts) finds it before Fastify for a
 * GET with a token already seen, within a limit counted in this process, and writes it with
 * sendHit; Fastify's hooks (answer-cache.ts) find it for any other request once the same rules
 * (request/rules.ts) have run (a first sight of a token, a HEAD, a conditional request, a shared
 * Redis limiter) and send it through Fastify's own onSend (ETag, 304) and access line. Both
 * send the head made here by hitHead: this request's id, the headers kept with the answer,
 * this request's RateLimit fields, the length. What is kept with an answer and what is made anew
 * for each request is decided here too (stableHeaders).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type RateDecision, rateLimitHeaders } from '../auth/rate-limits.ts';
import { REQUEST_ID_HEADER } from '../request/rules.ts';
import type { AccessLog } from '../server/request-log.ts';
import type { CachedAnswer } from './answer-store.ts';

/** A kept answer with the headers it was first sent with: every answer the full path keeps (answer-cache.ts). */
export type SendableHit = CachedAnswer & { readonly head: readonly string[] };

export function isSendable(hit: CachedAnswer): hit is SendableHit {
  return hit.head !== undefined;
}

/**
 * The head of a cached answer for one request, as name, value, name, value...: the request's
 * id, the headers the first answer was sent with that are the same on every request (`hit.head`:
 * content type, ETag, Cache-Control, CORS, security headers...), the request's RateLimit fields
 * and the length. A flat list: the front hands it to Node as it is, with no header object built.
 */
export function hitHead(hit: SendableHit, requestId: string, decision: RateDecision): string[] {
  const head = [REQUEST_ID_HEADER, requestId, ...hit.head];
  const limits = rateLimitHeaders(decision);
  for (const name in limits) head.push(name, limits[name as keyof typeof limits]);
  head.push('content-length', hit.length);
  return head;
}

/** What a GET the front answers from the cache adds to the kept answer: its own fields, and its access line's. */
export interface HitRequest {
  url: string;
  requestId: string;
  /** The rate limit as counted for this request (its RateLimit fields). */
  decision: RateDecision;
  /** The id of the token it passed with, for the access line. */
  tokenId: string;
  /** When the request began (performance.now()), for the access line's time. */
  startedMs: number;
}

/** Where the front's access lines go (app.ts): the app's access log once it exists, and the client's address as Fastify's request.ip gives it. */
export interface HitLog {
  log: () => AccessLog | undefined;
  address: (req: IncomingMessage) => string;
}

/**
 * The front's writer of a cached answer: status 200 and hitHead; the body as text when kept
 * (answer-store.ts: one write with the header block), else as bytes; then the access line that
 * Fastify's hook writes for the full path (server/request-log.ts), the answer's part of it built
 * once and kept with the entry.
 */
export function sendHit(req: IncomingMessage, res: ServerResponse, hit: SendableHit, request: HitRequest, out: HitLog): void {
  res.writeHead(200, hitHead(hit, request.requestId, request.decision));
  if (hit.text !== undefined) res.end(hit.text, 'latin1');
  else res.end(hit.body);
  const log = out.log();
  if (!log) return;
  const part = hit.accessPart ??= log.answerPart({ method: 'GET', url: request.url, route: hit.route, status: 200, bytes: hit.body.length });
  log.withPart(part, request.requestId, performance.now() - request.startedMs, request.tokenId, out.address(req));
}

/** Headers of an answer that are the same on every request for its URL: what is kept with it (answer-cache.ts) and sent again in hitHead. */
export function stableHeaders(headers: Record<string, number | string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (PER_REQUEST.has(name) || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** What hitHead makes anew for each request (its id, its rate limit, the length), and what Node writes (date, connection). */
const PER_REQUEST: ReadonlySet<string> = new Set([
  REQUEST_ID_HEADER, ...Object.keys(rateLimitHeaders({ allowed: true, limit: 1, remaining: 1, resetSec: 1 })), 'content-length', 'date', 'connection', 'keep-alive',
]);
