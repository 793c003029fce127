/** Every live feed's adapter by id. */
import type { FeedAdapter, FeedId } from '../feed.ts';
import { qldAdapter, saAdapter } from './fpd.ts';
import { nswAdapter } from './nsw.ts';
import { ntAdapter } from './nt.ts';
import { vicAdapter } from './vic.ts';
import { waAdapter } from './wa.ts';

export const ADAPTERS: Readonly<Record<FeedId, FeedAdapter>> = {
  nsw: nswAdapter, qld: qldAdapter, sa: saAdapter, wa: waAdapter, vic: vicAdapter, nt: ntAdapter,
};
