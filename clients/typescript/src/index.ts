/**
 * A typed client of the fuelprice API: one method per operation of the OpenAPI document (its
 * operationId), the lists also as async iterators over every page, retries on 429 and 503 as
 * the server asks, and errors as typed classes. Types come from schema.ts, generated from the
 * served document; this layer only builds URLs, sends them and reads the answers.
 */
import { FuelPriceError, NetworkError, errorFromResponse } from './errors.js';
import { backoffSeconds, serverDelaySeconds } from './retry.js';
import type { components, operations, paths } from './schema.js';

export { AuthError, BadRequestError, FuelPriceError, NetworkError, NotFoundError, RateLimitedError, UnavailableError } from './errors.js';
export type { components, operations, paths };

export type OperationId = keyof operations;

/** The JSON body of an operation's 200. */
export type Answer<K extends OperationId> = operations[K]['responses'][200] extends { content: { 'application/json': infer T } } ? T : never;

/** An operation's query parameters. `format` is left out: the client reads JSON only. */
export type Query<K extends OperationId> = Omit<NonNullable<operations[K]['parameters']['query']>, 'format'>;

/** An operation's JSON body (the POST forms: the GET's parameters as one object). */
export type Body<K extends OperationId> = operations[K] extends { requestBody: { content: { 'application/json': infer T } } } ? T : never;

/** The query of a paginated list without its page or offset, which the iterator sets. */
export type ListQuery<K extends PaginatedId> = Omit<Query<K>, 'page' | 'offset'>;

/** The operations that answer a page of items (`data`, `total_items`, `total_pages`, `current_page`). */
export type PaginatedId = 'listCities' | 'listStations' | 'listCheapestStations' | 'listStationsAlongRoute' | 'listBrands';

/** One item of a paginated list. */
export type Item<K extends PaginatedId> = Answer<K> extends { data: Array<infer T> } ? T : never;

export interface ClientOptions {
  /** Where the server is, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  baseUrl: string;
  /** A token from `fuelprice tokens create`. */
  token: string;
  /** The fetch to use; the global one by default (Node.js 22+, browsers). */
  fetch?: typeof fetch;
  /** Retries of a call answered 429 or 503; default 2 (three attempts in all). 0 turns retries off. */
  retries?: number;
  /** The longest wait before a retry; a server asking for more gets no retry (the error is thrown at once). Default 60 s. */
  maxRetryDelaySeconds?: number;
  /** Each attempt's time limit; default 30 s. */
  timeoutMs?: number;
  /** How the client waits before a retry; by default a timer. Tests give their own. */
  sleep?: (ms: number) => Promise<void>;
}

