/**
 * fast-check arbitraries for requests, built from the OpenAPI operations: every route and
 * method, path parameters, every documented query parameter plus unknown and repeated ones,
 * the headers the API reads, valid and invalid values, odd encodings and huge values.
 */
import fc from 'fast-check';
import type { JsonSchema, Operation, ParameterObject } from './openapi.ts';

export interface FuzzContext {
  tokens: { valid: string; limited: string; expired: string; revoked: string };
  /** Ids that exist, so that requests also reach the handlers and not only the 404s. */
  ids: { cities: string[]; stations: string[] };
}

export interface FuzzRequest {
  method: string;
  /** The request target exactly as it goes on the request line. */
  target: string;
  /** Header values; an array sends the header once per value. */
  headers: Record<string, string | string[]>;
  body?: string;
  /**
   * A whole request written byte for byte to a bare socket, for what node's client refuses to
   * send (control characters, spaces, malformed request lines). `target` is then informative.
   */
  raw?: string;
}

/** Stands for "the ETag last seen for this path" in If-None-Match; the runner substitutes it. */
export const SEEN_ETAG = '<seen-etag>';

const HEX = '0123456789ABCDEF';

/** Percent-encodes each UTF-16 unit; a lone surrogate becomes its (invalid) three-byte form. */
export function encodeLoose(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${HEX[b >> 4]}${HEX[b & 15]}`).join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** Bits of a URL that parsers get wrong: bad escapes, overlong UTF-8, NUL, traversal, latin1 bytes. */
const ODD_PIECES = [
  '..', '.', '%2e%2e', '%2E%2E%2F', '%2F', '%5C', '\\', '%00', '%0A', '%0D%0A', '%09', '%', '%z', '%zz', '%G0', '%e0%80%af',
  '%c0%ae', '%c0%af', '%ed%a0%80', '%ff', '%fe%ff', '%F0%9F%98%80', '%E2%80%AE', '\u00e9', '\u00ff', ';', ';x=1', '%3B', '%23', '%3F',
  '__proto__', 'constructor', 'prototype', 'toString', '%20', '+', '~', '!', '$', "'", '(', ')', '*', ',', '=', '@', ':', '[', ']',
];

const oddPiece = fc.constantFrom(...ODD_PIECES);
const hugeLength = fc.constantFrom(199, 200, 201, 1_000, 2_047, 2_049, 4_000, 8_000, 9_000, 17_000);
const text = fc.oneof(
  fc.string({ maxLength: 20 }).map(encodeLoose),
  fc.string({ unit: 'binary', maxLength: 12 }).map(encodeLoose),
  fc.string({ unit: 'grapheme', maxLength: 8 }).map(encodeLoose),
  fc.array(oddPiece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
);

/** A path segment for an `{id}`: mostly real ids and plausible slugs, often hostile. */
function idSegment(known: readonly string[]): fc.Arbitrary<string> {
  const real = known.length > 0 ? fc.constantFrom(...known) : fc.constant('sydney');
  return fc.oneof(
    { weight: 6, arbitrary: real },
    { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9]+(-[a-z0-9]+){0,3}$/) },
    { weight: 1, arbitrary: real.map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: fc.tuple(real, oddPiece).map(([id, odd]) => `${id}${odd}`) },
    { weight: 3, arbitrary: text.filter((s) => s.length > 0) },
    { weight: 1, arbitrary: hugeLength.map((n) => 'a'.repeat(Math.min(n, 8_000))) },
  );
}

/** A value the schema accepts, written as a client would. */
function validValue(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.enum) {
    const values = schema.enum.map(String);
    return fc.oneof(fc.constantFrom(...values), fc.constantFrom(...values).map((v) => v.toUpperCase()));
  }
  if (schema.type === 'integer') {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? 1_000_000_000;
    return fc.oneof(fc.integer({ min, max: Math.min(max, min + 30) }), fc.integer({ min, max }), fc.constantFrom(min, max)).map(String);
  }
  return fc.string({ maxLength: 10 }).map(encodeLoose);
}

/** Values the schema refuses, among them the ones lenient parsers accept. */
function invalidValue(schema: JsonSchema): fc.Arbitrary<string> {
  const common = fc.constantFrom('', ' ', 'null', 'undefined', 'true', '[]', '{}', '%00', '%zz', '%e0%80%af', 'NaN', 'Infinity');
  if (schema.type === 'integer') {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? 1_000_000_000;
    return fc.oneof(common, fc.constantFrom(
      String(min - 1), String(max + 1), '1.5', '1.0', '-1', '-0', '+1', '1e3', '1E1', '0x10', '0b1', '0o7', '%2010', '10%20', '10abc',
      '%EF%BC%91', '%D9%A3', '007', '99999999999', '9007199254740993', '1_000',
    ), fc.integer().map(String), fc.double().map(String));
  }
  if (schema.enum) return fc.oneof(common, fc.constantFrom(...schema.enum.map((v) => `${String(v)}x`), ...schema.enum.map((v) => ` ${String(v)}`)), text);
  return fc.oneof(common, text);
}

/**
 * The changes feed's `wait` holds a request by design (up to 30 s): valid values stay at 0 or 1 s
 * here, so that the client's timeout still catches only true hangs (long polls are tested in
 * test/http/routes/changes.test.ts). Its invalid values are drawn from the documented range as any other's.
 */
const HELD_SECONDS = new Set(['wait']);

function queryPair(parameter: ParameterObject): fc.Arbitrary<string[]> {
  const schema = parameter.schema ?? {};
  const valid = HELD_SECONDS.has(parameter.name) ? validValue({ ...schema, maximum: Math.min(schema.maximum ?? 1, 1) }) : validValue(schema);
  const value = fc.oneof({ weight: 5, arbitrary: valid }, { weight: 3, arbitrary: invalidValue(schema) }, { weight: 1, arbitrary: text });
  const name = fc.oneof(
    { weight: 12, arbitrary: fc.constant(parameter.name) },
    { weight: 1, arbitrary: fc.constantFrom(`${parameter.name}[]`, `${parameter.name}[0]`, parameter.name.toUpperCase(), encodeLoose(parameter.name).replace(/^./, (c) => `%${c.charCodeAt(0).toString(16)}`)) },
  );
  // Once, twice (repeated), or with no `=` at all.
  return fc.oneof(
    { weight: 10, arbitrary: fc.tuple(name, value).map(([n, v]) => [`${n}=${v}`]) },
    { weight: 1, arbitrary: fc.tuple(name, value, value).map(([n, a, b]) => [`${n}=${a}`, `${n}=${b}`]) },
    { weight: 1, arbitrary: name.map((n) => [n]) },
  );
}

const unknownPair = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.stringMatching(/^[a-z_]{1,12}$/), text).map(([n, v]) => `${n}=${v}`) },
  { weight: 3, arbitrary: fc.constantFrom('__proto__[x]=1', 'constructor[prototype][x]=1', 'a[b][c]=d', '=', '&', '==', 'x==y', '%=%', '%zz=%zz', 'a=%00', 'a=b%') },
  { weight: 1, arbitrary: hugeLength.map((n) => `pad=${'x'.repeat(n)}`) },
);

function queryString(operation: Operation): fc.Arbitrary<string> {
  const documented = operation.parameters.filter((p) => p.in === 'query');
  return fc.tuple(
    fc.tuple(...documented.map((p) => fc.option(queryPair(p), { freq: 2, nil: [] as string[] }))),
    fc.array(unknownPair, { maxLength: 3 }),
    fc.constantFrom('?', '?', '?', '??', '?&', '#frag?'),
  ).chain(([known, unknown, separator]) => {
    const pairs = [...known.flat(), ...unknown];
    if (pairs.length === 0) return fc.constantFrom('', '?');
    return fc.shuffledSubarray(pairs, { minLength: pairs.length, maxLength: pairs.length }).map((shuffled) => `${separator}${shuffled.join('&')}`);
  });
}

/** Files the docs page's static route serves, and ways out of its folder. */
const STATIC_FILES = ['index.css', 'swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'logo.svg', 'oauth2-redirect.html'];
const staticFile = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...STATIC_FILES) },
  { weight: 1, arbitrary: fc.constantFrom('../../package.json', '..%2F..%2Fpackage.json', '%2e%2e/%2e%2e/package.json', '..\\..\\package.json', '/etc/passwd', 'theme/x.css', 'csp.json', '.', '') },
);

function filledPath(operation: Operation, context: FuzzContext): fc.Arbitrary<string> {
  const known = operation.template.startsWith('/v1/stations') ? context.ids.stations : context.ids.cities;
  const parts = operation.segments.map((part) => {
    if (part === '{*}') return staticFile;
    return /^\{[^}]+\}$/.test(part) ? idSegment(known) : fc.constant(part);
  });
  return fc.tuple(...parts).map((filled) => filled.join('/'));
}

/** The ways a known path is bent: doubled or trailing slashes, dot segments, encoded letters, case. */
const pathMutation = fc.constantFrom<(path: string) => string>(
  (p) => p.replace('/', '//'),
  (p) => p.replace(/\/([^/]*)$/, '//$1'),
  (p) => `${p}/`,
  (p) => `${p}/.`,
  (p) => `${p}/..`,
  (p) => p.replace('/v1/', '/v1/./'),
  (p) => p.replace('/v1/', '/v1/../v1/'),
  (p) => p.replace('/v1/', '/V1/'),
  (p) => p.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
  (p) => p.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  (p) => p.replace(/\/([a-z])/, '/%c0%af$1'),
  (p) => `${p}%00`,
  (p) => `${p};jsessionid=1`,
  (p) => `${p}%2F`,
  (p) => p.replace(/^\//, '//'),
  (p) => p.replace(/^\//, '/%2e%2e/'),
  (p) => `${p}.json`,
);

const strangePath = fc.oneof(
  fc.constantFrom('/', '*', '/v1', '/v1/', '/v2/cities', '/docs/../v1/cities', '/.env', '/v1/cities/sydney/history/extra', '/%', '/%zz', '/\u00e9'),
  fc.array(text, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
);

function tokenHeader(context: FuzzContext): fc.Arbitrary<string | string[] | undefined> {
  const { valid, limited, expired, revoked } = context.tokens;
  return fc.oneof(
    { weight: 24, arbitrary: fc.constant(`Bearer ${valid}`) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        `Bearer ${limited}`, `Bearer ${expired}`, `Bearer ${revoked}`, `bearer ${valid}`, `BEARER ${valid}`, `Bearer  ${valid}`, `Bearer ${valid} `,
        `Bearer ${valid}x`, `Bearer ${valid}=`, `Bearer ${valid.slice(0, -1)}`, `Bearer ${valid}\u00e9`, `Bearer\t${valid}`, `Basic ${Buffer.from(`x:${valid}`).toString('base64')}`,
        'Bearer', 'Bearer ', '', ' ', 'Token abc', `Bearer ${valid},Bearer ${valid}`, `Bearer fp_aaaaaaaa_${'a'.repeat(43)}`, `Bearer ${'A'.repeat(15_000)}`,
      ),
    },
    { weight: 1, arbitrary: fc.constant<string[]>([`Bearer ${valid}`, `Bearer ${revoked}`]) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((s) => `Bearer ${s.replace(/[^\t\x20-\x7e]/g, '')}`) },
  );
}

/** Present about once in `oneIn` requests. */
function sometimes<T>(values: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: values });
}

/** Header values node's client sends as given: tab, printable ASCII and Latin-1. */
const headerSafe = (value: string): string => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

/** The headers the API reads (it declares none as parameters), then any the document declares. */
function headers(context: FuzzContext, documented: readonly ParameterObject[]): fc.Arbitrary<Record<string, string | string[]>> {
  const declared = Object.fromEntries(documented.map((p) => [p.name.toLowerCase(), sometimes(fc.oneof(
    validValue(p.schema ?? {}), invalidValue(p.schema ?? {}),
  ).map((value) => headerSafe(decodeURIComponentLoose(value))), 3)]));
  return fc.record({
    ...declared,
    authorization: tokenHeader(context),
    'if-none-match': sometimes(fc.constantFrom(SEEN_ETAG, SEEN_ETAG, `W/${SEEN_ETAG}`, `"x", ${SEEN_ETAG}`, '*', '"nope"', 'W/"nope"', ',,,', '"', 'x'.repeat(9_000)), 4),
    'x-request-id': sometimes(fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
      fc.constantFrom('bad id', '', 'a'.repeat(129), 'a'.repeat(8_000), '\u00e9', '<script>', '../../etc/passwd'),
    ), 4),
    accept: sometimes(fc.constantFrom('*/*', 'application/json', 'text/html', 'application/xml', 'application/json;q=0', ''), 6),
    origin: sometimes(fc.constantFrom('https://example.org', 'null', 'http://localhost:3000'), 8),
    'x-forwarded-for': sometimes(fc.constantFrom('1.2.3.4', '127.0.0.1, 10.0.0.1', 'garbage'), 10),
    range: sometimes(fc.constantFrom('bytes=0-10', 'bytes=-1', 'bytes=5-1', 'bytes=0-0,2-3'), 15),
    'accept-encoding': sometimes(fc.constantFrom('gzip', 'br', 'identity;q=0', '*;q=0'), 10),
    'x-unknown-header': sometimes(fc.constantFrom('1', ['a', 'b'], 'v'.repeat(4_000)), 15),
  }, { requiredKeys: [] }).map((record) => {
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(record)) if (value !== undefined) out[name] = value;
    return out;
  });
}

const method = fc.oneof(
  { weight: 80, arbitrary: fc.constant('GET') },
  { weight: 8, arbitrary: fc.constant('HEAD') },
  { weight: 8, arbitrary: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE') },
  { weight: 3, arbitrary: fc.constant('OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'SEARCH', 'QUERY') },
);

/** Sometimes a body, though the API takes none. */
const body = sometimes(fc.oneof(
  fc.constant({ type: 'application/json', text: '{"a":1}' }),
  fc.constant({ type: 'application/json', text: '{"a":' }),
  fc.constant({ type: 'text/plain', text: 'hello' }),
  fc.constant({ type: 'application/octet-stream', text: 'x'.repeat(2_000) }),
  fc.constant({ type: 'application/json', text: `{"pad":"${'x'.repeat(5_000)}"}` }),
), 25);

/** Whole requests for a bare socket: what no ordinary client sends. */
function rawRequest(context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const auth = `Authorization: Bearer ${context.tokens.valid}\r\n`;
  const line = fc.constantFrom(
    'GET /v1/cities?state=nsw HTTP/1.1', 'GET /v1/cities/syd ney HTTP/1.1', 'GET /v1/cities/\u0000 HTTP/1.1', 'GET /v1/cities/\tx HTTP/1.1',
    'GET /v1/cities\r\nX-Injected: 1 HTTP/1.1', 'GET http://127.0.0.1/v1/cities HTTP/1.1', 'GET //v1/cities HTTP/1.1', 'GET v1/cities HTTP/1.1',
    'GET /v1/cities HTTP/1.0', 'GET /v1/cities HTTP/2.0', 'GET /v1/cities HTTP/1.1 extra', 'G ET /v1/cities HTTP/1.1', 'get /v1/cities HTTP/1.1',
    'GET /v1/cities/\u00ff\u00fe HTTP/1.1', 'GET /v1/cities/\u007f HTTP/1.1', 'GET  /v1/cities HTTP/1.1', 'GET /health', 'BREW /v1/cities HTTP/1.1',
    `GET /v1/cities/${'a'.repeat(20_000)} HTTP/1.1`,
  );
  const extra = fc.constantFrom(
    '', 'Host: a\r\nHost: b\r\n', 'X-Bad Header: 1\r\n', 'X-Null: a\u0000b\r\n', 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n',
    'Content-Length: -1\r\n', 'Content-Length: abc\r\n', 'Transfer-Encoding: gzip\r\n', ' folded: header\r\n', 'X-Request-Id: a\u00e9b\r\n',
    `X-Long: ${'v'.repeat(20_000)}\r\n`, 'Authorization: Bearer a\u0001b\r\n',
  );
  return fc.tuple(line, extra, fc.boolean()).map(([requestLine, more, withAuth]) => ({
    method: requestLine.split(' ', 1)[0] ?? '',
    target: requestLine.split(' ')[1] ?? '',
    headers: {},
    raw: `${requestLine}\r\nHost: 127.0.0.1\r\n${withAuth ? auth : ''}${more}Connection: close\r\n\r\n`,
  }));
}

/** A generated (percent-encoded) value as text, for a header; undecodable escapes stay as they are. */
function decodeURIComponentLoose(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** What node's client sends as given: bytes 0x21 to 0xff; anything else is percent-encoded (raw requests carry the rest). */
function wireSafe(target: string): string {
  return target.replace(/[^\u0021-\u00ff]/gu, (char) => encodeLoose(char));
}

/** Any request the fuzzer sends: mostly well-aimed at an operation, some bent, some malformed. */
export function requestArbitrary(operations: readonly Operation[], context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  // One arbitrary per operation, built once: building them inside a chain costs milliseconds per request.
  // The /v1 API three times as often as the probes and the docs page's files.
  // Aimed by path: a POST form (src/http/routes/post-body.ts) shares its GET's path, which the method arbitrary sends POSTs to, bodies and all.
  const aimed = fc.oneof(...operations.filter((operation) => operation.method !== 'POST').map((operation) => ({
    weight: operation.template.startsWith('/v1/') ? 3 : 1,
    arbitrary: fc.tuple(filledPath(operation, context), queryString(operation)),
  })));
  const target = fc.oneof(
    { weight: 85, arbitrary: aimed.map(([path, query]) => `${path}${query}`) },
    { weight: 10, arbitrary: fc.tuple(aimed, pathMutation).map(([[path, query], mutate]) => `${mutate(path)}${query}`) },
    { weight: 5, arbitrary: strangePath },
  );
  const headerParameters = operations.flatMap((o) => o.parameters.filter((p) => p.in === 'header'));
  const ordinary = fc.tuple(method, target.map(wireSafe), headers(context, headerParameters), body).map(([m, t, h, b]): FuzzRequest => {
    if (!b) return { method: m, target: t, headers: h };
    // An explicit length: node's client sends a HEAD's body unframed, which would read as a second request.
    return { method: m, target: t, headers: { ...h, 'content-type': b.type, 'content-length': String(Buffer.byteLength(b.text)) }, body: b.text };
  });
  return fc.oneof({ weight: 97, arbitrary: ordinary }, { weight: 3, arbitrary: rawRequest(context) });
}
