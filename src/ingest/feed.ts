/**
 * The ingest framework's contract: one adapter per feed turns the feed's answers into
 * batches of station upserts and price events (integer tenths of a cent, with availability);
 * the runner (runner.ts) applies each batch in one transaction together with the feed's cursor.
 */
import type { FeedConfig } from '../config.ts';
import type { StateId } from '../domain/states.ts';
import type { Logger } from '../logger.ts';
import type { FeedStation } from '../storage/store.ts';
import type { FeedHttp } from './feed-fetch.ts';
import type { FuelMap, Normaliser } from './normalise.ts';

export interface PullContext {
  readonly http: FeedHttp;
  readonly config: FeedConfig;
  /** Where the last applied batch of this feed left off (opaque to everyone but the adapter); undefined on a first run. */
  readonly cursor: string | undefined;
  /** Unix seconds, from the injected clock. */
  readonly now: number;
  /**
   * The feed's last recorded run ended in an error: a feed whose server tracks what it has
   * answered (FuelCheck's /prices/new) must not trust that the changes it was sent were applied.
   */
  readonly previousRunFailed: boolean;
  readonly log: Logger;
  /** Values the adapter keeps between runs and processes beside its cursor (FuelCheck's access token); never logged. */
  readonly kept: KeptValues;
  /** The feed's stations as stored (WA matches a station reported under its other key to them); absent: none. */
  storedStations?(): Promise<readonly FeedStation[]>;
  /** A fresh normaliser per pulled batch: it collects the batch, its rejections and the unknown fuel codes. */
  normaliser(): Normaliser;
}

/**
 * Small values stored for one feed under `<name>:<feed id>` (`oauth:nsw`), in the feed-cursor
 * table, written at once rather than with a batch: a token bought before a failed poll is kept.
 */
export interface KeptValues {
  read(name: string): Promise<string | undefined>;
  write(name: string, value: string): Promise<void>;
}

/** One batch to apply, and the cursor to store with it in the same transaction. */
export interface Pulled {
  readonly normaliser: Normaliser;
  /** Undefined keeps the stored cursor as it is. */
  readonly cursor: string | undefined;
}

export interface FeedAdapter {
  /** A FeedId for the live feeds; `demo` for the demo's simulated feed. Stations are keyed by it and their code. */
  readonly id: string;
  /** Human name for logs and `ingest status`. */
  readonly name: string;
  readonly states: readonly StateId[];
  /** Seconds between polls with `--watch`, chosen to stay inside the feed's published quota. */
  readonly intervalSec: number;
  /** Environment variables that must be set; when one is missing the feed is disabled with one line. */
  readonly requires: readonly string[];
  /** The feed's fuel codes onto our ids: the normalisers handed out by PullContext use it. */
  readonly fuels: FuelMap;
  /**
   * One poll. Returns the batches in the order they must be applied. Throws FeedError when the
   * feed cannot be read or an answer is malformed or truncated: nothing of that poll is applied.
   */
  pull(ctx: PullContext): Promise<Pulled[]>;
}

/**
 * A live feed: its adapter, the environment it reads and the credit its source asks for, all
 * declared in its own file (feeds/<feed>.ts). Registered by one line in feeds/index.ts, from
 * which `fuelprice ingest`, its configuration and --help, and the docs page's credits are made.
 */
export interface LiveFeed extends FeedAdapter {
  readonly env: FeedEnv;
  /** What its source asks users to show (the docs page shows it once the feed has run: attribution.ts). */
  readonly attribution: string;
}

/** The variables a live feed reads (FeedConfig), each explained in --help. */
export interface FeedEnv {
  /** Its address: the variable and the default. */
  readonly url: readonly [variable: string, fallback: string];
  /** Its credentials: each variable and what it is (those in `requires` must be set). */
  readonly credentials?: Readonly<Record<string, string>>;
  /** The variable choosing between its interfaces (FeedConfig.source, `auto` by default) and what each is. */
  readonly source?: readonly [variable: string, about: string];
}
