import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.ts';
import { PostgresStore } from '../../../src/storage/postgres/postgres-store.ts';
import { SqliteStore } from '../../../src/storage/sqlite/sqlite-store.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { hashToken, newToken, sameText, verifyToken } from '../../../src/tokens.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import { createPostgresDatabase, fixedClock, postgresServerUrl } from '../../helpers.ts';

const REALM = 'Bearer realm="fuelprice"';
const INVALID = 'Bearer realm="fuelprice", error="invalid_token"';
const CACHED = '/v1/cities/sydney/spread';

/** Two store instances on one database, as two processes would have them. */
interface SharedDatabase { name: string; open(): Promise<PriceStore>; drop(): Promise<void> }

function sharedDatabases(): SharedDatabase[] {
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-auth-'));
  const out: SharedDatabase[] = [{
    name: 'sqlite',
    open: async () => new SqliteStore(join(dir, 'shared.db')),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  }];
  const server = postgresServerUrl();
  if (server) {
    let database: { url: string; drop(): Promise<void> } | undefined;
    out.push({
      name: 'postgres',
      open: async () => {
        database ??= await createPostgresDatabase(server);
        return new PostgresStore({ connectionString: database.url, max: 2, applicationName: 'fuelprice-tests' });
      },
      drop: async () => { await database?.drop(); },
    });
  }
  return out;
}

interface RawAnswer { status: number; text: string }

