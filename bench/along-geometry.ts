/**
 * CPU of one search along a path (domain/route.ts Path.within) over a national grid of positions,
 * without HTTP or storage: `npx tsx bench/along-geometry.ts [DB]`, DB a benchmark dataset
 * (bench/datasets.ts; default /work/bench-data/au-10y.db, opened read-only). Bounded: 20 warm-up
 * and 200 measured searches a case. Figures are CPU µs a search (user + system), so a machine
 * shared with other work shows them noisy: say so beside any you quote (bench/RESULTS.md).
 */
import Database from 'better-sqlite3';
import type { Point } from '../src/domain/nearby.ts';
import { GRID_CELL_DEGREES, PositionGrid } from '../src/domain/position-grid.ts';
import { Path } from '../src/domain/route.ts';
import { humePoints } from './hume.ts';

const file = process.argv[2] ?? '/work/bench-data/au-10y.db';
const db = new Database(file, { readonly: true, fileMustExist: true });
const rows = db.prepare('SELECT latitude, longitude FROM stations WHERE latitude IS NOT NULL').all() as Point[];
db.close();
const grid = new PositionGrid(GRID_CELL_DEGREES, Float64Array.from(rows, (r) => r.latitude), Float64Array.from(rows, (r) => r.longitude));

const cases: Record<string, Point[]> = {
  'Hume, 500 points (a routing engine\'s overview)': humePoints(500),
  'Hume, 1,000 points': humePoints(1000),
  'Sydney to Melbourne, 2 points': [{ latitude: -33.8688, longitude: 151.2093 }, { latitude: -37.8136, longitude: 144.9631 }],
  'Sydney, Mildura, Adelaide, Perth: 4 points': [{ latitude: -33.87, longitude: 151.21 }, { latitude: -34.18, longitude: 142.16 }, { latitude: -34.93, longitude: 138.6 }, { latitude: -31.95, longitude: 115.86 }],
};
console.log(`${rows.length} positions from ${file}`);
for (const [name, points] of Object.entries(cases)) {
  for (const corridor of [2, 20]) {
    const path = new Path(points, corridor);
    let found = 0;
    for (let i = 0; i < 20; i++) found = path.within(grid, () => true, () => 0).length;
    const runs = 200;
    const start = process.cpuUsage();
    for (let i = 0; i < runs; i++) path.within(grid, () => true, () => 0);
    const used = process.cpuUsage(start);
    console.log(`${name}, corridor ${corridor} km: ${Math.round((used.user + used.system) / runs)} µs a search, ${found} found`);
  }
}
