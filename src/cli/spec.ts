/**
 * Every command's options, defaults and environment, in one table: parsing (args.ts), --help
 * and the usage lines of errors (help.ts) all read it, so they cannot disagree.
 */
import { FEED_IDS, feedVariables } from '../ingest/feeds/index.ts';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** What the value looks like in usage lines: N, URL, NAME. String options only. */
  readonly arg?: string;
  readonly about: string;
  /** The default, as shown (not applied: each command resolves its own, some from the environment). */
  readonly shown?: string;
  readonly required?: true;
}

export interface CommandSpec {
  /** As typed after `fuelprice`: `serve`, `tokens create`. */
  readonly name: string;
  /** Positional arguments as usage shows them (`FORMAT FILE...`); none are accepted without it. */
  readonly args?: string;
  readonly summary: string;
  /** Lines printed under the summary in --help. */
  readonly details?: readonly string[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  readonly env: readonly EnvName[];
  /** It also reads every live feed's variables (FEED_ENV): ingest. */
  readonly feedEnv?: true;
  /** A group (`tokens`): its help lists these commands instead of options. */
  readonly commands?: readonly string[];
}

export const ENV = {
  DATABASE_URL: { shown: 'sqlite:./data/fuelprice.db', about: 'the database: sqlite:PATH or postgres://USER@HOST:PORT/DB' },
  PORT: { shown: '8080', about: 'the port serve listens on' },
  HOST: { shown: '127.0.0.1', about: 'the address serve listens on (0.0.0.0: every interface)' },
  LOG_LEVEL: { shown: 'info', about: 'fatal, error, warn, info, debug, trace or silent' },
  FUELPRICE_NOW: { shown: 'the real clock', about: 'a fixed clock, an ISO instant such as 2026-11-23T08:00:00+11:00' },
  REDIS_URL: { shown: 'none: limits per process', about: 'redis:// or rediss://: rate limits shared by every process' },
  FUELPRICE_REDIS_PREFIX: { shown: 'fuelprice:', about: 'prefix of every Redis key' },
  TRUST_PROXY: { shown: 'false', about: 'X-Forwarded-For hops to believe: a count, or proxy addresses and CIDR ranges' },
  MAX_EVENT_LOOP_DELAY_MS: { shown: '100', about: 'event-loop delay which, sustained for 2 s, has requests shed with 503 (0: never)' },
  MAX_CONNECTIONS: { shown: '4096', about: 'open connections per process past which new ones are closed' },
  KEEP_ALIVE_TIMEOUT_MS: { shown: '72000', about: 'idle keep-alive connections are closed after this' },
  METRICS_TOKEN: { shown: 'none: no /metrics', about: 'bearer token that reads /metrics (Prometheus), 16 to 256 characters' },
  TILE_URL: { shown: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', about: "the dashboard map's tile server; none: no map, the stations plotted" },
  TILE_ATTRIBUTION: { shown: '© OpenStreetMap contributors', about: "the map's credit, plain text; required with another TILE_URL" },
  TILE_ATTRIBUTION_URL: { shown: 'https://www.openstreetmap.org/copyright', about: "where the map's credit links to" },
} as const satisfies Record<string, { shown?: string; about: string }>;

export type EnvName = keyof typeof ENV;

/** The variables the live feeds read, as each declares them (ingest/feeds/<feed>.ts). */
export const FEED_ENV: Readonly<Record<string, { shown?: string; about: string }>> = Object.fromEntries(feedVariables());

export const COMMANDS = {
  serve: {
    name: 'serve',
    summary: 'serve the API over HTTP',
    details: ['Migrates the database first. Stops on SIGTERM or SIGINT after the requests in flight.'],
    options: {
      port: { type: 'string', arg: 'N', about: 'port to listen on, 0 to 65535', shown: 'PORT, 8080' },
      host: { type: 'string', arg: 'H', about: 'address to listen on', shown: 'HOST, 127.0.0.1' },
      workers: { type: 'string', arg: 'N', about: 'processes serving the one port, 1 to 64 (a shared database: not sqlite::memory:)', shown: '1' },
      demo: { type: 'boolean', about: 'fill an empty database with the demo dataset, print a token when none exists, keep its prices moving' },
      create: { type: 'boolean', about: 'create the database when it does not exist (without it, a missing SQLite file is an error)' },
    },
    env: ['DATABASE_URL', 'PORT', 'HOST', 'LOG_LEVEL', 'FUELPRICE_NOW', 'REDIS_URL', 'FUELPRICE_REDIS_PREFIX', 'TRUST_PROXY',
      'MAX_EVENT_LOOP_DELAY_MS', 'MAX_CONNECTIONS', 'KEEP_ALIVE_TIMEOUT_MS', 'METRICS_TOKEN', 'TILE_URL', 'TILE_ATTRIBUTION', 'TILE_ATTRIBUTION_URL'],
  },
  demo: {
    name: 'demo',
    summary: 'write the deterministic demo dataset into an empty database',
    options: {
      seed: { type: 'string', arg: 'N', about: 'random seed, 0 to 2147483647', shown: '1' },
      years: { type: 'string', arg: 'N', about: 'years of history, 1 to 20', shown: '2' },
      scale: { type: 'string', arg: 'small|au', about: 'small (1,600 stations) or au (about 8,000)', shown: 'small' },
    },
    env: ['DATABASE_URL', 'FUELPRICE_NOW'],
  },
  tokens: {
    name: 'tokens',
    args: 'create|list|revoke',
    summary: 'manage API tokens',
    options: {},
    env: ['DATABASE_URL'],
    commands: ['tokens create', 'tokens list', 'tokens revoke'],
  },
  'tokens create': {
    name: 'tokens create',
    summary: 'make an API token; its secret is the only line on stdout, shown this once',
    options: {
      name: { type: 'string', arg: 'NAME', about: 'who the token is for, 1 to 100 characters', required: true },
      'expires-in': { type: 'string', arg: 'DURATION', about: 'lifetime: 90d, 12h, 30m or 3600s', shown: 'never expires' },
      'rate-limit': { type: 'string', arg: 'N', about: 'requests a minute, 1 to 1000000', shown: '600' },
    },
    env: ['DATABASE_URL', 'FUELPRICE_NOW'],
  },
  'tokens list': {
    name: 'tokens list',
    summary: 'every token: id, name, created, expiry, revocation, rate limit (never a secret)',
    options: {},
    env: ['DATABASE_URL'],
  },
  'tokens revoke': {
    name: 'tokens revoke',
    args: 'ID',
    summary: 'revoke a token (ID as tokens list shows it); effective on its next request',
    options: {},
    env: ['DATABASE_URL', 'FUELPRICE_NOW'],
  },
  ingest: {
    name: 'ingest',
    args: 'FEED...',
    summary: `poll live feeds: ${FEED_IDS.join(' ')}, or all`,
    details: [
      'Without --watch each feed is polled once: exit 1 if a poll failed. A feed named outright',
      'without its credentials is exit 2; under all it is left out with one line.',
      'See also: fuelprice ingest status --help.',
    ],
    options: {
      watch: { type: 'boolean', about: 'keep polling, each feed on its own interval, until SIGTERM or SIGINT' },
    },
    env: ['DATABASE_URL', 'LOG_LEVEL', 'FUELPRICE_NOW'],
    feedEnv: true,
  },
  'ingest status': {
    name: 'ingest status',
    summary: 'each feed\'s last run and last success, then its recent runs',
    options: {
      feed: { type: 'string', arg: 'F', about: `only this feed's runs: ${FEED_IDS.join(' ')} demo`, shown: 'every feed' },
      limit: { type: 'string', arg: 'N', about: 'recent runs shown, 1 to 1000', shown: '20' },
    },
    env: ['DATABASE_URL', 'FUELPRICE_NOW'],
  },
  import: {
    name: 'import',
    args: 'FORMAT FILE...',
    summary: 'load published history files: nsw-history, wa-history, qld-history',
    details: [
      'Each FILE is a .csv, .xlsx or (wa-history) .json/.json.gz file as published, or a folder: its',
      'files, in name order. Streamed, idempotent and resumable: a file interrupted half-way',
      'continues where it stopped, a finished one is skipped. A file whose every row was rejected',
      'is not marked imported. Each file\'s summary accounts for every row it read:',
      'read = stored + already known + corrected + rejected (by reason). Exit 1 if any file failed.',
    ],
    options: {
      restart: { type: 'boolean', about: 'read every file from its first row again, even one marked imported' },
    },
    env: ['DATABASE_URL', 'FUELPRICE_NOW'],
  },
  migrate: {
    name: 'migrate',
    summary: 'create or upgrade the schema, and say which (creates a SQLite database and its folder)',
    options: {},
    env: ['DATABASE_URL'],
  },
  copy: {
    name: 'copy',
    summary: 'move a whole installation to another database, either backend to either (resumable, verified)',
    details: ['Exit 1 if the copy does not match its source; 2 if the target holds other data.'],
    options: {
      from: { type: 'string', arg: 'URL', about: 'the source: sqlite:PATH or postgres://...', required: true },
      to: { type: 'string', arg: 'URL', about: 'the target, empty or a copy under way from the same source', required: true },
      'chunk-rows': { type: 'string', arg: 'N', about: 'rows a transaction, 1 to 100000', shown: '10000' },
    },
    env: [],
  },
  backtest: {
    name: 'backtest',
    summary: 'replay a city\'s stored history day by day: what following the cycle advice saves against simple rules (docs/BACKTEST.md)',
    details: [
      'No look-ahead: each day\'s advice sees only the days before it, and where the state publishes the next',
      'day\'s prices the afternoon before (WA), today\'s and tomorrow\'s. Prints, per rule (fixed, advice,',
      'cheapest-weekday, tomorrow-higher, stopped-falling, near-low, oracle), the mean price paid, the saving',
      'against buying on the due day, and the share of perfect hindsight\'s saving. By default every start day is',
      'replayed (a purchase due on each day from --from to --to, each start then every --every days) and pooled,',
      'with the advice\'s range over the start days; --start-day first replays the one start on --from.',
    ],
    options: {
      city: { type: 'string', arg: 'ID', about: 'the city, as /v1/cities lists it', required: true },
      fuel: { type: 'string', arg: 'F', about: 'the fuel', shown: 'ulp91' },
      from: { type: 'string', arg: 'YYYY-MM-DD', about: 'first purchase due', shown: 'eight weeks into the history' },
      to: { type: 'string', arg: 'YYYY-MM-DD', about: 'last purchase due', shown: 'the last whole window' },
      every: { type: 'string', arg: 'N', about: 'days between purchases, 1 to 60', shown: '7' },
      delay: { type: 'string', arg: 'N', about: 'days a purchase may be put off, 0 to 30', shown: '3' },
      'start-day': { type: 'string', arg: 'all|first', about: 'all: a driver starting on each of the --every days from --from, pooled; first: --from only', shown: 'all' },
      'without-tomorrow': { type: 'boolean', about: 'advise as if the state published no next-day prices (the cycle alone)' },
    },
    env: ['DATABASE_URL', 'FUELPRICE_NOW'],
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/** The spec `fuelprice COMMAND ARGS...` runs: `tokens create` and `ingest status` are commands of their own. */
export function specFor(command: string, args: readonly string[]): CommandSpec | undefined {
  const two = `${command} ${args[0] ?? ''}`;
  if (isCommandName(two)) return COMMANDS[two];
  return isCommandName(command) ? COMMANDS[command] : undefined;
}

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}
