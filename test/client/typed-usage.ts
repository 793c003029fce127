/**
 * Compiled, never run (test/client/build.test.ts, and `npm run typecheck`): what the client's
 * types accept and refuse. Each @ts-expect-error must meet an error, or the compile fails.
 */
import { FuelPriceClient, type Item, NotFoundError, RateLimitedError } from '../../clients/typescript/src/index.ts';

export async function usage(client: FuelPriceClient): Promise<void> {
  const city = await client.getCity('sydney');
  const name: string = city.data.name;
  const state: 'nsw' | 'vic' | 'qld' | 'wa' | 'sa' | 'tas' | 'nt' | 'act' = city.data.state;
  const page = await client.listStations({ state: 'nsw', fuel: 'diesel-combined', limit: 5, page: 2 });
  const total: number = page.total_pages;
  for await (const station of client.stations({ near: '-33.87,151.2', radius: '5' })) {
    const distance: string | undefined = station.distance_km;
    void distance;
  }
  const first: Item<'listCheapestStations'> | undefined = (await client.listCheapestStations({ fuel: 'ulp91', state: 'wa' })).data[0];
  void [name, state, total, first, RateLimitedError];

  // The POST forms take the GET's parameters as one object; ids as an array.
  const batch = await client.postStationsPrices({ ids: ['alpha-sydney', 'beta-sydney'], max_age: 24 });
  const unknown: string[] = batch.unknown;
  const along = await client.postPricesAlong({ fuel: 'ulp91', path: '~t{mEkzbz[~zfBvqvB', corridor: 2.5, limit: 100 });
  void [unknown, along.total_items];
  // @ts-expect-error: the batch needs its ids
  await client.postStationsPrices({ max_age: 24 });
  // @ts-expect-error: along needs a path
  await client.postPricesAlong({ fuel: 'ulp91' });

  // @ts-expect-error: not a state
  await client.listCities({ state: 'xx' });
  // @ts-expect-error: not a timeframe
  await client.getCityHistory('sydney', { timeframe: 'yesterday' });
  // @ts-expect-error: the cheapest stations need a fuel
  await client.listCheapestStations({ state: 'nsw' });
  // @ts-expect-error: the iterator sets the page itself
  client.cities({ page: 2 });
  // @ts-expect-error: a path id is a string
  await client.getStation(42);
  // @ts-expect-error: no such field on a city
  void city.data.population;
}

/** docs/API.md's example ("TypeScript client"), as written there. */
export async function readmeExample(): Promise<void> {
  const client = new FuelPriceClient({ baseUrl: 'http://127.0.0.1:8080', token: 'fp_...' });
  const { data } = await client.getCitySpread('sydney');          // data.spread[0].min: "164.9"
  for await (const station of client.stations({ city: 'perth', fuel: 'diesel' })) console.log(station.id);
  try {
    await client.getStation('no-such-station');
  } catch (error) {
    if (error instanceof NotFoundError) console.log(error.code, error.requestId); // not_found 8f3c…
  }
  const min: string | false | undefined = data.spread[0]?.min;
  void min;
}
