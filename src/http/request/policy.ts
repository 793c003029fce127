/**
 * A route's policy, declared once beside its URL in its registration (Fastify's route `config`):
 * how its answers are cached, whether it needs a token, how long its URL and its body may be.
 * The request hooks (hooks.ts), the answer cache (cache/answer-cache.ts), the error handlers and
 * the OpenAPI document read it from the route the router chose, never from the URL's text.
 *
 *   app.get('/v1/cities/:id/history', { config: { cache: 'clock' }, schema: ... }, handler)
 *
 * A route that declares nothing is cached per data version and needs a token (under /v1/).
 */
import type { FastifyRequest } from 'fastify';

/**
 * - `data`: kept per data version (every write that can change it replaces the version);
 * - `clock`: the answer reads the clock too (today's point of a history, the cycle's today): kept
 *   per data version and for one clock slice (CLOCK_BUCKET_SEC) at most;
 * - `none`: never kept, no ETag, `Cache-Control: no-store` (the change feed answers what changed
 *   since a cursor, not what the data version decides).
 * Any answer asked with `max_age` is kept as `clock` whatever its route declares: a price ages out
 * of it without a write.
 */
export type CachePolicy = 'data' | 'clock' | 'none';

export interface RoutePolicy {
  /** How its answers are kept (above); `data` when not declared. */
  cache?: CachePolicy;
  /** Answered without a token. Outside /v1/ every route is (probes, the dashboard, /docs); under /v1/ only a route declaring it. */
  public?: boolean;
  /** The longest URL taken when longer than the server's limit (MAX_URL_LENGTH): along's polyline rides in its URL. */
  maxUrl?: number;
  /** A POST form's JSON body may be this many bytes and must state its length (routes/post-body.ts). */
  maxBody?: number;
}

declare module 'fastify' {
  // The route `config` Fastify keeps for each route carries its policy (request.routeOptions.config).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends RoutePolicy {}
}

/** The policy of the route a request was routed to (an unrouted request's is empty). */
export function policyOf(request: FastifyRequest): RoutePolicy {
  return request.routeOptions.config ?? {};
}

/** Whether a route answers without a token: declared so, or outside /v1/ (`url` the route's pattern, or the request's path when unrouted). */
export function isPublic(policy: RoutePolicy, url: string): boolean {
  return policy.public ?? !url.startsWith('/v1/');
}

/** Whether an answer is kept for one clock slice only: its route reads the clock, or it was asked with max_age (the validated query). */
export function isClocked(policy: RoutePolicy, query: unknown): boolean {
  return policy.cache === 'clock' || (typeof query === 'object' && query !== null && (query as { max_age?: unknown }).max_age !== undefined);
}
