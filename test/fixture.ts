import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import type { Batch, CityInput, PriceStore, StationInput } from '../src/storage/store.ts';
import { type NewToken, newToken } from '../src/tokens.ts';

/**
 * A small hand-made dataset; the expected answers in the tests were worked out on paper
 * from these numbers (see the comments there). Sydney is UTC+11 in November, Perth UTC+8.
 */
export const NOW = 1_795_395_600; // 2026-11-23 12:00 Sydney = 09:00 Perth

export const CITIES: CityInput[] = [
  { id: 'sydney', name: 'Sydney', state: 'nsw', latitude: -33.8679, longitude: 151.2073 },
  { id: 'perth', name: 'Perth', state: 'wa', latitude: -31.9522, longitude: 115.8614 },
  { id: 'hobart', name: 'Hobart', state: 'tas', latitude: -42.8794, longitude: 147.3294 },
];

const station = (feedCode: string, name: string, brand: string, state: 'nsw' | 'wa', latitude: number, longitude: number, extra: Partial<StationInput> = {}): StationInput => ({
  feed: 'test', feedCode, slug: name, name, brand, address: '', street: '', suburb: '', postcode: state === 'nsw' ? '2000' : '6000',
  state, phone: '', website: '', latitude, longitude, ...extra,
});

export const STATIONS: StationInput[] = [
  station('1', 'Alpha Sydney', 'Ampol', 'nsw', -33.87, 151.21, { street: '1 George Street', suburb: 'Sydney', address: '1 George Street, Sydney NSW 2000', phone: '(02) 9000 0001' }),
  station('2', 'Beta Sydney', 'bp', 'nsw', -33.88, 151.2),
  station('3', 'Gamma Perth', 'Caltex', 'wa', -31.95, 115.86),
  station('4', 'Alpha Sydney', 'Ampol', 'nsw', -33.86, 151.19),
  // 60 km from Sydney: in no city.
  station('5', 'Delta Country', 'United', 'nsw', -33.5, 150.7),
];

const at = {
  nov20: 1_795_093_200, // 20-11 00:00 Sydney
  nov21: 1_795_179_600,
  nov21_0600: 1_795_201_200,
  nov21_1800: 1_795_244_400,
  nov22: 1_795_266_000,
  nov22_1000: 1_795_302_000,
  nov22_1200: 1_795_309_200,
  nov23_0800: 1_795_381_200,
  nov23_0900: 1_795_384_800,
  perthNov23_0600: 1_795_384_800,
};

const p = (feedCode: string, fuel: Batch['prices'][number]['fuel'], when: number, priceTenths: number, available = true) =>
  ({ feed: 'test', feedCode, fuel, at: when, priceTenths, available });

export const PRICES: Batch['prices'] = [
  p('1', 'ulp91', at.nov20, 1800),
  p('1', 'ulp91', at.nov21_0600, 1900),
  p('1', 'ulp91', at.nov21_1800, 1850),
  p('1', 'e10', at.nov22, 1770),
  p('1', 'e10', at.nov23_0800, 1770, false),
  p('2', 'ulp91', at.nov21, 1700),
  p('2', 'ulp91', at.nov22_1200, 1700, false),
  p('2', 'ulp91', at.nov23_0900, 1750),
  p('2', 'diesel', at.nov22_1000, 1990),
  p('3', 'ulp91', at.perthNov23_0600, 1650),
  p('5', 'diesel', at.nov22, 2100),
];

export async function loadFixture(store: PriceStore, options: { seal?: boolean } = {}): Promise<void> {
  await store.upsertCities(CITIES);
  await store.applyBatch({ stations: STATIONS, prices: PRICES });
  if (options.seal ?? true) await store.seal(NOW);
}

/** A SQLite file at `path` holding the fixture and one new token named `name` (for a server in its own process). */
export async function fixtureFile(path: string, name: string, options: { rateLimit?: number } = {}): Promise<NewToken> {
  const created = newToken(name, NOW, options);
  const store = new SqliteStore(path);
  try {
    await store.migrate();
    await loadFixture(store);
    await store.createToken(created.record);
  } finally {
    await store.close();
  }
  return created;
}
