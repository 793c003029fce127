/**
 * The one way adapters call a feed: a timeout on every attempt, retries with exponential
 * backoff and full jitter on 429, 5xx, timeouts and network errors (honouring Retry-After up
 * to a cap), a ceiling on body size, and a FeedError when it gives up. Sleep and randomness
 * are injected so tests run the whole retry path without waiting.
 */
import { FeedError } from './feed-error.ts';

export interface FeedRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Query parameters, appended in order. */
  query?: Record<string, string>;
}

export interface FeedResponse {
  status: number;
  headers: Headers;
  /** The body as text, any byte-order mark left in place (adapters strip it). */
  text: string;
}

export interface HttpOptions {
  /** Per attempt, in ms. */
  timeoutMs: number;
  /** Attempts in all, the first included. */
  attempts: number;
  /** First backoff in ms; doubles each retry, with full jitter. */
  baseDelayMs: number;
  /** No single wait longer than this, in ms, whatever Retry-After asks. */
  maxDelayMs: number;
  maxBodyBytes: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  /** Called before each retry: for logs and tests. */
  onRetry?: (info: { url: string; attempt: number; delayMs: number; reason: string }) => void;
}

export const DEFAULT_HTTP_OPTIONS: HttpOptions = {
  timeoutMs: 30_000,
  attempts: 4,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  maxBodyBytes: 64 * 1024 * 1024,
  // Not unref()ed: a CLI run waiting to retry has nothing else keeping it alive.
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

export class FeedHttp {
  readonly options: HttpOptions;
  /** Requests sent (attempts, retries included) since this client was made: quotas are counted in calls. */
  calls = 0;

  constructor(options: Partial<HttpOptions> = {}) {
    this.options = { ...DEFAULT_HTTP_OPTIONS, ...options };
  }

  /** A 2xx answer, or FeedError: 'auth' on 401/403, 'http' on other statuses once retries are spent. */
  async request(url: string, init: FeedRequest = {}): Promise<FeedResponse> {
    const target = withQuery(url, init.query);
    const { attempts, sleep } = this.options;
    for (let attempt = 1; ; attempt++) {
      let failure: { reason: string; retryAfterMs?: number; error: FeedError };
      try {
        const response = await this.once(target, init);
        if (response.status >= 200 && response.status < 300) return response;
        const error = statusError(target, response.status);
        if (!retryable(response.status)) throw error;
        failure = { reason: `HTTP ${response.status}`, retryAfterMs: retryAfter(response.headers.get('retry-after')), error };
      } catch (caught) {
        if (caught instanceof FeedError && (caught.kind === 'auth' || caught.kind === 'too_large' || (caught.kind === 'http' && !retryable(caught.status ?? 0)))) throw caught;
        const error = caught instanceof FeedError ? caught : new FeedError('network', `${hostOf(target)}: ${describe(caught)}`);
        failure = { reason: error.message, error };
      }
      if (attempt >= attempts) throw failure.error;
      const delayMs = this.delay(attempt, failure.retryAfterMs);
      this.options.onRetry?.({ url: target, attempt, delayMs, reason: failure.reason });
      await sleep(delayMs);
    }
  }

  /** Full jitter: a random wait up to base * 2^(attempt-1), or Retry-After when the feed says so; never above the cap. */
  delay(attempt: number, retryAfterMs: number | undefined): number {
    const { baseDelayMs, maxDelayMs, random } = this.options;
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, maxDelayMs);
    return Math.min(maxDelayMs, Math.floor(random() * baseDelayMs * 2 ** (attempt - 1)));
  }

  private async once(url: string, init: FeedRequest): Promise<FeedResponse> {
    this.calls++;
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, { method: init.method ?? 'GET', headers: init.headers, body: init.body, signal, redirect: 'follow' });
    } catch (error) {
      if (signal.aborted) throw new FeedError('timeout', `${hostOf(url)}: no answer within ${this.options.timeoutMs} ms`);
      throw error;
    }
    try {
      const text = await readBounded(response, this.options.maxBodyBytes, url);
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      if (signal.aborted) throw new FeedError('timeout', `${hostOf(url)}: body not complete within ${this.options.timeoutMs} ms`);
      throw error;
    }
  }
}

function retryable(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

function statusError(url: string, status: number): FeedError {
  if (status === 401 || status === 403) return new FeedError('auth', `${hostOf(url)}: HTTP ${status}: check the feed's credentials`, status);
  return new FeedError('http', `${hostOf(url)}: HTTP ${status}`, status);
}

/** Retry-After in seconds or as an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d{1,7}$/.test(value.trim())) return Number(value.trim()) * 1_000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

async function readBounded(response: Response, maxBytes: number, url: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new FeedError('too_large', `${hostOf(url)}: body of ${declared} bytes is over the ${maxBytes}-byte limit`);
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new FeedError('too_large', `${hostOf(url)}: body over the ${maxBytes}-byte limit`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function withQuery(url: string, query: Record<string, string> | undefined): string {
  if (!query) return url;
  const target = new URL(url);
  for (const [key, value] of Object.entries(query)) target.searchParams.append(key, value);
  return target.toString();
}

function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return 'feed';
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}
