/**
 * Overload and hostile clients, through a real port: load shedding (an injected gauge, and the
 * real event-loop gauge made to see a blocked loop), slowloris, oversized headers, URLs and
 * bodies, many idle connections and the connection cap. The server's timeouts are shortened
 * through buildApp's `limits`, so nothing here waits for the production values.
 */
import assert from 'node:assert/strict';
import { type Socket, connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import {
  type LoadGauge, NOT_SHEDDING, SHED_RETRY_AFTER_SEC, SUSTAINED_MS, SUSTAINED_READINGS, eventLoopGauge, nextShedShare, nextShedState,
} from '../../../src/http/server/load-shedding.ts';
import { loggerOptions } from '../../../src/http/server/request-log.ts';
import { buildApp } from '../../../src/app.ts';
import { hostname } from 'node:os';
import { StalledWriters, type WatchedSocket } from '../../../src/http/server/server-limits.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends, waitFor } from '../../helpers.ts';

const [sqlite] = testBackends();

/** A gauge the test turns on and off. */
function switchGauge(): LoadGauge & { on: boolean } {
  return { on: false, shouldShed() { return this.on; }, get overloaded() { return this.on; }, close() {} };
}

/** Blocks the event loop for `ms`, on purpose. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* blocking */ }
}

function portOf(server: RunningServer): number {
  return Number(new URL(server.baseUrl).port);
}

/** A raw connection: what it received, and a promise for its closing. */
function rawSocket(port: number): { socket: Socket; received(): string; closed: Promise<void>; connected: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => { received += chunk.toString('latin1'); });
  socket.on('error', () => undefined);
  return {
    socket, received: () => received,
    closed: new Promise((resolve) => socket.once('close', () => resolve())),
    connected: new Promise((resolve) => socket.once('connect', () => resolve())),
  };
}

/** One request on a fresh raw connection; resolves with everything received once the server closes it. */
async function rawExchange(port: number, request: string | Buffer): Promise<{ status: number; headers: Record<string, string>; body: unknown }> {
  const raw = rawSocket(port);
  await raw.connected;
  raw.socket.write(request);
  await raw.closed;
  return parseResponse(raw.received());
}

function parseResponse(text: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => {
    const at = line.indexOf(':');
    return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()];
  }));
  return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
}

function assertErrorShape(body: unknown, code: string, message: string, requestId: string | null | undefined): void {
  assert.deepEqual(body, { error: { code, message, request_id: requestId } });
}

/** A SQLite store holding the fixture, made before the suite it is called in and dropped after it. */
function fixtureStore(): () => PriceStore {
  let store: PriceStore | undefined;
  let drop = async (): Promise<void> => undefined;
  before(async () => {
    if (!sqlite) throw new Error('no sqlite backend');
    ({ store, drop } = await sqlite.create());
    await loadFixture(store);
  });
  after(async () => drop());
  return () => {
    if (!store) throw new Error('the fixture store is made in before()');
    return store;
  };
}

