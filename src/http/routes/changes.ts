import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { type ChangeOut, changeEntry, changeEvent, cursorEvent } from '../../domain/changes.ts';
import type { FuelId } from '../../domain/fuels.ts';
import type { StateId } from '../../domain/states.ts';
import { CURSOR_PATTERN, type ChangesQueryInput, ChangesQuerySchema, ChangesResponse, DEFAULT_CHANGES_LIMIT, MAX_CHANGES_LIMIT, MAX_WAIT_SEC } from '../../schemas/changes.ts';
import type { ChangesPage, ChangesQuery, PriceArea } from '../../storage/store.ts';
import { apiError, notFound } from '../errors/catalogue.ts';
import type { ChangeWatcher } from '../server/change-watcher.ts';
import { nearQuery } from './query.ts';
import { type RouteDeps, errorResponses, methodNotAllowed } from './responses.ts';

const CURSOR = new RegExp(CURSOR_PATTERN);
const EVENT_STREAM = 'text/event-stream';

/** A filter and a starting cursor, read from the query (and Last-Event-ID); undefined `since`: start from now. */
interface Feed {
  since: number | undefined;
  filter: Omit<ChangesQuery, 'since' | 'limit'>;
  limit: number;
}

/** Asks for the event stream: Accept names text/event-stream (an EventSource sends exactly that). */
export function wantsEventStream(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').toLowerCase().includes(EVENT_STREAM);
}

