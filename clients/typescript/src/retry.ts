/**
 * How long to wait before retrying a 429 or 503, from the answer's headers: `Retry-After`
 * (seconds, or an HTTP date), else the `RateLimit` field of draft-ietf-httpapi-ratelimit-headers
 * (`"default";r=0;t=30`: no requests remaining, the window resets in t seconds), else undefined
 * (the caller backs off on its own).
 */
export function serverDelaySeconds(headers: Headers, nowMs: number): number | undefined {
  return retryAfterSeconds(headers.get('retry-after'), nowMs) ?? rateLimitResetSeconds(headers.get('ratelimit'));
}

/** An HTTP date as servers send it (IMF-fixdate, RFC 9110): `Sun, 06 Nov 1994 08:49:37 GMT`. */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** Retry-After as seconds to wait: a non-negative integer, or an HTTP date (0 when it is past). */
export function retryAfterSeconds(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // Date.parse alone is too lenient: it reads '-1' and '1.5' as dates.
  const at = HTTP_DATE.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * The RateLimit field's reset, when a policy has no request remaining: the longest `t` among
 * the items with `r=0` (each item is `"name";r=N;t=N`, items separated by commas).
 */
export function rateLimitResetSeconds(value: string | null): number | undefined {
  if (value === null) return undefined;
  let wait: number | undefined;
  for (const item of value.split(',')) {
    const params = new Map(item.split(';').slice(1).map((p) => p.trim().split('=') as [string, string | undefined]));
    const remaining = params.get('r');
    const reset = params.get('t');
    if (remaining === undefined || reset === undefined || !/^\d+$/.test(remaining) || !/^\d+$/.test(reset)) continue;
    if (Number(remaining) === 0) wait = Math.max(wait ?? 0, Number(reset));
  }
  return wait;
}

/** The wait when the server named none: 1 s, 2 s, 4 s... for retry 1, 2, 3... */
export function backoffSeconds(retry: number): number {
  return 2 ** (retry - 1);
}
