import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type AppOptions, buildApp } from '../../../src/app.ts';
import pino from 'pino';
import { accessLog, logDestination, loggerOptions } from '../../../src/http/server/request-log.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { newToken } from '../../../src/tokens.ts';
import { NOW, fixtureFile, loadFixture } from '../../fixture.ts';
import { fixedClock, runCli, startServe, testBackends } from '../../helpers.ts';

/** Every 8-character piece of a secret: a log holding any of them holds part of it. */
function pieces(secret: string): string[] {
  return Array.from({ length: Math.max(1, secret.length - 7) }, (_, i) => secret.slice(i, i + 8));
}

function assertNothingOf(secrets: readonly string[], text: string): void {
  for (const secret of secrets) {
    for (const piece of pieces(secret)) assert.ok(!text.includes(piece), `the log holds '${piece}' of a credential`);
  }
}

interface LogLine {
  level?: number; msg?: string; reqId?: string; method?: string; url?: string; route?: string; status?: number; bytes?: number; ms?: number;
  token?: string; ip?: string; err?: unknown;
}

/** The app as `serve` builds it (the same loggerOptions), logging at trace level into memory. */
async function loggingApp(store: PriceStore, options: Partial<AppOptions> = {}): Promise<{ app: FastifyInstance; base: string; lines: string[]; throughFastify: () => number }> {
  const lines: string[] = [];
  let throughFastify = 0;
  const app = await buildApp({ store, clock: fixedClock(NOW), logger: loggerOptions('trace', { write: (line) => { lines.push(line); } }), ...options });
  app.get('/v1/test-failure', async () => { throw new Error('a bug'); }); // a 500, logged as servers log them
  app.addHook('onSend', async () => { throughFastify++; });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base, lines, throughFastify: () => throughFastify };
}

const parsed = (lines: readonly string[]): LogLine[] => lines.map((line) => JSON.parse(line) as LogLine);

