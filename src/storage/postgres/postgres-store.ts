import { FUELS, fuelIndex, outputsOf } from '../../domain/fuels.ts';
import { POSTGRES_DIALECT } from '../sql/dialect.ts';
import { SqlStore } from '../sql/sql-store.ts';
import { SqlWriter } from '../sql/writer.ts';
import { BULK } from '../sql/ingest-statements.ts';
import type { Migration, PoolStats, ReaderSource } from '../store.ts';
import type { Versions } from '../versions.ts';
import { type PoolOptions, PostgresConnection, createPool } from './postgres-connection.ts';
import { POSTGRES_MIGRATIONS } from '../migrations/postgres.ts';
import { recomputeCityDays } from '../sql/city-means.ts';
import { POSTGRES_CITY_DAYS } from './postgres-city-days.ts';

/**
 * The scale-out backend: any number of API and ingest processes share one PostgreSQL
 * database. The same contract, and the same answers byte for byte, as the SQLite store.
 */
export class PostgresStore extends SqlStore {
  readonly backend = 'postgres' as const;
  private readonly connection: PostgresConnection;

  constructor(private readonly options: PoolOptions) {
    const connection = new PostgresConnection(createPool(options));
    super(connection, POSTGRES_DIALECT, new SqlWriter(POSTGRES_DIALECT, (tx, cities, from, to) => recomputeCityDays(tx, POSTGRES_CITY_DAYS, cities, from, to)));
    this.connection = connection;
  }

  readerSource(): ReaderSource {
    return { backend: 'postgres', url: this.options.connectionString };
  }

  /** The schema version is the highest row of schema_migrations. */
  async migrate(): Promise<Migration> {
    return this.connection.transaction('migration', async (tx) => {
      // No DDL unless there is something to do: a role with only SELECT, INSERT, UPDATE and
      // DELETE (least privilege for serve and ingest) can open an up-to-date database.
      const exists = (await tx.row("SELECT to_regclass('schema_migrations') IS NOT NULL AS e"))?.e === true;
      if (!exists) {
        await tx.run(`CREATE TABLE schema_migrations (
          version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
      }
      const version = Number((await tx.row('SELECT coalesce(max(version), 0) AS v FROM schema_migrations'))?.v ?? 0);
      if (version > POSTGRES_MIGRATIONS.length) {
        throw new Error(`database schema version ${version} is newer than this program knows (${POSTGRES_MIGRATIONS.length})`);
      }
      for (let v = version; v < POSTGRES_MIGRATIONS.length; v++) {
        await tx.run(POSTGRES_MIGRATIONS[v] ?? '');
        await tx.run('INSERT INTO schema_migrations (version) VALUES ($1)', [v + 1]);
      }
      const groups = FUELS.flatMap((fuel) => outputsOf(fuel).map((output) => [fuelIndex(fuel), fuelIndex(output)]));
      const stored = Number((await tx.row('SELECT count(*) AS n FROM fuel_groups'))?.n ?? 0);
      if (stored !== groups.length) await tx.bulkInsert(BULK.fuelGroups, groups.flat());
      return { from: version, to: POSTGRES_MIGRATIONS.length };
    });
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** The last reading while it may still be reused: a read here would wait for a round trip. */
  versionsNow(): Versions | undefined {
    return this.reuse.peek();
  }

  poolStats(): PoolStats {
    const pool = this.connection.pool;
    return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 };
  }
}
