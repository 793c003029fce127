/**
 * A real HTTP server on a free loopback port that plays one feed's protocol for tests. Each
 * feed's fake (test/fakes/<feed>.ts) supplies a handler; this file adds what every feed can
 * do to a client: queued faults (a status with Retry-After, a slow answer, a truncated body, a
 * byte-order mark) and a log of the requests received, so tests can assert on the protocol.
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  body: string;
}

export interface FakeFault {
  /** Answer with this status (and no real work) instead. */
  status?: number;
  retryAfter?: string;
  /** Wait this long before answering (the handler's answer, or the fault's). */
  delayMs?: number;
  /** Send half of the real body, then close the connection. */
  truncate?: boolean;
  /** Prefix the real body with a UTF-8 byte-order mark. */
  bom?: boolean;
  /** Replace the real body with this (a malformed answer, say). */
  body?: string;
  /** Only requests whose path contains this take the fault; others pass it by. */
  pathIncludes?: string;
}

export type FakeHandler = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

export class FakeFeedServer {
  readonly requests: FakeRequest[] = [];
  private readonly faults: FakeFault[] = [];
  private readonly server = createServer((req, res) => { void this.serve(req, res); });
  url = '';

  constructor(private readonly handler: FakeHandler) {}

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Queues faults, taken one per matching request in order. */
  failNext(...faults: FakeFault[]): void {
    this.faults.push(...faults);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const request: FakeRequest = {
      method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(request);
    const index = this.faults.findIndex((f) => f.pathIncludes === undefined || request.path.includes(f.pathIncludes));
    const fault = index >= 0 ? this.faults.splice(index, 1)[0] : undefined;
    if (fault?.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (res.destroyed) return;
    if (fault?.status !== undefined) {
      res.writeHead(fault.status, { 'content-type': 'text/plain', ...(fault.retryAfter ? { 'retry-after': fault.retryAfter } : {}) });
      res.end(fault.body ?? `fake error ${fault.status}`);
      return;
    }
    let reply: FakeReply;
    try {
      reply = await this.handler(request);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`fake handler failed: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    let body = Buffer.from(fault?.body ?? reply.body, 'utf8');
    if (fault?.bom) body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
    const headers = { 'content-type': 'application/json; charset=utf-8', ...reply.headers };
    if (fault?.truncate) {
      res.writeHead(reply.status ?? 200, { ...headers, 'content-length': String(body.length) });
      res.write(body.subarray(0, Math.floor(body.length / 2)));
      setTimeout(() => res.destroy(), 10);
      return;
    }
    res.writeHead(reply.status ?? 200, headers);
    res.end(body);
  }
}

/** A FeedHttp option set for tests: retries at once, counts the waits it would have made. */
export function instantRetries(): { sleep: (ms: number) => Promise<void>; random: () => number; waits: number[] } {
  const waits: number[] = [];
  return { sleep: async (ms) => { waits.push(ms); }, random: () => 0.5, waits };
}
