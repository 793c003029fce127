import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import fastQueryString from 'fast-querystring';
import { parseQueryString } from '../../../src/http/request/query-string.ts';

/** The reference: Fastify's own query string parser (find-my-way's default), as the router called it before. */
const fastify = (query: string): Record<string, unknown> => (query.length === 0 ? {} : fastQueryString.parse(query));
/** Entries in order, so that the order of keys and of repeated values is compared too. */
const entries = (parsed: Record<string, unknown>): Array<[string, unknown]> => Object.entries(parsed);

/** Pieces a query string is made of, the awkward ones above all: escapes valid, truncated, not UTF-8, surrogates, separators. */
const piece = fc.constantFrom(
  'a', 'b', 'fuel', 'path', '=', '&', '+', '%', '%2', '%20', '%2B', '%26', '%3D', '%25', '%7E', '%E2%82%AC', '%C3', '%C3%A9', '%ED%A0%80',
  '%F0%9F%98%80', '%F4%90%80%80', '%C0%AF', '%zz', '%%', '__proto__', 'constructor', 'é', '€', '\uD800', ' ', '~', '?', '#',
);
const query = fc.oneof(
  fc.array(piece, { maxLength: 30 }).map((pieces) => pieces.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

test('a query string parses to what Fastify\'s own parser makes of it, key for key and value for value, in order', () => {
  fc.assert(fc.property(query, (text) => {
    const ours = parseQueryString(text);
    assert.deepEqual(entries(ours), entries(fastify(text)));
    assert.equal(Object.getPrototypeOf(ours), null);
  }), { numRuns: 5000 });
});

test('worked examples: pairs, repeats, spaces, escapes kept when not UTF-8, keys that are only keys', () => {
  const cases: Array<[string, Array<[string, string | string[]]>]> = [
    ['fuel=e10&state=vic', [['fuel', 'e10'], ['state', 'vic']]],
    ['a=1&a=2&b&a=3', [['a', ['1', '2', '3']], ['b', '']]],
    ['x=1+2%2B3', [['x', '1 2+3']]],
    ['%E2%82%AC=caf%C3%A9', [['€', 'café']]],
    ['p=%zz&q=%C3&r=%ED%A0%80', [['p', '%zz'], ['q', '%C3'], ['r', '%ED%A0%80']]],
    ['=v&&k==1&', [['', 'v'], ['k', '=1']]],
    ['__proto__=1&constructor=2', [['__proto__', '1'], ['constructor', '2']]],
    ['&', []],
  ];
  for (const [text, expected] of cases) {
    assert.deepEqual(entries(parseQueryString(text)), expected, text);
    assert.deepEqual(entries(fastify(text)), expected, `Fastify's parser on ${text}`);
  }
});

test('a long query of many pairs without =: each kept, as an empty value', () => {
  const text = 'k&'.repeat(20_000);
  assert.deepEqual(entries(parseQueryString(text)), [['k', new Array<string>(20_000).fill('')]]);
});

