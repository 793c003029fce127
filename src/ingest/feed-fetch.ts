/**
 * The one way adapters call a feed: a timeout on every attempt, retries with exponential
 * backoff and full jitter on 429, 5xx, timeouts and network errors (honouring Retry-After up
 * to a cap), a ceiling on body size, and a FeedError when it gives up. Sleep and randomness
 * are injected so tests run the whole retry path without waiting. A failure's message is one line:
 * what was called, the status and what the feed said (the request's secrets blanked), or the
 * network error's code and what it usually means.
 */
import { FeedError, oneLine, stripBom } from './feed-error.ts';

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

  /** A 2xx answer, or FeedError: 'auth' on 401/403 to a request with credentials, 'http' on other statuses once retries are spent. */
  async request(url: string, init: FeedRequest = {}): Promise<FeedResponse> {
    const target = withQuery(url, init.query);
    const { attempts, sleep } = this.options;
    for (let attempt = 1; ; attempt++) {
      let failure: { reason: string; retryAfterMs?: number; error: FeedError };
      try {
        const response = await this.once(target, init);
        if (response.status >= 200 && response.status < 300) return response;
        const error = statusError(target, response, secretsOf(init.headers));
        if (!retryable(response.status)) throw error;
        failure = { reason: `HTTP ${response.status}`, retryAfterMs: retryAfter(response.headers.get('retry-after')), error };
      } catch (caught) {
        if (caught instanceof FeedError && (caught.kind === 'auth' || caught.kind === 'too_large' || (caught.kind === 'http' && !retryable(caught.status ?? 0)))) throw caught;
        const error = caught instanceof FeedError ? caught : new FeedError('network', `${hostOf(target)}: ${describeNetworkError(caught)}`);
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

/** How much of an error answer a message quotes. */
export const ERROR_BODY_CHARS = 200;

/**
 * A non-2xx answer as a FeedError quoting what the feed said. 401 and 403 point at the
 * credentials only when the request carried some; a feed without credentials that refuses is
 * blocking the caller, and no credential would help.
 */
function statusError(url: string, response: FeedResponse, secrets: readonly string[]): FeedError {
  const said = errorBodyLine(response.text, secrets);
  const tail = said === '' ? '' : `: ${said}`;
  const { status } = response;
  if (status === 401 || status === 403) {
    return secrets.length > 0
      ? new FeedError('auth', `${hostOf(url)}: HTTP ${status}, credentials refused (check the feed's credentials)${tail}`, status)
      : new FeedError('http', `${hostOf(url)}: HTTP ${status}, refused (the site may block this address or client)${tail}`, status);
  }
  return new FeedError('http', `${hostOf(url)}: HTTP ${status}${tail}`, status);
}

/** What an error answer said, as one short line: an HTML page's tags, scripts and styles dropped, the request's secrets blanked. */
export function errorBodyLine(body: string, secrets: readonly string[]): string {
  let text = stripBom(body.slice(0, 65_536));
  if (/^\s*</.test(text)) text = text.replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ').replace(/<[^>]*>/g, ' ');
  for (const secret of secrets) text = text.split(secret).join('[redacted]');
  return oneLine(text, ERROR_BODY_CHARS);
}

/** Request headers that carry credentials. */
const SECRET_HEADER = /auth|key|token|secret|consumer|cookie|password/i;

/**
 * The secrets a request carries, longest first, to blank wherever an answer echoes them: each
 * credential header's value, its words (the value of a `name=value` one), and HTTP Basic's `key:secret`.
 */
export function secretsOf(headers: Readonly<Record<string, string>> | undefined): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!SECRET_HEADER.test(name)) continue;
    found.add(value);
    for (const word of value.split(/\s+/)) {
      // `SubscriberToken=<token>`: the value is the secret, not its name.
      const part = /^[A-Za-z][\w-]*=([^=].*)$/.exec(word)?.[1] ?? word;
      found.add(part);
      if (!/^[A-Za-z0-9+/]{8,}={0,2}$/.test(part)) continue;
      const decoded = Buffer.from(part, 'base64').toString('utf8');
      if (/^[\x20-\x7e]+:[\x20-\x7e]+$/.test(decoded)) [decoded, ...decoded.split(':')].forEach((piece) => found.add(piece));
    }
  }
  // Short words ("Bearer", "FPDAPI") are not secrets, and blanking them would blank ordinary text.
  return [...found].filter((s) => s.length >= 8 && !/^(Bearer|Basic)$/i.test(s)).sort((a, b) => b.length - a.length);
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

/** What the usual network error codes mean, for someone setting a feed up. */
const NETWORK_CODES: Readonly<Record<string, string>> = {
  ENOTFOUND: 'host not found: offline, or a wrong URL?',
  EAI_AGAIN: 'name lookup failed: offline?',
  ECONNREFUSED: 'connection refused: nothing listens there',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  ENETUNREACH: 'network unreachable: offline?',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed before the answer was complete',
};

/**
 * A network failure in one line: the code and what it means, never a stack or a chain of causes
 * (fetch wraps the real error as `cause`, and a failed connection to several addresses as an
 * AggregateError of them).
 */
export function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return oneLine(String(error), ERROR_BODY_CHARS);
  const cause: unknown = (error as { cause?: unknown }).cause;
  const inner = cause instanceof Error ? cause : error;
  const nested = (inner as { errors?: unknown }).errors;
  const tried: unknown[] = Array.isArray(nested) ? nested : [];
  const code = [inner, ...tried].map(codeOf).find((c) => c !== undefined);
  const message = oneLine(inner.message || error.message, ERROR_BODY_CHARS);
  if (code === undefined) return message || 'network error';
  return `${code} (${NETWORK_CODES[code] ?? message})`;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code) ? code : undefined;
}
