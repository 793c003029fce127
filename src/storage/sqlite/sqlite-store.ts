import { FUELS, fuelIndex, outputsOf } from '../../domain/fuels.ts';
import { SQLITE_DIALECT } from '../sql/dialect.ts';
import { SqlStore } from '../sql/sql-store.ts';
import { SqlWriter } from '../sql/writer.ts';
import { BULK } from '../sql/ingest-statements.ts';
import { VERSIONS } from '../sql/statements.ts';
import type { Migration, ReaderSource } from '../store.ts';
import type { Versions } from '../versions.ts';
import { SqliteConnection } from './sqlite-connection.ts';
import { SQLITE_MIGRATIONS } from '../migrations/sqlite.ts';
import { recomputeCityDays } from '../sql/city-means.ts';
import { sqliteCityDays } from './sqlite-city-days.ts';

/** The embedded backend: one SQLite file, synchronous underneath, the same contract as PostgreSQL. */
export class SqliteStore extends SqlStore {
  readonly backend = 'sqlite' as const;
  private readonly connection: SqliteConnection;

  /** `readonly`: opens the file to read only (the derived-answers worker's connection: src/derived/). */
  constructor(private readonly path: string, options: { readonly?: boolean } = {}) {
    const connection = new SqliteConnection(path, options.readonly ?? false);
    // City means (written once: sql/city-means.ts) read the rows synchronously inside the writer's transaction, on the same file.
    const days = sqliteCityDays(connection.file);
    const writer = new SqlWriter(SQLITE_DIALECT, (tx, cities, from, to) => recomputeCityDays(tx, days, cities, from, to));
    super(connection, SQLITE_DIALECT, writer);
    this.connection = connection;
  }

  /** The schema version is the file's user_version. */
  async migrate(): Promise<Migration> {
    const db = this.connection.file.db;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SQLITE_MIGRATIONS.length) {
      throw new Error(`database schema version ${version} is newer than this program knows (${SQLITE_MIGRATIONS.length})`);
    }
    await this.write(async () => {
      for (let v = version; v < SQLITE_MIGRATIONS.length; v++) {
        db.exec(SQLITE_MIGRATIONS[v] ?? '');
        db.pragma(`user_version = ${v + 1}`);
      }
      for (const fuel of FUELS) for (const output of outputsOf(fuel)) this.connection.file.insertRow(BULK.fuelGroups, [fuelIndex(fuel), fuelIndex(output)]);
    });
    return { from: version, to: SQLITE_MIGRATIONS.length };
  }

  readerSource(): ReaderSource | undefined {
    return this.path === ':memory:' ? undefined : { backend: 'sqlite', path: this.path };
  }

  async close(): Promise<void> {
    this.connection.close();
  }

  /** Read at once (a synchronous read), unless a transaction is open: its uncommitted rows must not be seen. */
  versionsNow(): Versions | undefined {
    if (this.connection.busy) return this.reuse.peek();
    return this.reuse.getNow(() => this.connection.file.get(VERSIONS) as Versions);
  }
}
