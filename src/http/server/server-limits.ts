/**
 * What keeps one process answering when clients are many, slow or hostile: the HTTP server's
 * timeouts and limits (set here on purpose rather than left to Node's defaults), the answer to
 * requests Node's parser refuses, and the drain on close.
 */
import { REQUEST_ID_HEADER, requestIdOf } from '../request/rules.ts';
import { type RequestListener, STATUS_CODES, type Server, createServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type ErrorCode, codeToStatus, errorText } from '../errors/catalogue.ts';
import { JSON_TYPE } from '../representation/negotiation.ts';

export interface ServerLimits {
  /** Request line and headers must all arrive within this of the request's first byte (slowloris). */
  headersTimeoutMs: number;
  /** The whole request (GET only, body of 1 KiB at most) must arrive within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** How often Node checks the two timeouts above: a check runs this long after one expires at worst. */
  connectionsCheckingIntervalMs: number;
  /**
   * A connection whose answer has stopped going out (bytes waiting to be sent and none taken by
   * the network) for this long is reset: a client that stops reading. Checked every
   * connectionsCheckingIntervalMs. An answer the kernel's buffers took whole has finished, so the
   * keep-alive timeout closes that connection instead.
   */
  stalledWriteMs: number;
  /** Request line plus headers, in bytes; more is answered 431. */
  maxHeaderBytes: number;
  /** Path and query, in characters; longer is answered 400. */
  maxUrlLength: number;
  /** After this many requests on one connection the answer says `Connection: close`; 0: no limit. */
  maxRequestsPerSocket: number;
  /** Open connections past this are closed as soon as they are accepted. */
  maxConnections: number;
}

/**
 * Node's defaults are for servers that may take uploads for minutes; this one answers small GETs.
 * Each value is the reason it has, not a guess: see docs/DEPLOY.md.
 */
export const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze({
  // A real client sends its headers in one packet; 10 s is generous and frees a slowloris socket 50 s sooner than Node's 60 s.
  headersTimeoutMs: 10_000,
  // No request here has a body worth waiting for (GET and HEAD, 1 KiB at most); Node's default is 5 minutes.
  requestTimeoutMs: 15_000,
  // Longer than the 60 s idle timeout common load balancers use, so the proxy closes idle connections first
  // (a server closing first races the proxy's next request and shows as a 502). KEEP_ALIVE_TIMEOUT_MS changes it.
  keepAliveTimeoutMs: 72_000,
  // Node checks the timeouts above every 30 s by default, which would let a slowloris hold a socket for 40 s.
  connectionsCheckingIntervalMs: 1_000,
  // A client that stops reading would otherwise hold its socket (and the answer's buffer) for ever. Not a socket
  // timeout: Node re-arms that timer on every read and write, a cost paid by every answer (bench/RESULTS.md,
  // "The performance work, step by step").
  stalledWriteMs: 60_000,
  // A bearer token and the usual headers fit in 2 KiB; 8 KiB is what nginx and Apache accept per line.
  maxHeaderBytes: 8_192,
  // The longest valid URL (a 200-character station id, history, every query parameter) is under 400 characters.
  maxUrlLength: 2_048,
  // No limit: past one, Node answers every further request on the connection with a bare 503 (not our error shape)
  // until the client reconnects, and clients that keep sending after `Connection: close` (autocannon, pipelining
  // clients) saw thousands of them in the soak. Spreading connections over replicas is the load balancer's job.
  maxRequestsPerSocket: 0,
  // Well under the descriptor limit Node raises itself to, so a flood of connections cannot take the descriptors
  // SQLite, PostgreSQL and Redis need; MAX_CONNECTIONS changes it.
  maxConnections: 4_096,
});

/** The HTTP server with `limits` applied, calling `listener` for every request. */
export function limitedServer(limits: ServerLimits, listener: RequestListener): Server {
  const server = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.connectionsCheckingIntervalMs,
    maxHeaderSize: limits.maxHeaderBytes,
  }, listener);
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  server.maxConnections = limits.maxConnections;
  resetStalledWriters(server, limits.stalledWriteMs, limits.connectionsCheckingIntervalMs);
  return server;
}

