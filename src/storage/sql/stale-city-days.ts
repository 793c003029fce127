import type { LocalDay } from '../../domain/time.ts';
import type { Connection } from './connection.ts';
import { INGEST_STATEMENTS as SQL } from './ingest-statements.ts';

/**
 * Sealed city days left to the next seal (issue 46: a NSW history month imported after the live
 * feed cost several times its import into an empty database: bench/RESULTS.md, "Importing after
 * the live feed (issue 46, item 6)"). A late report of 2020 at a
 * station whose next report is of 2024 changes every day between for its city, and an import
 * applies a month in batches of 20,000 rows: recomputing the city means after each batch
 * recomputed the same years of days once a batch. A batch that asks (FeedBatchOptions
 * deferCityDays: `fuelprice import`) notes each city's changed sealed days here, in its own
 * transaction, and the next seal (the import's last step; every feed poll seals too) recomputes
 * each noted city's days once and forgets them. Until then those days answer the city means
 * from before the import's batches; a run that stops between the two leaves them noted, and
 * the next seal of any process recomputes them. Station days are never deferred.
 */
export async function noteStaleCityDays(tx: Connection, cities: ReadonlyMap<string, { from: LocalDay; to: LocalDay }>): Promise<void> {
  for (const [cityId, days] of cities) await tx.run(SQL.noteStaleCityDays, [cityId, days.from, days.to]);
}

/** Recomputes every noted city's days and forgets them; true when there were any. */
export async function recomputeStaleCityDays(
  tx: Connection, cityMeans: (tx: Connection, city: { cityId: string }, from: LocalDay, to: LocalDay) => Promise<void>,
): Promise<boolean> {
  const stale = await tx.arrays<[string, number, number]>(SQL.staleCityDays);
  if (stale.length === 0) return false;
  for (const [cityId, from, to] of stale) await cityMeans(tx, { cityId: String(cityId) }, Number(from), Number(to));
  await tx.run(SQL.forgetStaleCityDays);
  return true;
}