describe('logs never hold a credential', () => {
  let store: PriceStore;
  let drop: () => Promise<void>;
  const valid = newToken('logged', NOW);
  const limited = newToken('limited', NOW, { rateLimit: 1 });
  const wrongSecret = `${valid.token.slice(0, 12)}${'Z'.repeat(43)}`;
  const unknown = `fp_abcdefgh_${'Q'.repeat(43)}`;

  before(async () => {
    const sqlite = testBackends()[0];
    if (!sqlite) throw new Error('no SQLite backend');
    ({ store, drop } = await sqlite.create());
    await loadFixture(store);
    await store.createToken(valid.record);
    await store.createToken(limited.record);
    store.setVersionReuseMs(60_000); // repeated requests are answered by the fast path
  });
  after(async () => { await drop(); });

  test('valid, wrong and malformed credentials, in headers and URLs, through both paths, at every status', async () => {
    const { app, base, lines, throughFastify } = await loggingApp(store);
    try {
      const send = async (path: string, authorization?: string, headers: Record<string, string> = {}): Promise<number> => {
        const r = await fetch(`${base}${path}`, { headers: { ...(authorization === undefined ? {} : { authorization }), ...headers } });
        await r.arrayBuffer();
        return r.status;
      };
      const bearer = (token: string) => `Bearer ${token}`;
      const malformed = ['Basic dXNlcjpzM2NyZXRwYXNzd29yZA==', 'Bearer s3cretvalue anotherpart', `Bearer ${valid.token} ${valid.token}`, `Token ${valid.token}`];
      const statuses: number[] = [];
      statuses.push(await send('/v1/cities/sydney/spread', bearer(valid.token)));
      const counted = throughFastify();
      statuses.push(await send('/v1/cities/sydney/spread', bearer(valid.token)));
      assert.equal(throughFastify(), counted, 'the second one came from the fast path');
      const etag = (await fetch(`${base}/v1/cities/sydney`, { headers: { authorization: bearer(valid.token) } })).headers.get('etag') ?? '';
      statuses.push(await send('/v1/cities/sydney', bearer(valid.token), { 'if-none-match': etag }));
      statuses.push(await send('/v1/cities/atlantis', bearer(valid.token)));
      statuses.push(await send('/v1/test-failure', bearer(valid.token)));
      statuses.push(await send('/v1/cities', bearer(wrongSecret)));
      statuses.push(await send('/v1/cities/sydney/spread', bearer(unknown)));
      for (const header of malformed) statuses.push(await send('/v1/cities', header));
      statuses.push(await send(`/v1/cities?access_token=${valid.token}`));
      statuses.push(await send(`/v1/cities?api_key=s3cretvalue&limit=2`, bearer(valid.token)));
      statuses.push(await send(`/v1/cities/${valid.token}`, bearer(valid.token)));
      statuses.push(await send('/v1/cities', bearer(limited.token)));
      statuses.push(await send('/v1/cities', bearer(limited.token)));
      assert.deepEqual(statuses, [200, 200, 304, 404, 500, 401, 401, 401, 401, 401, 401, 401, 200, 404, 200, 429]);

      const text = lines.join('');
      // A token's id (fp_<id>_<secret>) is its public part, and the access line names it; nothing of any secret is logged.
      const secret = (token: string) => token.slice(12);
      assertNothingOf([secret(valid.token), secret(limited.token), secret(wrongSecret), unknown, ...malformed.map((h) => h.replace(/^\S+ /, '').replaceAll(valid.token, secret(valid.token))), 's3cretvalue'], text);
      for (const token of [valid.token, limited.token, wrongSecret]) assert.ok(!text.includes(token));
      assert.doesNotMatch(text, /authorization/i);

      // The log is really there: one line per request, the fast path's included, with every status, in order.
      const entries = parsed(lines);
      const access = entries.filter((e) => e.msg === 'request');
      assert.equal(access.length, statuses.length + 1, 'one per request (and the ETag request)');
      assert.deepEqual(access.map((e) => e.status), [200, 200, 200, ...statuses.slice(2)]);
      assert.equal(entries.filter((e) => e.err !== undefined).length, 1, 'the 500 is logged with its error');
      assert.ok(access.some((e) => e.url === '/v1/cities?access_token=[redacted]'), 'credential-like query parameters are blanked');
      assert.ok(access.some((e) => e.url === '/v1/cities?api_key=[redacted]&limit=2'));
      assert.ok(access.some((e) => e.url === '/v1/cities/[redacted]'), 'token-shaped text in a path is blanked');
      // Each line: the method, the route's pattern, the status, the bytes sent, the time, the token's id (never its secret) and the client.
      const [first, fast] = access;
      const id = valid.record.id;
      const shown = (e: LogLine | undefined) => [e?.level, e?.method, e?.url, e?.route, e?.status, e?.token, e?.ip];
      assert.deepEqual(shown(first), [30, 'GET', '/v1/cities/sydney/spread', '/v1/cities/:id/spread', 200, id, '127.0.0.1']);
      assert.match(first?.reqId ?? '', /^[0-9a-f-]{36}$/);
      assert.ok(typeof first?.bytes === 'number' && first.bytes > 100 && typeof first.ms === 'number' && first.ms >= 0);
      assert.deepEqual([...shown(fast), fast?.bytes], [...shown(first), first?.bytes], 'the fast path logs the same line');
      assert.deepEqual(Object.keys(fast ?? {}), Object.keys(first ?? {}), 'with the same fields in the same order');
      assert.equal(access.find((e) => e.status === 401)?.token, undefined, 'no token id until a token has passed');
      assert.deepEqual(access.filter((e) => e.status === 429).map((e) => e.token), [limited.record.id]);
    } finally {
      await app.close();
    }
  });

  test('a token percent-encoded in a path or a query (once or twice) is redacted after decoding', async () => {
    const { app, base, lines } = await loggingApp(store);
    try {
      const once = valid.token.replaceAll('_', '%5F');
      const twice = valid.token.replaceAll('_', '%255F');
      const hidden = valid.token.replace(/[A-Za-z]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
      const paths = [`/v1/cities/${once}`, `/v1/cities/${twice}/spread`, `/v1/cities/${hidden}`, `/v1/cities?access%5Ftoken=s3cretvalue&limit=2`, `/v1/cities?q=${encodeURIComponent(valid.token)}`];
      for (const path of paths) {
        const r = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${valid.token}` } });
        await r.arrayBuffer();
      }
      const text = lines.join('');
      assertNothingOf([valid.token.slice(12), 's3cretvalue'], text);
      for (const path of paths) assert.ok(!text.includes(path.slice(12, 40)), `nothing of ${path} past its prefix`);
      const urls = parsed(lines).filter((e) => e.msg === 'request').map((e) => e.url);
      assert.deepEqual(urls, ['/v1/cities/[redacted]', '/v1/cities/[redacted]/spread', '/v1/cities/[redacted]', '/v1/cities?access_token=[redacted]&limit=2', '/v1/cities?q=[redacted]']);
      // A URL with nothing to hide is logged as it was asked for, escapes and all.
      const plain = await fetch(`${base}/v1/prices/cheapest?near=-33.87%2C151.21&fuel=U91`, { headers: { authorization: `Bearer ${valid.token}` } });
      await plain.arrayBuffer();
      assert.equal(parsed(lines).filter((e) => e.msg === 'request').at(-1)?.url, '/v1/prices/cheapest?near=-33.87%2C151.21&fuel=U91');
    } finally {
      await app.close();
    }
  });

  test('the logged client address: the TCP peer by default, whatever X-Forwarded-For says; the forwarded one from a trusted proxy; the same on both paths', async () => {
    const spoofed = { 'x-forwarded-for': '203.0.113.7' };
    for (const [options, expected] of [[{}, '127.0.0.1'], [{ trustProxy: ['127.0.0.1'] }, '203.0.113.7'], [{ trustProxy: 1 }, '203.0.113.7']] as const) {
      const { app, base, lines, throughFastify } = await loggingApp(store, options);
      try {
        const call = () => fetch(`${base}/v1/stations/alpha-sydney`, { headers: { authorization: `Bearer ${valid.token}`, ...spoofed } });
        assert.equal((await call()).status, 200);
        const counted = throughFastify();
        assert.equal((await call()).status, 200);
        assert.equal(throughFastify(), counted, 'the second one came from the fast path');
        const addresses = parsed(lines).filter((e) => e.msg === 'request').map((e) => e.ip);
        assert.deepEqual(addresses, [expected, expected], JSON.stringify(options));
      } finally {
        await app.close();
      }
    }
  });

  test('probes (/health, /ready) are logged at debug only; every other request at info', async () => {
    for (const [level, probesLogged] of [['info', false], ['debug', true]] as const) {
      const lines: string[] = [];
      const app = await buildApp({ store, clock: fixedClock(NOW), logger: loggerOptions(level, { write: (line) => { lines.push(line); } }) });
      try {
        const base = await app.listen({ port: 0, host: '127.0.0.1' });
        for (const path of ['/health', '/ready', '/v1/cities']) await (await fetch(`${base}${path}`)).arrayBuffer();
        const access = parsed(lines).filter((e) => e.msg === 'request');
        assert.deepEqual(access.map((e) => [e.route, e.status, e.level]),
          [...(probesLogged ? [['/health', 200, 20], ['/ready', 200, 20]] : []), ['/v1/cities', 401, 30]], level);
      } finally {
        await app.close();
      }
    }
  });

  test('the access line is the line pino itself would write for the same fields, whatever the URL holds', () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => { lines.push(line); } });
    const entry = {
      reqId: 'r-1', method: 'GET', url: '/v1/cities/x?q="é\\\n', route: '/v1/cities/:id', status: 404, bytes: 12, ms: 0.123456,
      token: 'abcdefgh', ip: '::1',
    };
    accessLog(log)(entry);
    log.info({ ...entry, ms: 0.12 }, 'request');
    accessLog(log)({ ...entry, route: undefined, bytes: undefined, token: undefined });
    log.info({ ...entry, route: undefined, bytes: undefined, token: undefined, ms: 0.12 }, 'request');
    const [ours, pinos, bare, pinoBare] = lines.map((l) => { const o = JSON.parse(l) as Record<string, unknown>; delete o.time; return o; });
    assert.deepEqual(ours, pinos);
    assert.deepEqual(bare, pinoBare);
    assert.equal(lines.length, 4);
    accessLog(log)({ ...entry, route: '/health' });
    assert.equal(lines.length, 4, 'a probe at info level is not written');
    // The fast path's way (the answer's part built once, then a line a request) writes the same text.
    const access = accessLog(log);
    const part = access.answerPart(entry);
    access.withPart(part, entry.reqId, entry.ms, entry.token, entry.ip);
    access(entry);
    const [kept, whole] = lines.slice(4).map((l) => l.replace(/"time":[0-9]+/, '"time":0'));
    assert.equal(kept, whole);
    assert.equal(access.answerPart({ ...entry, route: '/health' }).level, undefined, 'a probe at info level: no line');
    // Request id, token id and address are written without JSON.stringify when plain (jsonText): any other text
    // (a forwarded address is whatever a trusted proxy sent) is escaped as pino escapes it.
    for (const odd of ['203.0.113.7"', 'a\\b', 'line\nbreak', 'tab\t', 'é', '\u0001', '\ud800', '']) {
      lines.length = 0;
      const fields = { ...entry, reqId: `r${odd}`, token: `t${odd}`, ip: odd };
      access(fields);
      log.info({ ...fields, ms: 0.12 }, 'request');
      const [mine, pinos2] = lines.map((l) => l.replace(/"time":[0-9]+/, '"time":0'));
      assert.deepEqual(JSON.parse(mine as string), JSON.parse(pinos2 as string), JSON.stringify(odd));
      // A lone surrogate is the one difference: written escaped (JSON.stringify's way), where pino writes it raw.
      if (odd !== '\ud800') assert.equal(mine, pinos2, JSON.stringify(odd));
      else assert.ok(mine?.includes('"ip":"\\ud800"'));
    }
  });

  test("serve's log destination: JSON lines kept in a buffer until flushed (every second, and on exit); pretty lines when asked", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-logdest-'));
    try {
      const jsonPath = join(dir, 'json.log');
      const fd = openSync(jsonPath, 'w');
      const json = await logDestination({ fd, pretty: false });
      pino({ level: 'info' }, json.stream).info({ status: 200 }, 'request');
      assert.equal(readFileSync(jsonPath, 'utf8'), '', 'under 8 KiB and within the second: still buffered');
      json.flushSync();
      assert.deepEqual(readFileSync(jsonPath, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as LogLine).msg), ['request']);
      json.close();
      closeSync(fd);

      const prettyPath = join(dir, 'pretty.log');
      const prettyFd = openSync(prettyPath, 'w');
      const pretty = await logDestination({ fd: prettyFd, pretty: true });
      pino({ level: 'info' }, pretty.stream).info({ status: 200, route: '/v1/cities' }, 'request');
      const text = readFileSync(prettyPath, 'utf8');
      assert.match(text, /INFO.*request/);
      assert.match(text, /route: "\/v1\/cities"/);
      assert.doesNotMatch(text, /^\{/m, 'not JSON');
      closeSync(prettyFd);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('serve writes its buffered access lines out when stopped by SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-logexit-'));
    const path = join(dir, 'exit.db');
    const created = await fixtureFile(path, 'exit');
    const server = await startServe(['--port', '0'], { DATABASE_URL: `sqlite:${path}`, LOG_LEVEL: 'info', FUELPRICE_NOW: new Date(NOW * 1000).toISOString() });
    try {
      const r = await fetch(`${server.address}/v1/cities/sydney`, { headers: { authorization: `Bearer ${created.token}` } });
      assert.equal(r.status, 200);
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
      assert.deepEqual(server.logs('request').map((l) => [l.route, l.status, l.token]), [['/v1/cities/:id', 200, created.record.id]]);
    } finally {
      server.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('tokens create prints the token once, on stdout only, and nothing of it reaches the logs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fuelprice-logs-'));
    try {
      const env = { DATABASE_URL: `sqlite:${join(dir, 'tokens.db')}`, LOG_LEVEL: 'trace' };
      assert.equal((await runCli(['migrate'], env)).code, 0);
      const created = await runCli(['tokens', 'create', '--name', 'ci'], env);
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, /^fp_[a-z2-7]{8}_[A-Za-z0-9_-]{43}\n$/);
      const token = created.stdout.trim();
      assert.match(created.stderr, /^Token [a-z2-7]{8} 'ci' created; the secret is shown this once\.\n$/);
      assert.equal(created.stderr.slice(6, 14), token.slice(3, 11), 'stderr names the id, the public part');
      assertNothingOf([token.slice(12)], created.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
