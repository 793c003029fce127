import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryRateLimiter, RATE_WINDOW_SEC, type RateDecision, type RateLimiter } from './rate-limits.ts';

/**
 * One request, one atomic step in Redis: the window's counter is read, incremented only while
 * under the limit (a denied request does not count), given its expiry on the first hit, and
 * returned with the milliseconds left. Every process sharing the Redis server admits exactly
 * `limit` requests per key and window, however many race.
 * KEYS[1] = counter key; ARGV[1] = limit; ARGV[2] = window in ms. Returns {allowed, count, pttl}.
 */
const CONSUME_SCRIPT = `
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local allowed = 0
if count < limit then
  count = redis.call('INCR', KEYS[1])
  allowed = 1
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], window)
  ttl = window
end
return {allowed, count, ttl}
`;
const CONSUME_SHA = createHash('sha1').update(CONSUME_SCRIPT).digest('hex');

/** What the limiter logs through: a pino (Fastify) logger fits. */
export interface LimiterLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export interface RedisRateLimiterOptions {
  /** redis:// or rediss:// URL. */
  url: string;
  /** Prefix of every key this limiter writes (default `fuelprice:`). */
  prefix?: string;
  logger?: LimiterLogger;
  windowSec?: number;
  /** Milliseconds to connect and to wait for any one command (default 500). */
  timeoutMs?: number;
  /** Longest pause between reconnection attempts (default 2000 ms). */
  maxRetryDelayMs?: number;
  /** After a failed command on a live connection, how long to count in process before trying Redis again (default 1000 ms). */
  retryCommandsAfterMs?: number;
}

type Mode = 'starting' | 'shared' | 'fallback';

/**
 * Per-key fixed windows shared by every process through Redis, with the same decisions as
 * MemoryRateLimiter. While Redis is out of reach, requests are counted in process (per-process
 * limits), one warning is logged, status() says 'degraded', and the shared counting resumes by
 * itself once Redis is back (one info line).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly fallback: MemoryRateLimiter;
  private readonly prefix: string;
  private readonly windowMs: number;
  private readonly retryCommandsAfterMs: number;
  private logger: LimiterLogger;
  private mode: Mode = 'starting';
  private retryAt = 0;
  private closing = false;

  constructor(options: RedisRateLimiterOptions) {
    const windowSec = options.windowSec ?? RATE_WINDOW_SEC;
    const timeoutMs = options.timeoutMs ?? 500;
    const maxRetryDelayMs = options.maxRetryDelayMs ?? 2000;
    this.prefix = options.prefix ?? 'fuelprice:';
    this.windowMs = windowSec * 1000;
    this.retryCommandsAfterMs = options.retryCommandsAfterMs ?? 1000;
    this.logger = options.logger ?? { warn: () => undefined, info: () => undefined };
    this.fallback = new MemoryRateLimiter(windowSec);
    this.redis = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 10), maxRetryDelayMs),
      connectionName: 'fuelprice-rate-limits',
    });
    this.redis.on('ready', () => this.setMode('shared'));
    this.redis.on('error', (error: Error) => this.setMode('fallback', error));
    this.redis.on('close', () => this.setMode('fallback'));
  }

  /**
   * Starts connecting (and keeps reconnecting, with backoff, for as long as the limiter lives).
   * Resolves true once Redis answers, false if it does not within `timeoutMs`: the limiter then
   * counts in process until Redis comes.
   */
  async connect(options: { logger?: LimiterLogger; timeoutMs?: number } = {}): Promise<boolean> {
    if (options.logger) this.logger = options.logger;
    if (this.redis.status === 'wait') this.redis.connect().catch(() => undefined);
    if (this.mode === 'shared') return true;
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(this.mode === 'shared'), options.timeoutMs ?? 2000);
      this.redis.on('ready', onReady);
    });
  }

  status(): 'ok' | 'degraded' {
    return this.mode === 'shared' ? 'ok' : 'degraded';
  }

  async consume(key: string, limit: number, nowMs: number): Promise<RateDecision> {
    if (this.redis.status !== 'ready' || (this.mode === 'fallback' && Date.now() < this.retryAt)) {
      return this.fallback.consume(key, limit, nowMs);
    }
    try {
      const [allowed, count, ttl] = await this.runScript(`${this.prefix}rl:${key}`, limit);
      this.setMode('shared');
      const resetSec = Math.max(1, Math.ceil(ttl / 1000));
      return { allowed: allowed === 1, limit, remaining: Math.max(0, limit - count), resetSec };
    } catch (error) {
      this.retryAt = Date.now() + this.retryCommandsAfterMs;
      this.setMode('fallback', error instanceof Error ? error : new Error(String(error)));
      return this.fallback.consume(key, limit, nowMs);
    }
  }

  /** Closes the connection; no more reconnection attempts. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.redis.status === 'end' || this.redis.status === 'wait') {
      this.redis.disconnect();
      return;
    }
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private async runScript(key: string, limit: number): Promise<[number, number, number]> {
    let reply: unknown;
    try {
      reply = await this.redis.evalsha(CONSUME_SHA, 1, key, limit, this.windowMs);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      reply = await this.redis.eval(CONSUME_SCRIPT, 1, key, limit, this.windowMs);
    }
    if (!Array.isArray(reply) || reply.length !== 3 || !reply.every((n) => typeof n === 'number')) {
      throw new Error(`unexpected reply from the rate-limit script: ${JSON.stringify(reply)}`);
    }
    return [reply[0] as number, reply[1] as number, reply[2] as number];
  }

  /** Logs on transitions only: one warning per outage, one info when shared counting resumes. */
  private setMode(next: 'shared' | 'fallback', error?: Error): void {
    if (this.closing || next === this.mode) return;
    const previous = this.mode;
    this.mode = next;
    const where = { redis: endpoint(this.redis.options.host, this.redis.options.port) };
    if (next === 'fallback') {
      this.logger.warn({ ...where, reason: error?.message ?? 'connection closed' },
        'Redis out of reach: rate limits are counted per process until it returns');
    } else if (previous === 'fallback') {
      this.logger.info(where, 'Redis reachable again: rate limits are shared between processes');
    } else {
      this.logger.info(where, 'rate limits are shared between processes through Redis');
    }
  }
}

function endpoint(host: string | undefined, port: number | undefined): string {
  return `${host ?? '?'}:${port ?? '?'}`;
}