describe('load shedding', () => {
  const store = fixtureStore();

  test('past capacity /v1 answers 503 unavailable with Retry-After, before auth, in the documented shape; /health stays 200 and /ready says 503', async () => {
    const gauge = switchGauge();
    const server = await startServer(store(), fixedClock(NOW), { loadGauge: gauge });
    try {
      // Another URL, so that /v1/cities/sydney is not in the answer cache (a cached answer to a known token is never shed: next test).
      assert.equal((await get(server, '/v1/cities')).status, 200);
      gauge.on = true;
      for (const token of [server.token, null, 'not-a-token']) {
        const shed = await get(server, '/v1/cities/sydney', { token });
        assert.equal(shed.status, 503);
        assert.equal(shed.headers.get('retry-after'), String(SHED_RETRY_AFTER_SEC));
        assert.equal(shed.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.equal(shed.headers.get('cache-control'), 'no-store');
        assert.equal(shed.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(shed.headers.get('access-control-allow-origin'), '*');
        assertErrorShape(shed.body, 'unavailable', 'The server is over capacity; retry shortly.', shed.headers.get('x-request-id'));
      }
      assert.equal((await get(server, '/health', { token: null })).status, 200);
      const traced = await get(server, '/v1/stations', { headers: { 'x-request-id': 'trace-7' } });
      assert.equal(traced.status, 503);
      assertErrorShape(traced.body, 'unavailable', 'The server is over capacity; retry shortly.', 'trace-7');
      const ready = await get(server, '/ready', { token: null });
      assert.equal(ready.status, 503);
      assertErrorShape(ready.body, 'unavailable', 'The server is over capacity; retry shortly.', ready.headers.get('x-request-id'));
      gauge.on = false;
      assert.equal((await get(server, '/v1/cities/sydney')).status, 200);
      assert.equal((await get(server, '/ready', { token: null })).status, 200);
    } finally {
      await server.close();
    }
  });

  test('a cached answer from the fast path is still served while shedding: it costs no more than a refusal', async () => {
    const gauge = switchGauge();
    // Requests here are milliseconds apart: a versions reading may serve the fast path for a minute.
    store().setVersionReuseMs(60_000);
    const server = await startServer(store(), fixedClock(NOW), { loadGauge: gauge });
    try {
      const first = await get(server, '/v1/cities/perth');
      assert.equal(first.status, 200);
      gauge.on = true;
      const cached = await get(server, '/v1/cities/perth');
      assert.equal(cached.status, 200);
      assert.equal(cached.text, first.text);
      assert.equal((await get(server, '/v1/cities/hobart')).status, 503);
    } finally {
      await server.close();
    }
  });

  test('the event-loop gauge: one long block is not overload; readings kept over the limit are, and free running ends it', async () => {
    const gauge = eventLoopGauge({ maxDelayMs: 50, sampleMs: 0, random: () => 0 });
    const server = await startServer(store(), fixedClock(NOW), { loadGauge: gauge });
    try {
      // One long block is one reading over the limit, however long: not overload.
      gauge.sample();
      busy(400);
      await delay(5);
      gauge.sample();
      assert.equal(gauge.share, 0);
      await delay(30);
      gauge.sample();
      assert.equal(gauge.share, 0);
      // Every turn of the loop long, reading after reading, as under sustained overload.
      const readings: number[] = [];
      for (let reading = 0; reading < SUSTAINED_READINGS; reading++) {
        assert.equal(gauge.share, 0, `not shedding before reading ${reading + 1}`);
        for (let turn = 0; turn < 6; turn++) {
          busy(100);
          await new Promise((resolve) => setImmediate(resolve));
        }
        readings.push(gauge.sample());
      }
      assert.ok(readings.every((ms) => ms > 50), `every reading over the limit: ${readings.join(', ')}`);
      assert.ok(gauge.share > 0);
      const shed = await get(server, '/v1/stations');
      assert.equal(shed.status, 503);
      assert.equal(shed.headers.get('retry-after'), String(SHED_RETRY_AFTER_SEC));
      // Free running: each reading lowers the share by half at most, so two readings end the shedding.
      for (let i = 0; i < 2; i++) {
        await delay(30);
        gauge.sample();
      }
      assert.equal(gauge.share, 0);
      assert.equal((await get(server, '/v1/stations')).status, 200);
    } finally {
      await server.close();
    }
  });

  test('a client blocking the loop with slow requests, on a real port with the real gauge, makes nobody get 503, then or afterwards', async () => {
    // Readings every 100 ms against the default 100 ms limit: the rule before (shed on one reading's median) shed requests here.
    const overloads: boolean[] = [];
    const gauge = eventLoopGauge({ maxDelayMs: 100, sampleMs: 100, onChange: (shedding) => overloads.push(shedding) });
    // The slow request is a route of this test only: the shipped server has none.
    const server = await startServer(store(), fixedClock(NOW), { loadGauge: gauge }, (app) => {
      app.get('/test/block', async () => { busy(300); return { blocked: true }; });
    });
    try {
      await delay(300);
      // One client: a burst of five slow requests, one after the other (1.5 s of a blocked loop, a turn between each).
      let slowDone = false;
      const slow = (async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) statuses.push((await get(server, '/test/block')).status);
        slowDone = true;
        return statuses;
      })();
      // Another client asks every 20 ms meanwhile, and for a second after.
      const others: number[] = [];
      let doneAt = Infinity;
      while (performance.now() < doneAt + 1_000) {
        others.push((await get(server, '/v1/cities/sydney/spread')).status);
        if (slowDone && doneAt === Infinity) doneAt = performance.now();
        await delay(20);
      }
      assert.deepEqual(await slow, [200, 200, 200, 200, 200]);
      assert.ok(others.length >= 10);
      assert.deepEqual(others, others.map(() => 200));
      assert.deepEqual(overloads, [], 'shedding never started');
    } finally {
      await server.close();
    }
  });

  test('the share shed moves with the delay over the limit, half a step per limit, between none and all', () => {
    assert.equal(nextShedShare(0, 0, 100), 0);
    assert.equal(nextShedShare(0, 100, 100), 0);
    assert.equal(nextShedShare(0, 200, 100), 0.5);
    assert.equal(nextShedShare(0, 300, 100), 1);
    assert.equal(nextShedShare(0, 5000, 100), 1);
    assert.equal(nextShedShare(0.5, 100, 100), 0.5);
    assert.equal(nextShedShare(0.5, 150, 100), 0.75);
    assert.equal(nextShedShare(1, 0, 100), 0.5);
    assert.equal(nextShedShare(0.25, 0, 100), 0);
  });

  /** The share after each reading of `delays` (ms; a reading every `everyMs`, or as `elapsed` says) against a 100 ms limit, from not shedding. */
  const shares = (delays: readonly number[], everyMs = 500, elapsed: Record<number, number> = {}): number[] => {
    let state = NOT_SHEDDING;
    return delays.map((delayMs, i) => (state = nextShedState(state, { delayMs, elapsedMs: elapsed[i] ?? everyMs }, 100)).share);
  };

  test('the rule over a sequence of readings: one long block, or three readings over, never shed', () => {
    assert.deepEqual([SUSTAINED_READINGS, SUSTAINED_MS], [4, 2_000]);
    // A 3 s block is one reading (its timer could not fire meanwhile); the loop then runs freely.
    assert.deepEqual(shares([5, 5, 3_000, 5, 5, 5], 500, { 2: 3_000 }), [0, 0, 0, 0, 0, 0]);
    // Readings over the limit, six in a row, but 1.5 s in all (a burst of slow requests read every 250 ms): not sustained.
    assert.deepEqual(shares([300, 300, 300, 300, 300, 300, 5], 250), [0, 0, 0, 0, 0, 0, 0]);
    // Two slow requests back to back, a turn apart, and a third later: at most three readings over in a row.
    assert.deepEqual(shares([1_500, 1_500, 5, 800, 900, 1_200, 100, 2_000]), [0, 0, 0, 0, 0, 0, 0, 0]);
    // Exactly at the limit is not over it.
    assert.deepEqual(shares([100, 100, 100, 100, 100]), [0, 0, 0, 0, 0]);
  });

  test('the rule over a sequence of readings: sustained delay sheds from the fourth reading, in proportion; recovery stops it', () => {
    // Four readings over: shedding starts on the fourth at nextShedShare(0, 200) = 0.5, then moves by half a step per limit.
    assert.deepEqual(shares([150, 150, 150, 200, 250, 100, 50, 0, 0]), [0, 0, 0, 0.5, 1, 1, 0.75, 0.25, 0]);
    // Once stopped, a single reading over does not restart it: the run must be sustained again.
    assert.deepEqual(shares([300, 300, 300, 300, 0, 0, 400, 0, 300, 300, 300, 300]), [0, 0, 0, 1, 0.5, 0, 0, 0, 0, 0, 0, 1]);
    // A run broken by one reading under the limit starts again from none.
    assert.deepEqual(shares([200, 200, 200, 50, 200, 200, 200, 200]), [0, 0, 0, 0, 0, 0, 0, 0.5]);
    // Read every 250 ms, the run must reach 2 s: the eighth reading.
    assert.deepEqual(shares(Array.from({ length: 9 }, () => 200), 250), [0, 0, 0, 0, 0, 0, 0, 0.5, 1]);
    // A 3 s block followed by three more readings over the limit (1.5 s of a loop still late): sustained.
    assert.deepEqual(shares([3_000, 300, 300, 300], 500, { 0: 3_000 }), [0, 0, 0, 1]);
  });

  test('a shed request and /ready\'s 503 while overloaded are in the access log, with their reason, like any other answer', async () => {
    const gauge = switchGauge();
    const lines: string[] = [];
    const app = await buildApp({ store: store(), clock: fixedClock(NOW), loadGauge: gauge, logger: loggerOptions('info', { write: (line) => { lines.push(line); } }) });
    try {
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      gauge.on = true;
      const shed = await fetch(`${base}/v1/cities/sydney?x=1`, { headers: { 'x-request-id': 'shed-1' } });
      const shedBody = await shed.text();
      const ready = await fetch(`${base}/ready`, { headers: { 'x-request-id': 'ready-1' } });
      const readyBody = await ready.text();
      assert.deepEqual([shed.status, ready.status], [503, 503]);
      const access = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
      for (const line of access) {
        assert.equal(typeof line.time, 'number');
        assert.equal(typeof line.ms, 'number');
        delete line.time;
        delete line.ms;
      }
      const common = { level: 30, pid: process.pid, hostname: hostname(), ip: '127.0.0.1', msg: 'request', method: 'GET', status: 503 };
      assert.deepEqual(access, [
        { ...common, reqId: 'shed-1', url: '/v1/cities/sydney?x=1', reason: 'shed', bytes: Buffer.byteLength(shedBody) },
        { ...common, reqId: 'ready-1', url: '/ready', route: '/ready', reason: 'overloaded', bytes: Buffer.byteLength(readyBody) },
      ]);
      // The order of the fields, as written.
      const shedLine = lines.find((line) => line.includes('"shed-1"')) ?? '';
      assert.match(shedLine, /^\{"level":30,"time":\d+,"pid":\d+,"hostname":"[^"]*","reqId":"shed-1","method":"GET","url":"\/v1\/cities\/sydney\?x=1","status":503,"reason":"shed","bytes":\d+,"ms":[0-9.]+,"ip":"127\.0\.0\.1","msg":"request"\}\n$/);
    } finally {
      await app.close();
    }
  });
});

describe('every 503 in the access log and the metrics, with its reason', () => {
  const store = fixtureStore();

  test('a 503 answered through Fastify (too many change-feed waiters): its line says why, and fuelprice_http_unavailable_total counts it', async () => {
    const lines: string[] = [];
    const metricsToken = 'm'.repeat(40);
    const server = await startServer(store(), fixedClock(NOW), {
      maxChangeWaiters: 0, metricsToken, logger: loggerOptions('info', { write: (line) => { lines.push(line); } }),
    });
    try {
      const sizes: number[] = [];
      for (let i = 0; i < 3; i++) {
        const refused = await get(server, '/v1/prices/changes?since=6&wait=5', { headers: { 'x-request-id': `wait-${i}` } });
        assert.equal(refused.status, 503);
        sizes.push(Buffer.byteLength(refused.text));
      }
      const access = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
      for (const line of access) {
        delete line.time;
        delete line.ms;
      }
      assert.deepEqual(access, [0, 1, 2].map((i) => ({
        level: 30, pid: process.pid, hostname: hostname(), reqId: `wait-${i}`, method: 'GET', url: '/v1/prices/changes?since=6&wait=5',
        route: '/v1/prices/changes', status: 503, reason: 'waiters', bytes: sizes[i], token: server.token.split('_')[1], ip: '127.0.0.1', msg: 'request',
      })));
      const scrape = await get(server, '/metrics', { token: metricsToken });
      const counted = (reason: string): string | undefined => new RegExp(`^fuelprice_http_unavailable_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(scrape.text)?.[1];
      assert.deepEqual(['shed', 'overloaded', 'storage', 'waiters', 'metrics', 'unavailable'].map(counted), ['0', '0', '0', '3', '0', '0']);
    } finally {
      await server.close();
    }
  });
});

describe('slow and hostile clients', () => {
  let store: PriceStore;
  let drop: () => Promise<void>;
  let server: RunningServer;
  let port: number;
  before(async () => {
    if (!sqlite) throw new Error('no sqlite backend');
    ({ store, drop } = await sqlite.create());
    await loadFixture(store);
    server = await startServer(store, fixedClock(NOW), {
      limits: { headersTimeoutMs: 400, requestTimeoutMs: 800, connectionsCheckingIntervalMs: 50 },
    });
    port = portOf(server);
  });
  after(async () => {
    await server.close();
    await drop();
  });

  test('a slowloris trickling its headers is cut off with 408 while another client keeps getting 200s', async () => {
    const slow = rawSocket(port);
    await slow.connected;
    slow.socket.write('GET /v1/cities HTTP/1.1\r\nHost: x\r\n');
    let cutOff = false;
    void slow.closed.then(() => { cutOff = true; });
    let answered = 0;
    let trickled = 0;
    while (!cutOff) {
      if (!slow.socket.destroyed) slow.socket.write(`X-Slow-${trickled++}: 1\r\n`);
      const response = await get(server, '/v1/cities');
      assert.equal(response.status, 200);
      answered++;
      await delay(20);
    }
    assert.ok(answered > 0);
    assert.match(slow.received(), /^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  test('headers over 8 KiB answer 431 request_too_large in the documented shape and close the connection', async () => {
    const response = await rawExchange(port, `GET /v1/cities HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\nX-Big: ${'a'.repeat(9_000)}\r\n\r\n`);
    assert.equal(response.status, 431);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.equal(response.headers.connection, 'close');
    assertErrorShape(response.body, 'request_too_large', 'The request line and headers are too large (8 KiB at most).', response.headers['x-request-id']);
  });

  test('a URL over 2,048 characters answers 400; one over 8 KiB, 431', async () => {
    const long = await get(server, `/v1/cities?x=${'a'.repeat(2_100)}`);
    assert.equal(long.status, 400);
    assertErrorShape(long.body, 'invalid_parameter', 'The URL is too long (2048 characters at most).', long.headers.get('x-request-id'));
    const huge = await rawExchange(port, `GET /v1/cities?x=${'a'.repeat(9_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.equal(huge.status, 431);
    assertErrorShape(huge.body, 'request_too_large', 'The request line and headers are too large (8 KiB at most).', huge.headers['x-request-id']);
  });

  test('a GET with a body over 1 KiB, or chunked, answers 400 and its connection is closed without reading the rest', async () => {
    const auth = `Authorization: Bearer ${server.token}\r\n`;
    const chunk = 64 * 1024;
    for (const [framing, prefix] of [['Content-Length: 10000000\r\n', ''], ['Transfer-Encoding: chunked\r\n', `${chunk.toString(16)}\r\n`]] as const) {
      const raw = rawSocket(port);
      await raw.connected;
      raw.socket.write(`GET /v1/cities HTTP/1.1\r\nHost: x\r\n${auth}${framing}\r\n${prefix}`);
      raw.socket.write(Buffer.alloc(chunk, 'a'));
      await raw.closed;
      const response = parseResponse(raw.received());
      assert.equal(response.status, 400, framing);
      assert.equal(response.headers.connection, 'close');
      assertErrorShape(response.body, 'invalid_parameter', 'This API takes no request body.', response.headers['x-request-id']);
    }
    // A cached URL too: the fast path leaves such a request to the full path.
    assert.equal((await get(server, '/v1/cities/sydney')).status, 200);
    const cached = await rawExchange(port, `GET /v1/cities/sydney HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 5000\r\n\r\n`);
    assert.equal(cached.status, 400);
    const chunked = await rawExchange(port, `GET /v1/cities/sydney HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    assert.equal(chunked.status, 400);
    assert.equal(chunked.headers.connection, 'close');
  });

  test('three hundred idle connections do not stop a new client getting 200, and are closed after the headers timeout', async () => {
    const idle = Array.from({ length: 300 }, () => rawSocket(port));
    await Promise.all(idle.map((s) => s.connected));
    const response = await get(server, '/v1/cities/sydney/spread');
    assert.equal(response.status, 200);
    await Promise.all(idle.map((s) => s.closed));
    assert.ok(idle.every((s) => s.received() === '' || s.received().startsWith('HTTP/1.1 408')));
  });
});

describe('clients that stop reading', () => {
  const store = fixtureStore();

  /** `count` pipelined requests for the OpenAPI document (tens of KB each): more than the kernel's buffers hold on loopback. */
  function pipelined(count: number): string {
    return 'GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(count);
  }

  test('a connection whose answers have stopped going out is reset after stalledWriteMs; a new client still gets 200', async () => {
    const server = await startServer(store(), fixedClock(NOW), { limits: { stalledWriteMs: 300, connectionsCheckingIntervalMs: 50 } });
    try {
      const one = await get(server, '/v1/openapi.json', { token: null });
      const requests = Math.ceil((24 * 2 ** 20) / one.text.length);
      let serverSide: Socket | undefined;
      server.app.server.once('connection', (socket: Socket) => { serverSide = socket; });
      const stuck = rawSocket(portOf(server));
      await stuck.connected;
      stuck.socket.pause(); // reads nothing
      stuck.socket.write(pipelined(requests));
      await waitFor('the server to have answers it cannot send', () => (serverSide?.writableLength ?? 0) > 0);
      await waitFor('the stalled connection to be reset', () => serverSide?.destroyed === true, 10_000);
      assert.equal((await get(server, '/v1/cities')).status, 200);
      stuck.socket.resume();
      await stuck.closed;
      const received = stuck.received().split('HTTP/1.1 200 OK').length - 1;
      assert.ok(received < requests, `${received} of ${requests} answers arrived before the reset`);
    } finally {
      await server.close();
    }
  });

  test('a sweep resets a socket only after stalledWriteMs with bytes waiting and none taken; a slow reader, an idle or a closed one, never', () => {
    const writers = new StalledWriters(1_000);
    const socket = (): WatchedSocket & { waiting: number; dispatched: number; resets: number; close(): void } => {
      const closing: Array<() => void> = [];
      const fake = {
        waiting: 0, dispatched: 0, resets: 0,
        get writableLength() { return fake.waiting; },
        get bytesWritten() { return fake.dispatched; },
        resetAndDestroy() { fake.resets++; return fake as unknown as Socket; },
        once(_event: string, listener: () => void) { closing.push(listener); return fake as unknown as Socket; },
        close() { for (const listener of closing) listener(); },
      };
      return fake as never;
    };
    const stalled = socket();
    const slow = socket();
    const idle = socket();
    const closed = socket();
    for (const s of [stalled, slow, idle, closed]) writers.watch(s, 0);
    // 10,000 bytes queued on each but the idle one; the slow reader's kernel takes 100 more every sweep.
    for (const s of [stalled, slow, closed]) { s.waiting = 10_000; s.dispatched = 10_000; }
    closed.close();
    const resets: number[] = [];
    for (let now = 0; now <= 3_000; now += 250) {
      slow.waiting -= 100;
      resets.push(writers.sweep(now));
    }
    // Waiting since the sweep at 0 with nothing taken: reset at the first sweep 1,000 ms later, once.
    assert.deepEqual(resets, [0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual([stalled.resets, slow.resets, idle.resets, closed.resets], [1, 0, 0, 0]);
    assert.equal(writers.size, 2);
    // Another answer queued is not progress: once the reader stops, 1,000 ms after the last bytes taken (at 3,000) it is reset.
    slow.dispatched += 50_000;
    slow.waiting += 50_000;
    assert.deepEqual([writers.sweep(3_250), writers.sweep(3_750), writers.sweep(4_000)], [0, 0, 1]);
    assert.deepEqual([slow.resets, writers.size], [1, 1]);
  });
});

describe('the connection cap', () => {
  test('past MAX_CONNECTIONS a new connection is closed at once; the process serves again once others leave', async () => {
    if (!sqlite) throw new Error('no sqlite backend');
    const { store, drop } = await sqlite.create();
    await loadFixture(store);
    const server = await startServer(store, fixedClock(NOW), { limits: { maxConnections: 20 } });
    const port = portOf(server);
    try {
      const held = Array.from({ length: 20 }, () => rawSocket(port));
      await Promise.all(held.map((s) => s.connected));
      await waitFor('the server to count the held connections', async () => (await connectionCount(server)) === 20);
      const refused = rawSocket(port);
      await refused.closed;
      assert.equal(refused.received(), '');
      for (const s of held) s.socket.destroy();
      await waitFor('the held connections to be gone', async () => (await connectionCount(server)) === 0);
      assert.equal((await get(server, '/v1/cities')).status, 200);
    } finally {
      await server.close();
      await drop();
    }
  });
});

function connectionCount(server: RunningServer): Promise<number> {
  return new Promise((resolve, reject) => server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

describe('configuration', () => {
  test('MAX_EVENT_LOOP_DELAY_MS, MAX_CONNECTIONS and KEEP_ALIVE_TIMEOUT_MS: defaults, 0 turns shedding off, anything else is refused by name', () => {
    const defaults = loadConfig({});
    assert.deepEqual([defaults.maxEventLoopDelayMs, defaults.maxConnections, defaults.keepAliveTimeoutMs], [100, 4096, 72_000]);
    const set = loadConfig({ MAX_EVENT_LOOP_DELAY_MS: '0', MAX_CONNECTIONS: '500', KEEP_ALIVE_TIMEOUT_MS: '5000' });
    assert.deepEqual([set.maxEventLoopDelayMs, set.maxConnections, set.keepAliveTimeoutMs], [0, 500, 5000]);
    for (const [variable, bad] of [['MAX_EVENT_LOOP_DELAY_MS', '-1'], ['MAX_EVENT_LOOP_DELAY_MS', '1.5'], ['MAX_CONNECTIONS', '0'], ['KEEP_ALIVE_TIMEOUT_MS', '999'], ['MAX_CONNECTIONS', 'lots']] as const) {
      assert.throws(() => loadConfig({ [variable]: bad }), (error: unknown) => error instanceof ConfigError && error.variable === variable, `${variable}=${bad}`);
    }
  });
});
