import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { recordsText } from '../../src/domain/history-json.ts';
import { formatCents } from '../../src/domain/rounding.ts';
import { STATES } from '../../src/domain/states.ts';
import { dayStart, formatLocalDay } from '../../src/domain/time.ts';

/** What the route's schema serialiser writes for these records: JSON.stringify of each, joined by commas. */
function expected(days: ReadonlyArray<{ day: number; meanTenths: number }>, state: (typeof STATES)[number], format: (t: number) => string): string {
  return days.map((d) => JSON.stringify({ timestamp: dayStart(state, d.day), date: formatLocalDay(d.day), average: format(d.meanTenths) })).join(',');
}

const anyDays = fc.array(fc.record({ day: fc.integer({ min: 16_000, max: 21_000 }), meanTenths: fc.double({ min: 0, max: 40_000, noNaN: true }) }), { maxLength: 40 });

test('records text is JSON.stringify of each record, for the averages the API formats and for any other text', () => {
  fc.assert(fc.property(fc.constantFrom(...STATES), anyDays, (state, days) => {
    assert.equal(recordsText(days, state, formatCents).toString('utf8'), expected(days, state, formatCents));
  }), { numRuns: 500 });
  // A format this file does not expect (quotes, a backslash, control and non-ASCII characters) is escaped as JSON escapes it.
  fc.assert(fc.property(fc.constantFrom(...STATES), anyDays, fc.string({ unit: 'binary', maxLength: 6 }), (state, days, extra) => {
    const odd = (t: number): string => `${formatCents(t)}${extra}`;
    assert.equal(recordsText(days, state, odd).toString('utf8'), expected(days, state, odd));
  }), { numRuns: 500 });
});
