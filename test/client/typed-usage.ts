/**
 * Compiled, never run (test/client/build.test.ts, and `npm run typecheck`): what the client's
 * types accept and refuse. Each @ts-expect-error must meet an error, or the compile fails.
 */
import { FuelPriceClient, type Item, RateLimitedError } from '../../clients/typescript/src/index.ts';

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
