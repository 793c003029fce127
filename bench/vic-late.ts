/**
 * The VIC late-day sequence of issue 28 on the real Fair Fuel answers: the answer published on
 * one day ingested at noon, a running server closing the day at midnight, then the next day's
 * answer ingested at noon; against the same answers applied at once with the days closed only
 * at the end. Prints how many station-fuel-days differ (they must not) and each ingest's time.
 *
 *   npx tsx bench/vic-late.ts FILE1.json[.gz] FILE2.json[.gz] [BRANDS.json]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { localTimeToUnix } from '../src/domain/time.ts';
import { VIC_FUELS, addVicDetails, parseVicBrands, parseVicPrices } from '../src/ingest/feeds/vic.ts';
import { Normaliser } from '../src/ingest/normalise.ts';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store.ts';
import type { Batch, StationDayRow } from '../src/storage/store.ts';

const [first, second, brandsFile] = process.argv.slice(2);
if (!first || !second) throw new Error('usage: bench/vic-late.ts FILE1 FILE2 [BRANDS]');
const read = (path: string): string => (path.endsWith('.gz') ? gunzipSync(readFileSync(path)) : readFileSync(path)).toString('utf8');
const brands = brandsFile ? parseVicBrands(read(brandsFile)) : new Map<string, string>();

/** The day an answer is for, from its file name (prices-YYYY-MM-DD): ingested at noon that day. */
function noonOf(path: string): number {
  const m = /(\d{4})-(\d{2})-(\d{2})/.exec(path);
  if (!m) throw new Error(`no date in ${path}`);
  return localTimeToUnix('vic', Number(m[1]), Number(m[2]), Number(m[3]), 12, 0, 0);
}

function batchOf(path: string, now: number): Batch {
  const normaliser = new Normaliser('vic', VIC_FUELS, now);
  addVicDetails(normaliser, parseVicPrices(read(path)), brands);
  return normaliser.batch();
}

async function days(store: SqliteStore): Promise<Map<string, StationDayRow>> {
  const out = new Map<string, StationDayRow>();
  const ids = await store.listStations({ state: undefined, limit: 100, offset: 0 });
  for (let page = 0; page * 100 < ids.total; page++) {
    const list = await store.listStations({ state: undefined, limit: 100, offset: page * 100 });
    for (const s of list.items) for (const d of await store.stationDays(s.id, { from: null, to: 1_000_000 })) if (d.seconds > 0) out.set(`${d.stationId}:${d.fuel}:${d.day}`, d);
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'vic-late-'));
try {
  const noon1 = noonOf(first);
  const noon2 = noonOf(second);
  const end = noon2 + 86_400;
  const late = new SqliteStore(join(dir, 'late.db'));
  const once = new SqliteStore(join(dir, 'once.db'));
  for (const store of [late, once]) await store.migrate();
  let t = performance.now();
  const r1 = await late.applyFeedBatch(batchOf(first, noon1), { now: noon1 });
  const ms1 = performance.now() - t;
  await late.seal(noon1 + 12 * 3600 + 1800); // a running server past midnight
  t = performance.now();
  const r2 = await late.applyFeedBatch(batchOf(second, noon2), { now: noon2 });
  const ms2 = performance.now() - t;
  await late.seal(end);
  // The reference: both answers applied at the second noon, with no day closed before the end.
  // Each answer is its own batch, as ingest applies it: a station an answer gives a position
  // outside its state is refused with that answer's prices (BP Rockbank Truckstop's latitude is
  // +37.7 in the 1 May answer, -37.7 on 2 May), in the reference as in the late sequence; one
  // merged batch would let 2 May's record carry 1 May's prices in.
  await once.applyFeedBatch(batchOf(first, noon2), { now: noon2 });
  await once.applyFeedBatch(batchOf(second, noon2), { now: noon2 });
  await once.seal(end);
  const a = await days(late);
  const b = await days(once);
  let wrong = 0;
  let worst = 0;
  for (const [key, d] of b) {
    const other = a.get(key);
    const mean = d.weightedTenths / d.seconds;
    const got = other ? other.weightedTenths / other.seconds : NaN;
    if (!other || other.weightedTenths !== d.weightedTenths || other.seconds !== d.seconds) { wrong++; worst = Math.max(worst, Math.abs(got - mean) || Infinity); }
  }
  for (const key of a.keys()) if (!b.has(key)) wrong++;
  console.log(`first answer: ${r1.pricesAccepted} accepted, ${r1.pricesIgnored} known, ${r1.pricesCorrected ?? 0} corrected in ${ms1.toFixed(0)} ms`);
  console.log(`second answer: ${r2.pricesAccepted} accepted, ${r2.pricesIgnored} known, ${r2.pricesCorrected ?? 0} corrected in ${ms2.toFixed(0)} ms`);
  console.log(`station-fuel-days: ${b.size} from all reports at once; ${wrong} differ after the late sequence (worst by ${(worst / 10).toFixed(1)} c/L)`);
  await late.close();
  await once.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
