import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/app.ts';
import type { PriceStore } from '../../../src/storage/store.ts';
import { newToken } from '../../../src/tokens.ts';
import { NOW, loadFixture } from '../../fixture.ts';
import { fixedClock, testBackends } from '../../helpers.ts';

/** One raw request (a browser never sends a fragment, but a hand-written client may): the status line and the body. */
function raw(port: number, target: string, token?: string): Promise<{ status: string; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: test\r\n${token ? `Authorization: Bearer ${token}\r\n` : ''}Connection: close\r\n\r\n`);
    });
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => { out += chunk; });
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', ...rest] = out.split('\r\n\r\n');
      const type = /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1];
      resolve({ status: head.split('\r\n', 1)[0] ?? '', type, body: rest.join('\r\n\r\n') });
    });
  });
}

const [sqlite] = testBackends();

describe('a fragment in the request target ends the path, as the router reads it', () => {
  let store: PriceStore;
  let drop: () => Promise<void>;
  let app: FastifyInstance;
  let port: number;
  const token = newToken('fragment', NOW);

  before(async () => {
    assert.ok(sqlite);
    ({ store, drop } = await sqlite.create());
    await loadFixture(store);
    await store.createToken(token.record);
    app = await buildApp({ store, clock: fixedClock(NOW), logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  after(async () => { await app.close(); await drop(); });

  test('/#top and /#frag?== are the dashboard page, as / is', async () => {
    const page = await raw(port, '/');
    assert.equal(page.status, 'HTTP/1.1 200 OK');
    for (const target of ['/#top', '/#frag?==']) {
      const got = await raw(port, target);
      assert.equal(got.status, 'HTTP/1.1 200 OK', target);
      assert.equal(got.type, 'text/html; charset=utf-8', target);
      assert.equal(got.body, page.body, target);
    }
  });

  test('/v1/cities#x answers as /v1/cities; an unknown path names only its path in the 404', async () => {
    const plain = await raw(port, '/v1/cities', token.token);
    const fragment = await raw(port, '/v1/cities#x', token.token);
    assert.equal(plain.status, 'HTTP/1.1 200 OK');
    assert.equal(fragment.status, 'HTTP/1.1 200 OK');
    assert.equal(fragment.body, plain.body);
    const missing = await raw(port, '/nowhere#x?y=1', token.token);
    assert.equal(missing.status, 'HTTP/1.1 404 Not Found');
    assert.equal((JSON.parse(missing.body) as { error: { code: string; message: string } }).error.message, 'No route GET /nowhere.');
    assert.equal((JSON.parse(missing.body) as { error: { code: string } }).error.code, 'not_found');
  });
});
