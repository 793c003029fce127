import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMBINED_FUELS, type FuelId } from '../../src/domain/fuels.ts';
import { STATES, type StateId } from '../../src/domain/states.ts';
import { localDayOf, utcOffsetSeconds } from '../../src/domain/time.ts';
import { type DemoOptions, demoBatches, demoCities, stationBatches, writeDemo } from '../../src/ingest/demo.ts';
import { planStations } from '../../src/ingest/demo/stations.ts';
import { assignCity, distanceKm } from '../../src/domain/places.ts';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store.ts';
import type { Batch, PriceEvent, StationInput } from '../../src/storage/store.ts';
import { fixedClock, get, startServer } from '../helpers.ts';

const NOW = Date.parse('2026-03-12T03:30:00Z') / 1000;
const DAY = 86_400;
const CAPITALS = ['sydney', 'melbourne', 'brisbane', 'perth', 'adelaide', 'hobart', 'darwin', 'canberra'];
const CYCLING = new Set(['sydney', 'melbourne', 'brisbane', 'perth', 'adelaide']);
const MAIN: readonly FuelId[] = ['ulp91', 'e10', 'ulp95', 'ulp98', 'diesel'];

const short = (over: Partial<DemoOptions> = {}): DemoOptions => ({ seed: 7, years: 0.1, scale: 'small', nowSec: NOW, ...over });

interface Generated { stations: StationInput[]; prices: PriceEvent[]; batches: Batch[] }

function generate(options: DemoOptions, source = demoBatches): Generated {
  const batches = [...source(options)];
  return { batches, stations: batches.flatMap((b) => b.stations), prices: batches.flatMap((b) => b.prices) };
}

function freshStore(): { store: SqliteStore; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fp-'));
  return { store: new SqliteStore(join(dir, 'db.sqlite')), dir };
}

const localSecondOfDay = (state: StateId, at: number): number => (((at + utcOffsetSeconds(state, at)) % DAY) + DAY) % DAY;

/** Every station-fuel's reports in order, with the station's state and town. */
function series(g: Generated): Map<string, { state: StateId; events: PriceEvent[] }> {
  const stateOf = new Map(g.stations.map((s) => [s.feedCode, s.state]));
  const out = new Map<string, { state: StateId; events: PriceEvent[] }>();
  for (const e of g.prices) {
    const key = `${e.feedCode}/${e.fuel}`;
    let entry = out.get(key);
    if (!entry) out.set(key, (entry = { state: stateOf.get(e.feedCode) ?? 'nsw', events: [] }));
    entry.events.push(e);
  }
  for (const entry of out.values()) entry.events.sort((a, b) => a.at - b.at);
  return out;
}

