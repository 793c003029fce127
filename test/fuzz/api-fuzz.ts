/**
 * Schema-driven fuzzing of the HTTP API, shared by the short run in npm test
 * (test/http/fuzz.test.ts) and the long one (bench/fuzz.ts, `npm run fuzz`): requests are
 * generated from the OpenAPI document the server itself serves (generate.ts), sent over real
 * HTTP (or a bare socket for malformed ones), and every answer is checked (check.ts).
 *
 * Request i of a run with seed S is generated from its own seed (seedOf(S, i)), so any one
 * request can be rebuilt and sent again alone: `npm run fuzz -- --seed S --only i`.
 */
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { DASHBOARD_PAGE_FILES } from '../../src/http/routes/dashboard.ts';
import { DOCS_PAGE_FILES } from '../../src/http/routes/docs.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { newToken } from '../../src/tokens.ts';
import { Checker, type FuzzResponse, headerText } from './check.ts';
import { type FuzzContext, type FuzzRequest, SEEN_ETAG, requestArbitrary } from './generate.ts';
import { type ApiDocument, matchPath, pathPart } from './openapi.ts';

export { Checker, type FuzzContext, type FuzzRequest, type FuzzResponse, requestArbitrary };

export interface Target {
  baseUrl: string;
  agent: Agent;
  timeoutMs: number;
  /** The ETag last answered per path, for If-None-Match. */
  etags: Map<string, string>;
}

export function target(baseUrl: string, options: { timeoutMs?: number; connections?: number } = {}): Target {
  return {
    baseUrl,
    agent: new Agent({ keepAlive: true, maxSockets: options.connections ?? 1 }),
    timeoutMs: options.timeoutMs ?? 10_000,
    etags: new Map(),
  };
}

