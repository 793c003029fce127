import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../../config.ts';
import { PiecedBody, etagOf } from '../representation/pieced-body.ts';
import type { CacheCounts } from '../server/metrics.ts';
import { answerKey } from '../representation/negotiation.ts';

/**
 * The answer cache, in one place: what the full path (the hooks below) keeps and the fast path
 * (fast-path.ts) serves. Answers kept as the bytes that were sent, with their ETag, until the data changes: a hit is
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
  /** The route pattern that answered it (metrics.ts labels the fast path's answers with it). */
  route?: string;
}

/** What the full path hands over: the body as sent and, for the fast path, its stable headers. */
export interface AnswerToKeep {
  body: string | Buffer;
  etag: string;
  headers?: Readonly<Record<string, string>>;
  route?: string;
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

/** A least-recently-used map from request URL (answerKey) to answer, bounded in entries and bytes. */
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
    if (answer.route !== undefined) entry.route = answer.route;
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

/** Headers of a full-path answer that are the same on every request for its URL (what the fast path sends again). */
export function stableHeaders(headers: Record<string, number | string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (PER_REQUEST.has(name) || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

const PER_REQUEST: ReadonlySet<string> = new Set(['x-request-id', 'ratelimit', 'ratelimit-policy', 'content-length', 'date', 'connection', 'keep-alive']);

export interface AnswerCacheOptions {
  /** Absent: no answers kept (every answer still gets its ETag, Cache-Control and 304). */
  cache: ResponseCache | undefined;
  clock: Clock;
  /** The data version when the request's own reading (noteVersion) is missing. */
  dataVersion: () => Promise<number>;
  /** Seconds a client may cache a /v1 answer (Cache-Control max-age). */
  maxAgeSec: number;
  /** Told of each answer sent from the cache and each worked out for want of it (metrics.ts), when metrics are on. */
  counts?: CacheCounts;
}

/**
 * The full path's side of the cache, as hooks on the root app: a cached answer is sent before
 * the handler (preHandler, after auth, limits and validation), and every /v1 answer gets its
 * ETag, Cache-Control and 304 and is kept (onSend). `noteVersion` takes the data version the
 * auth hook read for the request, so that it is not read twice.
 */
export class AnswerCache {
  private readonly dataVersions = new WeakMap<object, number>();
  private readonly slots = new WeakMap<object, { key: string; version: number; bucket: number }>();
  // One answer worked out at a time per URL, data version and clock bucket: requests that miss
  // while the same answer is being worked out wait for it and take it from the cache, rather than
  // all reading storage at once (every cached answer misses together after each ingest batch).
  private readonly misses = new SingleFlight();

  constructor(private readonly options: AnswerCacheOptions) {}

  noteVersion(request: FastifyRequest, dataVersion: number): void {
    this.dataVersions.set(request, dataVersion);
  }

  register(app: FastifyInstance): void {
    const { cache, clock, maxAgeSec } = this.options;
    const { slots, misses } = this;
    if (cache) {
      app.addHook('preHandler', async (request, reply) => {
        if ((request.method !== 'GET' && request.method !== 'HEAD') || !request.url.startsWith('/v1/') || request.url.startsWith('/v1/openapi.json')) return;
        const version = this.dataVersions.get(request) ?? await this.options.dataVersion();
        const bucket = clockBucket(request.url, clock.now());
        // The URL, or for CSV asked for by Accept a key of its own (representation.ts): JSON and CSV never share an entry.
        const key = answerKey(request);
        let hit = cache.get(key, version, bucket);
        if (!hit) {
          const flight = `${version}\u0000${bucket}\u0000${key}`;
          // Waits only for a GET's answer: an error's is not kept, and the waiter then works out its own.
          if (await misses.wait(flight)) hit = cache.get(key, version, bucket);
          if (!hit) {
            if (request.method === 'GET') misses.lead(flight, request);
            // Counted as a miss in onSend, once an answer has been worked out (docs/METRICS.md): not
            // for an unknown route or an error, which are neither hits nor misses.
            slots.set(request, { key, version, bucket });
            return;
          }
        }
        this.options.counts?.cacheHit();
        // The headers it was first sent with: its Content-Type, and a CSV answer's Content-Disposition and page headers.
        if (hit.head) {
          for (let i = 0; i < hit.head.length; i += 2) reply.header(hit.head[i] as string, hit.head[i + 1]);
        } else {
          reply.header('etag', hit.etag).type('application/json; charset=utf-8');
        }
        return reply.send(hit.body);
      });
      // A leader lands in onSend, its answer kept or not; these are for a request that ends without sending.
      app.addHook('onResponse', async (request) => misses.land(request));
      app.addHook('onRequestAbort', async (request) => misses.land(request));
    }

    app.addHook('onSend', async (request, reply, payload) => {
      // A string from the serialiser, a Buffer from a route or the cache (preHandler above), or a large answer's pieces (body.ts).
      const pieced = payload instanceof PiecedBody;
      if (reply.statusCode !== 200 || !request.url.startsWith('/v1/') || (typeof payload !== 'string' && !Buffer.isBuffer(payload) && !pieced)) {
        if (reply.statusCode >= 400) reply.header('cache-control', 'no-store');
        misses.land(request);
        return payload;
      }
      // A 200 of a route, worked out for want of a kept answer (a slot was taken): the one place a
      // miss is counted (docs/METRICS.md). Unknown routes (404 before any handler) and errors are neither.
      const slot = slots.get(request);
      if (slot && !request.is404) this.options.counts?.cacheMiss();
      const known = reply.getHeader('etag');
      const etag = typeof known === 'string' ? known : etagOf(payload);
      reply.header('cache-control', `private, max-age=${maxAgeSec}`);
      let body: string | Buffer | PiecedBody = payload;
      if (known === undefined) {
        reply.header('etag', etag);
        if (cache && slot && !request.is404) {
          // A HEAD's answer is worked out whole (Fastify sends none of its body) and kept like a
          // GET's: the next GET or HEAD of the URL is a hit. Kept joined: the cache and the fast path send one Buffer.
          if (body instanceof PiecedBody) body = body.joined();
          cache.set(slot.key, slot.version, slot.bucket, { body, etag, headers: stableHeaders(reply.getHeaders()), route: request.routeOptions.url });
        }
      }
      misses.land(request);
      if (matchesEtag(request.headers['if-none-match'], etag)) {
        reply.code(304);
        return '';
      }
      // A stream's length is not worked out by Fastify: set here, HEAD's included.
      if (body instanceof PiecedBody) reply.header('content-length', String(body.length));
      return body;
    });
  }
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
