import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NOW, loadFixture } from '../../fixture.ts';
import { type RunningServer, fixedClock, get, startServer, testBackends } from '../../helpers.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { newToken } from '../../../src/tokens.ts';

const ROUTES = [
  '/v1/cities', '/v1/cities/sydney', '/v1/cities/sydney/history', '/v1/cities/sydney/unavailable', '/v1/cities/sydney/spread',
  '/v1/cities/sydney/average', '/v1/stations', '/v1/stations/alpha-sydney', '/v1/stations/alpha-sydney/history',
];
const REALM = 'Bearer realm="fuelprice"';
const INVALID = 'Bearer realm="fuelprice", error="invalid_token"';

for (const backend of testBackends()) {
  describe(`authentication on ${backend.name}`, () => {
    let store: PriceStore;
    let drop: () => Promise<void>;
    let server: RunningServer;
    const tokens: Record<string, string> = {};
    before(async () => {
      ({ store, drop } = await backend.create());
      await loadFixture(store);
      server = await startServer(store, fixedClock(NOW));
      const expired = newToken('expired', NOW - 7200, { expiresInSec: 3600 });
      const revoked = newToken('revoked', NOW - 10);
      await store.createToken(expired.record);
      await store.createToken(revoked.record);
      await store.revokeToken(revoked.record.id, NOW - 5);
      tokens.expired = expired.token;
      tokens.revoked = revoked.token;
    });
    after(async () => { await server.close(); await drop(); });

    const cases: Array<{ name: string; header: () => string | undefined; code: string; challenge: string }> = [
      { name: 'missing', header: () => undefined, code: 'unauthorized', challenge: REALM },
      { name: 'empty', header: () => '', code: 'unauthorized', challenge: REALM },
      { name: 'scheme only', header: () => 'Bearer', code: 'unauthorized', challenge: REALM },
      { name: 'wrong scheme', header: () => `Basic ${server.token}`, code: 'unauthorized', challenge: REALM },
      { name: 'two tokens', header: () => `Bearer ${server.token} ${server.token}`, code: 'unauthorized', challenge: REALM },
      { name: 'wrong token', header: () => 'Bearer fp_abcdefgh_' + 'A'.repeat(43), code: 'invalid_token', challenge: INVALID },
      { name: 'not our format', header: () => 'Bearer hello', code: 'invalid_token', challenge: INVALID },
      { name: 'trailing bytes', header: () => `Bearer ${server.token}x`, code: 'invalid_token', challenge: INVALID },
      { name: 'one character changed', header: () => `Bearer ${server.token.slice(0, -1)}${server.token.endsWith('A') ? 'B' : 'A'}`, code: 'invalid_token', challenge: INVALID },
      { name: 'expired', header: () => `Bearer ${tokens.expired}`, code: 'invalid_token', challenge: INVALID },
      { name: 'revoked', header: () => `Bearer ${tokens.revoked}`, code: 'invalid_token', challenge: INVALID },
    ];

    for (const c of cases) {
      test(`${c.name} token: every route answers 401 ${c.code}`, async () => {
        for (const route of ROUTES) {
          const header = c.header();
          const r = await get(server, route, { token: null, headers: header === undefined ? {} : { authorization: header } });
          assert.equal(r.status, 401, route);
          assert.equal(r.headers.get('www-authenticate'), c.challenge, route);
          assert.equal((r.body as { error: { code: string } }).error.code, c.code, route);
        }
      });
    }

    test('a 401 does not reveal whether an id exists', async () => {
      const known = await get(server, '/v1/cities/sydney', { token: 'nope' });
      const unknown = await get(server, '/v1/cities/atlantis', { token: 'nope' });
      assert.equal(known.status, 401);
      assert.equal(unknown.status, 401);
      assert.deepEqual({ ...(known.body as { error: object }).error, request_id: '' }, { ...(unknown.body as { error: object }).error, request_id: '' });
    });

    test('the scheme is case-insensitive (RFC 7235): lowercase bearer is accepted', async () => {
      for (const route of ROUTES) {
        const r = await get(server, route, { token: null, headers: { authorization: `bearer ${server.token}` } });
        assert.equal(r.status, 200, route);
      }
    });

    test('revocation takes effect on the next request', async () => {
      const fresh = newToken('short-lived', NOW);
      await store.createToken(fresh.record);
      assert.equal((await get(server, '/v1/cities', { token: fresh.token })).status, 200);
      await store.revokeToken(fresh.record.id, NOW);
      assert.equal((await get(server, '/v1/cities', { token: fresh.token })).status, 401);
    });

    test('without the answer cache too, a header that has passed is refused once its token is revoked or expires', async () => {
      // Every request takes the full path here, which accepts a header it has seen pass without hashing it again (TokenCache).
      const clock = fixedClock(NOW);
      const uncached = await startServer(store, clock, { answerCache: false });
      try {
        const revoked = newToken('revoked later', NOW);
        const expiring = newToken('expiring', NOW, { expiresInSec: 60 });
        await store.createToken(revoked.record);
        await store.createToken(expiring.record);
        for (const token of [revoked.token, expiring.token, uncached.token]) {
          for (let i = 0; i < 2; i++) assert.equal((await get(uncached, '/v1/cities/sydney', { token })).status, 200);
        }
        await store.revokeToken(revoked.record.id, NOW);
        const refused = await get(uncached, '/v1/cities/sydney', { token: revoked.token });
        assert.equal(refused.status, 401);
        assert.equal((refused.body as { error: { code: string } }).error.code, 'invalid_token');
        assert.equal((await get(uncached, '/v1/cities/sydney', { token: expiring.token })).status, 200);
        clock.set(NOW + 60);
        assert.equal((await get(uncached, '/v1/cities/sydney', { token: expiring.token })).status, 401);
        assert.equal((await get(uncached, '/v1/cities/sydney', { token: uncached.token })).status, 200);
      } finally {
        await uncached.close();
      }
    });

    test('probes, the API document and the docs page need no token', async () => {
      for (const path of ['/health', '/ready', '/v1/openapi.json', '/docs/']) {
        const r = await get(server, path, { token: null });
        assert.equal(r.status, 200, path);
      }
    });
  });
}
