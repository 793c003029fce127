import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { TokenRecord, TokenStore } from './storage/store.ts';

/**
 * Tokens look like `fp_<id>_<secret>`: the id (8 chars, public) finds the row, the whole
 * token's SHA-256 is what is stored and compared in constant time. The secret is never stored.
 */
const TOKEN_PATTERN = /^fp_([a-z2-7]{8})_[A-Za-z0-9_-]{43}$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** The token's SHA-256: one-shot `hash()`, which builds no Hash object (a native handle the garbage collector must track). */
export function hashToken(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

export interface NewToken {
  token: string;
  record: TokenRecord;
}

export function newToken(name: string, nowSec: number, options: { expiresInSec?: number; rateLimit?: number } = {}): NewToken {
  const idBytes = randomBytes(8);
  const id = [...idBytes].map((b) => BASE32[b & 31]).join('');
  const token = `fp_${id}_${randomBytes(32).toString('base64url')}`;
  return {
    token,
    record: {
      id, name, hash: hashToken(token), createdAt: nowSec,
      expiresAt: options.expiresInSec === undefined ? null : nowSec + options.expiresInSec,
      revokedAt: null, rateLimit: options.rateLimit ?? null,
    },
  };
}

const DUMMY_HASH = hashToken('fp_aaaaaaaa_' + 'a'.repeat(43));

/** Whether the record is unrevoked and unexpired at `nowSec`. */
export function tokenUsable(record: TokenRecord, nowSec: number): boolean {
  return record.revokedAt === null && (record.expiresAt === null || record.expiresAt > nowSec);
}

/**
 * Whether two strings are equal, in a time that depends on their length and not on where they
 * differ (every character is compared; nothing returns early).
 */
export function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The valid, unexpired, unrevoked token record for this token, or undefined. */
export async function verifyToken(
  store: Pick<TokenStore, 'tokenById'>, token: string, nowSec: number, lookup: (id: string) => Promise<TokenRecord | undefined> = (id) => store.tokenById(id),
): Promise<TokenRecord | undefined> {
  const match = TOKEN_PATTERN.exec(token);
  const presented = hashToken(token);
  const record = match?.[1] ? await lookup(match[1]) : undefined;
  // Compare against something even when the id is unknown, so timing says nothing about ids.
  const equal = timingSafeEqual(presented, record?.hash ?? DUMMY_HASH);
  return record && equal && tokenUsable(record, nowSec) ? record : undefined;
}

const TOKEN_TEXT = /fp_[a-z2-7]{8}_[A-Za-z0-9_-]{43}/g;
// Query parameters a client might put a credential in by mistake (?access_token=, ?api_key=, ...).
const SECRET_PARAMETER = /token|key|auth|secret|pass/i;

/** A URL as it is, with token-shaped text and the values of credential-like query parameters replaced. */
function redactPlain(url: string): string {
  const mark = url.indexOf('?');
  const query = mark === -1 ? undefined : url.slice(mark + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    return eq !== -1 && SECRET_PARAMETER.test(pair.slice(0, eq)) ? `${pair.slice(0, eq)}=[redacted]` : pair;
  }).join('&');
  const kept = query === undefined ? url : `${url.slice(0, mark)}?${query}`;
  return kept.replace(TOKEN_TEXT, '[redacted]');
}

/** Each run of %XX escapes decoded (as UTF-8, else byte by byte); never throws on a malformed one. */
function percentDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
  });
}

/**
 * A URL as logs may hold it: token-shaped text and the values of credential-like query
 * parameters replaced, also where percent-encoding hides them (`/v1/cities/fp%5F…`,
 * `?access%5Ftoken=`, twice encoded too). A URL with nothing to redact is kept as requested; one
 * whose decoded form has something is logged decoded, with it replaced.
 */
export function redactUrl(url: string): string {
  const kept = redactPlain(url);
  if (!url.includes('%')) return kept;
  let decoded = url;
  // Up to three rounds: what a client encoded twice or three times is still found.
  for (let round = 0; round < 3 && decoded.includes('%'); round++) {
    const next = percentDecoded(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  const redacted = redactPlain(decoded);
  return redacted === decoded ? kept : redacted;
}

/** "90d", "12h", "30m", "3600s" or plain seconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^([0-9]{1,9})([smhdw]?)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 }[match[2] as '' | 's' | 'm' | 'h' | 'd' | 'w'];
  const seconds = Number(match[1]) * unit;
  return seconds > 0 ? seconds : undefined;
}
