import type { FastifyServerOptions } from 'fastify';
import { isatty } from 'node:tty';
import pino from 'pino';
import { maskSecrets } from '../../secrets.ts';
import { redactUrl } from '../../tokens.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type UnavailableReason, unavailableReason } from '../errors/unavailable.ts';
import { requestPath } from '../request/rules.ts';
import { answerBytes, jsonText, lineEncoder } from './access-bytes.ts';
import { LineBuffer } from './log-buffer.ts';
import { PIPE_ATOMIC_BYTES } from './log-writes.ts';

/** A request as an error line shows it (Fastify's `req`), with credentials in the URL blanked. */
interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, string | string[] | undefined>;
  socket?: { remotePort?: number };
}

/**
 * How a logged error (`{ err }`) is written: pino's own shape, with any URL's password masked in
 * its message and stack (a driver's error may quote the URL it was given).
 */
export function errorSerializer(error: Error): ReturnType<typeof pino.stdSerializers.err> {
  const shown = pino.stdSerializers.err(error);
  if (typeof shown?.message === 'string') shown.message = maskSecrets(shown.message);
  if (typeof shown?.stack === 'string') shown.stack = maskSecrets(shown.stack);
  return shown;
}

/**
 * Structured logs (pino); the Authorization header never reaches them. Requests are logged by
 * the access line below (one a request), not by Fastify's pair of lines.
 */
export function loggerOptions(level: string, stream?: { write(line: string): void }): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' },
    serializers: {
      err: errorSerializer,
      req: (req: LoggedRequest) => ({
        method: req.method, url: redactUrl(req.url ?? ''), version: headerText(req.headers?.['accept-version']), host: req.host,
        remoteAddress: req.ip, remotePort: req.socket?.remotePort,
      }),
    },
    ...(stream ? { stream } : {}),
  };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** One request as the access line shows it: never a header, never the token, only its id. */
export interface AccessEntry {
  reqId: string;
  method: string;
  /** As requested; logged with credential-like text blanked (redactUrl). */
  url: string;
  /** The route's pattern (`/v1/cities/:id`); undefined when no route matched. */
  route: string | undefined;
  status: number;
  /** Why a 503 was answered (errors/unavailable.ts); undefined for any other status. */
  reason?: UnavailableReason | undefined;
  /** Body bytes sent (Content-Length), when known. */
  bytes: number | undefined;
  /** From the request's arrival to its answer's end, in milliseconds. */
  ms: number;
  /** The id (the public part) of the token the request was made with, once it passed. */
  token: string | undefined;
  ip: string;
}

export const ACCESS_MESSAGE = 'request';

/** Probes are asked every few seconds by orchestrators: logged at debug, not info (unless answered 5xx). */
const PROBES: ReadonlySet<string> = new Set(['/health', '/ready']);

/** What an answer fixes of its access line (method to bytes), for a line a request that gets the same answer. */
export interface AnswerPart {
  /** The line's level, or undefined when lines at its level are not written (a probe below debug, anything below info). */
  readonly level: 20 | 30 | undefined;
  /** `,"method":...` up to `"bytes":...`, as JSON. */
  readonly text: string;
  /** `text` in UTF-8 with what stands around it in the line (answerBytes in access-bytes.ts), when the log is a LineBuffer. */
  readonly bytes?: Buffer;
}

/** Writes the access line of a request: from the full path and the fast path alike. */
export interface AccessLog {
  (entry: AccessEntry): void;
  /** The part of the line an answer fixes (a cached answer keeps it: fast-path.ts). */
  answerPart(entry: Pick<AccessEntry, 'method' | 'url' | 'route' | 'status' | 'reason' | 'bytes'>): AnswerPart;
  /** The line of a request whose answer's part is `part`: what `log(entry)` writes for the same fields. */
  withPart(part: AnswerPart, reqId: string, ms: number, token: string | undefined, ip: string): void;
}

/**
 * The access log of a pino logger (the app's): the very line `log.info(fields, 'request')`
 * would write (its level, time, bindings, then the fields), built as text and handed to the
 * logger's own stream (or, when that stream is serve's LineBuffer, encoded straight into its
 * bytes: access-bytes.ts), because a line a request is the one log call on the hot path and pino's
 * general path costs several times as much (bench/RESULTS.md, "Logging as shipped"). The part of the line an
 * answer fixes (method, URL with credentials blanked, route, status, bytes) is built apart, so
 * that the fast path builds it once a cached answer rather than once a request.
 */
