import { Type } from '@sinclair/typebox';
import { CONSUMPTION_RANGE, LITRES_RANGE } from '../domain/along.ts';

/** litres and consumption, and the net_cost they add (domain/along.ts): on /v1/prices/cheapest and /v1/prices/along. */

export const LITRES_ACCEPTS = `must be litres from ${LITRES_RANGE.min} to ${LITRES_RANGE.max}, at most 2 decimals, e.g. 40`;
export const CONSUMPTION_ACCEPTS = `must be litres per 100 km from ${CONSUMPTION_RANGE.min} to ${CONSUMPTION_RANGE.max}, at most 2 decimals, e.g. 8.5`;

/** litres and consumption: their patterns check the syntax; the route the ranges, with the same messages. */
export const fillParameters = (detour: string) => ({
  litres: Type.Optional(Type.String({
    pattern: '^[0-9]{1,3}(\\.[0-9]{1,2})?$', 'x-accepts': LITRES_ACCEPTS,
    description: `The fill, in litres (${LITRES_RANGE.min} to ${LITRES_RANGE.max}); with consumption, each item gains net_cost. Not without consumption.`,
  })),
  consumption: Type.Optional(Type.String({
    pattern: '^[0-9]{1,2}(\\.[0-9]{1,2})?$', 'x-accepts': CONSUMPTION_ACCEPTS,
    description: `The car's consumption in litres per 100 km (${CONSUMPTION_RANGE.min} to ${CONSUMPTION_RANGE.max}); with litres, each item gains net_cost: `
      + `litres × price + (detour_km × consumption / 100) × price, the price in dollars a litre, rounded half away from zero to cents once. ${detour} Not without litres.`,
  })),
});

export const NetCostSchema = Type.Optional(Type.String({
  description: 'Only with litres and consumption: dollars, d.dd, for the fill at this station\'s price plus the fuel its detour burns at that price.',
  examples: ['74.95'],
}));

