import type { StationPriceEntry } from './api-entries.ts';
import { plainAscii } from './history-json.ts';

/**
 * Stations' current prices as JSON text, written here rather than by the route's schema
 * serialiser: the batch route's 100 stations are 1,900 entries (200 KB), and the serialiser, which
 * must test which side of each `string | false` a value is on, put the answer together in 660 µs
 * against 200 µs here; the answer then goes out as one Buffer, encoded and hashed once. The text
 * is byte for byte what that serialiser makes of the same entries (StationPricesResponse and
 * BatchPricesResponse: test/domain/prices-json.test.ts), in the schema's order of properties: a
 * change to those schemas changes this too.
 */

/** One station's `{ id, name, prices }`, as /v1/stations/{id}/prices answers it in `data`. */
export function stationPricesText(id: string, name: string, prices: readonly StationPriceEntry[]): string {
  let text = `{"id":${JSON.stringify(id)},"name":${JSON.stringify(name)},"prices":[`;
  // Every entry of a station with a report names the same feed: quoted once.
  let source: string | undefined;
  let sourceText = '';
  for (let i = 0; i < prices.length; i++) {
    const e = prices[i] as StationPriceEntry;
    if (e.source !== false && e.source !== source) sourceText = quoted((source = e.source));
    const tomorrow = e.tomorrow === false ? 'false' : `{"price":${quoted(e.tomorrow.price)},"from":${e.tomorrow.from}}`;
    text += `${i === 0 ? '' : ','}{"fuel":${quoted(e.fuel)},"price":${e.price === false ? 'false' : quoted(e.price)},"available":${e.available},`
      + `"updated_at":${e.updated_at},"source":${e.source === false ? 'false' : sourceText},"tomorrow":${tomorrow}}`;
  }
  return `${text}]}`;
}

/** /v1/stations/{id}/prices: `{ data }`, in UTF-8. */
export function stationPricesAnswer(station: string): Buffer {
  return Buffer.from(`{"data":${station}}`);
}

/**
 * /v1/stations/prices: `{ data: [...], unknown: [...] }` from each station's text, in UTF-8. Each
 * station's text is encoded by itself and the buffers joined: one string of the whole 200 KB
 * (past V8's size for ordinary heap objects, so allocated apart, then flattened from its
 * thousands of pieces) cost 510 µs where this costs 330 (test/domain/prices-json.test.ts checks the bytes).
 */
export function batchPricesAnswer(stations: readonly string[], unknown: readonly string[]): Buffer {
  const pieces: Buffer[] = [DATA_OPEN];
  stations.forEach((station, i) => {
    if (i > 0) pieces.push(COMMA);
    pieces.push(Buffer.from(station));
  });
  pieces.push(Buffer.from(`],"unknown":${JSON.stringify(unknown)}}`));
  return Buffer.concat(pieces);
}

const DATA_OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');

/**
 * A string as JSON writes it: between quotes as it is when it holds nothing JSON escapes (prices,
 * fuel ids and feed names do not), else JSON.stringify's escaping.
 */
function quoted(text: string): string {
  return plainAscii(text) ? `"${text}"` : JSON.stringify(text);
}