/** The document as served, fetched like any client would, with the docs page's and the dashboard's own files (described beside it: src/http/routes/docs.ts, dashboard.ts). */
export async function fetchDocument(baseUrl: string): Promise<ApiDocument> {
  const response = await fetch(`${baseUrl}/v1/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
  const doc = await response.json() as ApiDocument;
  return { ...doc, paths: { ...doc.paths, ...DOCS_PAGE_FILES, ...DASHBOARD_PAGE_FILES } };
}

/** The tokens a run uses: a valid one, one limited to a single request a minute, an expired and a revoked one. */
export async function createFuzzTokens(store: PriceStore, nowSec: number): Promise<FuzzContext['tokens']> {
  const valid = newToken('fuzz', nowSec, { rateLimit: 1_000_000_000 });
  const limited = newToken('fuzz-limited', nowSec, { rateLimit: 1 });
  const expired = newToken('fuzz-expired', nowSec - 7_200, { expiresInSec: 3_600 });
  const revoked = newToken('fuzz-revoked', nowSec);
  for (const created of [valid, limited, expired, revoked]) await store.createToken(created.record);
  await store.revokeToken(revoked.record.id, nowSec);
  return { valid: valid.token, limited: limited.token, expired: expired.token, revoked: revoked.token };
}

/** Ids that exist, read through the API itself (first page of each list). */
export async function knownIds(baseUrl: string, token: string): Promise<FuzzContext['ids']> {
  const list = async (path: string): Promise<string[]> => {
    const response = await fetch(`${baseUrl}${path}?limit=100`, { headers: { authorization: `Bearer ${token}` } });
    const body = await response.json() as { data: Array<{ id: string }> };
    return body.data.map((item) => item.id);
  };
  return { cities: await list('/v1/cities'), stations: await list('/v1/stations') };
}

/** Sends one request and collects the whole answer; never throws. */
export function send(to: Target, request: FuzzRequest): Promise<FuzzResponse> {
  const path = request.target.split(/[?#]/, 1)[0] ?? '';
  const ifNoneMatch = request.headers['if-none-match'];
  const headers = { ...request.headers };
  if (typeof ifNoneMatch === 'string' && ifNoneMatch.includes(SEEN_ETAG)) {
    headers['if-none-match'] = ifNoneMatch.replace(SEEN_ETAG, to.etags.get(path) ?? '"unseen"');
  }
  const sent = request.raw === undefined ? sendHttp(to, request, headers) : sendRaw(to, request.raw);
  return sent.then((response) => {
    const etag = headerText(response.headers.etag);
    if (response.status === 200 && etag) to.etags.set(path, etag);
    return response;
  });
}

function sendHttp(to: Target, request: FuzzRequest, headers: Record<string, string | string[]>): Promise<FuzzResponse> {
  return new Promise((resolve) => {
    const url = new URL(to.baseUrl);
    let settled = false;
    const done = (response: FuzzResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(response);
    };
    const failed = (error: string): FuzzResponse => ({ status: 0, headers: {}, body: Buffer.alloc(0), timedOut: false, error });
    let req: ReturnType<typeof httpRequest>;
    try {
      req = httpRequest({ host: url.hostname, port: url.port, method: request.method, path: request.target, headers, agent: to.agent });
    } catch (error) {
      // The generator must only make what node's client can send; anything else is a fuzzer bug.
      throw new Error(`node refused to send ${request.method} ${request.target.slice(0, 100)}: ${String(error)}`, { cause: error });
    }
    const timer = setTimeout(() => {
      req.destroy();
      done({ status: 0, headers: {}, body: Buffer.alloc(0), timedOut: true });
    }, to.timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), timedOut: false }));
      res.on('error', (error) => done(failed(error.message)));
    });
    req.on('error', (error) => done(failed(error.message)));
    req.end(request.body);
  });
}

/** Writes `raw` to a fresh connection and reads until the server closes it. */
function sendRaw(to: Target, raw: string): Promise<FuzzResponse> {
  return new Promise((resolve) => {
    const url = new URL(to.baseUrl);
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ status: 0, headers: {}, body: Buffer.alloc(0), timedOut: true });
    }, to.timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseRaw(Buffer.concat(chunks)));
    });
    socket.write(Buffer.from(raw, 'latin1'));
  });
}

function parseRaw(bytes: Buffer): FuzzResponse {
  const text = bytes.toString('latin1');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  if (!status?.[1]) return { status: 0, headers: {}, body: bytes, timedOut: false, error: 'connection closed without an answer' };
  const end = text.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of text.slice(0, end === -1 ? text.length : end).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(status[1]), headers, body: end === -1 ? Buffer.alloc(0) : bytes.subarray(end + 4), timedOut: false };
}

/** The seed request `index` of a run seeded `seed` is generated from. */
export function seedOf(seed: number, index: number): number {
  return (Math.imul(seed | 0, 0x9e3779b1) + index) | 0;
}

/** Request `index` of a run: the same request every time for the same seed, document and context. */
export function nthRequest(arbitrary: fc.Arbitrary<FuzzRequest>, seed: number, index: number): FuzzRequest {
  const [request] = fc.sample(arbitrary, { seed: seedOf(seed, index), numRuns: 1 });
  if (!request) throw new Error('fast-check generated nothing');
  return request;
}

export interface Violation {
  index: number;
  request: FuzzRequest;
  status: number;
  problems: string[];
}

export interface FuzzReport {
  sent: number;
  byStatus: Record<string, number>;
  /** Requests per documented path they reached (or `unknown path`, `undecodable path`, `malformed`). */
  byPath: Record<string, number>;
  serverErrors: number;
  timeouts: number;
  violations: Violation[];
  seconds: number;
  /** The slowest answer: how close anything came to the client timeout. */
  slowest: { index: number; ms: number; status: number };
}

export interface RunOptions {
  requests: number;
  seed: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Only these request indexes (to replay a violation). */
  only?: number[];
  onProgress?: (report: FuzzReport) => void;
}

/** Sends the run's requests and checks every answer. */
export async function runFuzz(to: Target, checker: Checker, context: FuzzContext, options: RunOptions): Promise<FuzzReport> {
  const arbitrary = requestArbitrary(checker.operations, context);
  const report: FuzzReport = { sent: 0, byStatus: {}, byPath: {}, serverErrors: 0, timeouts: 0, violations: [], seconds: 0, slowest: { index: -1, ms: 0, status: 0 } };
  const indexes = options.only ?? Array.from({ length: options.requests }, (_, i) => i);
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < indexes.length) {
      const index = indexes[next++] ?? 0;
      const request = nthRequest(arbitrary, options.seed, index);
      const sentAt = performance.now();
      const response = await send(to, request);
      const ms = performance.now() - sentAt;
      if (ms > report.slowest.ms) report.slowest = { index, ms, status: response.status };
      const problems = checker.check(request, response);
      report.sent++;
      const key = response.timedOut ? 'timeout' : response.status === 0 ? 'no answer' : String(response.status);
      report.byStatus[key] = (report.byStatus[key] ?? 0) + 1;
      const reached = pathReached(checker, request);
      report.byPath[reached] = (report.byPath[reached] ?? 0) + 1;
      if (response.status >= 500) report.serverErrors++;
      if (response.timedOut) report.timeouts++;
      if (problems.length > 0) report.violations.push({ index, request, status: response.status, problems });
      if (options.onProgress && report.sent % 10_000 === 0) options.onProgress(report);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

function pathReached(checker: Checker, request: FuzzRequest): string {
  if (request.raw !== undefined) return 'malformed';
  const match = matchPath(checker.operations, pathPart(request.target));
  return match.kind === 'routed' ? match.template : match.kind === 'undecodable' ? 'undecodable path' : 'unknown path';
}

/** One line per violation, enough to replay it. */
export function describeViolation(violation: Violation, seed: number): string {
  const { request } = violation;
  // Tokens stay out of the output, even the fuzzer's own.
  const shown = request.raw === undefined ? `${request.method} ${request.target}` : `raw ${JSON.stringify(request.raw.replace(/Bearer [^\r\n]*/g, 'Bearer <token>'))}`;
  // The Authorization header's length only: enough to tell a huge one from a token.
  const given = request.headers.authorization;
  const authorization = given === undefined ? '' : ` (Authorization of ${[given].flat().map((v) => v.length).join(' + ')} characters)`;
  const others = Object.keys(request.headers).filter((h) => h !== 'authorization');
  return `#${violation.index} (--seed ${seed} --only ${violation.index}) ${shown.slice(0, 300)}${authorization}`
    + `${others.length > 0 ? ` [${others.join(', ')}]` : ''} -> ${violation.status}: ${violation.problems.join('; ')}`;
}
