/** The dashboard's calls to this server's /v1 API, each with the bearer token. */
import { type AdviceExtras, retryAfterSec } from './format.ts';

/** A call the API refused: a bad token (401), the rate limit (429, with when to retry), or another error. */
export class ApiProblem extends Error {
  constructor(readonly kind: 'bad-token' | 'rate-limited' | 'failed', message: string, readonly retryAfterSec = 0, readonly status = 0) {
    super(message);
  }
}

interface ErrorAnswer { error?: { code?: string; message?: string; request_id?: string } }

/**
 * GETs `path` (from /v1/…) with the token; the JSON answer, or throws an ApiProblem. `signal`
 * cancels it (a newer query was made): it then throws the abort, which the page drops unseen.
 */
export async function apiGet<T>(path: string, token: string, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, ...(signal ? { signal } : {}) });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiProblem('failed', 'The server could not be reached.');
  }
  if (response.ok) return await response.json() as T;
  const body = await response.json().catch(() => ({})) as ErrorAnswer;
  const message = body.error?.message ?? `The server answered ${response.status}.`;
  if (response.status === 401) throw new ApiProblem('bad-token', message, 0, 401);
  if (response.status === 429) throw new ApiProblem('rate-limited', message, retryAfterSec(response.headers.get('retry-after'), Date.now()), 429);
  throw new ApiProblem('failed', body.error?.request_id ? `${message} (request ${body.error.request_id})` : message, 0, response.status);
}

export interface City { id: string; name: string; state: string; latitude: string; longitude: string }
export interface FuelType { id: string; name: string; unit: string }
export interface Page<T> { data: T[]; total_items: number; total_pages: number; current_page: number }
export interface Cheapest {
  station_id: string; name: string; brand: string; address: string; latitude: string; longitude: string;
  price: string; updated_at: number; distance_km?: string;
}
export interface HistoryRecord { timestamp: number; date: string; average: string }
export interface CityHistory { data: { id: string; name: string; history: Array<{ fuel: string; records: HistoryRecord[] | false }> } }
export interface Cycle {
  data: {
    id: string; name: string; fuel: string; cycles: boolean; period_days: number | false;
    last_restoration: { date: string; rise: string } | false; restorations: Array<{ date: string; rise: string }>;
    days_since_restoration: number | false;
    phase: 'rising' | 'falling' | 'trough' | 'none'; cheapest_weekday: string | false; now: string | false; tomorrow: { change: string; stations: number } | false;
    advice: 'fill-up' | 'wait' | 'no-cycle' | 'unknown'; reason: string; confidence: 'high' | 'medium' | 'low';
  } & AdviceExtras;
}
export interface Spread { data: { id: string; name: string; spread: Array<{ fuel: string; average: string | false; min: string | false; max: string | false }> } }
export interface Unavailable { data: { id: string; name: string; unavailable: Array<{ fuel: string; stations: string[] | false; count: number }> } }

/** Every page of a list (limit 100 a page). */
export async function allPages<T>(path: string, token: string, signal?: AbortSignal): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const answer = await apiGet<Page<T>>(`${path}${path.includes('?') ? '&' : '?'}limit=100&page=${page}`, token, signal);
    items.push(...answer.data);
    if (page >= answer.total_pages) return items;
  }
}
