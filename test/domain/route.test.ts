import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Point } from '../../src/domain/nearby.ts';
import { GRID_CELL_DEGREES, PositionGrid } from '../../src/domain/position-grid.ts';
import { MAX_PATH_POINTS, type OnPath, Path, decodePolyline, encodePolyline, netCostDollars, sweepError } from '../../src/domain/route.ts';

const R = 6371;
const rad = (d: number): number => (d * Math.PI) / 180;
/** Great-circle km, written here as the reference (the spherical law of cosines, not the code's haversine). */
const greatCircle = (a: Point, b: Point): number => R * Math.acos(Math.min(1,
  Math.sin(rad(a.latitude)) * Math.sin(rad(b.latitude)) + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.cos(rad(b.longitude - a.longitude))));
/** Distance from a point to the great circle of a meridian (cross-track), km. */
const toMeridian = (p: Point, longitude: number): number => R * Math.asin(Math.abs(Math.sin(rad(p.longitude - longitude)) * Math.cos(rad(p.latitude))));

/** What Path.within makes of each position it finds, here: its slot and where it stands. */
const slotOnPath = (slot: number, metres: number, alongKm: number): { slot: number } & OnPath => ({ slot, metres, alongKm });

/** Where each point stands against the path: Path.within over a grid of just those points (undefined: outside the corridor). */
const locateAll = (path: Path, points: readonly Point[]): Array<OnPath | undefined> => {
  const grid = new PositionGrid(GRID_CELL_DEGREES, Float64Array.from(points, (p) => p.latitude), Float64Array.from(points, (p) => p.longitude));
  const out: Array<OnPath | undefined> = points.map(() => undefined);
  for (const { slot, metres, alongKm } of path.within(grid, () => true, slotOnPath)) out[slot] = { metres, alongKm };
  return out;
};
const locate = (path: Path, p: Point): OnPath | undefined => locateAll(path, [p])[0];

describe('encoded polylines', () => {
  test("Google's documented example decodes to its three points", () => {
    assert.deepEqual(decodePolyline('_p~iF~ps|U_ulLnnqC_mqNvxq`@'),
      [{ latitude: 38.5, longitude: -120.2 }, { latitude: 40.7, longitude: -120.95 }, { latitude: 43.252, longitude: -126.453 }]);
    assert.equal(encodePolyline([{ latitude: 38.5, longitude: -120.2 }, { latitude: 40.7, longitude: -120.95 }, { latitude: 43.252, longitude: -126.453 }]),
      '_p~iF~ps|U_ulLnnqC_mqNvxq`@');
  });

  test('any path of 2 to 1,000 points within Australia survives encoding to the 1e-5 degree', () => {
    const point = fc.record({ latitude: fc.integer({ min: -4400000, max: -1000000 }), longitude: fc.integer({ min: 11300000, max: 15400000 }) })
      .map((p) => ({ latitude: p.latitude / 1e5, longitude: p.longitude / 1e5 }));
    fc.assert(fc.property(fc.array(point, { minLength: 2, maxLength: MAX_PATH_POINTS }), (points) => {
      assert.deepEqual(decodePolyline(encodePolyline(points)), points);
    }), { numRuns: 50 });
  });

  test('what is not a path is refused with the reason', () => {
    const many = Array.from({ length: MAX_PATH_POINTS + 1 }, (_, i) => ({ latitude: -33 + i / 1e4, longitude: 151 }));
    for (const [text, error] of [
      ['', 'must have at least 2 points'],
      ['_p~iF~ps|U', 'must have at least 2 points'],
      ['_p~iF', 'must be an encoded polyline (precision 5)'],
      ['_p~iF~ps|U_ulL', 'must be an encoded polyline (precision 5)'],
      ['_p~iF ~ps|U', 'must be an encoded polyline (precision 5)'],
      ['~~~~~~~~~~~~~', 'must be an encoded polyline (precision 5)'],
      [encodePolyline([{ latitude: 91, longitude: 0 }, { latitude: 0, longitude: 0 }]), 'must stay within latitude ±90 and longitude ±180'],
      [encodePolyline(many), `must have at most ${MAX_PATH_POINTS} points`],
    ] as const) assert.deepEqual(decodePolyline(text), { error }, text.slice(0, 20));
  });
});

