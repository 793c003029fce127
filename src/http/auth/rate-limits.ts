/**
 * Per-key fixed-window rate limits (per token, or per client address before authentication).
 * MemoryRateLimiter counts in process memory; RedisRateLimiter (redis-limiter.ts) shares the
 * counts between processes behind the same interface.
 */

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSec: number;
}

export interface RateLimiter {
  /** Counts one request for `key` unless it is over `limit`; never rejects. */
  consume(key: string, limit: number, nowMs: number): Promise<RateDecision>;
  /**
   * consume() without a promise, for a limiter that counts in this process: the auth hook then
   * does not wait, and the fast path of cached answers (fast-path.ts) may run. Shared limiters
   * (Redis) have none.
   */
  consumeNow?(key: string, limit: number, nowMs: number): RateDecision;
  /**
   * Shared limiters only: 'degraded' while the shared store is out of reach and requests are
   * counted per process instead. /ready reports it.
   */
  status?(): 'ok' | 'degraded';
}

/** A limiter that counts in this process (has consumeNow): nothing to wait for. */
export function countsInProcess(limiter: RateLimiter): limiter is RateLimiter & Required<Pick<RateLimiter, 'consumeNow'>> {
  return typeof limiter.consumeNow === 'function';
}

export const RATE_WINDOW_SEC = 60;
export const DEFAULT_RATE_LIMIT = 600;
const SWEEP_ABOVE = 10_000;

export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly windowSec = RATE_WINDOW_SEC) {}

  async consume(key: string, limit: number, nowMs: number): Promise<RateDecision> {
    return this.consumeNow(key, limit, nowMs);
  }

  consumeNow(key: string, limit: number, nowMs: number): RateDecision {
    const windowMs = this.windowSec * 1000;
    let entry = this.windows.get(key);
    if (!entry || nowMs - entry.start >= windowMs) {
      if (!entry && this.windows.size >= SWEEP_ABOVE) this.sweep(nowMs, windowMs);
      entry = { start: nowMs, count: 0 };
      this.windows.set(key, entry);
    }
    const resetSec = Math.max(1, Math.ceil((entry.start + windowMs - nowMs) / 1000));
    if (entry.count >= limit) return { allowed: false, limit, remaining: 0, resetSec };
    entry.count += 1;
    return { allowed: true, limit, remaining: limit - entry.count, resetSec };
  }

  /** Drops expired windows so that memory stays bounded by the keys active in one window. */
  private sweep(nowMs: number, windowMs: number): void {
    for (const [key, entry] of this.windows) if (nowMs - entry.start >= windowMs) this.windows.delete(key);
  }
}

/** RateLimit-Policy texts of the usual window, by limit: made once each (a few limits: the default and those tokens set). */
const policies = new Map<number, string>();
const MAX_POLICIES = 1_000;

function policyText(limit: number, windowSec: number): string {
  const usual = windowSec === RATE_WINDOW_SEC;
  let text = usual ? policies.get(limit) : undefined;
  if (text === undefined) {
    text = `"default";q=${limit};w=${windowSec}`;
    if (usual && policies.size < MAX_POLICIES) policies.set(limit, text);
  }
  return text;
}

/** RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers-10. */
export function rateLimitHeaders(decision: RateDecision, windowSec = RATE_WINDOW_SEC): { 'ratelimit-policy': string; ratelimit: string } {
  return {
    'ratelimit-policy': policyText(decision.limit, windowSec),
    ratelimit: `"default";r=${decision.remaining};t=${decision.resetSec}`,
  };
}
