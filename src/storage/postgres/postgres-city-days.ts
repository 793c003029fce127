import type { LocalDay } from '../../domain/time.ts';
import { type CityDaysSource, SLOTS } from '../sql/city-means.ts';

/**
 * PostgreSQL's way of reading a city's rows for the city means (sql/city-means.ts): one statement
 * for the city's daily rows in (station key, day, fuel) order and one for its runs, a window of
 * WINDOW_DAYS at a time (one round trip a city and window, not one a station; the window bounds
 * what one answer holds in memory when ten years are summed again). The mean is a double
 * division of the two integers, as SQLite's CAST(weighted_tenths AS REAL) / seconds, so both
 * backends sum the same numbers in the same order.
 */
const WINDOW_DAYS = 512;

export const POSTGRES_CITY_DAYS: CityDaysSource = {
  windowDays: WINDOW_DAYS,
  async read(tx, cityId, _keys, low: LocalDay, high: LocalDay, visit): Promise<void> {
    const rows = await tx.arrays<[number, number]>(`SELECT (d.day - $1) * ${SLOTS} + d.fuel, d.weighted_tenths::double precision / d.seconds
      FROM stations s JOIN station_daily d ON d.station_key = s.key
      WHERE s.city_id = $3 AND d.seconds > 0 AND d.day BETWEEN $1 AND $2 ORDER BY s.key, d.day, d.fuel`, [low, high, cityId]);
    const runs = await tx.arrays<[number, number, number]>(`SELECT (greatest(r.from_day, $1) - $1) * ${SLOTS} + r.fuel, least(r.to_day, $2) - $1, r.price_tenths
      FROM stations s JOIN station_runs r ON r.station_key = s.key
      WHERE s.city_id = $3 AND r.to_day >= $1 AND r.from_day <= $2`, [low, high, cityId]);
    for (const [slot, mean] of rows) visit.mean(Number(slot), Number(mean));
    for (const [firstSlot, lastDay, price] of runs) visit.run(Number(firstSlot), Number(lastDay), Number(price));
  },
};