/** One request written byte for byte on its own connection: fetch would refuse or normalise these headers. */
function rawGet(base: string, path: string, headerLines: Buffer[]): Promise<RawAnswer> {
  const { port } = new URL(base);
  const request = Buffer.concat([
    Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`),
    ...headerLines.map((line) => Buffer.concat([line, Buffer.from('\r\n')])),
    Buffer.from('\r\n'),
  ]);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1] ?? 0), text });
    });
    socket.write(request); // not end(): a half-closed connection may be dropped before the answer is written
  });
}

const authorization = (value: string | Buffer): Buffer => Buffer.concat([Buffer.from('Authorization: '), Buffer.from(value)]);
const errorCode = (answer: RawAnswer): string | undefined => /"code":"([a-z_]+)"/.exec(answer.text)?.[1];
const challenge = (answer: RawAnswer): string | undefined => /\r\nwww-authenticate: ([^\r]*)\r\n/i.exec(answer.text)?.[1];

for (const database of sharedDatabases()) {
  describe(`hostile credentials on ${database.name}`, () => {
    let store: PriceStore;
    let elsewhere: PriceStore;
    let app: FastifyInstance;
    let base: string;
    let throughFastify = 0;
    const clock = fixedClock(NOW);
    const token = newToken('hostile', NOW);

    before(async () => {
      store = await database.open();
      await store.migrate();
      await loadFixture(store);
      await store.createToken(token.record);
      elsewhere = await database.open();
      // Versions read up to 50 ms ago are reused: back-to-back requests take the fast path, and a write by another process counts after 50 ms.
      store.setVersionReuseMs(50);
      app = await buildApp({ store, clock });
      app.addHook('onSend', async () => { throughFastify++; });
      base = await app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      await app.close();
      await elsewhere.close();
      await store.close();
      await database.drop();
    });

    /** Requests the path until an answer comes from the fast path; fails if none does. */
    async function warmFastPath(bearer: string): Promise<void> {
      for (let i = 0; i < 20; i++) {
        const counted = throughFastify;
        const r = await fetch(`${base}${CACHED}`, { headers: { authorization: `Bearer ${bearer}` } });
        assert.equal(r.status, 200);
        await r.arrayBuffer();
        if (throughFastify === counted) return;
      }
      assert.fail('the fast path never answered');
    }

    test('optional whitespace around the header value is not part of it (RFC 9110): the token is accepted', async () => {
      for (const value of [`Bearer ${token.token}   `, `Bearer ${token.token}\t`, `  Bearer ${token.token}`]) {
        const answer = await rawGet(base, '/v1/cities', [authorization(value)]);
        assert.equal(answer.status, 200, JSON.stringify(value));
      }
    });

    test('NUL, control characters, CR and folded lines in the header: 400 from the HTTP parser, never served', async () => {
      const secret = Buffer.from(`Bearer ${token.token}`);
      const hostile = [
        Buffer.concat([secret, Buffer.from([0])]),
        Buffer.concat([secret.subarray(0, 20), Buffer.from([0]), secret.subarray(20)]),
        Buffer.concat([secret, Buffer.from([1])]),
        Buffer.concat([secret, Buffer.from([0x7f])]),
        Buffer.concat([secret, Buffer.from('\rX')]),
        Buffer.concat([Buffer.from('Bearer\r\n '), Buffer.from(token.token)]),
      ];
      for (const value of hostile) {
        const answer = await rawGet(base, '/v1/cities', [authorization(value)]);
        assert.equal(answer.status, 400, JSON.stringify(value.toString('latin1')));
        assert.ok(!answer.text.includes(token.token), 'the token is not echoed');
      }
    });

    test('non-ASCII bytes and look-alike letters: 401 unauthorized (not a token68)', async () => {
      const values = [
        Buffer.concat([Buffer.from(`Bearer ${token.token}`), Buffer.from('é', 'utf8')]),
        Buffer.from(`Bearer ${token.token.slice(0, 15)}\u0430${token.token.slice(16)}`, 'utf8'), // Cyrillic a
        Buffer.concat([Buffer.from(`Bearer ${token.token}`), Buffer.from([0xff])]),
        Buffer.from(`Bearer ${token.token}\u200b`, 'utf8'), // zero-width space
      ];
      for (const value of values) {
        const answer = await rawGet(base, '/v1/cities', [authorization(value)]);
        assert.equal(answer.status, 401);
        assert.equal(errorCode(answer), 'unauthorized');
        assert.equal(challenge(answer), REALM);
      }
    });

    test('a large header within the server\'s header limit is an unknown token; one past it is 431', async () => {
      const large = await rawGet(base, '/v1/cities', [authorization(`Bearer ${'A'.repeat(4_000)}`)]);
      assert.equal(large.status, 401);
      assert.equal(errorCode(large), 'invalid_token');
      assert.equal(challenge(large), INVALID);
      const huge = await rawGet(base, '/v1/cities', [authorization(`Bearer ${token.token}${'A'.repeat(20_000)}`)]);
      assert.equal(huge.status, 431);
    });

    test('two Authorization headers: 401 unauthorized, whichever comes first, on the full path and the fast path', async () => {
      await warmFastPath(token.token);
      const wrong = `Bearer fp_abcdefgh_${'A'.repeat(43)}`;
      const pairs = [[`Bearer ${token.token}`, `Bearer ${token.token}`], [`Bearer ${token.token}`, wrong], [wrong, `Bearer ${token.token}`], [`Bearer ${token.token}`, '']];
      for (const path of ['/v1/cities', CACHED]) {
        for (const [first = '', second = ''] of pairs) {
          const counted = throughFastify;
          const answer = await rawGet(base, path, [authorization(first), authorization(second)]);
          assert.equal(answer.status, 401, `${path} ${first.slice(0, 12)} / ${second.slice(0, 12)}`);
          assert.equal(errorCode(answer), 'unauthorized');
          assert.match(answer.text, /Send exactly one Authorization header/);
          assert.equal(throughFastify, counted + 1, 'refused by Fastify, not answered by the fast path');
        }
      }
    });

    test('a token in the query string is ignored', async () => {
      for (const query of [`access_token=${token.token}`, `token=${token.token}`, `authorization=Bearer%20${token.token}`]) {
        const none = await fetch(`${base}/v1/cities?${query}`);
        assert.equal(none.status, 401, query);
        assert.equal((await none.json() as { error: { code: string } }).error.code, 'unauthorized');
        const wrong = await fetch(`${base}${CACHED}?${query}`, { headers: { authorization: 'Bearer fp_abcdefgh_' + 'B'.repeat(43) } });
        assert.equal(wrong.status, 401, query);
        assert.equal((await wrong.json() as { error: { code: string } }).error.code, 'invalid_token');
      }
    });

    test('schemes and separators that are not exactly "Bearer <token>": 401 unauthorized', async () => {
      for (const value of [`Token ${token.token}`, `Bearer  ${token.token}`, `Bearer\t${token.token}`, `Bearer:${token.token}`, `${token.token}`, `Bearer "${token.token}"`, `Bearer ${token.token},`]) {
        const r = await fetch(`${base}/v1/cities`, { headers: { authorization: value } });
        assert.equal(r.status, 401, value.slice(0, 12));
        assert.equal((await r.json() as { error: { code: string } }).error.code, 'unauthorized', value.slice(0, 12));
      }
      const upper = await fetch(`${base}/v1/cities`, { headers: { authorization: `BEARER ${token.token}` } });
      assert.equal(upper.status, 200, 'the scheme is case-insensitive');
    });

    test('revocation through this store: the very next request, which the fast path would have answered, is 401', async () => {
      const doomed = newToken('doomed', NOW);
      await store.createToken(doomed.record);
      await warmFastPath(doomed.token);
      await store.revokeToken(doomed.record.id, NOW);
      const next = await fetch(`${base}${CACHED}`, { headers: { authorization: `Bearer ${doomed.token}` } });
      assert.equal(next.status, 401);
      assert.equal(next.headers.get('www-authenticate'), INVALID);
      assert.equal((await next.json() as { error: { code: string } }).error.code, 'invalid_token');
    });

    test('revocation by another process on the same database: 401 on every request after the versions reuse (50 ms here, 10 ms by default)', async () => {
      const doomed = newToken('doomed-elsewhere', NOW);
      await store.createToken(doomed.record);
      await warmFastPath(doomed.token);
      assert.equal(await elsewhere.revokeToken(doomed.record.id, NOW), true);
      await new Promise((resolve) => setTimeout(resolve, 60));
      for (const path of [CACHED, '/v1/cities?uncached=1', CACHED]) {
        const r = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${doomed.token}` } });
        assert.equal(r.status, 401, path);
        assert.equal((await r.json() as { error: { code: string } }).error.code, 'invalid_token');
      }
    });

    test('expiry counts on the fast path too: the first request at the expiry instant is 401', async () => {
      const brief = newToken('brief', NOW, { expiresInSec: 60 });
      await store.createToken(brief.record);
      await warmFastPath(brief.token);
      clock.set(NOW + 60);
      try {
        const r = await fetch(`${base}${CACHED}`, { headers: { authorization: `Bearer ${brief.token}` } });
        assert.equal(r.status, 401);
        assert.equal((await r.json() as { error: { code: string } }).error.code, 'invalid_token');
      } finally {
        clock.set(NOW);
      }
    });

    test('the fast path compares a header it has seen pass with every character, wherever the first difference is', () => {
      const header = `Bearer ${token.token}`;
      const read: number[] = [];
      // eslint-disable-next-line @typescript-eslint/unbound-method -- called with .call(this) below, then put back
      const original = String.prototype.charCodeAt;
      // Counts the characters sameText reads: an early return would read fewer for an early difference.
      String.prototype.charCodeAt = function (this: string, index: number) {
        read.push(index);
        return original.call(this, index);
      };
      const differAt = (i: number): string => `${header.slice(0, i)}${header[i] === 'A' ? 'B' : 'A'}${header.slice(i + 1)}`;
      const results: boolean[] = [];
      const counts: number[] = [];
      try {
        for (const candidate of [header, differAt(0), differAt(10), differAt(header.length - 1)]) {
          read.length = 0;
          results.push(sameText(candidate, header));
          counts.push(read.length);
        }
      } finally {
        String.prototype.charCodeAt = original;
      }
      assert.deepEqual(results, [true, false, false, false]);
      assert.deepEqual(counts, Array(4).fill(2 * header.length));
      assert.equal(sameText(`${header}x`, header), false);
      assert.equal(sameText(header.slice(0, -1), header), false);
    });

    test('comparison goes through crypto.timingSafeEqual of two 32-byte digests, once, for wrong tokens of every length', async () => {
      const require = createRequire(import.meta.url);
      const crypto = require('node:crypto') as { timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => boolean };
      const original = crypto.timingSafeEqual;
      const calls: Array<[number, number]> = [];
      // Replaces the function behind the ESM binding tokens.ts imported (builtin exports are live after syncBuiltinESMExports).
      crypto.timingSafeEqual = (a, b) => {
        calls.push([a.byteLength, b.byteLength]);
        return original(a, b);
      };
      syncBuiltinESMExports();
      try {
        const secretPart = token.token.slice(12);
        const wrong: string[] = [
          ...Array.from({ length: token.token.length }, (_, n) => token.token.slice(0, n)), // every proper prefix, the empty one included
          ...Array.from({ length: 64 }, (_, n) => `${token.token}${'x'.repeat(n + 1)}`), // the token with 1 to 64 bytes more
          `${token.token.slice(0, -1)}${token.token.endsWith('A') ? 'B' : 'A'}`,
          `fp_abcdefgh_${secretPart}`, // unknown id, right-looking secret
          'x'.repeat(10_000),
        ];
        for (const candidate of wrong) {
          calls.length = 0;
          assert.equal(await verifyToken(store, candidate, NOW), undefined, candidate.slice(0, 20));
          assert.deepEqual(calls, [[32, 32]], `length ${candidate.length}`);
        }
        calls.length = 0;
        assert.equal((await verifyToken(store, token.token, NOW))?.id, token.record.id);
        assert.deepEqual(calls, [[32, 32]], 'the right token too');
        assert.equal(hashToken('').length, 32);
      } finally {
        crypto.timingSafeEqual = original;
        syncBuiltinESMExports();
      }
    });
  });
}
