/**
 * The demo's invented names: suburbs (with metro postcodes nearer the centre lower), streets and
 * highways, and phone numbers from the blocks ACMA sets aside for fiction. Used by stations.ts.
 */
import type { StateId } from '../../domain/states.ts';
import type { Area } from './brands.ts';
import { Rng } from './random.ts';
import { type Town, TOWNS } from './towns.ts';

/** Invented suburbs: a fragment or a short word glued to an ending ("Thornleigh"), or a word and a second word ("Wattle Grove"). */
const SUBURB_FRAGMENTS = [
  'Bel', 'Haw', 'Lynd', 'Stan', 'Carl', 'Craig', 'Dun', 'Kirk', 'Marl', 'Mel', 'Nor', 'Pem', 'Rich', 'Strath', 'Thorn', 'Wen',
  'Cam', 'Ald', 'Bur', 'Clay', 'Lang', 'Mar', 'Wil', 'Went', 'Hamp', 'Bram', 'Ches', 'Eding', 'Kel', 'Mort', 'Sher',
];
const SUBURB_SHORT_WORDS = [
  'Ash', 'Glen', 'Oak', 'Rose', 'Spring', 'Wood', 'Green', 'Black', 'Red', 'Brook', 'Fair', 'Elm', 'Mill', 'Sand', 'Pine',
  'Silver', 'Holly', 'Hazel', 'Cedar', 'Bright', 'Ross', 'Kings', 'East', 'West', 'North', 'Haven', 'Lake',
];
const SUBURB_LONG_WORDS = ['Wattle', 'Banksia', 'Acacia', 'Grange', 'Bay', 'Mount', 'Kurrajong', 'Bottlebrush', 'Ironbark', 'Jacaranda'];
const GLUED_ENDINGS = [
  'field', 'wood', 'vale', 'ton', 'ford', 'dale', 'leigh', 'bury', 'hurst', 'more', 'brook', 'ley', 'mont', 'wick', 'stone',
  'bank', 'haven', 'lands', 'by', 'well', 'worth', 'ville',
];
const SECOND_WORDS = ['Park', 'Heights', 'Hills', 'Ridge', 'Grove', 'Creek', 'Gardens', 'Point', 'Downs', 'Vale', 'Junction', 'Beach', 'Flat', 'Valley', 'Rise'];

function suburbName(rng: Rng): string {
  for (;;) {
    const kind = rng.next();
    let name: string;
    if (kind < 0.45) name = `${rng.pick(SUBURB_FRAGMENTS)}${rng.pick(GLUED_ENDINGS)}`;
    else if (kind < 0.75) name = `${rng.pick(SUBURB_SHORT_WORDS)}${rng.pick(GLUED_ENDINGS)}`;
    else name = `${rng.pick([...SUBURB_SHORT_WORDS, ...SUBURB_LONG_WORDS])} ${rng.pick(SECOND_WORDS)}`;
    const lower = name.toLowerCase().replace(' ', '');
    // "Woodwood", "Haven Haven", "Eastby": not places.
    if (/(.{3,}).*\1/.test(lower) || /^(east|west|north)(by|ley|ton|well|ville)$/.test(lower)) continue;
    return name;
  }
}

const STREET_NAMES = [
  'Main', 'High', 'George', 'King', 'Queen', 'Elizabeth', 'Victoria', 'Albert', 'Church', 'Station', 'Railway', 'Bridge',
  'Park', 'Mitchell', 'Macquarie', 'Darling', 'Murray', 'Hunter', 'Forest', 'Anzac', 'Oxford', 'Beach', 'Military',
  'Mountain', 'Canterbury', 'Gordon', 'Stirling', 'Wellington', 'Nelson', 'Flinders', 'Bourke', 'Lachlan', 'Banksia',
  'Wattle', 'Acacia', 'Jacaranda', 'Grevillea', 'Waratah', 'Boundary', 'Commercial', 'Pioneer', 'Bay', 'Ocean', 'River',
  'Lake', 'Hill', 'Valley', 'Windsor', 'Cumberland', 'Sunnyside', 'Cleveland', 'Nepean', 'Botany', 'Grand Junction',
  'Canning', 'Sandgate', 'Old Northern', 'Settlement', 'Harbour', 'Esplanade', 'Smith', 'Brown', 'Taylor', 'Kennedy',
];
const STREET_TYPES = ['Road', 'Road', 'Road', 'Road', 'Street', 'Street', 'Street', 'Avenue', 'Parade', 'Drive', 'Terrace', 'Boulevard', 'Way'];