describe('demo cities and stations', () => {
  test('cities come from towns.json: every state, the eight capitals by id, numeric positions', () => {
    const cities = demoCities();
    assert.equal(cities.length, 304);
    assert.deepEqual(new Set(cities.map((c) => c.state)), new Set(STATES));
    const ids = new Set(cities.map((c) => c.id));
    assert.equal(ids.size, cities.length);
    for (const id of CAPITALS) assert.ok(ids.has(id), id);
    for (const c of cities) {
      assert.equal(typeof c.latitude, 'number');
      assert.ok(c.latitude < -9 && c.latitude > -44 && c.longitude > 112 && c.longitude < 154, c.id);
    }
  });

  test('small has about 1,600 stations and au about 8,000, spread over the states like the real market', () => {
    const small = planStations(1, 'small');
    assert.ok(small.length >= 1500 && small.length <= 1700, String(small.length));
    const au = planStations(1, 'au');
    assert.ok(au.length >= 7600 && au.length <= 8400, String(au.length));
    const real: Record<StateId, number> = { nsw: 2200, vic: 1500, qld: 1650, wa: 800, sa: 550, tas: 200, nt: 130, act: 60 };
    for (const state of STATES) {
      const share = au.filter((p) => p.input.state === state).length / au.length;
      const want = real[state] / 7090;
      assert.ok(Math.abs(share - want) < 0.01, `${state} ${share.toFixed(3)} vs ${want.toFixed(3)}`);
    }
    // Every town has a station, and the capital has the most in its state.
    const byTown = new Map<string, number>();
    for (const p of small) byTown.set(p.town.id, (byTown.get(p.town.id) ?? 0) + 1);
    for (const c of demoCities()) assert.ok((byTown.get(c.id) ?? 0) >= 1, c.id);
    for (const capital of CAPITALS) {
      const state = demoCities().find((c) => c.id === capital)?.state;
      const max = Math.max(...demoCities().filter((c) => c.state === state).map((c) => byTown.get(c.id) ?? 0));
      assert.equal(byTown.get(capital), max, capital);
    }
  });

  test('each station lies near its own town, which the 25 km rule picks', () => {
    const cities = demoCities();
    const byState = new Map<StateId, typeof cities>();
    for (const c of cities) byState.set(c.state, [...(byState.get(c.state) ?? []), c]);
    for (const p of planStations(3, 'small')) {
      const { latitude, longitude, state } = p.input;
      assert.ok(latitude !== null && longitude !== null, `${p.input.name} has a position`);
      assert.equal(assignCity(byState.get(state) ?? [], latitude, longitude), p.town.id, p.input.feedCode);
      const km = distanceKm(latitude, longitude, p.town.latitude, p.town.longitude);
      assert.ok(km <= (p.town.capital ? 17 : 5.5), `${p.input.name} ${km.toFixed(1)} km from ${p.town.id}`);
    }
  });

  test('station fields are plausible: codes, names, addresses, postcodes, phones, brands', () => {
    const plans = planStations(5, 'small');
    const stations = plans.map((p) => p.input);
    assert.equal(new Set(stations.map((s) => s.feedCode)).size, stations.length);
    const postcode: Record<StateId, (n: number) => boolean> = {
      nsw: (n) => n >= 2000 && n <= 2999 && !(n >= 2600 && n <= 2618) && !(n >= 2900 && n <= 2914),
      act: (n) => (n >= 2600 && n <= 2618) || (n >= 2900 && n <= 2914),
      vic: (n) => n >= 3000 && n <= 3999, qld: (n) => n >= 4000 && n <= 4999, sa: (n) => n >= 5000 && n <= 5799,
      wa: (n) => n >= 6000 && n <= 6797, tas: (n) => n >= 7000 && n <= 7799, nt: (n) => n >= 800 && n <= 899,
    };
    const area: Record<StateId, string> = { nsw: '02', act: '02', vic: '03', tas: '03', qld: '07', sa: '08', wa: '08', nt: '08' };
    let withPhone = 0;
    for (const s of stations) {
      assert.equal(s.feed, 'demo');
      assert.match(s.feedCode, /^demo-\d{6}$/);
      assert.equal(s.slug, s.name);
      assert.match(s.postcode, /^\d{4}$/);
      assert.ok(postcode[s.state](Number(s.postcode)), `${s.name}: ${s.state} ${s.postcode}`);
      assert.equal(s.address, `${s.street}, ${s.suburb} ${s.state.toUpperCase()} ${s.postcode}`);
      assert.match(s.street, /^\d{1,4} [A-Z][A-Za-z' -]+ [A-Z][a-z]+$/);
      assert.ok(s.name.length > 3 && s.suburb.length > 2);
      if (s.phone !== '') {
        withPhone++;
        assert.match(s.phone, new RegExp(`^\\(${area[s.state]}\\) \\d{4} \\d{4}$`));
      }
      assert.ok(s.website === '' || s.website.startsWith('https://'));
    }
    assert.ok(withPhone > stations.length * 0.7 && withPhone < stations.length * 0.9);
    const brands = new Map<string, number>();
    for (const s of stations) brands.set(s.brand, (brands.get(s.brand) ?? 0) + 1);
    for (const b of ['Ampol', 'bp', '7-Eleven', 'United', 'Reddy Express', 'Costco', 'On The Run']) assert.ok((brands.get(b) ?? 0) > 0, b);
    assert.ok((brands.get('Ampol') ?? 0) > (brands.get('Costco') ?? 0) * 10);
    const otr = stations.filter((s) => s.brand === 'On The Run');
    assert.ok(otr.filter((s) => s.state === 'sa').length > otr.length / 2, 'On The Run is mostly South Australian');
    for (const s of stations.filter((x) => x.brand === 'Costco')) {
      assert.ok(['sydney', 'melbourne', 'brisbane', 'perth', 'adelaide', 'canberra'].includes(plans[Number(s.feedCode.slice(5))]?.town.id ?? ''));
    }
  });

  test('fuels per station follow the market; combined ids are never sold', () => {
    const plans = planStations(2, 'au');
    const share = (fuel: FuelId, filter: (p: (typeof plans)[number]) => boolean = () => true): number => {
      const some = plans.filter(filter);
      return some.filter((p) => p.fuels.includes(fuel)).length / some.length;
    };
    const combined = Object.keys(COMBINED_FUELS);
    for (const p of plans) for (const f of p.fuels) assert.ok(!combined.includes(f), f);
    assert.ok(share('ulp91') > 0.9 && share('diesel') > 0.9);
    assert.ok(share('e10', (p) => p.input.state === 'nsw') > share('e10', (p) => p.input.state === 'vic') + 0.3);
    assert.ok(share('ulp98', (p) => p.area === 'capital') > share('ulp98', (p) => p.area !== 'capital'));
    assert.ok(share('lpg') > 0.15 && share('lpg') < 0.35);
    assert.ok(share('ev') > 0.005 && share('ev') < 0.04);
    for (const p of plans) {
      if (p.fuels.includes('opal')) assert.ok(['nt', 'sa', 'wa'].includes(p.input.state) && !p.town.capital, p.input.name);
      if (p.fuels.includes('cng') || p.fuels.includes('lng')) assert.ok(p.town.capital, p.input.name);
      if (p.fuels.includes('e85')) assert.ok(p.town.capital && ['nsw', 'vic', 'qld'].includes(p.input.state), p.input.name);
    }
    for (const capital of CAPITALS) {
      for (const fuel of MAIN) assert.ok(plans.some((p) => p.town.id === capital && p.fuels.includes(fuel)), `${capital} ${fuel}`);
    }
  });
});

describe('demo prices', () => {
  // One short history shared by the event checks below (generation takes a fraction of a second).
  const options = short({ years: 0.15 });
  const g = generate(options);
  const startSec = NOW - Math.round(0.15 * 365.25 * DAY);

  test('the same options give the same batches; another seed gives other data', () => {
    const tiny = short({ years: 0.03 });
    assert.deepEqual(generate(tiny).batches, generate(tiny).batches);
    const other = generate(short({ years: 0.03, seed: tiny.seed + 1 }));
    assert.notDeepEqual(other.stations.map((s) => s.name), generate(tiny).stations.map((s) => s.name));
    assert.notDeepEqual(other.prices.slice(0, 500), generate(tiny).prices.slice(0, 500));
  });

  test('stations come first, then prices in time order, none after now', () => {
    const [first, ...rest] = g.batches;
    assert.ok(first && first.stations.length > 1500 && first.prices.length === 0);
    let last = -Infinity;
    for (const batch of rest) {
      assert.equal(batch.stations.length, 0);
      for (const e of batch.prices) {
        assert.ok(e.at >= last, 'time order');
        assert.ok(e.at <= NOW && e.at >= startSec, 'within the history');
        last = e.at;
      }
    }
  });

  test('stationBatches holds exactly the reports of demoBatches', () => {
    const tiny = short({ years: 0.05, seed: 11 });
    const key = (e: PriceEvent): string => `${e.feedCode} ${e.fuel} ${e.at} ${e.priceTenths} ${e.available}`;
    const a = generate(tiny).prices.map(key).sort();
    const b = generate(tiny, stationBatches).prices.map(key).sort();
    assert.equal(a.length, b.length);
    assert.deepEqual(a, b);
  });

  test('prices are within plausible bounds; no combined fuel is reported', () => {
    const combined = Object.keys(COMBINED_FUELS);
    let ev = 0;
    for (const e of g.prices) {
      assert.ok(!combined.includes(e.fuel), e.fuel);
      assert.ok(Number.isInteger(e.priceTenths) && Number.isInteger(e.at));
      if (e.fuel === 'ev') {
        ev++;
        assert.ok(e.priceTenths >= 200 && e.priceTenths <= 900, `ev ${e.priceTenths}`);
      } else assert.ok(e.priceTenths >= 800 && e.priceTenths <= 3500, `${e.fuel} ${e.priceTenths}`);
    }
    assert.ok(ev > 0 && ev < g.prices.length, 'both bounds were checked');
  });

  test('every station-fuel starts at the start of history, available; reports only on a change', () => {
    let outOfStock = 0;
    for (const [key, { events }] of series(g)) {
      const [first] = events;
      assert.ok(first && first.available && first.at >= startSec && first.at <= startSec + 900, key);
      for (let i = 1; i < events.length; i++) {
        const a = events[i - 1];
        const b = events[i];
        assert.ok(a && b && b.at > a.at, `${key}: strictly increasing`);
        assert.ok(a.priceTenths !== b.priceTenths || a.available !== b.available, `${key}: repeated report at ${b.at}`);
        if (!b.available) {
          outOfStock++;
          assert.equal(b.priceTenths, a.priceTenths, `${key}: out of stock keeps the last price`);
        }
      }
    }
    assert.ok(outOfStock > 0, 'the demo runs out of some fuel somewhere');
  });

  test('grades keep their order at the start: e10 < ulp91 < ulp95 < ulp98; LPG 90-135 c', () => {
    const first = new Map<string, Map<FuelId, number>>();
    for (const e of g.prices) {
      if (e.at > startSec + 900) break;
      let m = first.get(e.feedCode);
      if (!m) first.set(e.feedCode, (m = new Map<FuelId, number>()));
      m.set(e.fuel, e.priceTenths);
    }
    const checked = { e10: 0, ulp95: 0, ulp98: 0, lpg: 0 };
    for (const [code, m] of first) {
      const [e10, u91, u95, u98] = [m.get('e10'), m.get('ulp91'), m.get('ulp95'), m.get('ulp98')];
      if (e10 !== undefined && u91 !== undefined) { checked.e10++; assert.ok(e10 < u91 && u91 - e10 <= 50, code); }
      if (u91 !== undefined && u95 !== undefined) { checked.ulp95++; assert.ok(u95 - u91 >= 100 && u95 - u91 <= 190, code); }
      if (u95 !== undefined && u98 !== undefined) { checked.ulp98++; assert.ok(u98 > u95, code); }
      const lpg = m.get('lpg');
      if (lpg !== undefined) { checked.lpg++; assert.ok(lpg >= 900 && lpg <= 1350, `${code} lpg ${lpg}`); }
    }
    for (const [pair, n] of Object.entries(checked)) assert.ok(n > 0, `some station sells ${pair} and the grade below it`);
  });

  test('WA changes prices only at 06:00; Victoria raises only at the day\'s first report, early', () => {
    let wa = 0;
    let vic = 0;
    const byStationDay = new Map<string, number>();
    const stateOf = new Map(g.stations.map((s) => [s.feedCode, s.state]));
    for (const e of g.prices) {
      if (stateOf.get(e.feedCode) !== 'vic') continue;
      const k = `${e.feedCode} ${localDayOf('vic', e.at)}`;
      byStationDay.set(k, Math.min(byStationDay.get(k) ?? Infinity, e.at));
    }
    for (const [key, { state, events }] of series(g)) {
      for (let i = 1; i < events.length; i++) {
        const a = events[i - 1];
        const b = events[i];
        if (!a || !b || a.priceTenths === b.priceTenths) continue;
        if (state === 'wa') {
          wa++;
          assert.equal(localSecondOfDay('wa', b.at), 6 * 3600, `${key} changed at ${b.at}`);
        }
        if (state === 'vic' && b.priceTenths > a.priceTenths) {
          vic++;
          const sod = localSecondOfDay('vic', b.at);
          assert.ok(sod >= 5 * 3600 && sod < 7 * 3600, `${key} rose at ${sod}`);
          assert.equal(byStationDay.get(`${b.feedCode} ${localDayOf('vic', b.at)}`), b.at, `${key}: a rise after the day's first report`);
        }
      }
    }
    assert.ok(wa > 100 && vic > 100, `${wa} WA changes, ${vic} VIC rises`);
  });

  test('outside the five cycling capitals no petrol price jumps; diesel never jumps', () => {
    const plans = planStations(options.seed, options.scale);
    const town = new Map(plans.map((p) => [p.input.feedCode, p.town.id]));
    let cyclingJumps = 0;
    for (const [key, { events }] of series(g)) {
      const cycling = CYCLING.has(town.get(events[0]?.feedCode ?? '') ?? '');
      const fuel = events[0]?.fuel;
      for (let i = 1; i < events.length; i++) {
        const rise = (events[i]?.priceTenths ?? 0) - (events[i - 1]?.priceTenths ?? 0);
        if (rise <= 80) continue;
        if (cycling && fuel !== 'diesel' && fuel !== 'pdiesel') cyclingJumps++;
        else assert.fail(`${key}: rise of ${rise / 10} c`);
      }
    }
    assert.ok(cyclingJumps > 100, `${cyclingJumps} jumps in the cycling capitals`);
  });
});

describe('demo written to a store', () => {
  let dir = '';
  let store: SqliteStore;
  const options = short({ years: 0.1 });
  let written: { stations: number; prices: number; seconds: number };

  before(async () => {
    ({ store, dir } = freshStore());
    await store.migrate();
    written = await writeDemo(store, options);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('writes every station and report', async () => {
    const counts = await store.counts();
    assert.equal(counts.cities, 304);
    assert.equal(counts.stations, written.stations);
    assert.equal(counts.prices, written.prices);
    assert.ok(written.stations >= 1500 && written.prices > 10_000);
    for (const id of CAPITALS) assert.equal((await store.city(id))?.id, id);
    const states = new Set<StateId>();
    for (const state of STATES) if ((await store.listStations({ state, limit: 1, offset: 0 })).total > 0) states.add(state);
    assert.equal(states.size, STATES.length);
  });

  test('every capital sells the five main grades now, and some of its stations are out', async () => {
    let citiesWithOutages = 0;
    for (const capital of CAPITALS) {
      const current = await store.currentForCity(capital);
      assert.ok(current.length > 0, capital);
      for (const fuel of MAIN) {
        assert.ok(current.some((c) => c.fuel === fuel && c.available && c.priceTenths > 0), `${capital} ${fuel}`);
      }
      const out = current.filter((c) => !c.available);
      if (out.length > 0) citiesWithOutages++;
      for (const o of out.filter((c) => MAIN.includes(c.fuel))) {
        assert.ok(current.some((c) => c.fuel === o.fuel && c.available), `${capital}: someone else sells ${o.fuel}`);
      }
    }
    assert.ok(citiesWithOutages >= 2, `${citiesWithOutages} capitals with outages`);
  });

  test('the average endpoint answers the spread\'s average for every city and fuel (read without the extremes)', async () => {
    const server = await startServer(store, fixedClock(options.nowSec), { answerCache: false, defaultRateLimit: 10_000 });
    try {
      const { total } = await store.listCities({ state: undefined, limit: 1, offset: 0 });
      let priced = 0;
      for (let offset = 0; offset < total; offset += 100) {
        for (const city of (await store.listCities({ state: undefined, limit: 100, offset })).items) {
          const average = await get(server, `/v1/cities/${city.id}/average`);
          const spread = await get(server, `/v1/cities/${city.id}/spread`);
          assert.equal(average.status, 200, city.id);
          const averages = (average.body as { data: { averages: Array<{ fuel: string; average: string | false }> } }).data.averages;
          const spreads = (spread.body as { data: { spread: Array<{ fuel: string; average: string | false }> } }).data.spread;
          assert.deepEqual(averages, spreads.map(({ fuel, average: value }) => ({ fuel, average: value })), city.id);
          priced += averages.filter((a) => a.average !== false).length;
        }
      }
      assert.ok(priced > 1000, `${priced} city-fuel averages`);
    } finally {
      await server.close();
    }
  });

  test('today\'s ULP91 and diesel in the big capitals sit in the 2025-26 range', async () => {
    for (const capital of ['sydney', 'melbourne', 'brisbane', 'perth', 'adelaide']) {
      const current = await store.currentForCity(capital);
      for (const [fuel, lo, hi] of [['ulp91', 1500, 2100], ['diesel', 1650, 1950]] as const) {
        const prices = current.filter((c) => c.fuel === fuel && c.available).map((c) => c.priceTenths);
        const mean = prices.reduce((a, b) => a + b, 0) / prices.length;
        assert.ok(mean >= lo && mean <= hi, `${capital} ${fuel} ${mean.toFixed(0)}`);
      }
    }
  });

  test('Perth\'s daily ULP91 cycles weekly; Hobart\'s does not jump', async () => {
    const daily = async (city: string): Promise<number[]> => {
      const today = localDayOf(city === 'perth' ? 'wa' : 'tas', NOW);
      const parts = await store.cityHistoryParts(city, { from: today - 30, to: today - 1 });
      return parts.sealed.filter((r) => r.fuel === 'ulp91').sort((a, b) => a.day - b.day).map((r) => r.meanTenths);
    };
    const rises = (xs: number[]): number[] => xs.flatMap((x, i) => (i > 0 && x - (xs[i - 1] ?? x) > 50 ? [i] : []));
    const perth = await daily('perth');
    const hobart = await daily('hobart');
    assert.ok(perth.length >= 28 && hobart.length >= 28);
    // Rises of a cycle can take two days: count each run of rising days once.
    const starts = rises(perth).filter((day, k, all) => k === 0 || day - (all[k - 1] ?? 0) > 2);
    assert.ok(starts.length >= 3, `Perth rises on days ${rises(perth).join(',')}`);
    for (let k = 1; k < starts.length; k++) {
      const gap = (starts[k] ?? 0) - (starts[k - 1] ?? 0);
      assert.ok(gap >= 5 && gap <= 9, `Perth cycle of ${gap} days`);
    }
    assert.ok(Math.max(...perth) - Math.min(...perth) >= 100, 'Perth swings by 10 c or more');
    assert.deepEqual(rises(hobart), [], 'Hobart has no cycle');
  });

  test('station ids are unique, the same for the same seed, different for another', async () => {
    const ids = async (seed: number): Promise<string[]> => {
      const fresh = freshStore();
      try {
        await fresh.store.migrate();
        await fresh.store.upsertCities(demoCities());
        const [stations] = demoBatches(short({ seed, years: 0.01 }));
        assert.ok(stations);
        await fresh.store.applyBatch(stations);
        const all = await fresh.store.listStations({ state: undefined, limit: 100_000, offset: 0 });
        return all.items.map((s) => s.id);
      } finally {
        await fresh.store.close();
        rmSync(fresh.dir, { recursive: true, force: true });
      }
    };
    const written = (await store.listStations({ state: undefined, limit: 100_000, offset: 0 })).items.map((s) => s.id);
    assert.equal(new Set(written).size, written.length);
    assert.deepEqual(await ids(options.seed), written);
    assert.notDeepEqual(await ids(options.seed + 1), written);
  });
});
