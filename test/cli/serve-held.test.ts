import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import { newToken } from '../../src/tokens.ts';
import { CITIES, STATIONS } from '../fixture.ts';
import { type ServeProcess, startServe } from '../helpers.ts';

/**
 * WA publishes tomorrow's prices the afternoon before; they are held until due. A server started
 * after they fell due answers them from its first request, not from its first minute tick.
 */
describe('serve applies held prices already due at start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fuelprice-held-'));
  let server: ServeProcess | undefined;
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test("today's WA price, held since yesterday, is the current price at the first request", async () => {
    const yesterday = Date.parse('2026-11-22T14:30:00+08:00') / 1000;
    const sixAm = Date.parse('2026-11-23T06:00:00+08:00') / 1000;
    const gamma = STATIONS[2] ?? assert.fail('Gamma Perth'); // WA, feed code 3
    const store = new SqliteStore(join(dir, 'live.db'));
    await store.migrate();
    await store.upsertCities(CITIES);
    const held = await store.applyFeedBatch({ stations: [gamma], prices: [
      { feed: 'test', feedCode: '3', fuel: 'ulp91', at: yesterday - 3600, priceTenths: 1650, available: true },
      { feed: 'test', feedCode: '3', fuel: 'ulp91', at: sixAm, priceTenths: 1599, available: true },
    ] }, { now: yesterday });
    assert.equal(held.pricesHeld, 1);
    const created = newToken('held', yesterday);
    await store.createToken(created.record);
    await store.close();

    server = await startServe(['--port', '0'], { DATABASE_URL: `sqlite:${join(dir, 'live.db')}`, FUELPRICE_NOW: '2026-11-23T06:05:00+08:00' });
    const r = await fetch(`${server.address}/v1/stations/gamma-perth/prices`, { headers: { authorization: `Bearer ${created.token}` } });
    assert.equal(r.status, 200);
    const body = await r.json() as { data: { prices: Array<{ fuel: string; price: string | false; updated_at: number | false }> } };
    assert.deepEqual(body.data.prices.find((p) => p.fuel === 'ulp91'), { fuel: 'ulp91', price: '159.9', available: true, updated_at: sixAm, source: 'test', tomorrow: false });
  });
});
