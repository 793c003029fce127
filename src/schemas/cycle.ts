import { Type } from '@sinclair/typebox';
import { FUELS } from '../domain/fuels.ts';
import { FuelIdSchema } from './api.ts';

/** GET /v1/cities/{id}/cycle: its query and its answer (the method is in domain/cycle.ts). */

export const DEFAULT_CYCLE_FUEL = 'ulp91';

export const CycleQuerySchema = Type.Object({
  fuel: Type.Optional(Type.String({
    enum: [...FUELS],
    description: 'The fuel whose daily city means are read; default ulp91.',
    'x-accepts': `must be one of ${FUELS.join(', ')}`,
  })),
});

const RestorationSchema = Type.Object({
  date: Type.String({ description: 'Its first day, DD-MM-YYYY.', examples: ['09-11-2026'] }),
  rise: Type.String({ description: 'Cents per litre, ddd.d: the rise of the daily mean over it.', examples: ['30.4'] }),
});

const NoCycle = Type.Literal(false, { description: 'Not known: no cycle, or no restoration in the last year.' });
const NoWeekday = Type.Literal(false, { description: 'Not a weekly cycle, or fewer than two weeks of every weekday to learn it from.' });
const NoPrice = Type.Literal(false, { description: 'No current price for the fuel in the city.' });

/** Weekday names as the answer gives them, Monday first (weekday 0). */
export const WEEKDAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

export const CycleResponse = Type.Object({
  data: Type.Object({
    id: Type.String(),
    name: Type.String(),
    fuel: FuelIdSchema,
    cycles: Type.Boolean({ description: 'At least 3 restorations in the last 365 days, at regular intervals.' }),
    period_days: Type.Union([Type.Integer({ minimum: 1, description: 'Median days between restorations.' }), NoCycle]),
    last_restoration: Type.Union([RestorationSchema, NoCycle]),
    restorations: Type.Array(RestorationSchema, {
      description: 'Every restoration in the last 365 days, oldest first (the last one is last_restoration); empty when there is none.',
    }),
    days_since_restoration: Type.Union([Type.Integer({ minimum: 0 }), NoCycle]),
    phase: Type.Union([Type.Literal('rising'), Type.Literal('falling'), Type.Literal('trough'), Type.Literal('none')]),
    cheapest_weekday: Type.Union([Type.Union(WEEKDAY_NAMES.map((w) => Type.Literal(w))), NoWeekday]),
    now: Type.Union([Type.String({ description: 'The mean of the prices in force now that are fresh (reported today or on the 1 (WA) or 14 days before), cents per litre, ddd.d.', examples: ['177.3'] }), NoPrice]),
    tomorrow: Type.Union([Type.Object({
      change: Type.String({
        description: 'How far tomorrow\'s published prices (WA, from about 14:30 WA time; in force from 06:00) are above the prices in '
          + 'force now, averaged over the same stations: cents per litre with a sign, +d.d or -d.d (0.0 when the same).',
        examples: ['+5.0'],
      }),
      stations: Type.Integer({ minimum: 1, description: 'The stations compared: in stock now and with a price published for tomorrow.' }),
    }), Type.Literal(false, { description: 'Not published: every state but WA, and WA before about 14:30.' })]),
    advice: Type.Union([Type.Literal('fill-up'), Type.Literal('wait'), Type.Literal('no-cycle'), Type.Literal('unknown')], {
      description: 'fill-up: buy today; wait: prices are due to fall; no-cycle: no regular cycle, buy when you need to; '
        + 'unknown: no price changes reported for two days, so the cycle cannot be read.',
    }),
    reason: Type.String({ description: 'Why, in plain words.', examples: ['Tuesday is the cheapest day of this weekly cycle over the last 8 weeks, and today is Tuesday.'] }),
    confidence: Type.Union([Type.Literal('high'), Type.Literal('medium'), Type.Literal('low')], {
      description: 'high: from published next-day prices; medium: a cycle of at least 5 restorations in the year, or no cycle over 300 days of reports; low: less.',
    }),
  }),
}, {
  description: 'The city\'s price cycle for the fuel, and what it advises.',
  examples: [{ data: {
    id: 'sydney', name: 'Sydney', fuel: 'ulp91', cycles: true, period_days: 40,
    last_restoration: { date: '09-11-2026', rise: '30.4' },
    restorations: [{ date: '21-08-2026', rise: '28.7' }, { date: '30-09-2026', rise: '29.9' }, { date: '09-11-2026', rise: '30.4' }],
    days_since_restoration: 14, phase: 'falling', cheapest_weekday: false, now: '183.9', tomorrow: false, advice: 'wait',
    reason: 'Prices are still falling, 14 days after the last restoration. The city\'s cycle runs every 40 days.', confidence: 'medium',
  } }],
});
