import { type Static, Type } from '@sinclair/typebox';
import { FUELS } from '../domain/fuels.ts';
import { STATES } from '../domain/states.ts';
import { DEFAULT_RADIUS_KM, MAX_RADIUS_KM, MIN_RADIUS_KM, NEAR_PATTERN, RADIUS_PATTERN } from '../domain/nearby.ts';
import { FuelIdSchema, orFalse } from './api.ts';
import { NEAR_MESSAGES, queryInteger, slugParameter } from './queries.ts';

/** GET /v1/prices/changes: its query and its answer (the feed: storage/sql/changes.ts; the route: http/routes/changes.ts). */

export const DEFAULT_CHANGES_LIMIT = 100;
export const MAX_CHANGES_LIMIT = 1000;
export const MAX_WAIT_SEC = 30;
/** A cursor is a change number: digits, within 2^53. */
export const CURSOR_PATTERN = '^[0-9]{1,15}$';
const CURSOR_ACCEPTS = 'must be a cursor this server handed out (next, or an event id): 1 to 15 digits';

export const ChangesQuerySchema = Type.Object({
  since: Type.Optional(Type.String({
    pattern: CURSOR_PATTERN, maxLength: 15, 'x-accepts': CURSOR_ACCEPTS,
    description: 'The cursor to read after: next of the last answer (or the id of the last event received). Without it: no changes and the cursor of now, '
      + 'to follow from once the state has been copied. A cursor ahead of this server\'s last change is a 400.',
  })),
  fuel: Type.Optional(Type.String({
    enum: [...FUELS], 'x-accepts': `must be one of ${FUELS.join(', ')}`,
    description: 'Only changes of this fuel (a combined id: of any of its members, and of the id itself). Case-insensitive.',
  })),
  state: Type.Optional(Type.String({ enum: [...STATES], 'x-accepts': `must be one of ${STATES.join(', ')}`, description: 'Only stations of this state or territory; case-insensitive.' })),
  city: Type.Optional(slugParameter('city', 'Only stations of this city (404 for an unknown id).')),
  near: Type.Optional(Type.String({
    pattern: NEAR_PATTERN, maxLength: 32, 'x-accepts': NEAR_MESSAGES.near,
    description: 'Only stations within the radius of this point (LAT,LNG). One of state, city and near at most.',
  })),
  radius: Type.Optional(Type.String({
    pattern: RADIUS_PATTERN, 'x-accepts': NEAR_MESSAGES.radius,
    description: `With near: the radius in km, ${MIN_RADIUS_KM} to ${MAX_RADIUS_KM}; default ${DEFAULT_RADIUS_KM}. A station at exactly the radius (to the metre) is in.`,
  })),
  limit: Type.Optional(queryInteger(1, MAX_CHANGES_LIMIT, `must be a whole number from 1 to ${MAX_CHANGES_LIMIT}`,
    `Changes looked at per page, 1 to ${MAX_CHANGES_LIMIT}; default ${DEFAULT_CHANGES_LIMIT}.`)),
  wait: Type.Optional(queryInteger(0, MAX_WAIT_SEC, `must be a whole number of seconds from 0 to ${MAX_WAIT_SEC}`,
    `Long polling: with since and no change to answer, hold the request until one arrives or this many seconds pass (then an empty list); 0 to ${MAX_WAIT_SEC}, default 0.`)),
});

export type ChangesQueryInput = Static<typeof ChangesQuerySchema>;

export const ChangeSchema = Type.Object({
  cursor: Type.String({ description: 'This change\'s cursor (its number): passing it as since answers the changes after it.', examples: ['10452'] }),
  station_id: Type.String({ examples: ['metro-fuel-black-gardens'] }),
  fuel: FuelIdSchema,
  price: orFalse(Type.String({ description: 'Cents, ddd.d: the price, or when out of stock the last price reported in stock (false when never in stock), as /v1/stations/{id}/prices shows it.', examples: ['185.9'] })),
  available: Type.Boolean({ description: 'In stock.' }),
  updated_at: Type.Integer({ description: 'Unix second of the report that made the change.' }),
});

export const ChangesResponse = Type.Object({
  data: Type.Array(ChangeSchema, { description: 'The changes after since, oldest first: each station and fuel whose price or availability changed, as it is now.' }),
  next: Type.String({ description: 'The cursor to ask with next (since=next): every change up to it has been looked at.', examples: ['10452'] }),
  more: Type.Boolean({ description: 'The page was full: ask again at once with since=next for the rest.' }),
}, {
  description: 'A page of price changes: ask again with since=next to follow the feed.',
  examples: [{
    data: [{ cursor: '10452', station_id: 'metro-fuel-black-gardens', fuel: 'e10', price: '185.9', available: true, updated_at: 1763857800 }],
    next: '10452', more: false,
  }],
});
