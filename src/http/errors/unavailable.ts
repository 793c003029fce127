/**
 * Why a request was answered 503: written in its access line (`"reason"`, request-log.ts) and
 * counted by reason in the metrics (fuelprice_http_unavailable_total). Every 503 has one; a 503
 * whose cause set none is `unavailable`.
 */
export const UNAVAILABLE_REASONS = [
  'shed', // load shedding refused it, before routing (http/server/load-shedding.ts)
  'overloaded', // /ready while load is shed
  'storage', // storage out of reach
  'waiters', // too many requests waiting on the change feed (wait=N, event streams)
  'metrics', // the workers' metrics could not be added up
  'unavailable', // any other 503 (Fastify's own)
] as const;

export type UnavailableReason = typeof UNAVAILABLE_REASONS[number];

/** The reason set on an answer (the raw ServerResponse) by sendError, kept only as long as the answer. */
const reasons = new WeakMap<object, UnavailableReason>();

export function markUnavailable(res: object, reason: UnavailableReason): void {
  reasons.set(res, reason);
}

/** The reason of a 503 answer: the one set on it, else `unavailable`. */
export function unavailableReason(res: object): UnavailableReason {
  return reasons.get(res) ?? 'unavailable';
}
