/**
 * Load shedding on event-loop delay: past capacity a share of requests is refused with 503
 * before any routing, so that the process keeps answering the rest.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { errorText } from '../errors/catalogue.ts';
import { markUnavailable } from '../errors/unavailable.ts';
import { JSON_TYPE } from '../representation/negotiation.ts';
import { REQUEST_ID_HEADER, declaresLargeBody, requestIdOf } from '../request/rules.ts';
import type { FrontAnswered } from './request-log.ts';

/**
 * Decides which requests to refuse while the process is past capacity. `shouldShed` runs once
 * per request and must be cheap; `overloaded` is what /ready reports.
 */
export interface LoadGauge {
  shouldShed(): boolean;
  readonly overloaded: boolean;
  /** Forget what was seen so far (called once the server listens). */
  restart?(): void;
  close(): void;
}

/** Retry-After of a shed request: long enough not to come straight back, short enough to be barely noticed. */
export const SHED_RETRY_AFTER_SEC = 2;
/** How often the event-loop delay is read and the share of requests shed adjusted. */
export const SAMPLE_MS = 500;
/**
 * Shedding starts only on overload sustained for SUSTAINED_READINGS readings in a row over the
 * limit that together last at least SUSTAINED_MS: never on one slow request. The reading timer
 * cannot fire while the loop is blocked, so one block, however long, falls in one reading (two
 * when it straddles one), and a burst of slow requests shorter than SUSTAINED_MS is not enough.
 */
export const SUSTAINED_READINGS = 4;
export const SUSTAINED_MS = 2_000;
/** The delay histogram's timer; its own interval is subtracted from what it records. */
const RESOLUTION_MS = 10;
/** How far one reading moves the share shed, per unit of delay over the limit: full shedding at three times the limit. */
const GAIN = 0.5;

/**
 * The share of requests to shed after one reading while shedding: raised in proportion to how
 * far the event-loop delay is over the limit, lowered as it falls under it (at most GAIN a
 * reading), so under steady overload it settles where the delay is about the limit instead of
 * swinging between shedding everything and nothing.
 */
export function nextShedShare(share: number, delayMs: number, maxDelayMs: number): number {
  return Math.min(1, Math.max(0, share + GAIN * (Math.min(delayMs, 3 * maxDelayMs) / maxDelayMs - 1)));
}

/** One reading of the event loop: the median delay of its turns since the last reading, and the time since then. */
export interface LoopReading {
  delayMs: number;
  elapsedMs: number;
}

/** What the gauge keeps between readings. */
export interface ShedState {
  /** The share of requests refused: 0 while not shedding. */
  readonly share: number;
  /** Readings in a row whose delay was over the limit, counted while not shedding, and the time they cover. */
  readonly over: number;
  readonly overMs: number;
}

export const NOT_SHEDDING: ShedState = { share: 0, over: 0, overMs: 0 };

/**
 * The rule, as a pure function of the readings (test/http/server/overload.test.ts feeds it sequences):
 * while not shedding, a reading whose delay is over the limit adds itself to a run of such
 * readings and one at or under it ends the run; shedding starts on the reading that makes the
 * run SUSTAINED_READINGS long and SUSTAINED_MS long, with the share nextShedShare gives from none.
 * While shedding, each reading moves the share (nextShedShare); once it is back to none,
 * shedding has stopped, and a new run must be sustained before it starts again.
 */
export function nextShedState(state: ShedState, reading: LoopReading, maxDelayMs: number): ShedState {
  const { delayMs } = reading;
  if (state.share > 0) {
    const share = nextShedShare(state.share, delayMs, maxDelayMs);
    return share > 0 ? { share, over: 0, overMs: 0 } : NOT_SHEDDING;
  }
  if (!(delayMs > maxDelayMs)) return NOT_SHEDDING;
  const over = state.over + 1;
  const overMs = state.overMs + reading.elapsedMs;
  return over >= SUSTAINED_READINGS && overMs >= SUSTAINED_MS
    ? { share: nextShedShare(0, delayMs, maxDelayMs), over: 0, overMs: 0 }
    : { share: 0, over, overMs };
}

