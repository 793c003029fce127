import type { FastifyInstance } from 'fastify';
import type { RateDecision } from '../auth/rate-limits.ts';

/** A request's place in the answer cache while its answer is being worked out (cache/answer-cache.ts). */
export interface AnswerSlot {
  key: string;
  version: number;
  bucket: number;
}

/** What one request carries from hook to hook, on the request itself (Fastify decorations: gone with it). */
declare module 'fastify' {
  interface FastifyRequest {
    /** The data version it is answered at, read once by the auth hook with the tokens version; null on public paths. */
    dataVersion: number | null;
    /** The id (the public part) of the token it passed with, for the access line; null without one. */
    tokenId: string | null;
    /** Answered as CSV, and whether the URL (format=csv) or Accept asked for it (representation/negotiation.ts); null: JSON. */
    csvBy: 'url' | 'accept' | null;
    /** Its slot in the answer cache, taken when its answer is not kept and is being worked out; null otherwise. */
    answerSlot: AnswerSlot | null;
    /** Its rate limit as counted by the auth hook (request/hooks.ts), for a cached answer's head (cache/cache-hit.ts hitHead); null before. */
    rateDecision: RateDecision | null;
  }
}

/** Declares the per-request state on the root app, once, before any hook that sets it. */
export function decorateRequests(app: FastifyInstance): void {
  app.decorateRequest('dataVersion', null);
  app.decorateRequest('tokenId', null);
  app.decorateRequest('csvBy', null);
  app.decorateRequest('answerSlot', null);
  app.decorateRequest('rateDecision', null);
}
