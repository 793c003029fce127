/**
 * Real data, a backfill after a live ingest (issue 28): the real FuelCheck answer of 30 June 2024
 * (its stations named in the April 2020 workbook slice: test/fixtures/real/nsw-backfill/README.md)
 * through the NSW adapter, the day closed as `serve` closes it, then the real April 2020 workbook
 * slice through `import nsw-history`'s importer, in batches of 40 rows. It used to fail with a raw
 * UNIQUE constraint error on its second batch. Now the import succeeds with every row accounted
 * for, and every station's days equal those of a store that was given the same reports the other
 * way round (the history first, then the live answer) and closed only at the end.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { NSW_FUELS } from '../../../src/ingest/feeds/nsw.ts';
import { addNswAnswer, parseNswAnswer } from '../../../src/ingest/feeds/nsw-records.ts';
import { IMPORT_FORMATS, importFile } from '../../../src/ingest/import/run.ts';
import { accountedFor } from '../../../src/ingest/import/progress.ts';
import { Normaliser } from '../../../src/ingest/normalise.ts';
import type { Batch, PriceStore } from '../../../src/storage/store.ts';
import { assertDaysMatchReports, testBackends } from '../../helpers.ts';

const ANSWER = readFileSync(new URL('../../fixtures/real/nsw-backfill/data-slice.json', import.meta.url), 'utf8');
const WORKBOOK = fileURLToPath(new URL('../../fixtures/import/real/nsw-2020-04-slice.xlsx', import.meta.url));
// 30 June 2024, noon in Sydney (UTC+10), when the answer was taken; the server closes the day at 00:30.
const NOON = Date.UTC(2024, 5, 30, 2) / 1000;
const CLOSED = NOON + 12.5 * 3600;
const LATER = NOON + 86_400;

function liveBatch(): Batch {
  const normaliser = new Normaliser('nsw', NSW_FUELS, NOON);
  addNswAnswer(normaliser, parseNswAnswer(ANSWER, 'snapshot'));
  return normaliser.batch();
}

/** Every station's stored days, by station id, fuel and day. */
async function allDays(store: PriceStore): Promise<string[]> {
  const out: string[] = [];
  for (let page = 0; ; page++) {
    const list = await store.listStations({ state: undefined, limit: 100, offset: page * 100 });
    for (const s of list.items) {
      for (const d of await store.stationDays(s.id, { from: null, to: 1_000_000 })) if (d.seconds > 0) out.push(`${s.id} ${d.fuel} ${d.day} ${d.weightedTenths} ${d.seconds}`);
    }
    if ((page + 1) * 100 >= list.total) return out.sort();
  }
}

for (const backend of testBackends()) {
  describe(`an NSW backfill after a live ingest, on ${backend.name}`, () => {
    test('the April 2020 workbook after the 2024 answer: imported, every row accounted for, the same days as the other order', async () => {
      const live = await backend.create();
      const other = await backend.create();
      try {
        const batch = liveBatch();
        assert.ok(batch.stations.length > 80 && batch.prices.length > 300, `${batch.stations.length} stations, ${batch.prices.length} prices`);

        await live.store.applyFeedBatch(batch, { now: NOON });
        await live.store.seal(CLOSED);
        const outcome = await importFile({ store: live.store, format: IMPORT_FORMATS['nsw-history'], path: WORKBOOK, now: LATER, batchRows: 40 });
        assert.equal(outcome.error, undefined);
        assert.equal(outcome.status, 'imported');
        assert.ok(accountedFor(outcome), JSON.stringify(outcome));
        assert.ok(outcome.pricesAccepted > 100, `${outcome.pricesAccepted} accepted`);
        await live.store.seal(LATER);

        // The other way round: the stations known, the history first, the live answer after, one close at the end.
        await other.store.applyFeedBatch({ stations: batch.stations, prices: [] }, { now: NOON });
        const first = await importFile({ store: other.store, format: IMPORT_FORMATS['nsw-history'], path: WORKBOOK, now: LATER, batchRows: 40 });
        assert.deepEqual([first.status, first.pricesAccepted, first.rejected], [outcome.status, outcome.pricesAccepted, outcome.rejected]);
        await other.store.applyFeedBatch(batch, { now: NOON });
        await other.store.seal(LATER);

        const days = await allDays(live.store);
        assert.ok(days.length > 1000, `${days.length} station-fuel-days`);
        assert.deepEqual(days, await allDays(other.store));
        await assertDaysMatchReports(live.store, 'live first');
        await assertDaysMatchReports(other.store, 'history first');
      } finally { await live.drop(); await other.drop(); }
    });
  });
}
