import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import fc from 'fast-check';
import type { StationPriceEntry } from '../../src/domain/api-entries.ts';
import { FUELS } from '../../src/domain/fuels.ts';
import { batchPricesPieces, batchPricesRest, stationPricesAnswer, stationPricesText } from '../../src/domain/prices-json.ts';
import { formatCents } from '../../src/domain/rounding.ts';
import { BatchPricesResponse, StationPricesResponse } from '../../src/schemas/api.ts';

/** The reference: what Fastify's serialiser for the routes' 200 schemas writes of the same values. */
const serialiser = (schema: unknown): ((value: unknown) => string) =>
  SerializerSelector()({}, {})({ schema, method: 'GET', url: '/x', httpStatus: '200' }) as (value: unknown) => string;
const oneStation = serialiser(StationPricesResponse);
const manyStations = serialiser(BatchPricesResponse);

/** Any text: quotes, backslashes, control characters, non-ASCII and lone surrogates included. */
const text = fc.string({ unit: 'binary', maxLength: 12 });
/** Prices as the API formats them, and now and then any text. */
const price = fc.oneof(fc.integer({ min: 0, max: 100_000 }).map(formatCents), text);
const entry: fc.Arbitrary<StationPriceEntry> = fc.record({
  fuel: fc.constantFrom(...FUELS),
  price: fc.oneof(fc.constant(false as const), price),
  available: fc.boolean(),
  updated_at: fc.oneof(fc.constant(false as const), fc.integer({ min: 0, max: 2 ** 32 })),
  source: fc.oneof(fc.constant(false as const), fc.constantFrom('nsw', 'wa', 'demo'), text),
  tomorrow: fc.oneof(fc.constant(false as const), fc.record({ price, from: fc.integer({ min: 0, max: 2 ** 32 }) })),
});
const station = fc.record({ id: text, name: text, prices: fc.array(entry, { maxLength: FUELS.length }) });

test('a station\'s prices are written as the route\'s schema serialiser writes them, byte for byte', () => {
  fc.assert(fc.property(station, (s) => {
    assert.equal(stationPricesAnswer(Buffer.from(stationPricesText(s.id, s.name, s.prices))).toString('utf8'), oneStation({ data: s }));
  }), { numRuns: 1000 });
});

test('many stations, and the unknown ids, are written as the batch route\'s schema serialiser writes them', () => {
  fc.assert(fc.property(fc.array(station, { maxLength: 5 }), fc.array(text, { maxLength: 4 }), (stations, unknown) => {
    const written = Buffer.concat(batchPricesPieces(stations.map((s) => Buffer.from(stationPricesText(s.id, s.name, s.prices))), batchPricesRest(unknown)));
    assert.equal(written.toString('utf8'), manyStations({ data: stations, unknown }));
  }), { numRuns: 500 });
});

test('worked example: one reported fuel with tomorrow\'s price, one never reported, an id needing escapes', () => {
  const prices: StationPriceEntry[] = [
    { fuel: 'ulp91', price: '185.9', available: true, updated_at: 1_795_244_400, source: 'wa', tomorrow: { price: '179.9', from: 1_795_298_400 } },
    { fuel: 'e85', price: false, available: false, updated_at: false, source: false, tomorrow: false },
  ];
  assert.equal(Buffer.concat(batchPricesPieces([Buffer.from(stationPricesText('a"b', 'Café\\', prices))], batchPricesRest(['x']))).toString('utf8'),
    '{"data":[{"id":"a\\"b","name":"Café\\\\","prices":['
    + '{"fuel":"ulp91","price":"185.9","available":true,"updated_at":1795244400,"source":"wa","tomorrow":{"price":"179.9","from":1795298400}},'
    + '{"fuel":"e85","price":false,"available":false,"updated_at":false,"source":false,"tomorrow":false}]}],"unknown":["x"]}');
});