type IdOf<K extends OperationId> = NonNullable<operations[K]['parameters']['path']> extends { id: infer T } ? T : never;

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class FuelPriceClient {
  readonly #baseUrl: string;
  readonly #token: string;
  readonly #fetch: typeof fetch;
  readonly #retries: number;
  readonly #maxRetryDelaySeconds: number;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: ClientOptions) {
    const retries = options.retries ?? 2;
    if (!Number.isInteger(retries) || retries < 0) throw new RangeError(`retries must be an integer >= 0, not ${retries}`);
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#token = options.token;
    // Called as a plain function: a browser's fetch called as a method of another object throws "Illegal invocation".
    const send = options.fetch ?? globalThis.fetch;
    this.#fetch = (input, init) => send(input, init);
    this.#retries = retries;
    this.#maxRetryDelaySeconds = options.maxRetryDelaySeconds ?? 60;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#sleep = options.sleep ?? defaultSleep;
  }

  // Service (no token needed, sent anyway).
  getHealth(): Promise<Answer<'getHealth'>> { return this.#get('/health'); }
  getReadiness(): Promise<Answer<'getReadiness'>> { return this.#get('/ready'); }
  getOpenApiDocument(): Promise<Answer<'getOpenApiDocument'>> { return this.#get('/v1/openapi.json'); }

  // Cities.
  listCities(query: Query<'listCities'> = {}): Promise<Answer<'listCities'>> { return this.#get('/v1/cities', query); }
  getCity(id: IdOf<'getCity'>): Promise<Answer<'getCity'>> { return this.#get(`/v1/cities/${segment(id)}`); }
  getCityHistory(id: IdOf<'getCityHistory'>, query: Query<'getCityHistory'> = {}): Promise<Answer<'getCityHistory'>> {
    return this.#get(`/v1/cities/${segment(id)}/history`, query);
  }
  getCityCycle(id: IdOf<'getCityCycle'>, query: Query<'getCityCycle'> = {}): Promise<Answer<'getCityCycle'>> {
    return this.#get(`/v1/cities/${segment(id)}/cycle`, query);
  }
  getCityUnavailable(id: IdOf<'getCityUnavailable'>): Promise<Answer<'getCityUnavailable'>> { return this.#get(`/v1/cities/${segment(id)}/unavailable`); }
  getCitySpread(id: IdOf<'getCitySpread'>): Promise<Answer<'getCitySpread'>> { return this.#get(`/v1/cities/${segment(id)}/spread`); }
  getCityAverage(id: IdOf<'getCityAverage'>): Promise<Answer<'getCityAverage'>> { return this.#get(`/v1/cities/${segment(id)}/average`); }

  // Stations.
  listStations(query: Query<'listStations'> = {}): Promise<Answer<'listStations'>> { return this.#get('/v1/stations', query); }
  getStation(id: IdOf<'getStation'>): Promise<Answer<'getStation'>> { return this.#get(`/v1/stations/${segment(id)}`); }
  getStationHistory(id: IdOf<'getStationHistory'>, query: Query<'getStationHistory'> = {}): Promise<Answer<'getStationHistory'>> {
    return this.#get(`/v1/stations/${segment(id)}/history`, query);
  }
  getStationPrices(id: IdOf<'getStationPrices'>, query: Query<'getStationPrices'> = {}): Promise<Answer<'getStationPrices'>> {
    return this.#get(`/v1/stations/${segment(id)}/prices`, query);
  }
  /** Up to 100 stations' current prices in one request: `ids` joined with commas; `max_age` (hours) as the route takes it. */
  getStationsPrices(ids: readonly string[], query: Omit<Query<'getStationsPrices'>, 'ids'> = {}): Promise<Answer<'getStationsPrices'>> {
    return this.#get('/v1/stations/prices', { ...query, ids: ids.join(',') });
  }

  /**
   * The same by POST, the ids in a JSON body: for 100 ids whose URL would pass the server's 2,048
   * characters (real ids average about 20). The same answer as getStationsPrices, byte for byte.
   */
  postStationsPrices(body: Body<'postStationsPrices'>): Promise<Answer<'postStationsPrices'>> { return this.#post('/v1/stations/prices', body); }

  // Prices, fuel types, brands.
  getPriceSummary(query: Query<'getPriceSummary'> = {}): Promise<Answer<'getPriceSummary'>> { return this.#get('/v1/prices', query); }
  listCheapestStations(query: Query<'listCheapestStations'>): Promise<Answer<'listCheapestStations'>> { return this.#get('/v1/prices/cheapest', query); }
  /** The stations selling a fuel within a corridor of a route: `path` an encoded polyline (precision 5), as routing engines return it. */
  listStationsAlongRoute(query: Query<'listStationsAlongRoute'>): Promise<Answer<'listStationsAlongRoute'>> { return this.#get('/v1/prices/along', query); }
  /** The same by POST, the parameters in a JSON body: for a polyline too long for a URL once percent-encoded (up to 7,000 characters). */
  postPricesAlong(body: Body<'postPricesAlong'>): Promise<Answer<'postPricesAlong'>> { return this.#post('/v1/prices/along', body); }
  /**
   * The price changes after `since` (without it: none, and the cursor of now); ask again with `since: next`.
   * With `wait` (seconds, up to 30) the server holds the request until a change arrives: keep `timeoutMs` above it.
   */
  listPriceChanges(query: Query<'listPriceChanges'> = {}): Promise<Answer<'listPriceChanges'>> { return this.#get('/v1/prices/changes', query); }
  listFuelTypes(): Promise<Answer<'listFuelTypes'>> { return this.#get('/v1/fuel-types'); }
  listBrands(query: Query<'listBrands'> = {}): Promise<Answer<'listBrands'>> { return this.#get('/v1/brands', query); }

  // Every item of a list, page after page (`limit` sets the page size: fewer, larger requests).
  cities(query: ListQuery<'listCities'> = {}): AsyncGenerator<Item<'listCities'>> { return this.#pages((page) => this.listCities({ ...query, page })); }
  stations(query: ListQuery<'listStations'> = {}): AsyncGenerator<Item<'listStations'>> { return this.#pages((page) => this.listStations({ ...query, page })); }
  cheapestStations(query: ListQuery<'listCheapestStations'>): AsyncGenerator<Item<'listCheapestStations'>> {
    return this.#pages((page) => this.listCheapestStations({ ...query, page }));
  }
  stationsAlongRoute(query: ListQuery<'listStationsAlongRoute'>): AsyncGenerator<Item<'listStationsAlongRoute'>> {
    return this.#pages((page) => this.listStationsAlongRoute({ ...query, page }));
  }
  brands(query: ListQuery<'listBrands'> = {}): AsyncGenerator<Item<'listBrands'>> { return this.#pages((page) => this.listBrands({ ...query, page })); }

  /** Pages 1, 2, ... until the envelope's total_pages (or an empty page: the list shrank meanwhile). */
  async *#pages<T>(fetchPage: (page: number) => Promise<{ data: T[]; total_pages: number }>): AsyncGenerator<T> {
    for (let page = 1; ; page++) {
      const answer = await fetchPage(page);
      yield* answer.data;
      if (page >= answer.total_pages || answer.data.length === 0) return;
    }
  }

  /** GET path?query as JSON (#call). */
  #get<T>(path: string, query: object = {}): Promise<T> {
    return this.#call(`${this.#baseUrl}${path}${queryString(query)}`, undefined);
  }

  /** POST path with a JSON body (#call): the POST forms only read, so they are retried as a GET is. */
  #post<T>(path: string, body: object): Promise<T> {
    return this.#call(`${this.#baseUrl}${path}`, JSON.stringify(body));
  }

  /** The answer as JSON, retrying 429 and 503 within the client's bounds; anything else not 2xx is thrown as its typed error. */
  async #call<T>(url: string, body: string | undefined): Promise<T> {
    for (let retried = 0; ; retried++) {
      const { status, headers, text } = await this.#send(url, body);
      if (status >= 200 && status < 300) return parseJson<T>(status, text, headers);
      const asked = serverDelaySeconds(headers, Date.now());
      if ((status === 429 || status === 503) && retried < this.#retries) {
        const wait = asked ?? backoffSeconds(retried + 1);
        if (wait <= this.#maxRetryDelaySeconds) {
          await this.#sleep(wait * 1000);
          continue;
        }
      }
      throw errorFromResponse(status, text, headers, asked);
    }
  }

  /** One attempt (a GET, or a POST of `body`): the answer's status, headers and whole body, or a NetworkError. */
  async #send(url: string, body: string | undefined): Promise<{ status: number; headers: Headers; text: string }> {
    try {
      const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.#token}` };
      const response = await this.#fetch(url, body === undefined
        ? { headers, signal: AbortSignal.timeout(this.#timeoutMs) }
        : { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' }, signal: AbortSignal.timeout(this.#timeoutMs) });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      const why = error instanceof Error ? error.message : String(error);
      throw new NetworkError(timedOut ? `No answer from ${url} within ${this.#timeoutMs} ms.` : `Request to ${url} failed: ${why}`, {
        status: 0, code: timedOut ? 'timeout' : 'network_error', cause: error,
      });
    }
  }
}

function parseJson<T>(status: number, text: string, headers: Headers): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new FuelPriceError(`Unexpected answer: HTTP ${status} with a body that is not JSON.`, {
      status, code: 'unexpected_response', requestId: headers.get('x-request-id') ?? undefined, cause: error,
    });
  }
}

/** An id as one path segment (`a/b` stays one segment). */
function segment(id: string): string {
  return encodeURIComponent(id);
}

/** `?name=value&...` of the parameters given (undefined ones left out), or '' for none. */
function queryString(query: object): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
