import type { StateId } from '../../domain/states.ts';
import type { LocalDay } from '../../domain/time.ts';
import type { Connection } from '../sql/connection.ts';
import { INGEST_STATEMENTS as SQL } from '../sql/ingest-statements.ts';

/** City means for days [from, to] of one city or of every city of a state, pooled per output fuel, from the stations' days. */
export async function recomputeCityDays(tx: Connection, cities: { cityId: string } | { state: StateId }, from: LocalDay, to: LocalDay): Promise<void> {
  if (to < from) return;
  const byCity = 'cityId' in cities;
  const selector = byCity ? cities.cityId : cities.state;
  await tx.run(byCity ? SQL.deleteCityDays : SQL.deleteStateCityDays, [from, to, selector]);
  // The plain mean of the stations' daily means, in double precision like SQLite's avg over REAL.
  // A run's whole days each have its price as their mean: runs are summed exactly, as a
  // difference array per city and output fuel (+price and +1 at a run's first day, the
  // opposite the day after its last; a running total gives each day its sum and count), so
  // their cost follows the runs and the city's days, not every station's days. The daily rows'
  // means are summed in station order, so that the same rows always give the same last digits.
  const members = byCity ? 's.city_id = $3' : 's.state = $3';
  await tx.run(`
    WITH runs AS (
      SELECT s.city_id, g.output, greatest(r.from_day, $1) AS first_day, least(r.to_day, $2) AS last_day, r.price_tenths::bigint AS price
      FROM stations s JOIN station_runs r ON r.station_key = s.key JOIN fuel_groups g ON g.fuel = r.fuel
      WHERE ${members} AND s.city_id IS NOT NULL AND r.to_day >= $1 AND r.from_day <= $2
    ), steps AS (
      SELECT city_id, output, day, sum(price) AS price, sum(n) AS n FROM (
        SELECT city_id, output, first_day AS day, price, 1 AS n FROM runs
        UNION ALL
        SELECT city_id, output, last_day + 1, -price, -1 FROM runs
      ) edges GROUP BY city_id, output, day
    ), levels AS (
      SELECT city_id, output, day, sum(price) OVER w AS price, sum(n) OVER w AS n, lead(day) OVER w AS next_day
      FROM steps WINDOW w AS (PARTITION BY city_id, output ORDER BY day)
    ), run_days AS (
      SELECT l.city_id, l.output, g.day, l.price::double precision AS price, l.n
      FROM levels l, generate_series(l.day, l.next_day - 1) AS g (day) WHERE l.n > 0
    ), row_days AS (
      SELECT s.city_id, g.output, d.day, sum(d.weighted_tenths::double precision / d.seconds ORDER BY d.station_key, d.fuel) AS mean_sum, count(*) AS n
      FROM stations s JOIN station_daily d ON d.station_key = s.key JOIN fuel_groups g ON g.fuel = d.fuel
      WHERE ${members} AND s.city_id IS NOT NULL AND d.seconds > 0 AND d.day BETWEEN $1 AND $2
      GROUP BY s.city_id, g.output, d.day
    )
    INSERT INTO city_daily (city_id, day, fuel, mean_tenths)
    SELECT city_id, day, output, (coalesce(r.price, 0) + coalesce(w.mean_sum, 0)) / (coalesce(r.n, 0) + coalesce(w.n, 0))
    FROM run_days r FULL JOIN row_days w USING (city_id, output, day)`, [from, to, selector]);
}
