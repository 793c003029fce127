import type { FastifyInstance } from 'fastify';
import { PiecedBody } from '../representation/pieced-body.ts';
import type { CacheCounts } from '../server/metrics.ts';
import { JSON_TYPE, answerKey } from '../representation/negotiation.ts';
import type { RequestRules } from '../request/rules.ts';
import { etagOf, matchesEtag } from './etag.ts';
import { type AnswerStore, UNCLOCKED, clockSlice } from './answer-store.ts';
import { hitHead, isSendable, stableHeaders } from './cache-hit.ts';
import { isClocked, isPublic, policyOf } from '../request/policy.ts';
import { SingleFlight } from './single-flight.ts';

export interface AnswerCacheOptions {
  /** The request rules: the clock, the versions. */
  rules: RequestRules;
  /** Absent: no answers kept (every answer still gets its ETag, Cache-Control and 304). */
  cache: AnswerStore | undefined;
  /** Seconds a client may cache a /v1 answer (Cache-Control max-age). */
  maxAgeSec: number;
  /** Told of each answer sent from the cache and each worked out for want of it (metrics.ts), when metrics are on. */
  counts?: CacheCounts | undefined;
}

/**
 * The full path's side of the cache, as hooks on the root app: a cached answer is sent before
 * the handler (preHandler, after auth, limits and validation) with the head the front sends it
 * with too (cache-hit.ts hitHead), and every /v1 answer gets its
 * ETag, Cache-Control and 304 and is kept (onSend), as its route's policy declares
 * (request/policy.ts: `cache: 'none'` is never kept and sent no-store; `clock` is kept one clock
 * slice; public routes are not kept). The data version is the one the auth hook read for the
 * request (request.dataVersion), so that it is not read twice.
 */
export function addAnswerCache(app: FastifyInstance, { rules, cache, maxAgeSec, counts }: AnswerCacheOptions): void {
  const { clock } = rules;
  // One answer worked out at a time per URL, data version and clock bucket: requests that miss
  // while the same answer is being worked out wait for it and take it from the cache, rather than
  // all reading storage at once (every cached answer misses together after each ingest batch).
  const misses = new SingleFlight();
  if (cache) {
    app.addHook('preHandler', async (request, reply) => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || !request.url.startsWith('/v1/')) return;
      const policy = policyOf(request);
      if (policy.cache === 'none' || isPublic(policy, request.routeOptions.url ?? '/v1/')) return;
      const version = request.dataVersion ?? (request.dataVersion = (await rules.versions(request.raw)).data);
      const now = clock.now();
      // The URL, or for CSV asked for by Accept a key of its own (representation/negotiation.ts): JSON and CSV never share an entry.
      const key = answerKey(request);
      let hit = cache.get(key, version, now);
      if (!hit) {
        const bucket = isClocked(policy, request.query) ? clockSlice(now) : UNCLOCKED;
        const flight = `${version}\u0000${bucket}\u0000${key}`;
        // Waits only for a GET's answer: an error's is not kept, and the waiter then works out its own.
        if (await misses.wait(flight)) hit = cache.get(key, version, now);
        if (!hit) {
          if (request.method === 'GET') misses.lead(flight, request);
          // Counted as a miss in onSend, once an answer has been worked out (docs/METRICS.md): not
          // for an unknown route or an error, which are neither hits nor misses.
          request.answerSlot = { key, version, bucket };
          return;
        }
      }
      counts?.cacheHit();
      // The head the front sends too (cache-hit.ts); onSend then answers it, or a 304, as any answer.
      const decision = request.rateDecision;
      if (isSendable(hit) && decision) {
        const head = hitHead(hit, request.id, decision);
        for (let i = 0; i < head.length; i += 2) reply.header(head[i] as string, head[i + 1]);
      } else {
        reply.header('etag', hit.etag).type(JSON_TYPE);
      }
      return reply.send(hit.body);
    });
    // A leader lands in onSend, its answer kept or not; these are for a request that ends without sending.
    app.addHook('onResponse', async (request) => misses.land(request));
    app.addHook('onRequestAbort', async (request) => misses.land(request));
  }

  app.addHook('onSend', async (request, reply, payload) => {
    // A string from the serialiser, a Buffer from a route or the cache (preHandler above), or a large answer's pieces (pieced-body.ts).
    const pieced = payload instanceof PiecedBody;
    // A POST form's answer (routes/post-body.ts) is worked out afresh each time: not kept, no-store.
    const uncached = policyOf(request).cache === 'none' || request.method === 'POST';
    if (reply.statusCode !== 200 || !request.url.startsWith('/v1/') || (typeof payload !== 'string' && !Buffer.isBuffer(payload) && !pieced) || uncached) {
      if (reply.statusCode >= 400 || uncached) reply.header('cache-control', 'no-store');
      if (pieced) reply.header('content-length', String(payload.length));
      misses.land(request);
      return payload;
    }
    // A 200 of a route, worked out for want of a kept answer (a slot was taken): the one place a
    // miss is counted (docs/METRICS.md). Unknown routes (404 before any handler) and errors are neither.
    const slot = request.answerSlot;
    if (slot && !request.is404) counts?.cacheMiss();
    const known = reply.getHeader('etag');
    const etag = typeof known === 'string' ? known : etagOf(payload);
    reply.header('cache-control', `private, max-age=${maxAgeSec}`);
    let body: string | Buffer | PiecedBody = payload;
    // Set already by a route that worked it out itself (the batch of station prices, from its
    // stations' kept hashes), or by the preHandler above on a hit (which has no slot: nothing to keep).
    if (known === undefined) reply.header('etag', etag);
    if (cache && slot && !request.is404) {
      // A HEAD's answer is worked out whole (Fastify sends none of its body) and kept like a
      // GET's: the next GET or HEAD of the URL is a hit. Kept joined: the cache and the fast path send one Buffer.
      if (body instanceof PiecedBody) body = body.joined();
      cache.set(slot.key, slot.version, slot.bucket, { body, etag, headers: stableHeaders(reply.getHeaders()), route: request.routeOptions.url });
    }
    misses.land(request);
    if (matchesEtag(request.headers['if-none-match'], etag)) {
      reply.code(304);
      return '';
    }
    // A stream's length is not worked out by Fastify: set here, HEAD's included.
    if (body instanceof PiecedBody) reply.header('content-length', String(body.length));
    return body;
  });
}
