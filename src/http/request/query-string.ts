/**
 * The query string parser the router is given (app.ts): what Fastify's own (fast-querystring)
 * returns, key for key and value for value, with each part that needs it decoded by the engine's
 * decodeURIComponent instead of fast-querystring's decoder, which is written in JavaScript and
 * builds its result a piece at a time.
 *
 * That matters for long values: along's `path` (an encoded polyline of up to 1,000 points, some
 * 4 KB with a few hundred %XX escapes) took several times as long to decode that way, and came
 * out as a string of a thousand pieces that every later reader (the schema's length and pattern
 * checks, the polyline's decoder) walked slowly; the engine returns one flat string. Short
 * queries cost about the same either way (bench/RESULTS.md, "Along's query string").
 *
 * The rules, fast-querystring's (test/http/request/query-string.test.ts checks the two agree on
 * arbitrary strings): pairs split at `&`, a pair's key ends at its first `=`; a pair with neither
 * a key nor an `=` is skipped; a key without `=` has the value ''; `+` is a space, then `%XX`
 * escapes are decoded, and a part whose escapes are not valid UTF-8 is kept as it came; a key
 * given more than once collects its values in an array, in order.
 *
 * One rule is ours: a part whose escapes do not decode (`%FF%FE`, not UTF-8; `%zz` or a lone `%`,
 * not an escape) marks the result (badlyEncoded), and every route answers such a request 400
 * invalid_parameter naming the parameter (routes/query.ts strictQuery), rather than take the raw
 * text for a value.
 */
export type ParsedQuery = Record<string, string | string[]>;

const PLUS = /\+/g;
/** Where the parser notes the first key whose key or value does not decode (not enumerable: the result compares as fast-querystring's). */
const BADLY_ENCODED = Symbol('a part that is not valid URL encoding');

/** The key of the first pair whose key or value is not valid URL encoding, if any. */
export function badlyEncoded(query: unknown): string | undefined {
  return typeof query === 'object' && query !== null ? (query as { [BADLY_ENCODED]?: string })[BADLY_ENCODED] : undefined;
}

export function parseQueryString(input: string): ParsedQuery {
  // Without a prototype, as fast-querystring's: a key such as `__proto__` or `constructor` is only a key.
  const result = Object.create(null) as ParsedQuery;
  const length = input.length;
  // The next `=` at or after the pair's start (or -1): found again only once a pair has passed it, so the scan stays linear.
  let nextEquals = input.indexOf('=');
  for (let start = 0; start <= length;) {
    let end = input.indexOf('&', start);
    if (end < 0) end = length;
    if (nextEquals >= 0 && nextEquals < start) nextEquals = input.indexOf('=', start);
    const equals = nextEquals >= 0 && nextEquals < end ? nextEquals : -1;
    if (equals >= 0 || end > start) {
      const key = decodedPart(input.slice(start, equals >= 0 ? equals : end));
      const value = equals >= 0 ? decodedPart(input.slice(equals + 1, end)) : '';
      if ((key === undefined || value === undefined) && badlyEncoded(result) === undefined) {
        Object.defineProperty(result, BADLY_ENCODED, { value: key ?? input.slice(start, equals >= 0 ? equals : end), enumerable: false });
      }
      const [k, v] = [key ?? rawPart(input.slice(start, equals >= 0 ? equals : end)), value ?? rawPart(input.slice(equals + 1, end))];
      const current = result[k];
      if (current === undefined) result[k] = v;
      else if (typeof current === 'string') result[k] = [current, v];
      else current.push(v);
    }
    start = end + 1;
  }
  return result;
}

/** A key or a value: `+` as a space, then its escapes decoded; undefined when they do not decode. */
function decodedPart(text: string): string | undefined {
  const spaced = rawPart(text);
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

/** A part that does not decode, as fast-querystring keeps it: `+` as a space, escapes left as they came. */
function rawPart(text: string): string {
  return text.includes('+') ? text.replace(PLUS, ' ') : text;
}
