/**
 * Tomorrow end to end, from real answers: `fuelprice ingest wa` (WA_FUELWATCH_SOURCE unset: auto,
 * the site API first) in its own process against the fake FuelWatch serving the real site API
 * capture of 30 March 2026, 14:48 WA (test/fixtures/real/wa-api/), then the public API over what
 * it wrote, on each backend. Every expected value is worked out here from the capture itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FUELS } from '../../../src/domain/fuels.ts';
import { type WaFake, WA_API_CAPTURED, startWaFake, waApiSites } from '../../fakes/wa.ts';
import { type E2eDatabase, apiAnswers, e2eBackends, ingest } from './harness.ts';

const TODAY_0600 = Date.parse('2026-03-29T22:00:00Z') / 1000; // 2026-03-30 06:00 WA
const TOMORROW_0600 = Date.parse('2026-03-30T22:00:00Z') / 1000; // 2026-03-31 06:00 WA
const CAPTURED = { ULP: 'ulp91', DSL: 'diesel', '98R': 'ulp98' } as const;
type FuelType = keyof typeof CAPTURED;
const CITIES = ['perth', 'bunbury', 'busselton', 'mount-barker', 'armadale'];

interface Site { id: number; name: string; street: string; address: string; today: number | null; tomorrow: number | null; out: boolean; closedTomorrow: boolean }

/** The capture of one product as the reference reads it: prices in tenths of a cent. */
function sites(fuelType: FuelType): Site[] {
  return waApiSites(fuelType).map((s) => {
    const address = s['address'] as Record<string, unknown>;
    const product = s['product'] as Record<string, unknown>;
    const tenths = (v: unknown) => (typeof v === 'number' ? Math.round(v * 10) : null);
    const until = (holder: Record<string, unknown>) => {
      const from = typeof holder['tempUnavailableFrom'] === 'string' ? Date.parse(holder['tempUnavailableFrom']) / 1000 : undefined;
      const to = typeof holder['tempUnavailableTo'] === 'string' ? Date.parse(holder['tempUnavailableTo']) / 1000 : undefined;
      return from !== undefined && from <= WA_API_CAPTURED && (to === undefined || to > WA_API_CAPTURED);
    };
    return {
      id: Number(s['id']), name: String(s['siteName']), street: String(address['line1']),
      address: `${String(address['line1'])}, ${String(address['location'])} WA ${String(address['postCode'])}`,
      today: tenths(product['priceToday']), tomorrow: tenths(product['priceTomorrow']), out: until(product) || until(s),
      closedTomorrow: s['isClosedAllDayTomorrow'] === true,
    };
  });
}

