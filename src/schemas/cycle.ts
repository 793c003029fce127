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
    cycles: Type.Boolean({ description: 'True exactly when state is cycle: at least 4 restorations in the last 365 days at regular intervals, each given back before the next (until issue 47: 3, without the give-back).' }),
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
    state: Type.Union([Type.Literal('insufficient-history'), Type.Literal('no-cycle'), Type.Literal('cycle')], {
      description: 'cycle: at least 4 restorations in the last 365 days at regular intervals, each followed by a fall (a sawtooth, '
        + 'not wholesale steps); no-cycle: none such over at least history.needed days with news; insufficient-history: fewer days '
        + 'with news than that and no cycle yet (the answer cannot yet tell a city without a cycle from one with a slow one).',
    }),
    history: Type.Object({
      days: Type.Integer({ minimum: 0, description: 'Days with news (a mean that moved) in the last 365 local days.' }),
      needed: Type.Integer({ minimum: 1, description: 'Days with news the method needs before it says no-cycle.' }),
    }),
    advice: Type.Union([Type.Literal('fill-up'), Type.Literal('wait'), Type.Literal('no-cycle'), Type.Literal('unknown')], {
      description: 'fill-up: buy today; wait: prices are due to fall within horizon.wait_days; no-cycle: nothing here says prices '
        + 'will move either way, buy when you need to; unknown: the advice cannot be read (no price changes reported for two days, '
        + 'or insufficient history without published next-day prices).',
    }),
    signal: Type.Union([
      Type.Literal('tomorrow'), Type.Literal('restoration'), Type.Literal('weekday'), Type.Literal('phase'), Type.Literal('trend'),
      Type.Literal('none'),
    ], {
      description: 'The signal that decided the advice: tomorrow (published next-day prices, WA); restoration (a rise under way); '
        + 'weekday (a weekly cycle\'s cheapest day); phase (where the city is in its cycle); trend (the city mean\'s wholesale '
        + 'move over the last days and weeks); none (no signal: no-cycle or unknown). The reason says it in words.',
    }),
    reason: Type.String({ description: 'Why, in plain words, naming the signal that decided.', examples: ['Tuesday is the cheapest day of this weekly cycle over the last 8 weeks, and today is Tuesday.'] }),
    horizon: Type.Object({
      wait_days: Type.Integer({ minimum: 0, description: 'Wait at most this many days (0: buy today). With wait, the day by which to buy even if prices have not fallen.' }),
      next_rise: Type.Union([Type.String({ description: 'DD-MM-YYYY: with a cycle, the day the next restoration is expected (the last one plus the period; today when it is overdue).', examples: ['19-12-2026'] }), NoCycle]),
    }),
    expected_saving: Type.Union([Type.String({
      description: 'Cents per litre, d.d: what following the advice is expected to save on this fill against not following it '
        + '(wait: the fall expected within the horizon; fill-up: the rise expected within it), from the signal that decided.',
      examples: ['3.4'],
    }), Type.Literal(false, { description: 'No estimate: no-cycle, unknown, or a wait whose fall the signal does not size (a cycle\'s falling phase, a weekday ahead).' })]),
    track_record: Type.Union([Type.Object({
      days: Type.Integer({ minimum: 1, description: 'The period replayed: the last 90 days before today.' }),
      windows: Type.Integer({
        minimum: 1,
        description: 'Fills replayed: a fill due every 7 days, each may be put off up to 3 days, replayed from each of the 7 start days and pooled, '
          + 'so one due on each day of the period whose window has prices (87 when every day has; docs/BACKTEST.md).',
      }),
      advice: Type.String({ description: 'What following this advice saved per fill against buying on a fixed weekday (the due day), c/L with a sign, +d.d or -d.d.', examples: ['+2.1'] }),
      best_rule: Type.Object({
        rule: Type.Union([
          Type.Literal('cheapest-weekday'), Type.Literal('tomorrow-higher'), Type.Literal('stopped-falling'), Type.Literal('near-low'),
        ], { description: 'The simple rule a driver could follow that saved most here (tomorrow-higher only where tomorrow\'s prices are published).' }),
        saved: Type.String({ description: 'Its saving per fill against the fixed weekday, c/L, +d.d or -d.d.', examples: ['+1.2'] }),
      }),
      oracle: Type.String({ description: 'What perfect hindsight saved per fill (the cheapest day of each window), c/L, d.d.', examples: ['3.0'] }),
    }, { description: 'What following this advice saved in this city over the last 90 days, replayed day by day without look-ahead on the same daily series the cycle reads.' }),
    Type.Literal(false, { description: 'Not measured: no whole fill window with prices in the last 90 days.' })]),
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
    days_since_restoration: 14, phase: 'falling', cheapest_weekday: false, now: '183.9', tomorrow: false,
    state: 'cycle', history: { days: 340, needed: 180 }, advice: 'wait', signal: 'phase',
    reason: 'Prices are still falling, 14 days after the last restoration. The city\'s cycle runs every 40 days.',
    horizon: { wait_days: 3, next_rise: '19-12-2026' }, expected_saving: '2.4',
    track_record: { days: 90, windows: 87, advice: '+4.1', best_rule: { rule: 'stopped-falling', saved: '+3.0' }, oracle: '5.0' },
    confidence: 'medium',
  } }],
});
