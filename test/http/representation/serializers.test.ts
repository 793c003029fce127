import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { lazySerializers } from '../../../src/http/representation/serializers.ts';

const route = (schema: unknown) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' });

test('a lazy serialiser writes what the eager one writes, external schemas included', () => {
  const external = { Item: { $id: 'Item', type: 'object', properties: { id: { type: 'string' }, cents: { type: 'number' } }, required: ['id'] } };
  const schema = { type: 'object', properties: { data: { type: 'array', items: { $ref: 'Item' } }, total: { type: 'integer' } } };
  const lazy = lazySerializers()(external, {})(route(schema));
  const eager = SerializerSelector()(external, {})(route(schema));
  const value = { data: [{ id: 'a', cents: 199.9, extra: true }, { id: 'b"\\', cents: 0 }], total: 2.0, dropped: 'x' };
  assert.equal(lazy(value), '{"data":[{"id":"a","cents":199.9},{"id":"b\\"\\\\","cents":0}],"total":2}');
  assert.equal(lazy(value), eager(value));
  assert.equal(lazy({ data: [], total: 0 }), '{"data":[],"total":0}');
});

test('a lazy serialiser compiles on its first use, not when its route is registered', () => {
  const broken = { type: 'object', properties: { a: { $ref: 'NoSuchSchema' } } };
  assert.throws(() => SerializerSelector()({}, {})(route(broken)));
  const serialize = lazySerializers()({}, {})(route(broken));
  assert.equal(typeof serialize, 'function');
  assert.throws(() => serialize({ a: 1 }), /NoSuchSchema/);
});