describe('a station against the path', () => {
  // Two points, due north along the 151st meridian: 11.1 km.
  const start = { latitude: -33.0, longitude: 151.0 };
  const end = { latitude: -32.9, longitude: 151.0 };
  const meridian = new Path([start, end], 2);

  test('beside the path: the cross-track distance, and the length to the foot of it', () => {
    const p = { latitude: -32.95, longitude: 151.018 };
    const got = locate(meridian, p);
    assert.ok(got);
    assert.equal(got.metres, Math.round(toMeridian(p, 151.0) * 1000));
    // The foot on the meridian is at latitude atan(tan φ / cos Δλ); along is the arc from the start to it.
    const foot = { latitude: Math.atan(Math.tan(rad(p.latitude)) / Math.cos(rad(p.longitude - 151))) * 180 / Math.PI, longitude: 151 };
    assert.ok(Math.abs(got.alongKm - greatCircle(start, foot)) < 0.001, `${got.alongKm} against ${greatCircle(start, foot)}`);
    assert.ok(Math.abs(meridian.lengthKm - greatCircle(start, end)) < 1e-6);
  });

  test("on the corridor's edge is in, a metre past it is out", () => {
    // Longitude offsets whose cross-track distance is 1,999.9 and 2,000.6 m at latitude -32.95 (metres rounded: 2,000 and 2,001).
    const at = (metres: number) => ({ latitude: -32.95, longitude: 151 + Math.asin(Math.sin(metres / 1000 / R) / Math.cos(rad(-32.95))) * 180 / Math.PI });
    assert.equal(locate(meridian, at(1999.9))?.metres, 2000);
    assert.equal(locate(meridian, at(2000.6)), undefined);
  });

  test('before the first point and past the last: the ends are the nearest points', () => {
    const south = { latitude: -33.01, longitude: 151.0 };
    assert.deepEqual(locate(meridian, south), { metres: Math.round(greatCircle(south, start) * 1000), alongKm: 0 });
    const north = { latitude: -32.89, longitude: 151.0 };
    const got = locate(meridian, north);
    assert.equal(got?.metres, Math.round(greatCircle(north, end) * 1000));
    assert.ok(Math.abs((got?.alongKm ?? 0) - greatCircle(start, end)) < 1e-6);
  });

  test('a path that crosses itself: the first pass counts', () => {
    // North 0.1°, east 0.1°, back south 0.05°, then west across the first leg at (-32.95, 151.0).
    const loop = new Path([start, end, { latitude: -32.9, longitude: 151.1 }, { latitude: -32.95, longitude: 151.1 }, { latitude: -32.95, longitude: 150.95 }], 1);
    const crossing = { latitude: -32.95, longitude: 151.0 };
    const got = locate(loop, crossing);
    assert.equal(got?.metres, 0);
    assert.ok(Math.abs((got?.alongKm ?? 0) - greatCircle(start, crossing)) < 1e-6, 'along the first leg, not the last');
  });

  test('one search over 2,000 stations about a 900 km path of 500 points finds what measuring every segment finds', () => {
    // Sydney to Melbourne, roughly, with a wobble: the reference measures every segment (flat at the station, as documented).
    const path = Array.from({ length: 500 }, (_, i) => ({ latitude: -33.87 - (3.94 * i) / 499 + 0.05 * Math.sin(i / 7), longitude: 151.21 - (6.25 * i) / 499 }));
    const brute = (p: Point): number => {
      let best = Infinity;
      for (let s = 0; s + 1 < path.length; s++) {
        const a = path[s] as Point;
        const b = path[s + 1] as Point;
        const k = R * Math.PI / 180;
        const c = Math.cos(rad(p.latitude));
        const [ax, ay, bx, by] = [(a.longitude - p.longitude) * k * c, (a.latitude - p.latitude) * k, (b.longitude - p.longitude) * k * c, (b.latitude - p.latitude) * k];
        const t = Math.min(1, Math.max(0, -(ax * (bx - ax) + ay * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
        best = Math.min(best, Math.hypot(ax + t * (bx - ax), ay + t * (by - ay)));
      }
      return Math.round(best * 1000);
    };
    const stations = Array.from({ length: 2000 }, (_, i) => {
      const along = path[(i * 37) % 500] as Point;
      return { latitude: along.latitude + ((i % 41) - 20) * 0.002, longitude: along.longitude + ((i % 53) - 26) * 0.002 };
    });
    const got = locateAll(new Path(path, 2), stations);
    let inside = 0;
    stations.forEach((p, i) => {
      const want = brute(p);
      if (want <= 2000) { inside++; assert.equal(got[i]?.metres, want, `${p.latitude},${p.longitude}`); } else assert.equal(got[i], undefined);
    });
    assert.ok(inside > 200 && inside < 1800, `${inside} of 2,000 inside: both sides are tried`);
  });

  test('only the stations wanted are kept, and each is asked about once', () => {
    const stations = [{ latitude: -32.95, longitude: 151.001 }, { latitude: -32.95, longitude: 151.002 }, { latitude: -32.95, longitude: 151.5 }];
    const grid = new PositionGrid(GRID_CELL_DEGREES, Float64Array.from(stations, (p) => p.latitude), Float64Array.from(stations, (p) => p.longitude));
    // A path of many short segments, so each station near it is met by several.
    const path = new Path(Array.from({ length: 101 }, (_, i) => ({ latitude: -33 + i * 0.001, longitude: 151 })), 2);
    const asked: number[] = [];
    const found = path.within(grid, (slot) => { asked.push(slot); return slot !== 1; }, slotOnPath);
    assert.deepEqual(asked, [0, 1]);
    assert.deepEqual(found.map((f) => f.slot), [0]);
  });

  test('a grid searched again and again (its working space reused) answers each search as a new grid would', () => {
    // Stations on a line east of 151, every 200 m; paths north and south at different longitudes,
    // corridors and wanted sets, so that one search's marks and bests would spoil the next's.
    const stations = Array.from({ length: 60 }, (_, i) => ({ latitude: -33 + (i % 6) * 0.002, longitude: 151 + Math.floor(i / 6) * 0.002 }));
    const kept = new PositionGrid(GRID_CELL_DEGREES, Float64Array.from(stations, (p) => p.latitude), Float64Array.from(stations, (p) => p.longitude));
    const searches = [
      { longitude: 151.001, corridor: 0.5, wanted: (slot: number) => slot % 2 === 0 },
      { longitude: 151.01, corridor: 0.3, wanted: (slot: number) => slot % 3 !== 0 },
      { longitude: 151.001, corridor: 0.5, wanted: () => true },
      { longitude: 151.02, corridor: 2, wanted: (slot: number) => slot % 2 === 1 },
    ];
    for (const { longitude, corridor, wanted } of [...searches, ...searches]) {
      const path = new Path([{ latitude: -33.01, longitude }, { latitude: -32.98, longitude }], corridor);
      const fresh = new PositionGrid(GRID_CELL_DEGREES, Float64Array.from(stations, (p) => p.latitude), Float64Array.from(stations, (p) => p.longitude));
      const sorted = (found: ReturnType<typeof slotOnPath>[]): typeof found => [...found].sort((a, b) => a.slot - b.slot);
      const want = sorted(path.within(fresh, wanted, slotOnPath));
      assert.ok(want.length > 0 && want.length < 60);
      assert.deepEqual(sorted(path.within(kept, wanted, slotOnPath)), want);
    }
  });
});

test('net cost: the fill plus the detour\'s fuel at the station\'s price, worked by hand', () => {
  // 185.9 c/L, 40 L, a 4 km detour at 8 L/100 km: 0.32 L more, 40.32 L × $1.859 = $74.95488.
  assert.ok(Math.abs(netCostDollars(1859, 40, 4, 8) - 74.95488) < 1e-9);
  // No detour: the fill alone, 40 × $1.859.
  assert.ok(Math.abs(netCostDollars(1859, 40, 0, 8) - 74.36) < 1e-9);
});

describe('long segments', () => {
  // Flat at the station, every segment: the documented measure, written again here.
  const brute = (path: readonly Point[], p: Point): number => {
    let best = Infinity;
    const k = R * Math.PI / 180;
    const c = Math.cos(rad(p.latitude));
    for (let s = 0; s + 1 < path.length; s++) {
      const [a, b] = [path[s] as Point, path[s + 1] as Point];
      const [ax, ay, bx, by] = [(a.longitude - p.longitude) * k * c, (a.latitude - p.latitude) * k, (b.longitude - p.longitude) * k * c, (b.latitude - p.latitude) * k];
      const t = Math.min(1, Math.max(0, -(ax * (bx - ax) + ay * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
      best = Math.min(best, Math.hypot(ax + t * (bx - ax), ay + t * (by - ay)));
    }
    return Math.round(best * 1000);
  };

  test('a few long diagonal segments (Sydney, Mildura, Perth, Darwin) find what measuring every segment finds, for corridors of 0.1 to 20 km', () => {
    const path = [{ latitude: -33.87, longitude: 151.21 }, { latitude: -34.18, longitude: 142.16 }, { latitude: -31.95, longitude: 115.86 }, { latitude: -12.46, longitude: 130.84 }];
    for (const corridor of [0.1, 2, 20]) {
      // Points on a segment, pushed off it by up to twice the corridor each way.
      const stations = Array.from({ length: 3000 }, (_, i) => {
        const s = i % 3;
        const [a, b] = [path[s] as Point, path[s + 1] as Point];
        const t = ((i * 7919) % 1000) / 1000;
        const off = ((((i * 104729) % 2001) - 1000) / 1000) * 2 * corridor / 111.19;
        return { latitude: a.latitude + t * (b.latitude - a.latitude) + off * ((i % 5) - 2) / 2, longitude: a.longitude + t * (b.longitude - a.longitude) + off };
      });
      const got = locateAll(new Path(path, corridor), stations);
      let inside = 0;
      stations.forEach((p, i) => {
        const want = brute(path, p);
        if (want <= Math.round(corridor * 1000)) { inside++; assert.equal(got[i]?.metres, want, `${corridor}: ${p.latitude},${p.longitude}`); } else assert.equal(got[i], undefined);
      });
      assert.ok(inside > 300, `${inside} inside at ${corridor} km`);
    }
  });

  test('a path sweeping more than 180 degrees is refused with the reason; one of 180 is not', () => {
    assert.equal(sweepError([{ latitude: -30, longitude: 100 }, { latitude: -30, longitude: -80 }]), undefined);
    assert.equal(sweepError([{ latitude: -30, longitude: 100 }, { latitude: -30, longitude: -80.00001 }]),
      'must sweep at most 180 degrees of latitude and longitude in all (the sum over its segments of the larger change)');
    // Back and forth: 4 segments of 50 degrees (the larger change each time) sweep 200.
    assert.notEqual(sweepError([{ latitude: -30, longitude: 100 }, { latitude: -20, longitude: 150 }, { latitude: -30, longitude: 100 }, { latitude: -20, longitude: 150 }, { latitude: -30, longitude: 100 }]), undefined);
  });
});
