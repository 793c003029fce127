import type { FeedConfig, FeedSource } from '../../src/config.ts';
import type { FeedStation } from '../../src/storage/store.ts';
import type { FeedAdapter, KeptValues, PullContext } from '../../src/ingest/feed.ts';
import type { Logger } from '../../src/logger.ts';
import { FeedHttp, type HttpOptions } from '../../src/ingest/feed-fetch.ts';
import { Normaliser, type Rejection, UnknownFuels } from '../../src/ingest/normalise.ts';

/** Records log lines instead of printing them, so tests can assert that something was said (once). */
export class MemoryLog implements Logger {
  readonly lines: Array<{ level: string; msg: string | undefined; obj: object }> = [];
  info(obj: object, msg?: string): void { this.lines.push({ level: 'info', msg, obj }); }
  warn(obj: object, msg?: string): void { this.lines.push({ level: 'warn', msg, obj }); }
  error(obj: object, msg?: string): void { this.lines.push({ level: 'error', msg, obj }); }
}

/** Kept values in memory, as the runner keeps them in the store: tests share one between pulls to play one database. */
export class MemoryKept implements KeptValues {
  readonly values = new Map<string, string>();
  async read(name: string): Promise<string | undefined> { return this.values.get(name); }
  async write(name: string, value: string): Promise<void> { this.values.set(name, value); }
}

export interface TestContextOptions {
  url: string;
  credentials?: Record<string, string | undefined>;
  cursor?: string;
  now: number;
  previousRunFailed?: boolean;
  http?: Partial<HttpOptions>;
  log?: MemoryLog;
  kept?: KeptValues;
  /** Which interface of a feed that has two (WA): the adapter's default when absent. */
  source?: FeedSource;
  /** The feed's stations as if stored (storedStations). */
  stored?: readonly FeedStation[];
}

/** A PullContext for calling an adapter's pull() directly against a fake: no retries waited for. */
export function testPullContext(adapter: FeedAdapter, options: TestContextOptions): PullContext & { log: MemoryLog; http: FeedHttp } {
  const log = options.log ?? new MemoryLog();
  const config: FeedConfig = { url: options.url, credentials: options.credentials ?? {}, ...(options.source ? { source: options.source } : {}) };
  const unknown = new UnknownFuels(adapter.id, log);
  const http = new FeedHttp({ sleep: async () => {}, random: () => 0.5, timeoutMs: 2_000, ...options.http });
  return {
    http, config, cursor: options.cursor, now: options.now, log, previousRunFailed: options.previousRunFailed ?? false,
    kept: options.kept ?? new MemoryKept(),
    storedStations: async () => options.stored ?? [],
    normaliser: () => new Normaliser(adapter.id, adapter.fuels, options.now, unknown),
  };
}

/** A batch's stations refused, then its price rows rejected, as one list (none without a normaliser). */
export function allRejections(normaliser: Normaliser | undefined): Rejection[] {
  return normaliser ? [...normaliser.stationsRejected(), ...normaliser.rejected()] : [];
}
