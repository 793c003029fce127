/** Reads and validates the environment once; everything else receives the frozen result. */
import { isIP } from 'node:net';
import { maskSecrets } from './secrets.ts';

/** What the environment gives a live feed (ingest/feeds/index.ts feedConfigs, from the variables the feed declares). */
export interface FeedConfig {
  readonly url: string;
  readonly credentials: Readonly<Record<string, string | undefined>>;
  /** Which of a feed's interfaces to read, for a feed that has two (WA: WA_FUELWATCH_SOURCE, `auto` by default); undefined for the others. */
  readonly source?: FeedSource;
}

/** A feed's interface (WA_FUELWATCH_SOURCE): `api` FuelWatch's JSON site API, `rss` its RSS, `auto` the site API with the RSS as the fallback (ingest/feeds/wa.ts). */
export const FEED_SOURCES = ['auto', 'api', 'rss'] as const;
export type FeedSource = (typeof FEED_SOURCES)[number];

/** A feed's interface from env[variable]: `auto` when unset. */
export function parseSource(variable: string, value: string | undefined): FeedSource {
  const text = value?.trim().toLowerCase() ?? '';
  if (text === '') return 'auto';
  if (!(FEED_SOURCES as readonly string[]).includes(text)) throw new ConfigError(variable, `must be one of ${FEED_SOURCES.join(', ')}, got '${text.slice(0, 20)}'`);
  return text as FeedSource;
}

export interface Config {
  readonly databaseUrl: string;
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key (FUELPRICE_REDIS_PREFIX, default `fuelprice:`): installations sharing one Redis keep apart. */
  readonly redisPrefix: string;
  readonly port: number;
  /** Whether PORT was set (else `port` is the default, 8080): errors say where a port came from. */
  readonly portSet: boolean;
  readonly host: string;
  readonly logLevel: string;
  /** Which X-Forwarded-For hops to believe (TRUST_PROXY): none by default. */
  readonly trustProxy: TrustProxy;
  /** Median event-loop delay (ms) which, sustained for 2 s, has requests shed with 503 (MAX_EVENT_LOOP_DELAY_MS, default 100; 0 = never; http/server/load-shedding.ts). */
  readonly maxEventLoopDelayMs: number;
  /** Open connections per process past which new ones are closed at once (MAX_CONNECTIONS, default 4096). */
  readonly maxConnections: number;
  /** Idle keep-alive connections are closed after this (KEEP_ALIVE_TIMEOUT_MS, default 72000: above a load balancer's 60 s). */
  readonly keepAliveTimeoutMs: number;
  /** A fixed clock for reproducible demos and tests, in Unix seconds. */
  readonly fixedNow: number | undefined;
  /** The bearer token that reads GET /metrics (METRICS_TOKEN); unset: no /metrics (404). Never logged. */
  readonly metricsToken: string | undefined;
  /** The dashboard map's tiles (TILE_URL, TILE_ATTRIBUTION, TILE_ATTRIBUTION_URL): OpenStreetMap's by default; null with TILE_URL=none. */
  readonly tiles: TileConfig | null;
}

/** Where the dashboard's map takes its tiles from, and the attribution it must show with them. */
export interface TileConfig {
  /** A Leaflet URL template: http(s), with {z}, {x} and {y}; {s} (a subdomain) only as the host's first label. */
  readonly url: string;
  /** Shown on the map, as text. */
  readonly attribution: string;
  /** Where the attribution links to; '' for no link. */
  readonly attributionUrl: string;
  /** The tile host as a CSP source (`https://tile.openstreetmap.org`, `https://*.tile.example.com`), for the page's img-src. */
  readonly cspSource: string;
}

export const OSM_TILES: TileConfig = Object.freeze({
  url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png',
  attribution: '© OpenStreetMap contributors',
  attributionUrl: 'https://www.openstreetmap.org/copyright',
  cspSource: 'https://tile.openstreetmap.org',
});

