/**
 * Every live feed, by id: a new feed is one line here (and its file, which declares its adapter,
 * the environment it reads and its source's credit). The feed ids, each feed's configuration and
 * the environment `fuelprice ingest --help` lists are all made from this one table.
 */
import { type FeedConfig, parseSource, parseUrl } from '../../config.ts';
import type { LiveFeed } from '../feed.ts';
import { qldAdapter, saAdapter } from './fpd.ts';
import { nswAdapter } from './nsw.ts';
import { ntAdapter } from './nt.ts';
import { vicAdapter } from './vic.ts';
import { waAdapter } from './wa.ts';

export const ADAPTERS = {
  nsw: nswAdapter, qld: qldAdapter, sa: saAdapter, wa: waAdapter, vic: vicAdapter, nt: ntAdapter,
} as const satisfies Readonly<Record<string, LiveFeed>>;

export type FeedId = keyof typeof ADAPTERS;
export const FEED_IDS = Object.keys(ADAPTERS) as readonly FeedId[];

export function isFeedId(s: string): s is FeedId {
  return Object.hasOwn(ADAPTERS, s);
}

/** Each feed's address, credentials and interface as the environment gives them; ConfigError for an address or interface that cannot be used. */
export function feedConfigs(env: NodeJS.ProcessEnv): Readonly<Record<FeedId, FeedConfig>> {
  const configs = FEED_IDS.map((id): [FeedId, FeedConfig] => {
    const { url: [variable, fallback], credentials = {}, source } = ADAPTERS[id].env;
    return [id, {
      url: parseUrl(variable, env[variable], fallback),
      credentials: Object.fromEntries(Object.keys(credentials).map((name) => [name, env[name]?.trim() || undefined])),
      ...(source ? { source: parseSource(source[0], env[source[0]]) } : {}),
    }];
  });
  return Object.freeze(Object.fromEntries(configs) as Record<FeedId, FeedConfig>);
}

/** Every variable the feeds read, feed by feed (address, credentials, interface), as --help shows it: the default, and what it is. */
export function feedVariables(): Array<[name: string, line: { shown?: string; about: string }]> {
  return FEED_IDS.flatMap((id) => {
    const { url: [variable, fallback], credentials = {}, source } = ADAPTERS[id].env;
    const secrets = Object.entries(credentials);
    return [
      [variable, { shown: fallback, about: `${id} feed address${secrets.length === 0 ? ' (no credentials)' : ''}` }],
      ...secrets.map(([name, about]): [string, { about: string }] => [name, { about: `${id}: ${about}` }]),
      ...(source ? [[source[0], { shown: 'auto', about: `${id}: ${source[1]}` }] as [string, { shown: string; about: string }]] : []),
    ];
  });
}
