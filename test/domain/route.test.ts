import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Point } from '../../src/domain/nearby.ts';
import { GRID_CELL_DEGREES, PositionGrid } from '../../src/domain/position-grid.ts';
import { MAX_PATH_POINTS, type OnPath, Path, decodePolyline, encodePolyline, netCostDollars, sweepError } from '../../src/domain/route.ts';

import { R, againstSegment, beside, greatCircle, reference } from '../great-circle.ts';

const rad = (d: number): number => (d * Math.PI) / 180;
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

/**
 * Path.within over a grid of the stations agrees with the great-circle reference: in the corridor
 * or not, the metres, and along to a millimetre (but where the reference says a decision was within
 * a centimetre of the edge). The count inside.
 */
function agrees(path: readonly Point[], corridorKm: number, stations: readonly Point[]): number {
  const got = locateAll(new Path(path, corridorKm), stations);
  let inside = 0;
  stations.forEach((p, i) => {
    const want = reference(path, p, corridorKm);
    if (want?.marginal === true) return;
    const at = `${corridorKm} km, station ${p.latitude},${p.longitude}`;
    if (want === undefined) { assert.equal(got[i], undefined, at); return; }
    inside++;
    assert.ok(got[i], `missing: ${at}`);
    assert.ok(Math.abs((got[i]?.metres ?? 0) - want.km * 1000) <= 0.5 + 1e-3, `${got[i]?.metres} m against ${want.km * 1000}: ${at}`);
    // Along to the metre, as the distance (two independent sphere formulas part by a few millimetres on segments a metre
    // long: seed -1120475174), at the nearest point of the first pass or one as near to a millimetre (a hairpin).
    const along = got[i]?.alongKm ?? 0;
    assert.ok(want.alongTies.some((km) => Math.abs(along - km) < 1e-3), `along ${along} against ${want.alongTies.join(' or ')}: ${at}`);
  });
  return inside;
}

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

  test('one search over 2,000 stations about a 900 km path of 500 points finds what the great-circle reference finds', () => {
    // Sydney to Melbourne, roughly, with a wobble: the reference measures every segment on the sphere (test/great-circle.ts).
    const path = Array.from({ length: 500 }, (_, i) => ({ latitude: -33.87 - (3.94 * i) / 499 + 0.05 * Math.sin(i / 7), longitude: 151.21 - (6.25 * i) / 499 }));
    const stations = Array.from({ length: 2000 }, (_, i) => {
      const along = path[(i * 37) % 500] as Point;
      return { latitude: along.latitude + ((i % 41) - 20) * 0.002, longitude: along.longitude + ((i % 53) - 26) * 0.002 };
    });
    const inside = agrees(path, 2, stations);
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
  test('a few long diagonal segments (Sydney, Mildura, Perth, Darwin) find what the great-circle reference finds, for corridors of 0.1 to 20 km', () => {
    const path = [{ latitude: -33.87, longitude: 151.21 }, { latitude: -34.18, longitude: 142.16 }, { latitude: -31.95, longitude: 115.86 }, { latitude: -12.46, longitude: 130.84 }];
    for (const corridor of [0.1, 2, 20]) {
      // Points on the great circle of a segment, pushed off it by up to twice the corridor either way; and as many
      // on the straight line of latitude and longitude between its ends (up to 150 km from the arc on Mildura-Perth).
      const stations = Array.from({ length: 3000 }, (_, i) => {
        const s = i % 3;
        const [a, b] = [path[s] as Point, path[s + 1] as Point];
        const t = ((i * 7919) % 1000) / 1000;
        const off = ((((i * 104729) % 2001) - 1000) / 1000) * 2 * corridor;
        return i % 2 === 0 ? beside(a, b, t, off)
          : { latitude: a.latitude + t * (b.latitude - a.latitude), longitude: a.longitude + t * (b.longitude - a.longitude) + off / 111.19 };
      });
      assert.ok(agrees(path, corridor, stations) > 500, `enough inside at ${corridor} km`);
    }
  });

  test("Sydney to Melbourne as two points, corridor 5 km: in half a metre inside the edge, out half a metre past it, along to the foot", () => {
    // The flat measure at each station (what this replaced) put stations 0.9 km off that are 6 km off by great circle.
    const [sydney, melbourne] = [{ latitude: -33.8688, longitude: 151.2093 }, { latitude: -37.8136, longitude: 144.9631 }];
    const path = new Path([sydney, melbourne], 5);
    const length = greatCircle(sydney, melbourne);
    for (let i = 1; i < 20; i++) {
      const fraction = i / 20;
      for (const side of [1, -1]) {
        const inside = locate(path, beside(sydney, melbourne, fraction, side * 5.0004));
        assert.equal(inside?.metres, 5000, `${fraction} ${side}`);
        assert.ok(Math.abs((inside?.alongKm ?? 0) - fraction * length) < 1e-6, `${inside?.alongKm} against ${fraction * length}`);
        assert.equal(locate(path, beside(sydney, melbourne, fraction, side * 5.0006)), undefined, `${fraction} ${side}`);
      }
    }
    // Halfway the arc runs 58 km south of the straight line of latitude and longitude (which the old walk searched).
    const straight = { latitude: (sydney.latitude + melbourne.latitude) / 2, longitude: (sydney.longitude + melbourne.longitude) / 2 };
    assert.equal(locate(path, straight), undefined);
    assert.equal(locate(path, beside(sydney, melbourne, 0.5, 0))?.metres, 0);
  });

  test('any route in Australia (2 to 6 points, some coming back) and stations about it: what the reference finds, to the metre', () => {
    const place = fc.record({ latitude: fc.integer({ min: -4300000, max: -1100000 }), longitude: fc.integer({ min: 11400000, max: 15300000 }) })
      .map((p) => ({ latitude: p.latitude / 1e5, longitude: p.longitude / 1e5 }));
    const route = fc.tuple(fc.array(place, { minLength: 2, maxLength: 6 }), fc.boolean()).map(([points, back]) => (back ? [...points, ...[...points].reverse().slice(1)] : points));
    fc.assert(fc.property(route, fc.integer({ min: 100, max: 20000 }), fc.integer(), (points, corridorMetres, seed) => {
      const corridor = corridorMetres / 1000;
      let x = seed;
      const next = (): number => { x = (Math.imul(x, 1103515245) + 12345) >>> 0; return x / 2 ** 32; };
      const stations = Array.from({ length: 300 }, () => {
        const s = Math.floor(next() * (points.length - 1));
        return beside(points[s] as Point, points[s + 1] as Point, next(), (next() * 4 - 2) * corridor);
      });
      agrees(points, corridor, stations);
    }), { numRuns: 60 });
  });
});