export function accessLog(log: pino.Logger): AccessLog {
  const internals = log as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as { write(line: string): void };
  // The logger's bindings (pid, hostname) as pino keeps them: a ready-made `,"pid":1,...` string.
  const chindings = internals[pino.symbols.chindingsSym];
  const bindings = typeof chindings === 'string' ? chindings : '';
  const info = log.isLevelEnabled('info');
  const debug = log.isLevelEnabled('debug');
  // serve's log (a LineBuffer): the fast path's lines are encoded straight into its bytes; any other stream is given strings.
  const encode = stream instanceof LineBuffer ? lineEncoder(stream, bindings, ACCESS_MESSAGE) : undefined;
  const partOf = (entry: Parameters<AccessLog['answerPart']>[0]): AnswerPart => {
    const probe = entry.route !== undefined && PROBES.has(entry.route) && entry.status < 500;
    let text = `,"method":${JSON.stringify(entry.method)},"url":${JSON.stringify(redactUrl(entry.url))}`;
    if (entry.route !== undefined) text += `,"route":${JSON.stringify(entry.route)}`;
    text += `,"status":${entry.status}`;
    if (entry.reason !== undefined) text += `,"reason":${JSON.stringify(entry.reason)}`;
    if (entry.bytes !== undefined && Number.isFinite(entry.bytes)) text += `,"bytes":${entry.bytes}`;
    return { level: probe ? (debug ? 20 : undefined) : (info ? 30 : undefined), text };
  };
  // Kept with a cached answer (fast-path.ts), so encoded once: the full path's parts are used once, as text.
  const answerPart: AccessLog['answerPart'] = (entry) => {
    const part = partOf(entry);
    return encode && part.level !== undefined ? { ...part, bytes: answerBytes(part.text) } : part;
  };
  const withPart: AccessLog['withPart'] = (part, reqId, ms, token, ip) => {
    if (part.level === undefined) return;
    if (encode && part.bytes && encode(part.level, part.bytes, reqId, ms, token, ip)) return;
    let line = `{"level":${part.level},"time":${Date.now()}${bindings},"reqId":${jsonText(reqId)}${part.text},"ms":${Math.round(ms * 100) / 100}`;
    if (token !== undefined) line += `,"token":${jsonText(token)}`;
    stream.write(`${line},"ip":${jsonText(ip)},"msg":"${ACCESS_MESSAGE}"}\n`);
  };
  const write = (entry: AccessEntry): void => {
    if (!info && !debug) return;
    withPart(partOf(entry), entry.reqId, entry.ms, entry.token, entry.ip);
  };
  return Object.assign(write, { answerPart, withPart });
}

/** An answer written in front of Fastify (load shedding): its request id and body bytes, and when the request began (performance.now()). */
export type FrontAnswered = (req: IncomingMessage, res: ServerResponse, reqId: string, bytes: number, startedMs: number) => void;

/**
 * The access line of an answer written in front of Fastify (load shedding): the same line
 * Fastify's hook writes, with no route (or /ready), no token (none was checked), and the reason
 * of a 503. `log` is read per answer (the app's log exists once Fastify is built).
 */
export function frontAnswerLog(log: () => AccessLog | undefined, address: (req: IncomingMessage) => string): FrontAnswered {
  return (req, res, reqId, bytes, startedMs) => {
    const access = log();
    if (!access) return;
    const url = req.url ?? '';
    access({
      reqId, method: req.method ?? '', url, route: requestPath(url) === '/ready' ? '/ready' : undefined, status: res.statusCode,
      reason: res.statusCode === 503 ? unavailableReason(res) : undefined, bytes, ms: performance.now() - startedMs, token: undefined, ip: address(req),
    });
  };
}

/** Where `serve` writes its log, and how to flush it. */
export interface LogDestination {
  stream: { write(line: string): void };
  /** Writes out what is buffered, synchronously (on exit). */
  flushSync(): void;
  /** Writes out what is buffered and waits for it, up to `withinMs` (a stop that can wait): true once all of it is out. */
  drain(withinMs: number): Promise<boolean>;
  /** Stops the periodic flush. */
  close(): void;
}

/** How often a buffered log is written out when traffic is too light to fill the buffer. */
export const LOG_FLUSH_MS = 1000;

/**
 * stdout as `serve` logs to it: on a terminal, human-readable lines (pino-pretty, written as
 * they come); otherwise JSON lines kept in a buffer (log-buffer.ts, 64 KiB before a write) and
 * written asynchronously, at least every second and at once on exit, so logging costs the
 * server little under load. `pretty` forces one or the other (tests). `shared`: other processes
 * write to the same stdout (serve's workers), so no write is larger than a pipe takes whole.
 */
export async function logDestination(options: { pretty?: boolean; fd?: number; shared?: boolean } = {}): Promise<LogDestination> {
  const fd = options.fd ?? 1;
  if (options.pretty ?? isatty(fd)) {
    const { default: pretty } = await import('pino-pretty');
    const stream = pretty({ destination: fd, sync: true, colorize: isatty(fd), translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
    return { stream, flushSync: () => undefined, drain: async () => true, close: () => undefined };
  }
  // Other processes write to it too (serve's workers): each write whole lines the pipe takes in one piece.
  const lines = new LineBuffer(fd, options.shared ? { maxWriteBytes: PIPE_ATOMIC_BYTES } : {});
  const timer = setInterval(() => lines.flush(), LOG_FLUSH_MS);
  timer.unref();
  return { stream: lines, flushSync: () => lines.flushSync(), drain: (withinMs) => lines.drain(withinMs), close: () => clearInterval(timer) };
}
