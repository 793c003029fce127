import type { TokenRecord, TokenStore } from '../../storage/store.ts';
import { sameText, tokenUsable } from '../../tokens.ts';

/**
 * Token records as stored, kept while the store's tokens version stays the same: creating or
 * revoking a token (from any process) bumps it, so a revocation still counts from the next
 * request. A header seen for the first time is parsed, its secret hashed and compared in
 * constant time (authenticate); once a token has passed, the exact Authorization header that
 * carried it is kept beside its record, so that both paths (the fast path, and the full one's
 * auth hook below) accept the same header again by a constant-time comparison of the text
 * instead of hashing it anew (a SHA-256 per request was a large part of a cached answer's cost:
 * bench/RESULTS.md, "The performance work, step by step"). Both are dropped together when the
 * tokens version moves, and bounded in entries.
 */
export class TokenCache {
  private version = Number.NaN;
  private readonly records = new Map<string, TokenRecord>();
  private readonly passed = new Map<string, string>();

  constructor(private readonly store: Pick<TokenStore, 'tokenById'>, private readonly maxEntries = 10_000) {}

  /** A lookup for verifyToken, valid for the tokens version just read. */
  lookupAt(tokensVersion: number): (id: string) => Promise<TokenRecord | undefined> {
    this.at(tokensVersion);
    return async (id) => {
      const known = this.records.get(id);
      if (known) return known;
      const record = await this.store.tokenById(id);
      // Not if the version moved while reading: the record may be from before a revocation.
      if (record && this.version === tokensVersion && this.records.size < this.maxEntries) this.records.set(id, record);
      return record;
    };
  }

  /** Keeps the Authorization header with which `record` just passed verifyToken at `tokensVersion`. */
  passedWith(tokensVersion: number, record: TokenRecord, header: string): void {
    if (tokensVersion !== this.version || this.records.get(record.id) !== record) return;
    if (this.passed.size < this.maxEntries || this.passed.has(record.id)) this.passed.set(record.id, header);
  }

  /**
   * The record whose token passed with exactly this header at this tokens version, if it is
   * still unexpired at `nowSec`; otherwise undefined (the full path decides). The header is
   * compared in constant time; the id read from its fixed place only picks what to compare.
   */
  passedBefore(tokensVersion: number, header: string, nowSec: number): TokenRecord | undefined {
    if (tokensVersion !== this.version) return undefined;
    const id = header.slice(ID_AT, ID_AT + ID_LENGTH);
    const kept = this.passed.get(id);
    if (kept === undefined || !sameText(header, kept)) return undefined;
    const record = this.records.get(id);
    return record && tokenUsable(record, nowSec) ? record : undefined;
  }

  private at(tokensVersion: number): void {
    if (tokensVersion === this.version) return;
    this.records.clear();
    this.passed.clear();
    this.version = tokensVersion;
  }
}

/** Where a token's id sits in `Bearer fp_<id>_<secret>`. */
const ID_AT = 'Bearer fp_'.length;
const ID_LENGTH = 8;
