/**
 * Answers kept as the bytes that were sent, with their ETag, until the data changes: a hit is
 * served without touching the domain code, the serialiser or the hash. An entry is valid for
 * one data version (every write that changes an answer bumps it, whichever process wrote), and,
 * for the answers that depend on the clock (histories: today's point is a time-weighted mean up
 * to now), for one CLOCK_BUCKET_SEC slice of the clock. Auth, rate limits and parameter
 * validation still run on every request; only the work after them is skipped.
 */

/** How long a clock-dependent answer may be reused: today's point of a history moves this little. */
export const CLOCK_BUCKET_SEC = 10;

export interface CachedAnswer {
  /** The bytes sent (kept as a Buffer: a hit is written without encoding or measuring a string). */
  body: Buffer;
  etag: string;
  /**
   * The headers the full path sent with it that are the same on every request (content type,
   * ETag, Cache-Control, CORS, ...), as name, value, name, value...: the fast path sends them
   * as they were, with this request's own fields and `length` (Content-Length) after them.
   */
  head?: readonly string[];
  length: string;
}

/** What the full path hands over: the body as sent and, for the fast path, its stable headers. */
export interface AnswerToKeep {
  body: string | Buffer;
  etag: string;
  headers?: Readonly<Record<string, string>>;
}

interface Entry extends CachedAnswer {
  version: number;
  bucket: number;
}

export interface CacheLimits {
  /** Entries kept at most (least recently used go first). */
  maxEntries: number;
  /** Bytes of bodies kept at most. */
  maxBytes: number;
}

export const DEFAULT_CACHE_LIMITS: CacheLimits = { maxEntries: 20_000, maxBytes: 64 * 1024 * 1024 };

/** A least-recently-used map from request URL to answer, bounded in entries and bytes. */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  /** The entry last inserted or moved to the end: a hit on it needs no move. */
  private newest: Entry | undefined;
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly limits: CacheLimits = DEFAULT_CACHE_LIMITS) {}

  get(key: string, version: number, bucket: number): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version || entry.bucket !== bucket) {
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
    return entry;
  }

  set(key: string, version: number, bucket: number, answer: AnswerToKeep): void {
    const body = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
    const size = body.length;
    if (size > this.limits.maxBytes / 4) return;
    this.drop(key);
    const entry: Entry = { body, etag: answer.etag, length: String(size), version, bucket };
    if (answer.headers) entry.head = Object.entries(answer.headers).flat();
    this.entries.set(key, entry);
    this.newest = entry;
    this.bytes += size;
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
    this.bytes -= entry.body.length;
    this.entries.delete(key);
    if (entry === this.newest) this.newest = undefined;
  }
}

/** The clock slice an answer belongs to: its own for clock-dependent routes, one for all others. */
export function clockBucket(url: string, nowSec: number): number {
  const query = url.indexOf('?');
  return url.endsWith('/history', query === -1 ? url.length : query) ? Math.floor(nowSec / CLOCK_BUCKET_SEC) : 0;
}

/**
 * Requests that would work out the same answer at once: the first leads, the others wait until it
 * lands (its answer kept, or its request over without one). Keyed by whatever identifies the
 * answer; the leader is any object (the request) landed by the same object.
 */
export class SingleFlight {
  private readonly flights = new Map<string, { landed: Promise<void>; land: () => void }>();
  private readonly leaders = new WeakMap<object, string>();

  /** A waiter gives up after this and works the answer out itself: no flight can hold requests for ever. */
  constructor(private readonly maxWaitMs = 10_000) {}

  /** Waits for the flight under `key` if one is under way (at most maxWaitMs): true if it waited. */
  async wait(key: string): Promise<boolean> {
    const flight = this.flights.get(key);
    if (!flight) return false;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([flight.landed, new Promise<void>((resolve) => { timer = setTimeout(resolve, this.maxWaitMs); })]);
    clearTimeout(timer);
    return true;
  }

  /** Starts the flight under `key`, led by `leader` (nothing if one is already under way). */
  lead(key: string, leader: object): void {
    if (this.flights.has(key)) return;
    let land = (): void => undefined;
    const landed = new Promise<void>((resolve) => { land = resolve; });
    this.flights.set(key, { landed, land });
    this.leaders.set(leader, key);
  }

  /** Ends the flight `leader` leads, if any: its waiters go on. */
  land(leader: object): void {
    const key = this.leaders.get(leader);
    if (key === undefined) return;
    this.leaders.delete(leader);
    this.flights.get(key)?.land();
    this.flights.delete(key);
  }

  get size(): number {
    return this.flights.size;
  }
}