/**
 * Every `everyMs`, resets each connection that has had bytes waiting to go out for `stalledMs`
 * with none of them taken by the network meanwhile (ServerLimits.stalledWriteMs). A sweep over
 * the open connections costs nothing per request, where a socket timeout is re-armed on every
 * read and write.
 */
export function resetStalledWriters(server: Server, stalledMs: number, everyMs: number): void {
  const writers = new StalledWriters(stalledMs);
  server.on('connection', (socket: Socket) => writers.watch(socket, Date.now()));
  const timer = setInterval(() => writers.sweep(Date.now()), everyMs);
  timer.unref();
  server.once('close', () => clearInterval(timer));
}

/** What a sweep reads of a socket, and how it resets one. */
export type WatchedSocket = Pick<Socket, 'writableLength' | 'bytesWritten' | 'resetAndDestroy' | 'once'>;

export class StalledWriters {
  private readonly watched = new Map<WatchedSocket, { sent: number; since: number }>();

  constructor(private readonly stalledMs: number) {}

  watch(socket: WatchedSocket, now: number): void {
    this.watched.set(socket, { sent: 0, since: now });
    socket.once('close', () => this.watched.delete(socket));
  }

  /** Resets the sockets stalled at `now`; returns how many. */
  sweep(now: number): number {
    let reset = 0;
    for (const [socket, seen] of this.watched) {
      // writableLength counts the bytes the kernel has not taken yet, the write under way included.
      const waiting = socket.writableLength;
      const sent = (socket.bytesWritten ?? 0) - waiting;
      if (waiting === 0 || sent !== seen.sent) {
        seen.sent = sent;
        seen.since = now;
      } else if (now - seen.since >= this.stalledMs) {
        this.watched.delete(socket);
        socket.resetAndDestroy();
        reset++;
      }
    }
    return reset;
  }

  get size(): number {
    return this.watched.size;
  }
}

/**
 * Fastify's clientErrorHandler: what Node's parser refuses (headers too large, a malformed
 * request, a request that took too long to arrive) is answered on the raw socket, in the
 * documented error shape with `headers` (the app's security headers), and the connection closed.
 */
export function clientErrorAnswer(headers: Readonly<Record<string, string>>, maxHeaderBytes: number): (error: Error & { code?: string }, socket: Duplex) => void {
  const fixed = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  const tooLarge = `The request line and headers are too large (${Math.floor(maxHeaderBytes / 1024)} KiB at most).`;
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) {
      if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        // A client this slow is a slowloris or broken; it gets Node's own bare 408 and no more of our time.
        socket.write('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      } else if (error.code === 'HPE_HEADER_OVERFLOW') {
        socket.write(rawError('request_too_large', tooLarge, fixed, isHead(error)));
      } else {
        socket.write(rawError('invalid_parameter', 'The request could not be read as HTTP/1.1.', fixed, isHead(error)));
      }
    }
    socket.destroy();
  };
}

/**
 * Whether the refused request was a HEAD, from the bytes Node's parser was reading (`rawPacket`,
 * which starts with the request line unless the request arrived in several packets). An answer
 * to a HEAD carries no body: a client would read one as the start of another answer.
 */
function isHead(error: Error): boolean {
  const { rawPacket } = error as { rawPacket?: unknown };
  return Buffer.isBuffer(rawPacket) && rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
}

function rawError(code: ErrorCode, message: string, fixedHeaders: string, head = false): string {
  const status = codeToStatus(code);
  const requestId = requestIdOf(undefined);
  const body = errorText(code, message, requestId);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: ${JSON_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`
    + `cache-control: no-store\r\n${REQUEST_ID_HEADER}: ${requestId}\r\n${fixedHeaders}connection: close\r\n\r\n${head ? '' : body}`;
}

/**
 * On close: Fastify closes the connections idle at that moment, but one busy then stays open
 * for the keep-alive timeout after its answer. Closing idle connections every `everyMs` until
 * the server has closed lets the requests in flight finish and the process exit promptly.
 */
export function drainIdleConnections(server: Server, everyMs = 50): void {
  const timer = setInterval(() => server.closeIdleConnections(), everyMs);
  timer.unref();
  server.once('close', () => clearInterval(timer));
}