describe('a route that comes back: the first pass counts', () => {
  test('Sydney to Goulburn and back: a station 11 km out is 11 km along, not on the way back; order by along follows the way out', () => {
    const [sydney, goulburn] = [{ latitude: -33.8688, longitude: 151.2093 }, { latitude: -34.7546, longitude: 149.7186 }];
    const path = new Path([sydney, goulburn, sydney], 2);
    const length = greatCircle(sydney, goulburn);
    // 11, 50, 100 and 160 km out, 1.5 km off either side: each is that far along, not 2 × length less it (325.5 for the first).
    const out = [11, 50, 100, 160];
    const got = locateAll(path, out.map((km, i) => beside(sydney, goulburn, km / length, (i % 2 === 0 ? 1 : -1) * 1.5)));
    out.forEach((km, i) => {
      assert.equal(got[i]?.metres, 1500);
      assert.ok(Math.abs((got[i]?.alongKm ?? 0) - km) < 1e-6, `${got[i]?.alongKm} against ${km}`);
    });
  });

  test('nearer on the way back: distance_km is the nearest approach, along_km still the first pass', () => {
    // Out north along 149.0, back south along 149.02 (1.8 km east); the station 0.7 km east of the way out, 1.1 km west of the way back.
    const path = new Path([{ latitude: -35.2, longitude: 149.0 }, { latitude: -35.0, longitude: 149.0 }, { latitude: -35.0, longitude: 149.02 }, { latitude: -35.2, longitude: 149.02 }], 1.5);
    const station = { latitude: -35.1, longitude: 149.014 };
    const got = locate(path, station);
    const want = reference([{ latitude: -35.2, longitude: 149.0 }, { latitude: -35.0, longitude: 149.0 }, { latitude: -35.0, longitude: 149.02 }, { latitude: -35.2, longitude: 149.02 }], station, 1.5);
    assert.ok(want && got);
    assert.equal(got.metres, Math.round(want.km * 1000));
    assert.ok(got.metres < 600, `${got.metres}: the way back's distance`);
    assert.ok(Math.abs(got.alongKm - greatCircle({ latitude: -35.2, longitude: 149.0 }, { latitude: -35.1, longitude: 149.0 })) < 0.01, `${got.alongKm}: the way out's along`);
  });

  test('a hairpin: two legs within the corridor, the bend far outside, are two passes', () => {
    // Down a valley and up its other side; the bend 22 km south. The station sits between the legs, nearer the second.
    const [top1, bend, top2] = [{ latitude: -35.0, longitude: 149.0 }, { latitude: -35.2, longitude: 149.01 }, { latitude: -35.0, longitude: 149.02 }];
    const station = { latitude: -35.05, longitude: 149.012 };
    const got = locate(new Path([top1, bend, top2], 1), station);
    const want = reference([top1, bend, top2], station, 1);
    assert.ok(want && got && !want.marginal);
    assert.equal(got.metres, Math.round(want.km * 1000));
    assert.ok(Math.abs(got.alongKm - want.alongKm) < 1e-6);
    assert.ok(got.alongKm < greatCircle(top1, bend), `${got.alongKm}: on the first leg`);
    // 0.5 km from the second leg, 0.85 km from the first: the distance is the second's.
    assert.equal(got.metres, Math.round(againstSegment(bend, top2, station).km * 1000));
    assert.ok(againstSegment(top1, bend, station).km > 0.6);
  });
});

