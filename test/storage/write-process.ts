/**
 * A writer in a process of its own, for test/storage/multiprocess.test.ts:
 * `node --import tsx test/storage/write-process.ts fixture|price` with DATABASE_URL set.
 * `fixture` loads test/fixture.ts; `price` applies one new price (Beta Sydney, ULP 91, 160.0, today 10:00 Sydney).
 */
import { openStore } from '../../src/storage/open.ts';
import { NOW, loadFixture } from '../fixture.ts';

const NEW_PRICE_AT = NOW - 2 * 3600;

const mode = process.argv[2];
const store = await openStore(process.env.DATABASE_URL ?? '');
try {
  if (mode === 'fixture') {
    await loadFixture(store);
  } else if (mode === 'price') {
    await store.applyBatch({ stations: [], prices: [{ feed: 'test', feedCode: '2', fuel: 'ulp91', at: NEW_PRICE_AT, priceTenths: 1600, available: true }] });
  } else {
    throw new Error(`unknown mode '${mode ?? ''}'`);
  }
} finally {
  await store.close();
}
