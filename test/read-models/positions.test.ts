import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type PriceOrder, rankPrices } from '../../src/domain/cheapest.ts';
import { withinRadius } from '../../src/domain/nearby.ts';
import { FuelPrices, Positions } from '../../src/read-models/positions.ts';
import { indexedNearestPage, rankNear } from '../../src/read-models/ranking.ts';

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The position index ranks as domain/nearby.ts and domain/cheapest.ts say, on random stations
 * packed round a point (several at one spot, many at one price, ids in no order of position).
 */
describe('the position index ranks by the domain rules', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    test(`seed ${seed}`, () => {
      const next = random(seed);
      const centre = { latitude: -33.87 + next() * 0.01, longitude: 151.2 + next() * 0.01 };
      const spot = () => Math.round((next() - 0.5) * 1200) / 10_000; // 4 decimals, as stored, within about 6 km
      const stations = Array.from({ length: 300 }, (_, key) => {
        const twin = key > 0 && next() < 0.1;
        return { key: key + 1, id: `s-${Math.floor(next() * 1e6).toString(36)}-${key}`, latitude: 0, longitude: 0, twin };
      });
      for (const [i, s] of stations.entries()) {
        const before = stations[i - 1];
        if (s.twin && before) { s.latitude = before.latitude; s.longitude = before.longitude; } else { s.latitude = centre.latitude + spot(); s.longitude = centre.longitude + spot(); }
      }
      const positions = new Positions(stations);
      const radiusKm = 1 + Math.floor(next() * 40) / 10;
      const near = { centre, radiusKm };

      const expected = withinRadius(stations, near);
      const page = indexedNearestPage(positions, near, 1000, 0);
      assert.equal(page.total, expected.length);
      assert.deepEqual(page.ids.map((id) => [id, page.metres.get(id)]), expected.map((p) => [p.id, p.metres]));
      assert.deepEqual(indexedNearestPage(positions, near, 7, 5).ids, expected.slice(5, 12).map((p) => p.id));

      // Prices: a third of the stations none, the rest from a few values (ties), some with two members.
      const rows = stations.flatMap((s) => {
        if (next() < 0.33) return [];
        const price = () => 1700 + Math.floor(next() * 6) * 10;
        const reported = () => 1_000 + Math.floor(next() * 5);
        return next() < 0.3 ? [{ stationKey: s.key, priceTenths: price(), reportedAt: reported() }, { stationKey: s.key, priceTenths: price(), reportedAt: reported() }]
          : [{ stationKey: s.key, priceTenths: price(), reportedAt: reported() }];
      });
      const prices = new FuelPrices(positions, rows);
      const priced = rows.map((r) => {
        const s = stations[r.stationKey - 1] ?? assert.fail('station');
        return { stationId: s.id, latitude: s.latitude, longitude: s.longitude, priceTenths: r.priceTenths, reportedAt: r.reportedAt };
      });
      for (const order of ['asc', 'desc'] as PriceOrder[]) {
        const want = rankPrices(priced, order, near).map((r) => [r.stationId, r.priceTenths, r.reportedAt, r.metres]);
        const got = rankNear(positions, prices, near, order, 1000, 0);
        assert.equal(got.total, want.length, order);
        assert.deepEqual(got.items.map((r) => [r.stationId, r.priceTenths, r.reportedAt, r.metres]), want, order);
        assert.deepEqual(rankNear(positions, prices, near, order, 4, 3).items.map((r) => r.stationId), want.slice(3, 7).map((r) => r[0]), order);
      }
    });
  }
});

/**
 * At the edges of what the index's ranking keys hold (read-models/positions.ts): prices from 0 to
 * 100,000 tenths (the most ingest takes), stations out to a 100 km radius (the widest asked),
 * many at one price and one distance, so that every part of the key decides some pair.
 */
test('the position index ranks exactly at the bounds: prices 0 to 100,000 tenths, a 100 km radius', () => {
  const centre = { latitude: -33.87, longitude: 151.2 };
  // Due north of the centre, from the centre itself to just past 100 km; three stations at each spot.
  const stations = Array.from({ length: 240 }, (_, i) => ({
    key: i + 1, id: `edge-${(i * 7919) % 240}-${i}`, latitude: centre.latitude + Math.floor(i / 3) * 0.011493, longitude: centre.longitude,
  }));
  const positions = new Positions(stations);
  const near = { centre, radiusKm: 100 };
  const levels = [0, 1, 99_999, 100_000, 1789];
  const rows = stations.map((s, i) => ({ stationKey: s.key, priceTenths: levels[i % levels.length] ?? 0, reportedAt: 1_000 + i }));
  const prices = new FuelPrices(positions, rows);
  const priced = rows.map((r) => {
    const s = stations[r.stationKey - 1] ?? assert.fail('station');
    return { stationId: s.id, latitude: s.latitude, longitude: s.longitude, priceTenths: r.priceTenths, reportedAt: r.reportedAt };
  });
  const inside = withinRadius(stations, near);
  assert.ok(inside.length > 200 && inside.length < 240, `${inside.length} stations within 100 km, some past it`);
  assert.ok(Math.max(...inside.map((p) => p.metres)) > 99_000);
  for (const order of ['asc', 'desc'] as PriceOrder[]) {
    const want = rankPrices(priced, order, near).map((r) => [r.stationId, r.priceTenths, r.metres]);
    const got = rankNear(positions, prices, near, order, 1000, 0);
    assert.equal(got.total, want.length, order);
    assert.deepEqual(got.items.map((r) => [r.stationId, r.priceTenths, r.metres]), want, order);
  }
  assert.deepEqual(indexedNearestPage(positions, near, 1000, 0).ids, inside.map((p) => p.id));
});