const HIGHWAYS: Readonly<Record<StateId, readonly string[]>> = {
  nsw: ['Pacific', 'Hume', 'Great Western', 'New England', 'Newell', 'Princes', 'Mitchell', 'Sturt', 'Olympic', 'Oxley', 'Gwydir', 'Castlereagh'],
  vic: ['Princes', 'Hume', 'Western', 'Calder', 'Midland', 'Goulburn Valley', 'Northern', 'South Gippsland', 'Murray Valley', 'Sunraysia', 'Henty', 'Bass'],
  qld: ['Bruce', 'Warrego', 'Pacific', 'New England', 'Cunningham', 'Capricorn', 'Flinders', 'Gregory', 'Landsborough', 'Leichhardt', 'Burnett', 'Kennedy'],
  wa: ['Great Eastern', 'Great Northern', 'Brand', 'South Western', 'Albany', 'North West Coastal', 'Forrest', 'Bussell', 'Great Southern'],
  sa: ['Princes', 'Stuart', 'Sturt', 'Dukes', 'Augusta', 'Eyre', 'Riddoch', 'Barrier', 'Lincoln'],
  tas: ['Midland', 'Bass', 'Tasman', 'Lyell', 'Huon', 'Channel', 'Esk', 'Brooker'],
  nt: ['Stuart', 'Victoria', 'Barkly', 'Arnhem', 'Lasseter', 'Kakadu'],
  act: ['Federal', 'Barton', 'Monaro'],
};

/** Metro postcodes of each capital: suburbs nearer the centre get the lower codes. */
const METRO_POSTCODES: Readonly<Record<StateId, ReadonlyArray<readonly [number, number]>>> = {
  nsw: [[2000, 2234]], vic: [[3000, 3207]], qld: [[4000, 4179]], wa: [[6000, 6199]], sa: [[5000, 5174]],
  tas: [[7000, 7055]], nt: [[800, 832]], act: [[2600, 2617], [2900, 2914]],
};

const AREA_CODES: Readonly<Record<StateId, string>> = { nsw: '02', act: '02', vic: '03', tas: '03', qld: '07', sa: '08', wa: '08', nt: '08' };

interface Suburb { name: string; postcode: string; x: number; y: number }

function invent(taken: Set<string>, make: () => string): string {
  for (let i = 0; i < 50; i++) {
    const name = make();
    if (!taken.has(name)) {
      taken.add(name);
      return name;
    }
  }
  // The pools are far larger than any capital's suburb count; this only guards the loop.
  const name = `${make()} ${taken.size}`;
  taken.add(name);
  return name;
}

export function capitalSuburbs(seed: number, town: Town, stations: number, radiusKm: number): Suburb[] {
  const rng = new Rng(seed, 'suburbs', town.id);
  const count = Math.max(8, Math.min(600, Math.ceil(stations / 3)));
  const taken = new Set<string>(TOWNS.map((t) => t.name));
  const suburbs: Array<Omit<Suburb, 'postcode'>> = [];
  for (let i = 0; i < count; i++) {
    const r = radiusKm * Math.sqrt(rng.next());
    const a = rng.range(0, 2 * Math.PI);
    const name = invent(taken, () => suburbName(rng));
    suburbs.push({ name, x: r * Math.cos(a), y: r * Math.sin(a) });
  }
  const codes: number[] = [];
  for (const [lo, hi] of METRO_POSTCODES[town.state]) for (let c = lo; c <= hi; c++) codes.push(c);
  const byDistance = suburbs.slice().sort((p, q) => Math.hypot(p.x, p.y) - Math.hypot(q.x, q.y));
  const postcodes = new Map<string, string>();
  byDistance.forEach((s, rank) => {
    const code = codes[Math.min(codes.length - 1, Math.floor((rank / byDistance.length) * codes.length))] ?? codes[0] ?? 0;
    postcodes.set(s.name, String(code).padStart(4, '0'));
  });
  return suburbs.map((s) => ({ ...s, postcode: postcodes.get(s.name) ?? '0000' }));
}

export function townSuburb(town: Town, stations: number, x: number, y: number): string {
  const km = Math.hypot(x, y);
  if (stations < 3 || km < 1.5) return town.name;
  if (Math.abs(y) >= Math.abs(x)) return `${town.name} ${y > 0 ? 'North' : 'South'}`;
  return `${town.name} ${x > 0 ? 'East' : 'West'}`;
}

export function street(rng: Rng, state: StateId, area: Area): string {
  const highway = rng.chance(area === 'capital' ? 0.15 : area === 'town' ? 0.45 : 0.8);
  const top = area === 'capital' ? 1200 : 400;
  const number = 1 + Math.floor(top * rng.next() ** 2);
  // A capital's highways are the big ones that run into it: the first few of the state's list.
  if (highway) return `${number} ${rng.pick(area === 'capital' ? HIGHWAYS[state].slice(0, 3) : HIGHWAYS[state])} Highway`;
  return `${number} ${rng.pick(STREET_NAMES)} ${rng.pick(STREET_TYPES)}`;
}

export function phone(rng: Rng, state: StateId, used: Set<string>): string {
  if (rng.chance(0.2)) return '';
  // ACMA sets aside (0x) 5550 xxxx and (0x) 7010 xxxx for fiction: an invented station must
  // never send a caller to a real subscriber.
  for (let i = 0; i < 20; i++) {
    const block = rng.chance(0.5) ? '5550' : '7010';
    const number = `(${AREA_CODES[state]}) ${block} ${String(rng.int(0, 9999)).padStart(4, '0')}`;
    if (!used.has(number)) {
      used.add(number);
      return number;
    }
  }
  return '';
}
