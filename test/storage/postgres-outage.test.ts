import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PostgresStore } from '../../src/storage/postgres/postgres-store.ts';
import { holdingProxy } from '../fakes/holding-proxy.ts';
import { NOW, loadFixture } from '../fixture.ts';
import {
  type JsonResponse, type RunningServer, type TcpProxy, createPostgresDatabase, fixedClock, get, postgresServerUrl, startServer, tcpProxy, waitFor,
} from '../helpers.ts';

const postgresUrl = postgresServerUrl();
const skip = postgresUrl ? false : 'no PostgreSQL server given: set FUELPRICE_TEST_POSTGRES to run these (see CONTRIBUTING.md, Test)';

const PATHS = ['/v1/cities/sydney/spread', '/v1/stations', '/v1/cities/sydney/history?timeframe=all-time', '/v1/stations/alpha-sydney'];

const errorCode = (r: JsonResponse): string | undefined => (r.body as { error?: { code?: string } } | undefined)?.error?.code;

describe('PostgreSQL going away under load, and coming back', { skip }, () => {
  let database: { url: string; drop(): Promise<void> };
  let proxy: TcpProxy;
  let store: PostgresStore;
  let server: RunningServer;

  before(async () => {
    database = await createPostgresDatabase(postgresUrl ?? '');
    const direct = new PostgresStore({ connectionString: database.url, max: 2 });
    await direct.migrate();
    await loadFixture(direct);
    await direct.close();
    proxy = await tcpProxy(new URL(database.url), 5432);
    store = new PostgresStore({ connectionString: proxy.url, max: 4, applicationName: 'fuelprice-tests' });
    server = await startServer(store, fixedClock(NOW));
  });
  after(async () => {
    await server?.close();
    await store?.close();
    await proxy?.down();
    await database?.drop();
  });

  test('requests in flight and after answer 503 unavailable (none hangs), /ready 503; 200 again once it is back, without a restart', async () => {
    for (const path of PATHS) assert.equal((await get(server, path)).status, 200);

    // Cut the connection with requests in flight: every one of them completes, 200 or 503.
    const inFlight = Array.from({ length: 60 }, (_, i) => get(server, PATHS[i % PATHS.length] ?? '/v1/stations'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await proxy.down();
    const settled = await Promise.allSettled(inFlight);
    for (const result of settled) {
      assert.equal(result.status, 'fulfilled', 'every request gets an answer');
      if (result.status !== 'fulfilled') continue;
      assert.ok(result.value.status === 200 || result.value.status === 503, `${result.value.status} ${result.value.text}`);
      if (result.value.status === 503) {
        assert.equal(errorCode(result.value), 'unavailable');
        assert.equal(result.value.headers.get('retry-after'), '5');
      }
    }

    // While it is away: every request 503 unavailable, never 500, and /ready 503.
    const during = await Promise.all(Array.from({ length: 20 }, (_, i) => get(server, PATHS[i % PATHS.length] ?? '/v1/stations')));
    for (const r of during) {
      assert.equal(r.status, 503, r.text);
      assert.equal(errorCode(r), 'unavailable');
    }
    const ready = await get(server, '/ready', { token: null });
    assert.equal(ready.status, 503);
    assert.equal(errorCode(ready), 'unavailable');

    // Back on the same address: the same app answers again.
    await proxy.up();
    await waitFor('the store to reconnect', async () => (await get(server, '/ready', { token: null })).status === 200, 10_000);
    const again = await Promise.all(Array.from({ length: 20 }, (_, i) => get(server, PATHS[i % PATHS.length] ?? '/v1/stations')));
    for (const r of again) assert.equal(r.status, 200, r.text);
    assert.deepEqual((await get(server, '/ready', { token: null })).body, { status: 'ready', backend: 'postgres' });
  });

  test('connections dropped mid-query (sent, never answered): those requests answer 503, none hangs; new pool connections then answer 200', async () => {
    const held = await holdingProxy(new URL(database.url), 5432);
    const heldStore = new PostgresStore({ connectionString: held.url, max: 4, applicationName: 'fuelprice-tests' });
    const heldServer = await startServer(heldStore, fixedClock(NOW));
    try {
      for (const path of PATHS) assert.equal((await get(heldServer, path)).status, 200);
      const connectionsBefore = held.connections();
      // The server receives the queries sent on the pool's open connections, but their answers are held back:
      // those queries are in flight when the connections drop.
      held.hold();
      const inFlight = PATHS.map((path) => get(heldServer, path));
      await waitFor('queries sent and left unanswered', () => held.heldQueries() >= 1, 10_000);
      const cutQueries = held.heldQueries();
      held.dropAll();
      const answered = await Promise.all(inFlight);
      for (const r of answered) {
        if (r.status === 200) continue; // served on a connection opened after hold()
        assert.equal(r.status, 503, r.text);
        assert.equal(errorCode(r), 'unavailable');
        assert.equal(r.headers.get('retry-after'), '5');
      }
      // Every cut query was sent for one of these requests (nothing is written, so nothing is computed ahead),
      // so at least one of them answers 503. Not one per cut query: a request may have two queries in flight at
      // once (the spread reads the city's totals and its held stations together), and requests share a versions reading.
      assert.ok(cutQueries >= 1 && answered.some((r) => r.status === 503), `${cutQueries} queries cut, statuses ${answered.map((r) => r.status).join(',')}`);
      await waitFor('the store to reconnect', async () => (await get(heldServer, '/ready', { token: null })).status === 200, 10_000);
      for (const path of PATHS) assert.equal((await get(heldServer, path)).status, 200);
      assert.ok(held.connections() > connectionsBefore, 'the pool opened new connections after the drop');
    } finally {
      await heldServer.close();
      await heldStore.close();
      await held.close();
    }
  });
});
