import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { CopyInterrupted, CopyRefused, copyInstallation, tableDigest } from '../../src/storage/copy.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import { COPY_ORDER, type PriceStore } from '../../src/storage/store.ts';
import { newToken } from '../../src/tokens.ts';
import { CITIES, NOW, STATIONS, loadFixture } from '../fixture.ts';
import { type TestBackend, answers, runCli, createPostgresDatabase, fixedClock, postgresServerUrl, testBackends } from '../helpers.ts';


type Made = { store: PriceStore; drop(): Promise<void> };

async function withStores<T>(backends: TestBackend[], work: (...stores: PriceStore[]) => Promise<T>): Promise<T> {
  const made: Made[] = [];
  try {
    for (const backend of backends) made.push(await backend.create());
    return await work(...made.map((m) => m.store));
  } finally {
    for (const m of made) await m.drop();
  }
}

async function digests(store: PriceStore): Promise<string[]> {
  const out: string[] = [];
  for (const table of COPY_ORDER) {
    const d = await tableDigest(store, table, 4);
    out.push(`${table} ${d.rows} ${d.checksum}`);
  }
  return out;
}

/** The fixture plus a station without a position (its coordinates NULL) and one token, as an installation to move. */
async function loadSource(store: PriceStore): Promise<string> {
  await loadFixture(store);
  await store.applyBatch({
    stations: [{ feed: 'nsw', feedCode: 'history:old servo|1 main rd|2840', slug: 'Old Servo', name: 'Old Servo', brand: 'Caltex', address: '1 Main Rd, Bourke NSW 2840',
      street: '1 Main Rd', suburb: 'Bourke', postcode: '2840', state: 'nsw', phone: '', website: '', latitude: null, longitude: null }],
    prices: [{ feed: 'nsw', feedCode: 'history:old servo|1 main rd|2840', fuel: 'ulp91', at: NOW - 7200, priceTenths: 1459, available: true }],
  });
  const created = newToken('moved', NOW);
  await store.createToken(created.record);
  return created.token;
}

const backends = testBackends();
const pairs = backends.flatMap((a) => backends.map((b) => [a, b] as const));

for (const [fromBackend, toBackend] of pairs) {
  describe(`copy ${fromBackend.name} -> ${toBackend.name}`, () => {
    test('moves every table: counts and checksums equal, same answers, tokens still work, new stations get new keys', async () => {
      await withStores([fromBackend, toBackend], async (from, to) => {
        const token = await loadSource(from);
        const result = await copyInstallation(from, to, { source: 'fixture', chunkRows: 3 });
        assert.equal(result.ok, true);
        assert.equal(result.resumed, false);
        for (const check of result.checks) {
          assert.equal(check.sourceCount, check.targetCount, check.table);
          assert.equal(check.source.checksum, check.target.checksum, check.table);
        }
        assert.equal(result.checks.find((c) => c.table === 'stations')?.targetCount, 6);
        assert.equal(result.checks.find((c) => c.table === 'tokens')?.targetCount, 1);
        assert.deepEqual(await digests(to), await digests(from));
        assert.equal(await to.dataVersion(), await from.dataVersion());

        assert.deepEqual(await answers(to, NOW), await answers(from, NOW));

        const app = await buildApp({ store: to, clock: fixedClock(NOW) });
        try {
          const ok = await app.inject({ url: '/v1/stations', headers: { authorization: `Bearer ${token}` } });
          assert.equal(ok.statusCode, 200);
          const bad = await app.inject({ url: '/v1/stations', headers: { authorization: `Bearer ${token.slice(0, -2)}xx` } });
          assert.equal(bad.statusCode, 401);
        } finally {
          await app.close();
        }

        // Keys were copied: a station added afterwards is numbered after them.
        const added = await to.applyBatch({
          stations: [{ feed: 'test', feedCode: '99', slug: 'Epsilon Sydney', name: 'Epsilon Sydney', brand: 'bp', address: '', street: '',
            suburb: '', postcode: '2000', state: 'nsw', phone: '', website: '', latitude: -33.87, longitude: 151.2 }],
          prices: [{ feed: 'test', feedCode: '99', fuel: 'ulp91', at: NOW - 60, priceTenths: 1811, available: true }],
        });
        assert.equal(added.stationsAdded, 1);
        assert.equal(added.pricesAccepted, 1);
        assert.equal(await to.tableCount('stations'), 7);
      });
    });

    test('marks every block of the city means it copies (by city_runs\' triggers): the same blocks marked on both sides', async () => {
      await withStores([fromBackend, toBackend], async (from, to) => {
        // A year of reports every ten days at two Sydney stations: sealed days in several complete blocks of 128 days.
        const sydney = STATIONS.filter((s) => s.feedCode === '1' || s.feedCode === '2');
        await from.upsertCities(CITIES);
        await from.applyBatch({
          stations: sydney,
          prices: Array.from({ length: 40 }, (_, i) => sydney.map((s, k) => ({
            feed: s.feed, feedCode: s.feedCode, fuel: 'ulp91' as const, at: NOW - (400 - i * 10) * 86_400 + k * 3600, priceTenths: 1700 + ((i * 37 + k * 11) % 90), available: true,
          }))).flat(),
        });
        await from.seal(NOW);
        const result = await copyInstallation(from, to, { source: 'year', chunkRows: 2 });
        assert.equal(result.ok, true);
        const marked = async (store: PriceStore): Promise<number[]> =>
          [...(await store.cityHistoryParts('sydney', { from: null, to: 1_000_000 }, NOW, new Map())).blocks?.marks.keys() ?? []].sort((a, b) => a - b);
        const blocks = await marked(from);
        assert.ok(blocks.length >= 2, `${blocks.length} complete blocks`);
        assert.deepEqual(await marked(to), blocks);
      });
    });

    test('a crashed copy continues from its last committed chunk and ends equal to an uninterrupted one', async () => {
      await withStores([fromBackend, toBackend, toBackend], async (from, resumed, straight) => {
        await loadSource(from);
        const plain = await copyInstallation(from, straight, { source: 'fixture', chunkRows: 2 });
        assert.equal(plain.ok, true);

        await assert.rejects(copyInstallation(from, resumed, { source: 'fixture', chunkRows: 2, stopAfterChunks: 5 }), CopyInterrupted);
        const partial = await resumed.copyProgress();
        assert.ok(partial.length > 0 && partial.some((p) => !p.done), 'progress recorded, copy unfinished');
        await assert.rejects(copyInstallation(from, resumed, { source: 'fixture', chunkRows: 2, stopAfterChunks: 5 }), CopyInterrupted);
        const rest = await copyInstallation(from, resumed, { source: 'fixture', chunkRows: 2 });
        assert.equal(rest.ok, true);
        assert.equal(rest.resumed, true);
        const total = plain.checks.reduce((sum, c) => sum + c.sourceCount, 0);
        assert.ok(rest.inserted > 0 && rest.inserted < total, `the last run inserted ${rest.inserted} of ${total}: it continued`);
        assert.deepEqual(await digests(resumed), await digests(straight));

        // Running it again once finished only verifies.
        const again = await copyInstallation(from, straight, { source: 'fixture', chunkRows: 2 });
        assert.equal(again.ok, true);
        assert.equal(again.inserted, 0);

        assert.deepEqual(await answers(resumed, NOW), await answers(straight, NOW));
        // answers() made a token in the target (which moved its tokens version in meta): the checks see the difference.
        const diverged = await copyInstallation(from, straight, { source: 'fixture', chunkRows: 2 });
        assert.equal(diverged.ok, false);
        assert.deepEqual(diverged.checks.filter((c) => !c.ok).map((c) => c.table), ['meta', 'tokens']);
      });
    });

    test('a target holding other data, or part of a copy from another source, is refused untouched', async () => {
      await withStores([fromBackend, toBackend, toBackend], async (from, occupied, half) => {
        await loadSource(from);
        await occupied.upsertCities([{ id: 'darwin', name: 'Darwin', state: 'nt', latitude: -12.46, longitude: 130.84 }]);
        const before = await digests(occupied);
        await assert.rejects(copyInstallation(from, occupied, { source: 'fixture' }), CopyRefused);
        assert.deepEqual(await digests(occupied), before);

        await assert.rejects(copyInstallation(from, half, { source: 'elsewhere', chunkRows: 2, stopAfterChunks: 2 }), CopyInterrupted);
        await assert.rejects(copyInstallation(from, half, { source: 'fixture' }), /another source \(elsewhere\)/);
      });
    });
  });
}