/**
 * TILE_URL (unset: OpenStreetMap's; `none`: no map, the dashboard plots the stations by position),
 * with TILE_ATTRIBUTION (required with another TILE_URL: a tile server's terms ask for it) and
 * TILE_ATTRIBUTION_URL (optional link).
 */
export function parseTiles(env: NodeJS.ProcessEnv): TileConfig | null {
  const url = env.TILE_URL?.trim() ?? '';
  const attribution = env.TILE_ATTRIBUTION?.trim() ?? '';
  const attributionUrl = env.TILE_ATTRIBUTION_URL?.trim() ?? '';
  if (url === 'none') return null;
  if (attributionUrl !== '' && !/^https?:\/\/[^\s"'<>]{1,300}$/.test(attributionUrl)) throw new ConfigError('TILE_ATTRIBUTION_URL', 'must be an http(s) URL');
  if (attribution.length > 200 || /[<>]/.test(attribution)) throw new ConfigError('TILE_ATTRIBUTION', 'must be plain text of at most 200 characters, without < or >');
  if (url === '' || url === OSM_TILES.url) {
    return Object.freeze({ ...OSM_TILES, ...(attribution ? { attribution } : {}), ...(attributionUrl ? { attributionUrl } : {}) });
  }
  const match = /^(https?):\/\/((?:\{s\}\.)?[A-Za-z0-9.-]+(?::[0-9]{1,5})?)\/[^\s"'<>]*$/.exec(url);
  if (!match || url.length > 500 || !['{z}', '{x}', '{y}'].every((part) => url.includes(part))) {
    throw new ConfigError('TILE_URL', `must be none, or an http(s) tile URL with {z}, {x} and {y} ({s} only as the host's first label), got '${maskSecrets(url).slice(0, 60)}'`);
  }
  if (attribution === '') throw new ConfigError('TILE_ATTRIBUTION', 'is required with TILE_URL: the text the tile server asks maps to show (e.g. © OpenStreetMap contributors)');
  return Object.freeze({ url, attribution, attributionUrl, cspSource: `${match[1]}://${(match[2] ?? '').replace('{s}', '*')}` });
}

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL?.trim() || 'sqlite:./data/fuelprice.db';
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', `must start with sqlite: or postgres://, got '${maskSecrets(databaseUrl).slice(0, 60)}'`);
  }
  const redisUrl = env.REDIS_URL?.trim() || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', 'must start with redis:// or rediss://');
  }
  const redisPrefix = env.FUELPRICE_REDIS_PREFIX?.trim() || 'fuelprice:';
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(redisPrefix)) {
    throw new ConfigError('FUELPRICE_REDIS_PREFIX', 'must be 1 to 64 letters, digits or . _ : -');
  }
  const port = parsePort(env.PORT);
  const portSet = (env.PORT?.trim() ?? '') !== '';
  const host = env.HOST?.trim() || '127.0.0.1';
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const fixedNow = parseNow(env.FUELPRICE_NOW);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  const maxEventLoopDelayMs = parseWhole(env, 'MAX_EVENT_LOOP_DELAY_MS', 100, 0, 60_000);
  const maxConnections = parseWhole(env, 'MAX_CONNECTIONS', 4_096, 1, 1_000_000);
  const keepAliveTimeoutMs = parseWhole(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1_000, 3_600_000);
  const metricsToken = parseMetricsToken(env.METRICS_TOKEN);
  const tiles = parseTiles(env);
  return Object.freeze({
    databaseUrl, redisUrl, redisPrefix, port, portSet, host, logLevel, fixedNow, trustProxy, maxEventLoopDelayMs, maxConnections, keepAliveTimeoutMs, metricsToken, tiles,
  });
}