describe('what a path may be', () => {
  test('a path sweeping more than 180 degrees is refused with the reason; one of 180 is not', () => {
    assert.equal(sweepError([{ latitude: -30, longitude: 100 }, { latitude: -30, longitude: -80 }]), undefined);
    assert.equal(sweepError([{ latitude: -30, longitude: 100 }, { latitude: -30, longitude: -80.00001 }]),
      'must sweep at most 180 degrees of latitude and longitude in all (the sum over its segments of the larger change)');
    // Back and forth: 4 segments of 50 degrees (the larger change each time) sweep 200.
    assert.notEqual(sweepError([{ latitude: -30, longitude: 100 }, { latitude: -20, longitude: 150 }, { latitude: -30, longitude: 100 }, { latitude: -20, longitude: 150 }, { latitude: -30, longitude: 100 }]), undefined);
  });

  test('a segment joining antipodal points is refused (no one great circle joins them); one a step short of it is not', () => {
    assert.equal(sweepError([{ latitude: -30, longitude: 60 }, { latitude: 30, longitude: -120 }]), 'must not join two antipodal points in one segment (no one great circle joins them)');
    assert.equal(sweepError([{ latitude: -30, longitude: 60 }, { latitude: 30, longitude: -119.99999 }]), undefined);
  });

  test('a segment over a pole and one across longitude 180 find what the reference finds', () => {
    // (-30, 100) to (-30, -80) runs over the south pole; (-17, 179.5) to (-16, -179.5) crosses longitude 180 the short way.
    const over = [{ latitude: -30, longitude: 100 }, { latitude: -30, longitude: -80 }];
    const across = [{ latitude: -17, longitude: 179.5 }, { latitude: -16, longitude: -179.5 }];
    for (const path of [over, across]) {
      const stations = Array.from({ length: 400 }, (_, i) => beside(path[0] as Point, path[1] as Point, i / 400, ((i % 9) - 4) * 0.6));
      assert.ok(agrees(path, 2, stations) > 100);
    }
  });
});
