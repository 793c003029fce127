/**
 * What each source asks its users to show. `serve` puts the lines of the feeds that have run
 * on this database into the docs page; apps built on the API should show them too (docs/FEEDS-SETUP.md,
 * "Sources, licences and polling"). Each live feed declares its own (feeds/<feed>.ts).
 */
import { ADAPTERS, FEED_IDS } from './feeds/index.ts';

export const ATTRIBUTION: Readonly<Record<string, string>> = Object.fromEntries(FEED_IDS.map((id) => [id, ADAPTERS[id].attribution]));

/** The docs page's data note for a database fed by these feeds; empty when none has run. */
export function attributionNote(feeds: readonly string[]): string {
  const lines = feeds.map((f) => ATTRIBUTION[f]).filter((line): line is string => line !== undefined);
  return lines.length === 0 ? '' : `**Data sources.** ${lines.join(' ')}`;
}
