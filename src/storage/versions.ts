import { randomInt } from 'node:crypto';

/**
 * A new data version for a write to store (INGEST_STATEMENTS.bumpDataVersion): a random number
 * from 1 to 2^48, not a count. Everything keyed by the data version (the answer cache, the read
 * models: src/read-models/registry.ts) compares it for equality only, so a random number
 * tells a change as well as a count does; and a database restored from a backup under a running
 * server does not count up again to a version that server kept answers for, which a count would
 * after as many writes as were lost (the chance that a later version is one seen before is one
 * in 2^48 a write).
 */
export function newDataVersion(): number {
  return randomInt(1, 2 ** 48);
}

/**
 * The versions every /v1 request reads, reused for VERSION_REUSE_MS: at tens of thousands of
 * requests a second, reading them once every 10 ms instead of once a request saves a storage
 * round trip (a WAL read lock on SQLite, a network round trip on PostgreSQL) on almost every
 * request. A write made through this store instance is seen at once (it forgets the reading);
 * a write by another process (an ingest or `tokens revoke` beside the server) is seen by
 * requests that start at least VERSION_REUSE_MS after it committed.
 *
 * Why 10 ms and not 1: under load on SQLite a reading cost some 25 µs (its read lock's system
 * calls), so once a millisecond was 1.8 µs of every cached answer at 14,000 a second, a tenth
 * of what `serve` spends beyond a bare node:http server (bench/RESULTS.md); a hundredth of a
 * second more before another process's write shows is below anything a client can tell.
 */
export const VERSION_REUSE_MS = 10;

export interface Versions {
  data: number;
  tokens: number;
}

export class VersionReuse {
  private last: { at: number; versions: Versions } | undefined;

  constructor(private reuseMs = VERSION_REUSE_MS) {}

  setReuseMs(ms: number): void {
    this.reuseMs = ms;
    this.last = undefined;
  }

  async get(read: () => Promise<Versions>): Promise<Versions> {
    const at = performance.now();
    return this.reusableAt(at) ?? this.remember(at, await read());
  }

  /** get() for a backend that reads without waiting (SQLite). */
  getNow(read: () => Versions): Versions {
    const at = performance.now();
    return this.reusableAt(at) ?? this.remember(at, read());
  }

  /** A reading, reusable from `at`, the instant before it was taken (a commit during the read may be missed). */
  private remember(at: number, versions: Versions): Versions {
    this.last = { at, versions };
    return versions;
  }

  /** The last reading while it may still be reused, without reading. */
  peek(): Versions | undefined {
    return this.reusableAt(performance.now());
  }

  /** The last reading if it may still be reused at `now` (performance.now()). */
  private reusableAt(now: number): Versions | undefined {
    const last = this.last;
    return last && now - last.at < this.reuseMs ? last.versions : undefined;
  }

  /** After a write through this instance: the next request reads afresh. */
  forget(): void {
    this.last = undefined;
  }
}
