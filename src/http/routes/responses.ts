import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { type TSchema, Type } from '@sinclair/typebox';
import type { Clock } from '../../config.ts';
import type { DerivedAnswers } from '../../derived/derived-answers.ts';
import { type AnswerBytes, answerBuffer } from '../../derived/answer-bytes.ts';
import type { HistoryOf } from '../../derived/history-answer.ts';
import type { Timeframe } from '../../domain/time.ts';
import type { ReadStore } from '../../storage/store.ts';
import { quotedEtag } from '../cache/etag.ts';
import { sendCsv, sendJsonText, wantsCsv } from '../representation/negotiation.ts';
import { ApiError, ErrorBody, type ErrorStatus } from '../errors/catalogue.ts';
import type { RoutePolicy } from '../request/policy.ts';

export interface RouteDeps {
  store: ReadStore;
  clock: Clock;
}

/**
 * Answers every other method on a GET route with 405 and Allow, hidden from the API document; `also` the methods it answers besides GET and HEAD (a POST form: post-body.ts).
 * `policy`: the GET route's `public` (request/policy.ts), so that a 405 needs a token exactly where the GET does.
 */
export function methodNotAllowed(app: FastifyInstance, url: string, also: ReadonlyArray<'POST'> = [], policy: Pick<RoutePolicy, 'public'> = {}): void {
  const allow = ['GET', 'HEAD', ...also, 'OPTIONS'].join(', ');
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => !(also as readonly string[]).includes(method)),
    url,
    config: policy,
    schema: { hide: true },
    handler: async (request) => {
      throw new ApiError('method_not_allowed', `${request.method} is not allowed here; this API is read-only (${allow.replace(', OPTIONS', '')}).`, { allow });
    },
  });
}

const ref = { $ref: 'Error#' };

// Keyed by the catalogue's statuses (and 304): a status documented here is one an error of the catalogue answers with.
type DocumentedResponses = Partial<Record<ErrorStatus | 304, TSchema | { $ref: string; description: string }>>;

/**
 * What any route may answer whatever it does: the request refused before it reaches the route
 * (unreadable, too large, another method, over the rate limit) or a failure. Documented on every
 * route, so that every status a client can see is in the API document (test/http/fuzz.test.ts).
 */
export function commonResponses(options: { unavailable: boolean } = { unavailable: true }): DocumentedResponses {
  const responses: DocumentedResponses = {
    400: { ...ref, description: 'An invalid parameter (the message names it and what it accepts), or a request that cannot be read: bad percent-encoding, a URL too long, a body.' },
    405: { ...ref, description: 'Only GET and HEAD are allowed.' },
    429: { ...ref, description: 'Rate limit exceeded; see Retry-After.' },
    431: { ...ref, description: 'The request line and headers are too large.' },
    500: { ...ref, description: 'Unexpected error.' },
  };
  if (options.unavailable) responses[503] = { ...ref, description: 'Storage unavailable, or the server over capacity; see Retry-After.' };
  return responses;
}

/** Not modified: If-None-Match named the current ETag. No body. */
export const notModified = Type.Null({ description: 'Not modified: If-None-Match named the current ETag; no body.' });
/** A station's old id (docs/DATA.md, "Ids"): a permanent redirect to its id now. */
export const movedStation = Type.Null({
  description: 'Moved permanently: an id the station had before (a history station the live feed took over). Location gives the same URL with its id now, the query kept; no body.',
});

/** The rows of a history as CSV (both histories). */
export const HISTORY_ROWS = 'one row per record (date,fuel,average): fuel by fuel in the order of the JSON, each newest first; a fuel without records has none';

/**
 * The 200 of a route that answers CSV too (http/representation/negotiation.ts): its JSON schema, and
 * text/csv with what its rows are and an example. One document entry with two media types.
 */
export function jsonOrCsv<T extends TSchema>(json: T, csv: { rows: string; example: string }) {
  return {
    description: json.description ?? 'OK.',
    content: {
      'application/json': { schema: json },
      'text/csv': { schema: Type.String({ description: `CSV (RFC 4180, docs/CSV.md): a header row, then ${csv.rows}.`, examples: [csv.example] }) },
    },
  };
}

/** Responses documented for every /v1 route besides its 200 (406 for a route that answers CSV too). */
export function errorResponses(...extra: Array<404 | 406>): DocumentedResponses {
  const responses: DocumentedResponses = {
    304: notModified,
    401: { ...ref, description: 'Missing, malformed, unknown, revoked or expired token.' },
    ...commonResponses(),
  };
  if (extra.includes(404)) responses[404] = { ...ref, description: 'No city or station has that id.' };
  if (extra.includes(406)) responses[406] = { ...ref, description: 'The Accept header allows neither application/json nor text/csv (errors are always JSON).' };
  return responses;
}

export const ErrorSchema = ErrorBody;
export type { RouteShorthandOptions };

/**
 * A city's or a station's history: a derived answer (docs/DERIVED.md), read, pooled and written on the worker, sealed
 * blocks held formatted there (derived/history-blocks.ts); here only its bytes, byte for byte what the schema's
 * serialiser makes (test/http/cache/history-blocks.test.ts), with the ETag of their digest, as JSON or CSV.
 */
export async function sendHistory(request: FastifyRequest, reply: FastifyReply, derived: DerivedAnswers, kind: 'cityHistory' | 'stationHistory',
  of: HistoryOf, timeframe: Timeframe, nowSec: number): Promise<FastifyReply> {
  const csv = wantsCsv(request);
  const answer = await derived.get(kind, { of, timeframe, format: csv ? 'csv' : 'json' }, nowSec);
  return csv ? sendCsv(reply.header('etag', quotedEtag(answer.digest)), answerBuffer(answer), `${of.id}-history-${timeframe}.csv`) : sendAnswerBytes(reply, answer);
}

/** A derived answer kept as the JSON bytes its route sends (docs/DERIVED.md): sent as they are, their ETag from their digest. */
export function sendAnswerBytes(reply: FastifyReply, answer: AnswerBytes): FastifyReply {
  reply.header('etag', quotedEtag(answer.digest));
  return sendJsonText(reply, answerBuffer(answer));
}
