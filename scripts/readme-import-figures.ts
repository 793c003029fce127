/**
 * The import figures docs/IMPORT.md quotes ("Stations from history"), from runs on the real files
 * rather than written by hand: NSW April 2020's workbook after the real FuelCheck answer of 2024
 * (stored as `ingest nsw` stores it), and FuelWatch's April–May 2026 site-API days, each into a
 * fresh SQLite database: rows read, stored, already known, corrected, held and rejected (by
 * reason), rows rejected for their station, and stations created.
 *
 *   npx tsx scripts/readme-import-figures.ts [REALDATA_DIR]
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NSW_FUELS } from '../src/ingest/feeds/nsw.ts';
import { addNswAnswer, parseNswAnswer } from '../src/ingest/feeds/nsw-records.ts';
import { demoCities } from '../src/ingest/demo.ts';
import { nswHistory } from '../src/ingest/import/nsw-history.ts';
import type { FileOutcome } from '../src/ingest/import/progress.ts';
import { importFile } from '../src/ingest/import/run.ts';
import { waHistory } from '../src/ingest/import/wa-history.ts';
import { Normaliser } from '../src/ingest/normalise.ts';
import { applyNormalised } from '../src/ingest/runner.ts';
import { openStore } from '../src/storage/open.ts';

const root = resolve(import.meta.dirname, '..');
const data = resolve(process.argv[2] ?? join(root, '..', 'shared', 'realdata'));
const NOW = Date.UTC(2026, 10, 1) / 1000;
const scratch = mkdtempSync(join(tmpdir(), 'fuelprice-figures-'));
const n = (x: number): string => x.toLocaleString('en-AU');

/** A reason that says the row's station could not be found or made ("station without a name, ...", "blank station fields with no station above them"). */
const forStation = (reason: string): boolean => reason.startsWith('station ') || /no (station|name) above/.test(reason);

function print(label: string, outcomes: readonly FileOutcome[]): void {
  const sum = (f: (o: FileOutcome) => number): number => outcomes.reduce((t, o) => t + f(o), 0);
  const reasons = new Map<string, number>();
  for (const o of outcomes) for (const r of o.rejected) reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + r.count);
  const rejected = [...reasons.values()].reduce((t, c) => t + c, 0);
  const station = [...reasons].filter(([r]) => forStation(r)).reduce((t, [, c]) => t + c, 0);
  console.log(`${label}: ${n(sum((o) => o.rows))} rows read = ${n(sum((o) => o.pricesAccepted))} stored + ${n(sum((o) => o.pricesIgnored))} already known `
    + `+ ${n(sum((o) => o.pricesCorrected))} corrected + ${n(sum((o) => o.pricesHeld))} held + ${n(rejected)} rejected; `
    + `${n(station)} rejected for their station; ${n(sum((o) => o.stationsAdded))} stations created`);
  for (const [reason, count] of reasons) console.log(`  ${n(count)} ${reason}`);
}

try {
  const nswStore = await openStore(`sqlite:${join(scratch, 'nsw.db')}`);
  await nswStore.upsertCities(demoCities());
  const live = new Normaliser('nsw', NSW_FUELS, NOW);
  addNswAnswer(live, parseNswAnswer(readFileSync(join(data, 'nsw_fuelcheck_api_prices_json', 'data.json'), 'utf8'), 'snapshot'), []);
  await applyNormalised(nswStore, live, { now: NOW });
  const april = join(data, 'nsw_fuelcheck_monthly_xlsx', 'price_history_checks_apr2020.xlsx');
  print('NSW April 2020 after the FuelCheck answer of 30 June 2024', [await importFile({ store: nswStore, format: nswHistory, path: april, now: NOW })]);
  await nswStore.close();

  const waStore = await openStore(`sqlite:${join(scratch, 'wa.db')}`);
  await waStore.upsertCities(demoCities());
  const days = join(data, 'wa_fuelwatch_api_daily_snapshots');
  const outcomes: FileOutcome[] = [];
  for (const file of readdirSync(days).filter((f) => f.endsWith('.json.gz')).sort()) {
    outcomes.push(await importFile({ store: waStore, format: waHistory, path: join(days, file), now: NOW }));
  }
  print('FuelWatch site-API days, April-May 2026', outcomes);
  await waStore.close();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