export interface EventLoopGaugeOptions {
  /** Median event-loop delay over a reading above which a reading counts as over the limit. */
  maxDelayMs: number;
  /** 0: no timer; the caller calls sample() (tests). */
  sampleMs?: number;
  random?: () => number;
  /** Called when shedding starts or stops, with the reading that decided it (for one log line, not one per request). */
  onChange?: (shedding: boolean, delayMs: number) => void;
}

/**
 * The event-loop delay (perf_hooks.monitorEventLoopDelay), read every SAMPLE_MS: the median of
 * the delays seen in that time, fed to nextShedState. The median, not the maximum: in a reading
 * with many turns of the loop one long one is one sample among many. And a reading over the limit
 * is not enough: a block, however long (a slow query, an ingest batch written in this process,
 * start-up), is one reading, and shedding waits for a run of SUSTAINED_READINGS lasting SUSTAINED_MS.
 */
export function eventLoopGauge(options: EventLoopGaugeOptions): LoadGauge & { sample(): number; readonly share: number; restart(): void } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const random = options.random ?? Math.random;
  let state = NOT_SHEDDING;
  let readAt = performance.now();
  const sample = (): number => {
    const delayMs = histogram.count === 0 ? 0 : Math.max(0, histogram.percentile(50) / 1e6 - RESOLUTION_MS);
    histogram.reset();
    const now = performance.now();
    const before = state.share;
    state = nextShedState(state, { delayMs, elapsedMs: now - readAt }, options.maxDelayMs);
    readAt = now;
    if ((before > 0) !== (state.share > 0)) options.onChange?.(state.share > 0, delayMs);
    return delayMs;
  };
  const sampleMs = options.sampleMs ?? SAMPLE_MS;
  const timer = sampleMs > 0 ? setInterval(sample, sampleMs) : undefined;
  timer?.unref();
  return {
    shouldShed: () => state.share > 0 && random() < state.share,
    get overloaded() { return state.share > 0; },
    get share() { return state.share; },
    sample,
    // Once listening: what start-up did to the loop says nothing about load.
    restart() {
      histogram.reset();
      readAt = performance.now();
      state = NOT_SHEDDING;
    },
    close() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}

/** What a shed request is told. */
export const SHED_MESSAGE = 'The server is over capacity; retry shortly.';

/**
 * Load shedding, in front of Fastify (and after the fast path): past capacity a share of
 * requests is refused with 503 before any routing, auth or hook, since a refusal that costs
 * as much as an answer relieves nothing. A cached answer from the fast path is not refused: it
 * costs no more than the refusal would. /health is never refused (the process is alive, and a
 * restart would only make things worse); /ready answers 503 while any share is shed, so that a
 * load balancer sends traffic to replicas with room. `headers` are the app's security and CORS
 * headers, which every answer carries. The answer is marked with its reason (`shed`, or
 * `overloaded` for /ready) and handed to `answered`, which writes its access line
 * (request-log.ts); metrics.ts counts it.
 */
export function shedInFront(
  gauge: LoadGauge, headers: Readonly<Record<string, string>>, answered?: FrontAnswered,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const fixed = {
    ...headers, 'content-type': JSON_TYPE, 'cache-control': 'no-store', 'retry-after': String(SHED_RETRY_AFTER_SEC),
  };
  return (req, res) => {
    const url = req.url ?? '';
    if (req.method === 'OPTIONS') return false;
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const started = performance.now();
    const ready = path === '/ready';
    if (path === '/health' || !(ready ? gauge.overloaded : gauge.shouldShed())) return false;
    markUnavailable(res, ready ? 'overloaded' : 'shed');
    const requestId = requestIdOf(req.headers[REQUEST_ID_HEADER]);
    const body = errorText('unavailable', SHED_MESSAGE, requestId);
    const bytes = Buffer.byteLength(body);
    res.writeHead(503, {
      ...fixed, [REQUEST_ID_HEADER]: requestId, 'content-length': String(bytes),
      ...(declaresLargeBody(req.headers) ? { connection: 'close' } : {}),
    });
    res.end(body);
    answered?.(req, res, requestId, bytes, started);
    return true;
  };
}