const cents = (t: number): string => `${Math.floor(t / 10)}.${t % 10}`;
/** The mean of tenths of a cent as dollars, two decimals, half up (exact: integers only). */
function dollars(sum: number, count: number): string {
  const c = Math.floor((2 * sum + 10 * count) / (20 * count));
  return `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
}

for (const backend of e2eBackends()) {
  describe(`WA site API, tomorrow, end to end on ${backend.name}`, () => {
    let fake: WaFake;
    let db: E2eDatabase;
    before(async () => {
      fake = await startWaFake({ api: true });
      db = await backend.create();
    });
    after(async () => {
      await fake.close();
      await db.drop();
    });

    test('the capture\'s rows: today\'s stored, tomorrow\'s held, stations keyed by FuelWatch\'s id', async () => {
      const run = await ingest('wa', db.url, WA_API_CAPTURED, { WA_FUELWATCH_URL: fake.url });
      assert.equal(run.code, 0, run.stderr);
      const all = (Object.keys(CAPTURED) as FuelType[]).flatMap(sites);
      const today = all.filter((s) => s.today !== null || s.out).length;
      const held = all.filter((s) => s.tomorrow !== null).length;
      const stations = new Set(all.map((s) => s.id)).size;
      assert.equal(run.stdout, `2026-03-30T06:48:55Z  wa    ok     0s  stations +${stations} ~0, prices ${today + held} read: ${today} stored, 0 already known, 0 corrected, ${held} held, 0 rejected\n`);
      // The site API only: 7 requests, no RSS.
      assert.deepEqual(fake.server.requests.map((r) => r.path), Array(7).fill('/api/sites'));
    });

    test('cheapest ULP tomorrow in WA: every site with a price for tomorrow, ranked by it', async () => {
      const path = '/v1/prices/cheapest?fuel=ulp91&state=wa&day=tomorrow&limit=100';
      const { [path]: answer } = await apiAnswers(db.url, WA_API_CAPTURED, [path]);
      const expected = sites('ULP').filter((s) => s.tomorrow !== null && !s.closedTomorrow)
        .map((s) => ({ name: s.name, address: s.address, price: cents(s.tomorrow ?? 0), updated_at: TOMORROW_0600 }));
      const body = answer?.body as { data: Array<{ name: string; address: string; price: string; updated_at: number }>; total_items: number };
      assert.equal(answer?.status, 200);
      assert.equal(body.total_items, expected.length);
      // Ranked by price (ties by station id, a slug of the name: compared here as a set per price).
      assert.deepEqual(body.data.map((i) => i.price), expected.map((e) => e.price).sort((a, b) => Number(a) - Number(b)));
      const key = (i: { name: string; address: string; price: string; updated_at: number }) => `${i.price}|${i.name}|${i.address}|${i.updated_at}`;
      assert.deepEqual(body.data.map(key).sort(), expected.map(key).sort());
    });

    test('a station\'s prices: today\'s in force and tomorrow\'s {price, from}, per fuel, from the capture', async () => {
      const path = '/v1/stations/burk-cannington/prices';
      const { [path]: answer } = await apiAnswers(db.url, WA_API_CAPTURED, [path]);
      assert.equal(answer?.status, 200);
      const expected = FUELS.map((fuel) => {
        const fuelType = (Object.keys(CAPTURED) as FuelType[]).find((f) => CAPTURED[f] === fuel);
        const s = fuelType && sites(fuelType).find((x) => x.id === 2342);
        if (!s) return { fuel, price: false, available: false, updated_at: false, source: false, tomorrow: false };
        return {
          fuel, price: s.today === null ? false : cents(s.today), available: s.today !== null && !s.out, updated_at: TODAY_0600, source: 'wa',
          tomorrow: s.tomorrow === null ? false : { price: cents(s.tomorrow), from: TOMORROW_0600 },
        };
      });
      assert.deepEqual(answer?.body, { data: { id: 'burk-cannington', name: 'Burk Cannington', prices: expected } });
    });

    test('each city\'s spread and average gain tomorrow\'s, over its stations\' prices for tomorrow', async () => {
      const lists = await apiAnswers(db.url, WA_API_CAPTURED, CITIES.map((c) => `/v1/stations?city=${c}&limit=100`));
      let checked = 0;
      for (const city of CITIES) {
        const members = (lists[`/v1/stations?city=${city}&limit=100`]?.body as { data: Array<{ name: string; street: string }> }).data;
        if (members.length === 0) continue;
        checked++;
        const inCity = (s: Site) => members.some((m) => m.name === s.name && m.street === s.street);
        const named: Record<string, { average: string; min: string; max: string }> = {};
        const averages: Record<string, { average: string }> = {};
        for (const fuelType of Object.keys(CAPTURED) as FuelType[]) {
          const prices = sites(fuelType).filter((s) => inCity(s) && s.tomorrow !== null && !s.closedTomorrow).map((s) => s.tomorrow ?? 0);
          if (prices.length === 0) continue;
          const figures = { average: dollars(prices.reduce((a, b) => a + b, 0), prices.length), min: cents(Math.min(...prices)), max: cents(Math.max(...prices)) };
          // Each captured fuel is the only member of its combined id here (no E10, PULP or premium diesel captured).
          const combined = { ulp91: 'ulp-combined', ulp98: 'pulp-combined', diesel: 'diesel-combined' }[CAPTURED[fuelType]];
          for (const fuel of [CAPTURED[fuelType], combined]) {
            named[fuel] = figures;
            averages[fuel] = { average: figures.average };
          }
        }
        const answers = await apiAnswers(db.url, WA_API_CAPTURED, [`/v1/cities/${city}/spread`, `/v1/cities/${city}/average`]);
        const spread = answers[`/v1/cities/${city}/spread`]?.body as { data: { tomorrow: unknown } };
        const average = answers[`/v1/cities/${city}/average`]?.body as { data: { tomorrow: unknown } };
        const known = Object.keys(named).length > 0;
        assert.deepEqual(spread.data.tomorrow, known
          ? { from: TOMORROW_0600, spread: FUELS.map((fuel) => ({ fuel, ...(named[fuel] ?? { average: false, min: false, max: false }) })) } : false, city);
        assert.deepEqual(average.data.tomorrow, known
          ? { from: TOMORROW_0600, averages: FUELS.map((fuel) => ({ fuel, ...(averages[fuel] ?? { average: false }) })) } : false, city);
      }
      assert.ok(checked >= 2, `cities with stations: ${checked}`);
    });

    test('day=yesterday is a 400 in the documented error shape; NSW tomorrow is an empty list', async () => {
      const bad = '/v1/prices/cheapest?fuel=ulp91&state=wa&day=yesterday';
      const nsw = '/v1/prices/cheapest?fuel=ulp91&state=nsw&day=tomorrow';
      const answers = await apiAnswers(db.url, WA_API_CAPTURED, [bad, nsw]);
      const error = answers[bad]?.body as { error: { code: string; message: string; request_id: string } };
      assert.equal(answers[bad]?.status, 400);
      assert.deepEqual(Object.keys(error), ['error']);
      assert.equal(error.error.code, 'invalid_parameter');
      assert.match(error.error.message, /'day'.*today or tomorrow/);
      assert.equal(typeof error.error.request_id, 'string');
      assert.deepEqual(answers[nsw], { status: 200, body: { data: [], total_items: 0, total_pages: 0, current_page: 1 } });
    });
  });
}