describe('fuelprice copy', () => {
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fuelprice-copy-'));
    const store = new SqliteStore(join(dir, 'source.db'));
    await store.migrate();
    await loadSource(store);
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const targets: Array<[string, () => Promise<{ url: string; drop(): Promise<void> }>]> = [
    ['sqlite', async () => ({ url: `sqlite:${join(dir, `target-${Math.random().toString(36).slice(2)}.db`)}`, drop: async () => undefined })],
  ];
  const server = postgresServerUrl();
  if (server) targets.push(['postgres', () => createPostgresDatabase(server)]);

  for (const [name, makeTarget] of targets) {
    test(`copies into ${name}, prints the checks, exits 0; a second source into it exits 2 with one line`, async () => {
      const target = await makeTarget();
      try {
        const copied = await runCli(['copy', '--from', `sqlite:${join(dir, 'source.db')}`, '--to', target.url]);
        assert.equal(copied.code, 0, copied.stderr);
        assert.match(copied.stdout, /^stations\s+6\s+6\s+[0-9a-f]{16}\s+ok$/m);
        assert.match(copied.stdout, /^tokens\s+1\s+1\s+[0-9a-f]{16}\s+ok$/m);
        assert.doesNotMatch(copied.stdout, /MISMATCH/);

        const other = new SqliteStore(join(dir, 'other.db'));
        await other.migrate();
        await other.close();
        const refused = await runCli(['copy', '--from', `sqlite:${join(dir, 'other.db')}`, '--to', target.url]);
        assert.equal(refused.code, 2);
        assert.match(refused.stderr, /^fuelprice: the target holds a copy from another source \(sqlite:.*source\.db\); copy into a new, empty database\n$/);
      } finally {
        await target.drop();
      }
    });
  }

  test('bad usage exits 2', async () => {
    for (const [args, message] of [
      [['copy', '--to', 'sqlite:x.db'], /copy needs --from URL and --to URL/],
      [['copy', '--from', 'mysql://x', '--to', 'sqlite:x.db'], /--from must be sqlite:PATH or postgres:\/\//],
      [['copy', '--from', `sqlite:${join(dir, 'missing.db')}`, '--to', `sqlite:${join(dir, 'y.db')}`], /--from: there is no database file/],
      [['copy', '--from', `sqlite:${join(dir, 'source.db')}`, '--to', `sqlite:${join(dir, 'source.db')}`], /--from and --to name the same database/],
    ] as const) {
      const r = await runCli([...args]);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, message);
    }
  });
});
