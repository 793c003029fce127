/**
 * How a poll fails, and the small parse helpers adapters share to turn a feed's answer into
 * values or a FeedError: a feed's bad answer stops the poll, never the process.
 */

export type FeedErrorKind = 'network' | 'timeout' | 'http' | 'auth' | 'malformed' | 'too_large' | 'config';

/** A failed poll: the run is recorded with this message and nothing of the poll is applied. */
export class FeedError extends Error {
  constructor(readonly kind: FeedErrorKind, message: string, readonly status?: number) {
    super(message);
    this.name = 'FeedError';
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A body as text without a leading byte-order mark. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Text as one line no longer than `max` characters: runs of whitespace and control characters become one space, a cut ends with '…'. */
export function oneLine(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is removed
  const flat = text.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** A JSON answer, byte-order mark allowed; FeedError('malformed') when it is not JSON (cut short, an HTML error page). */
export function parseJsonBody(body: string, label: string): unknown {
  try {
    return JSON.parse(stripBom(body));
  } catch {
    throw new FeedError('malformed', `${label} is not JSON (cut short or not the API?)`);
  }
}
