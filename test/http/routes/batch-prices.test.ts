/**
 * GET /v1/stations/prices?ids=: many stations' current prices in one request, against
 * test/fixture.ts (feed 'test'), with values worked out by hand from its PRICES (the same as
 * test/http/routes/station-prices.test.ts works them out for one station):
 *
 *   alpha-sydney    ulp91 185.0 in stock (1795244400); e10 177.0 out of stock (1795381200)
 *   beta-sydney     ulp91 175.0 in stock (1795384800); diesel 199.0 (1795302000)
 *   alpha-sydney-2  never reported: every fuel false
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { NOW, loadFixture } from '../../fixture.ts';
import { type RunningServer, fixedClock, get, servedStore, startServer, testBackends, twoStores } from '../../helpers.ts';

const FUEL_ORDER = ['e10', 'ulp91', 'ulp95', 'ulp98', 'diesel', 'pdiesel', 'lpg', 'e85', 'e5', 'ev',
  'b20', 'cng', 'lng', 'opal', 'lrp', 'ulsd', 'ulp-combined', 'pulp-combined', 'diesel-combined'];
const NONE = { price: false, available: false, updated_at: false, source: false, tomorrow: false };
const entries = (reported: Record<string, { price: string; available: boolean; updated_at: number }>): unknown[] =>
  FUEL_ORDER.map((fuel) => (reported[fuel] ? { fuel, ...reported[fuel], source: 'test', tomorrow: false } : { fuel, ...NONE }));

const ALPHA = { id: 'alpha-sydney', name: 'Alpha Sydney', prices: entries({
  e10: { price: '177.0', available: false, updated_at: 1_795_381_200 }, ulp91: { price: '185.0', available: true, updated_at: 1_795_244_400 },
}) };
const BETA = { id: 'beta-sydney', name: 'Beta Sydney', prices: entries({
  ulp91: { price: '175.0', available: true, updated_at: 1_795_384_800 }, diesel: { price: '199.0', available: true, updated_at: 1_795_302_000 },
}) };
const ALPHA_2 = { id: 'alpha-sydney-2', name: 'Alpha Sydney', prices: entries({}) };

for (const backend of testBackends()) {
  describe(`GET /v1/stations/prices on ${backend.name}`, () => {
    const { server } = servedStore(backend, fixedClock(NOW), (store) => loadFixture(store));

    test('in the order asked, duplicates answered once where first asked, unknown ids apart', async () => {
      const r = await get(server, '/v1/stations/prices?ids=beta-sydney,nowhere,alpha-sydney,beta-sydney,alpha-sydney-2,gone,nowhere');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { data: [BETA, ALPHA, ALPHA_2], unknown: ['nowhere', 'gone'] });
      // Each entry is what the one-station route answers.
      for (const station of [BETA, ALPHA, ALPHA_2]) assert.deepEqual((await get(server, `/v1/stations/${station.id}/prices`)).body, { data: station });
    });

    test('one id; only unknown ids; 100 ids (the limit) with unknowns and repeats', async () => {
      assert.deepEqual((await get(server, '/v1/stations/prices?ids=alpha-sydney')).body, { data: [ALPHA], unknown: [] });
      assert.deepEqual((await get(server, '/v1/stations/prices?ids=x,y')).body, { data: [], unknown: ['x', 'y'] });
      const hundred = Array.from({ length: 100 }, (_, i) => (i % 10 === 0 ? 'beta-sydney' : `none-${i % 7}`));
      const r = await get(server, `/v1/stations/prices?ids=${hundred.join(',')}`);
      assert.equal(r.status, 200);
      // The first is beta-sydney; then none-1 .. none-6 and none-0, each first met at i = 1..6 and 7.
      assert.deepEqual(r.body, { data: [BETA], unknown: ['none-1', 'none-2', 'none-3', 'none-4', 'none-5', 'none-6', 'none-0'] });
    });

    test('every bad ids answers 400 invalid_parameter naming it; a missing one too', async () => {
      const tooMany = Array.from({ length: 101 }, (_, i) => `s${i}`).join(',');
      for (const query of ['ids=', 'ids=a,,b', 'ids=,a', 'ids=a,', `ids=${tooMany}`, `ids=${'x'.repeat(201)}`]) {
        const r = await get(server, `/v1/stations/prices?${query}`);
        assert.equal(r.status, 400, query.slice(0, 30));
        assert.deepEqual(r.body, { error: {
          code: 'invalid_parameter', message: "Parameter 'ids' must be 1 to 100 station ids separated by commas.", request_id: r.headers.get('x-request-id'),
        } }, query.slice(0, 30));
      }
      const missing = await get(server, '/v1/stations/prices');
      assert.equal(missing.status, 400);
      assert.equal((missing.body as { error: { code: string } }).error.code, 'invalid_parameter');
    });

    test('no token, 401; PUT, 405 (POST takes the ids in a body: test/http/routes/post-body.test.ts)', async () => {
      assert.equal((await get(server, '/v1/stations/prices?ids=alpha-sydney', { token: null })).status, 401);
      assert.equal((await get(server, '/v1/stations/prices?ids=alpha-sydney', { method: 'PUT' })).status, 405);
    });
  });
}

/**
 * Each station's text is kept for the data version (src/http/cache/station-texts.ts), with the
 * answer cache on or off. Two servers on one database, as two processes: a price written by one
 * is answered by the other on its next request, by the batch and by the one-station route alike,
 * and the batch's ETag (made from its stations' hashes) is the same from both.
 */