export const changeRoutes: FastifyPluginAsyncTypebox<RouteDeps & { watcher: ChangeWatcher }> = async (app, { store, watcher }) => {
  /** The query as a Feed: every parameter checked, one area at most, a cursor not ahead of storage. */
  const feedOf = async (query: ChangesQueryInput, lastEventId: string | string[] | undefined): Promise<Feed> => {
    const near = nearQuery(query);
    if ([near, query.city, query.state].filter((scope) => scope !== undefined).length > 1) {
      apiError('invalid_parameter', 'Give one of near=LAT,LNG, city or state at most: the stations whose changes to answer.');
    }
    let sinceText = query.since;
    if (sinceText === undefined && lastEventId !== undefined) {
      if (typeof lastEventId !== 'string' || !CURSOR.test(lastEventId)) apiError('invalid_parameter', 'Header \'Last-Event-ID\' must be the id of an event this server sent: 1 to 15 digits.');
      sinceText = lastEventId;
    }
    let area: PriceArea | undefined;
    if (near) area = { near };
    else if (query.city !== undefined) area = { city: ((await store.city(query.city)) ?? notFound('city', query.city)).id };
    else if (query.state !== undefined) area = { state: query.state as StateId };
    return { since: sinceText === undefined ? undefined : Number(sinceText), filter: { fuel: query.fuel as FuelId | undefined, area }, limit: query.limit ?? DEFAULT_CHANGES_LIMIT };
  };

  // Pages being read, by query: the requests a change wakes together and that ask the same page share one read.
  const reading = new Map<string, Promise<ChangesPage>>();
  const read = (query: ChangesQuery): Promise<ChangesPage> => {
    const key = JSON.stringify(query);
    let page = reading.get(key);
    if (!page) {
      page = store.priceChanges(query).finally(() => reading.delete(key));
      reading.set(key, page);
    }
    return page;
  };

  /** A page after the cursor; a cursor ahead of the last change stored is refused (another database's, or one restored from an older backup). */
  const pageAfter = async (feed: Feed, since: number): Promise<ChangesPage> => {
    const page = await read({ ...feed.filter, since, limit: feed.limit });
    if (since > page.latest) {
      apiError('invalid_parameter', `Parameter 'since' is ahead of this server's last change (${page.latest}): a cursor of another database? Copy the state again and follow from a cursor asked without since.`);
    }
    return page;
  };

  app.get('/v1/prices/changes', {
    config: { cache: 'none' }, // what changed since a cursor, or when something does (a long poll or a stream)
    schema: {
      summary: 'Price changes, as they happen',
      description: 'The changes of current prices after a cursor, oldest first: each station and fuel whose price or availability a stored report changed, as it is now '
        + '(a price changed twice before it is read is answered once, as it is then). Ask once without since for the cursor of now, then copy the state (e.g. /v1/stations/prices: a change in between comes again, '
        + `as it is then), then ask with since=next. limit bounds the changes looked at (default ${DEFAULT_CHANGES_LIMIT}, at most ${MAX_CHANGES_LIMIT}); more says to ask again at once. `
        + `wait=N (0 to ${MAX_WAIT_SEC}) holds the request until a matching change arrives or N seconds pass (an empty list). `
        + 'With Accept: text/event-stream the same feed as server-sent events: one event `change` per change, its id the cursor (Last-Event-ID resumes after it), a comment every 15 s. '
        + 'Never cached. 503 when too many requests wait at once (see Retry-After). docs/CHANGES.md has the details.',
      tags: ['Prices'], security: [{ bearerAuth: [] }], querystring: ChangesQuerySchema,
      response: {
        200: {
          description: ChangesResponse.description ?? 'OK.',
          content: {
            'application/json': { schema: ChangesResponse },
            [EVENT_STREAM]: { schema: Type.String({ description: 'Server-sent events: `event: cursor` first (id: the cursor followed from), then `event: change` per change (id: its cursor; data: the change as JSON, as in data[]).' }) },
          },
        },
        ...errorResponses(404),
      },
    },
  }, async (request, reply) => {
    const feed = await feedOf(request.query, request.headers['last-event-id']);
    const wait = request.query.wait ?? 0;
    if (request.method === 'GET' && wantsEventStream(request)) return streamChanges(request, reply, feed);
    if (feed.since === undefined) {
      const latest = await store.lastChange();
      return { data: [], next: String(latest), more: false };
    }
    let page = await pageAfter(feed, feed.since);
    if (page.changes.length > 0 || page.more || wait === 0) return answer(page);
    if (!watcher.enter()) tooManyWaiting(watcher);
    const gone = new AbortController();
    const onClose = () => gone.abort();
    reply.raw.once('close', onClose);
    try {
      const deadline = performance.now() + wait * 1000;
      // Woken by any change: asked again from where the last read ended, until one matches or time is up.
      while (page.changes.length === 0 && !page.more && (await watcher.wait(page.latest, deadline, gone.signal)) === 'change') {
        page = await pageAfter(feed, page.next);
      }
    } finally {
      watcher.leave();
      reply.raw.off('close', onClose);
    }
    return answer(page);
  });

  /** The feed as server-sent events, until the client goes or the server closes. */
  const streamChanges = async (request: FastifyRequest, reply: FastifyReply, feed: Feed): Promise<void> => {
    let cursor = feed.since ?? await store.lastChange();
    let page = await pageAfter(feed, cursor);
    if (!watcher.enter()) tooManyWaiting(watcher);
    reply.hijack();
    const res = reply.raw;
    let open = true;
    const gone = new AbortController();
    // False once the response holds more than its buffer: the client is not reading as fast as changes come.
    const send = (text: string | Buffer): boolean => open && res.write(text);
    // A keep-alive only while nothing is waiting to go out: a connection with bytes in flight is not idle.
    const removeStream = watcher.stream((text) => { if (!res.writableNeedDrain) send(text); });
    res.on('close', () => { open = false; gone.abort(); });
    res.writeHead(200, { ...headersOf(reply), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    send(cursorEvent(cursor));
    try {
      while (open) {
        // One write of the page's events, made once for every stream that reads the same page.
        const full = page.changes.length > 0 && !send(eventsOf(page));
        cursor = page.next;
        // A client that does not keep up: no further page is read (nor held in memory) until what was
        // written has gone out; the changes meanwhile wait in storage, each answered once, as it is then.
        if (full && !(await drained(res, AbortSignal.any([gone.signal, watcher.closedSignal])))) break;
        if (!page.more && (await watcher.wait(page.latest, Number.POSITIVE_INFINITY, gone.signal)) === 'closed') break;
        if (!open) break;
        page = await read({ ...feed.filter, since: cursor, limit: feed.limit });
      }
    } catch (error) {
      request.log.warn({ err: error }, 'changes stream ended by an error');
    } finally {
      removeStream();
      watcher.leave();
      open = false;
      res.end();
    }
  };

  methodNotAllowed(app, '/v1/prices/changes');
};

/**
 * A page's change events as one text, made once per page: streams woken together by a change read
 * the same page (`read` above shares it), so a thousand streams cost one serialisation and a write
 * each, not a thousand serialisations and a write per change each (bench/sse.ts, docs/CHANGES.md).
 */
const pageEvents = new WeakMap<ChangesPage, Buffer>();
function eventsOf(page: ChangesPage): Buffer {
  let bytes = pageEvents.get(page);
  if (bytes === undefined) {
    let text = '';
    for (const change of page.changes) text += changeEvent(changeEntry(change));
    // As bytes: each stream's write then copies no text into a buffer of its own.
    bytes = Buffer.from(text, 'utf8');
    pageEvents.set(page, bytes);
  }
  return bytes;
}

function answer(page: ChangesPage): { data: ChangeOut[]; next: string; more: boolean } {
  return { data: page.changes.map(changeEntry), next: String(page.next), more: page.more };
}

/** Resolves true once the response has written out what it held, false if `stop` is aborted first (the client went, the server closes). */
function drained(res: ServerResponse, stop: AbortSignal): Promise<boolean> {
  if (!res.writableNeedDrain) return Promise.resolve(true);
  if (stop.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (result: boolean) => () => { res.off('drain', onDrain); stop.removeEventListener('abort', onStop); resolve(result); };
    const onDrain = done(true);
    const onStop = done(false);
    res.once('drain', onDrain);
    stop.addEventListener('abort', onStop, { once: true });
  });
}

function tooManyWaiting(watcher: ChangeWatcher): never {
  apiError('unavailable', `Too many requests are waiting for changes (${watcher.maxWaiters} at most); retry without wait, or later.`, { 'retry-after': '1' }, 'waiters');
}

/** The headers already set on the reply (security headers, request id, rate limit), for an answer written on the raw response. */
function headersOf(reply: FastifyReply): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) out[name] = String(value);
  return out;
}
