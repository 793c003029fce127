/**
 * The answer cache's store: what the full path's hooks (answer-cache.ts) keep, and both paths
 * look up and send (cache-hit.ts sendHit). Answers kept as the bytes that were sent, with their ETag, until the data changes: a hit is
 * served without touching the domain code, the serialiser or the hash. An entry is valid for
 * one data version (every write that changes an answer bumps it, whichever process wrote), and,
 * for the answers that depend on the clock (their route declares `cache: 'clock'`, or they were
 * asked with max_age: request/policy.ts), for one CLOCK_BUCKET_SEC slice of the clock. Auth, rate limits and parameter
 * validation still run on every request; only the work after them is skipped.
 */
import type { AnswerPart } from '../server/request-log.ts';

/** How long a clock-dependent answer may be reused: today's point of a history moves this little, and max_age is this exact. */
export const CLOCK_BUCKET_SEC = 10;

/**
 * A body of at most this many bytes is kept as text too (CachedAnswer.text): Node writes a
 * latin1 string this short from its stack (StreamBase::WriteString), with the header block.
 */
export const TEXT_MAX_BYTES = 16 * 1024;

export interface CachedAnswer {
  /** The bytes sent (kept as a Buffer: a hit is written without encoding or measuring a string). */
  body: Buffer;
  /**
   * The same bytes as a latin1 string, made at the answer's first hit (one character a byte, whatever the byte: it reads back as
   * the very bytes) when there are at most TEXT_MAX_BYTES, for sendHit (cache-hit.ts) to send: Node joins
   * a latin1 string body to the header block (also latin1) and writes both with one write from
   * its stack, where a Buffer body goes out as a writev of two pieces with the header block
   * first copied to the heap (bench/RESULTS.md, "The body handed to Node as text"). What goes
   * out does not change. Counted in the cache's bytes; kept only
   * by a cache the front serves from (AnswerStore's `keepText`), where hits are the most and cheapest.
   */
  text?: string;
  etag: string;
  /**
   * The headers the full path sent with it that are the same on every request (content type,
   * ETag, Cache-Control, CORS, ...), as name, value, name, value...: sendHit (cache-hit.ts) sends
   * them as they were, with this request's own fields and `length` (Content-Length) around them.
   */
  head?: readonly string[];
  length: string;
  /** The route pattern that answered it (for its access line, and metrics.ts labels the front's answers with it). */
  route?: string;
  /** Its access line's own part, built by sendHit at its first GET hit (server/request-log.ts). */
  accessPart?: AnswerPart;
}

/** What the full path hands over: the body as sent and its stable headers (cache-hit.ts stableHeaders), for sendHit. */
export interface AnswerToKeep {
  body: string | Buffer;
  etag: string;
  headers?: Readonly<Record<string, string>>;
  route?: string;
}

interface Entry extends CachedAnswer {
  version: number;
  bucket: number;
  /** Kept as text too, made at its first hit (get). */
  textable: boolean;
}

export interface CacheLimits {
  /** Entries kept at most (least recently used go first). */
  maxEntries: number;
  /** Bytes of bodies kept at most (a body kept as text too counts twice). */
  maxBytes: number;
}

export const DEFAULT_CACHE_LIMITS: CacheLimits = { maxEntries: 20_000, maxBytes: 64 * 1024 * 1024 };

/** A least-recently-used map from request URL (answerKey) to answer, bounded in entries and bytes. */
export class AnswerStore {
  private readonly entries = new Map<string, Entry>();
  /** The entry last inserted or moved to the end: a hit on it needs no move. */
  private newest: Entry | undefined;
  private bytes = 0;
  hits = 0;
  misses = 0;

  /** `keepText`: keep CachedAnswer.text, sent in one write with the head; app.ts keeps it only where the front runs (not with a shared Redis limiter). */
  constructor(private readonly limits: CacheLimits = DEFAULT_CACHE_LIMITS, private readonly keepText = true) {}

  /**
   * The answer kept under `key` (the URL, or answerKey's) for this data version, and, when it was
   * kept for a clock slice, for the slice of `nowSec`: both paths look answers up here.
   */
  get(key: string, version: number, nowSec: number): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version || (entry.bucket !== UNCLOCKED && entry.bucket !== clockSlice(nowSec))) {
      this.misses++;
      return undefined;
    }
    // Map keeps insertion order: re-inserting marks it most recently used (a delete and a set
    // that also grow the table until V8 compacts it, so not for the entry already at the end).
    if (entry !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.newest = entry;
    }
    this.hits++;
    // The text is made at the first hit, not when kept: most answers kept after a write are asked once (cycles, histories
    // after each write), and their text would be garbage for the collector at the next version (its bytes are counted from the start).
    if (entry.textable && entry.text === undefined) entry.text = entry.body.toString('latin1');
    return entry;
  }

  /** `bucket`: the clock slice (clockSlice) it holds for, or UNCLOCKED for as long as the data version. */
  set(key: string, version: number, bucket: number, answer: AnswerToKeep): void {
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
    const size = body.length;
    if (size > this.limits.maxBytes / 4) return;
    this.drop(key);
    const entry: Entry = { body, etag: answer.etag, length: String(size), version, bucket, textable: this.keepText && size <= TEXT_MAX_BYTES };
    if (answer.headers) entry.head = Object.entries(answer.headers).flat();
    if (answer.route !== undefined) entry.route = answer.route;
    this.entries.set(key, entry);
    this.newest = entry;
    this.bytes += heldBytes(entry);
    while (this.entries.size > this.limits.maxEntries || this.bytes > this.limits.maxBytes) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= heldBytes(entry);
    this.entries.delete(key);
    if (entry === this.newest) this.newest = undefined;
  }
}

/** What an entry holds: its body, and its text when kept (one byte a character; counted before its first hit makes it). */
function heldBytes(entry: Entry): number {
  return entry.body.length * (entry.textable ? 2 : 1);
}

/** The clock slice of an instant: an answer that reads the clock is kept for one (request/policy.ts isClocked). */
export function clockSlice(nowSec: number): number {
  return Math.floor(nowSec / CLOCK_BUCKET_SEC);
}

/** The bucket of an answer that does not read the clock: valid for its whole data version. */
export const UNCLOCKED = -1;