for (const backend of testBackends()) {
  describe(`station prices kept per data version on ${backend.name}`, () => {
    for (const answerCache of [false, true]) {
      test(`another process's new price is answered at once, ETags agree across processes (answer cache ${answerCache ? 'on' : 'off'})`, async () => {
        const { reader, writer, drop } = await twoStores(backend.name);
        const servers: RunningServer[] = [];
        try {
          await writer.migrate();
          await loadFixture(writer);
          reader.setVersionReuseMs(0);
          writer.setVersionReuseMs(0);
          const clock = fixedClock(NOW);
          for (const store of [reader, writer]) servers.push(await startServer(store, clock, { answerCache }));
          const [one, two] = servers as [RunningServer, RunningServer];
          const path = '/v1/stations/prices?ids=alpha-sydney,nowhere,beta-sydney';
          const before = await get(one, path);
          assert.deepEqual(before.body, { data: [ALPHA, BETA], unknown: ['nowhere'] });
          const etag = before.headers.get('etag') ?? assert.fail('no ETag');
          assert.equal((await get(two, path)).headers.get('etag'), etag, 'the same answer, the same ETag, from either process');
          assert.equal((await get(one, path, { headers: { 'if-none-match': etag } })).status, 304);
          assert.deepEqual((await get(one, '/v1/stations/alpha-sydney/prices')).body, { data: ALPHA });

          // Alpha's ulp91 at 179.9 ten minutes ago, written by the other process.
          const at = NOW - 600;
          await writer.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '1', fuel: 'ulp91', at, priceTenths: 1799, available: true }] });
          const newAlpha = { ...ALPHA, prices: ALPHA.prices.map((e) => ((e as { fuel: string }).fuel === 'ulp91' ? { ...(e as object), price: '179.9', updated_at: at } : e)) };
          const after = await get(one, path);
          assert.deepEqual(after.body, { data: [newAlpha, BETA], unknown: ['nowhere'] });
          const newEtag = after.headers.get('etag') ?? assert.fail('no ETag');
          assert.notEqual(newEtag, etag);
          assert.equal((await get(one, path, { headers: { 'if-none-match': etag } })).status, 200, 'the old ETag no longer matches');
          assert.equal((await get(two, path)).headers.get('etag'), newEtag);
          assert.equal((await get(two, path, { headers: { 'if-none-match': newEtag } })).status, 304);
          assert.deepEqual((await get(one, '/v1/stations/alpha-sydney/prices')).body, { data: newAlpha });
          // With max_age=1 only what was reported in the last hour: alpha's new ulp91 (beta's latest is three hours old).
          const fresh = (station: typeof ALPHA, fuel?: string) => ({ ...station, prices: station.prices.map((e) => ((e as { fuel: string }).fuel === fuel ? e : { fuel: (e as { fuel: string }).fuel, ...NONE })) });
          const recent = await get(two, `${path}&max_age=1`);
          assert.deepEqual(recent.body, { data: [fresh(newAlpha, 'ulp91'), fresh(BETA)], unknown: ['nowhere'] });
          // Made for the request, its bytes hashed as any answer's are.
          assert.equal(recent.headers.get('etag'), `"${createHash('sha256').update(recent.text).digest('base64url').slice(0, 27)}"`);
          assert.deepEqual((await get(two, path)).body, after.body, 'max_age kept nothing in the place of the whole answer');
        } finally {
          for (const server of servers) await server.close();
          await drop();
        }
      });
    }
  });
}
