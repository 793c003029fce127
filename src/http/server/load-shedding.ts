/**
 * Load shedding on event-loop delay: past capacity a share of requests is refused with 503
 * before any routing, so that the process keeps answering the rest.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { errorText } from '../errors/catalogue.ts';
import { JSON_TYPE } from '../representation/negotiation.ts';
import { declaresLargeBody, requestIdOf } from '../request/rules.ts';

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
/** The delay histogram's timer; its own interval is subtracted from what it records. */
const RESOLUTION_MS = 10;
/** How far one reading moves the share shed, per unit of delay over the limit: full shedding at three times the limit. */
const GAIN = 0.5;

/**
 * The share of requests to shed after one reading: raised in proportion to how far the
 * event-loop delay is over the limit, lowered as it falls under it (at most GAIN a reading),
 * so under steady overload it settles where the delay is about the limit instead of swinging
 * between shedding everything and nothing.
 */
export function nextShedShare(share: number, delayMs: number, maxDelayMs: number): number {
  return Math.min(1, Math.max(0, share + GAIN * (Math.min(delayMs, 3 * maxDelayMs) / maxDelayMs - 1)));
}

export interface EventLoopGaugeOptions {
  /** Median event-loop delay over a reading above which requests start to be shed. */
  maxDelayMs: number;
  /** 0: no timer; the caller calls sample() (tests). */
  sampleMs?: number;
  random?: () => number;
  /** Called when shedding starts or stops, with the reading that decided it (for one log line, not one per request). */
  onChange?: (shedding: boolean, delayMs: number) => void;
}

/**
 * The event-loop delay (perf_hooks.monitorEventLoopDelay), read every SAMPLE_MS: the median of
 * the delays seen in that time. Not the maximum, nor the mean: one long block (a slow query, an
 * ingest batch written in this process, start-up) is one sample among fifty and is over by the
 * time it is read, so shedding for it would refuse traffic for nothing; under sustained
 * overload every turn of the loop is long, and so is the median.
 */
export function eventLoopGauge(options: EventLoopGaugeOptions): LoadGauge & { sample(): number; readonly share: number; restart(): void } {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const random = options.random ?? Math.random;
  let share = 0;
  const sample = (): number => {
    const delayMs = histogram.count === 0 ? 0 : Math.max(0, histogram.percentile(50) / 1e6 - RESOLUTION_MS);
    histogram.reset();
    const before = share;
    share = nextShedShare(share, delayMs, options.maxDelayMs);
    if ((before > 0) !== (share > 0)) options.onChange?.(share > 0, delayMs);
    return delayMs;
  };
  const sampleMs = options.sampleMs ?? SAMPLE_MS;
  const timer = sampleMs > 0 ? setInterval(sample, sampleMs) : undefined;
  timer?.unref();
  return {
    shouldShed: () => share > 0 && random() < share,
    get overloaded() { return share > 0; },
    get share() { return share; },
    sample,
    // Once listening: what start-up did to the loop says nothing about load.
    restart() {
      histogram.reset();
      share = 0;
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
 * headers, which every answer carries.
 */
export function shedInFront(gauge: LoadGauge, headers: Readonly<Record<string, string>>): (req: IncomingMessage, res: ServerResponse) => boolean {
  const fixed = {
    ...headers, 'content-type': JSON_TYPE, 'cache-control': 'no-store', 'retry-after': String(SHED_RETRY_AFTER_SEC),
  };
  return (req, res) => {
    const url = req.url ?? '';
    if (req.method === 'OPTIONS') return false;
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (path === '/health' || !(path === '/ready' ? gauge.overloaded : gauge.shouldShed())) return false;
    const requestId = requestIdOf(req.headers['x-request-id']);
    const body = errorText('unavailable', SHED_MESSAGE, requestId);
    res.writeHead(503, {
      ...fixed, 'x-request-id': requestId, 'content-length': String(Buffer.byteLength(body)),
      ...(declaresLargeBody(req.headers) ? { connection: 'close' } : {}),
    });
    res.end(body);
    return true;
  };
}
