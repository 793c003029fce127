import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '../errors/catalogue.ts';
import { attachment, csvText, pageHeaders } from './csv.ts';
import { type PageEnvelope, type PageWindow, envelope } from './pagination.ts';
import type { PiecedBody } from './pieced-body.ts';

/**
 * JSON or CSV, for the routes that offer both (docs/CSV.md). `?format=csv|json` decides when
 * given (a link or a browser cannot set Accept) and Accept is then not read; otherwise Accept
 * decides, JSON on a tie, and an Accept that allows neither is a 406. Errors are always JSON.
 */

export type Representation = 'json' | 'csv';

/** The media types of the two representations: every JSON answer (errors too) and every CSV one. */
export const JSON_TYPE = 'application/json; charset=utf-8';
export const CSV_TYPE = 'text/csv; charset=utf-8';

interface MediaRange { type: string; subtype: string; q: number }

/** Accept's media ranges (RFC 9110 12.5.1); a range with a q that is not a qvalue is left out. */
function mediaRanges(accept: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const element of accept.split(',')) {
    const [range = '', ...params] = element.split(';');
    const [type, subtype] = range.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((part) => part.trim());
      if (name?.toLowerCase() !== 'q') continue;
      q = value !== undefined && /^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : Number.NaN;
    }
    if (!Number.isNaN(q)) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The q the most specific range matching `type/subtype` gives it (exact, then type/*, then * / *); 0 when none matches. */
function qualityOf(ranges: readonly MediaRange[], type: string, subtype: string): number {
  let best = -1;
  let q = 0;
  for (const range of ranges) {
    const specificity = range.type === type && range.subtype === subtype ? 2 : range.type === type && range.subtype === '*' ? 1 : range.type === '*' && range.subtype === '*' ? 0 : -1;
    if (specificity > best) { best = specificity; q = range.q; }
  }
  return q;
}

/** What an Accept header asks of JSON and CSV: the one it rates higher, JSON on a tie, undefined when it allows neither. No header, or an empty one, is JSON. */
export function acceptedRepresentation(accept: string | undefined): Representation | undefined {
  if (accept === undefined || accept.trim() === '') return 'json';
  const ranges = mediaRanges(accept);
  const json = qualityOf(ranges, 'application', 'json');
  const csv = qualityOf(ranges, 'text', 'csv');
  if (json === 0 && csv === 0) return undefined;
  return csv > json ? 'csv' : 'json';
}

/** For the fast path, in front of Fastify: whether a request with this Accept is answered as JSON wherever it goes. */
export function acceptsJson(accept: string): boolean {
  return accept === '*/*' || accept === 'application/json' || acceptedRepresentation(accept) === 'json';
}

/**
 * preValidation of every route that offers CSV: after strictQuery (format given once, in
 * lowercase) and before the answer cache. A format that is neither is left to the schema's 400.
 */
export async function negotiateRepresentation(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('vary', 'Accept');
  const format = (request.query as { format?: unknown }).format;
  if (format === 'csv') request.csvBy = 'url';
  if (format !== undefined) return;
  const chosen = acceptedRepresentation(request.headers.accept);
  if (chosen === undefined) {
    apiError('not_acceptable', 'This answer is application/json or text/csv (or ?format=csv or json); the Accept header allows neither. Errors are always JSON.');
  }
  if (chosen === 'csv') request.csvBy = 'accept';
}

export function wantsCsv(request: FastifyRequest): boolean {
  return request.csvBy !== null;
}

/**
 * The answer cache's key for an answer (cache/answer-cache.ts): its URL, which holds `format`; a
 * CSV answer asked for by Accept alone has a key of its own, which no URL is, so the fast path
 * (keyed by URL) never finds it and a JSON answer is never found for it.
 */
export function answerKey(request: FastifyRequest): string {
  return request.csvBy === 'accept' ? `${request.url}\u0000text/csv` : request.url;
}

/**
 * Sends a JSON answer a route has already written as text or bytes (domain/prices-json.ts,
 * domain/history-json.ts; a large one as its pieces: pieced-body.ts), which Fastify sends as it
 * is; the tests of those writers hold them to what the route's response schema would serialise.
 */
export function sendJsonText(reply: FastifyReply, body: string | Buffer | PiecedBody): FastifyReply {
  return reply.type(JSON_TYPE).send(body);
}

/** Sends a CSV answer as a file: its text, its file name, and the page headers of a list. */
export function sendCsv(reply: FastifyReply, text: string | Buffer, filename: string, headers: Readonly<Record<string, string>> = {}): FastifyReply {
  return reply.headers(headers).header('content-disposition', attachment(filename)).type(CSV_TYPE).send(typeof text === 'string' ? Buffer.from(text) : text);
}

/**
 * A page of a list route, as asked for: the JSON envelope, or its items as CSV rows under
 * `columns`, sent as `NAME-page-N.csv` with the envelope's figures in the page headers.
 */
export function pageAnswer<T extends object>(
  request: FastifyRequest, reply: FastifyReply, page: { items: T[]; total: number; window: PageWindow }, csv: { columns: readonly string[]; name: string },
): PageEnvelope<T> | FastifyReply {
  const { items, total, window } = page;
  if (!wantsCsv(request)) return envelope(items, total, window);
  return sendCsv(reply, csvText(csv.columns, items), `${csv.name}-page-${window.currentPage}.csv`, pageHeaders(request.url, window, total));
}