/** A whole number from `min` to `max` in env[variable], or `fallback` when unset. */
function parseWhole(env: NodeJS.ProcessEnv, variable: string, fallback: number, min: number, max: number): number {
  const value = env[variable]?.trim();
  if (value === undefined || value === '') return fallback;
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(variable, `must be a whole number from ${min} to ${max}, got '${value.slice(0, 20)}'`);
  }
  return Number(value);
}

export function parsePort(value: string | undefined, variable = 'PORT'): number {
  if (value === undefined || value.trim() === '') return 8080;
  if (!/^[0-9]{1,5}$/.test(value.trim()) || Number(value) > 65535) {
    throw new ConfigError(variable, `must be a port number from 0 to 65535, got '${value.slice(0, 20)}'`);
  }
  return Number(value);
}

/**
 * Which X-Forwarded-For hops to believe (TRUST_PROXY). `false`: none, the client is the peer
 * of the TCP connection, whatever the header says. A number N: the nearest N hops are our
 * proxies (safe only when clients cannot reach the server except through them). A list of
 * addresses and CIDR ranges: a hop is believed when the address that handed it over is one
 * of them.
 */
export type TrustProxy = false | number | readonly string[];

/** Names proxy-addr understands, as the ranges they stand for. */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** One TRUST_PROXY list entry as CIDR ranges, or undefined when it is not an address, a range or a known name. */
export function trustedRanges(entry: string): string[] | undefined {
  const named = NAMED_RANGES[entry];
  if (named) return [...named];
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (prefix === undefined) return [`${address}/${bits}`];
  if (!/^[0-9]{1,3}$/.test(prefix) || Number(prefix) > bits) return undefined;
  return [`${address}/${prefix}`];
}

/** Unset or `false`: no proxy; a hop count; or a comma list of addresses, CIDR ranges and `loopback`, `linklocal`, `uniquelocal`. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  if (/^[0-9]{1,2}$/.test(text)) return Number(text) === 0 ? false : Number(text);
  // `true` (believe every hop) would let any client choose the address its requests are limited and logged under.
  const entries = text.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => trustedRanges(entry) === undefined);
  if (bad !== undefined) {
    throw new ConfigError('TRUST_PROXY', `must be false, a hop count (1 to 99), or a comma list of proxy addresses and CIDR ranges (or loopback, linklocal, uniquelocal); '${bad.slice(0, 40)}' is none of these`);
  }
  return Object.freeze(entries);
}

/** 16 to 256 characters a bearer token may carry (base64 padding allowed); the message never repeats the value. */
function parseMetricsToken(value: string | undefined): string | undefined {
  const token = value?.trim() ?? '';
  if (token === '') return undefined;
  if (!/^[A-Za-z0-9._~+/-]{16,256}={0,2}$/.test(token)) {
    throw new ConfigError('METRICS_TOKEN', 'must be 16 to 256 letters, digits or . _ ~ + / - (for example: openssl rand -hex 32)');
  }
  return token;
}

function parseNow(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms)) {
    throw new ConfigError('FUELPRICE_NOW', `must be an ISO instant such as 2026-11-23T08:00:00+11:00, got '${value.slice(0, 40)}'`);
  }
  return Math.floor(ms / 1000);
}

/** An http(s) URL in env[variable] (a feed's address), without a trailing slash; `fallback` when unset. */
export function parseUrl(variable: string, value: string | undefined, fallback: string): string {
  const url = value?.trim() || fallback;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new ConfigError(variable, `must be an http(s) URL, got '${maskSecrets(url).slice(0, 60)}'`);
  }
  return url.replace(/\/+$/, '');
}

/** The clock every piece of logic receives; never Date.now() inside domain code. */
export interface Clock {
  /** Unix seconds. */
  now(): number;
}

export function clockFor(config: Pick<Config, 'fixedNow'>): Clock {
  const fixed = config.fixedNow;
  return fixed === undefined ? { now: () => Math.floor(Date.now() / 1000) } : { now: () => fixed };
}
