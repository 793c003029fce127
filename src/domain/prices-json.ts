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

/** /v1/stations/{id}/prices: `{ data }` around the station's text in UTF-8. */
export function stationPricesAnswer(station: Buffer): Buffer {
  return Buffer.concat([ONE_OPEN, station, ONE_CLOSE]);
}

/**
 * /v1/stations/prices: `{ data: [...], unknown: [...] }` as its pieces in UTF-8, each station's
 * text (kept encoded per station: http/cache/station-texts.ts) and the rest of the answer
 * (batchPricesRest), for the route to send without joining them (representation/pieced-body.ts).
 * One string of the whole 200 KB (past V8's size for ordinary heap objects, so allocated apart,
 * then flattened from its thousands of pieces) cost 510 µs where encoding each station's 2 KB by
 * itself and joining the buffers cost 330 (test/domain/prices-json.test.ts checks the bytes).
 */
export function batchPricesPieces(stations: readonly Buffer[], rest: string): Buffer[] {
  const pieces: Buffer[] = [DATA_OPEN];
  stations.forEach((station, i) => {
    if (i > 0) pieces.push(COMMA);
    pieces.push(station);
  });
  pieces.push(Buffer.from(rest));
  return pieces;
}

/** What follows the batch's stations: the unknown ids and the closing brackets. */
export function batchPricesRest(unknown: readonly string[]): string {
  return `],"unknown":${JSON.stringify(unknown)}}`;
}

const ONE_OPEN = Buffer.from('{"data":');
const ONE_CLOSE = Buffer.from('}');
const DATA_OPEN = Buffer.from('{"data":[');
const COMMA = Buffer.from(',');

/**
 * A string as JSON writes it: between quotes as it is when it holds nothing JSON escapes (prices,
 * fuel ids and feed names do not), else JSON.stringify's escaping.
 */
function quoted(text: string): string {
  return plainAscii(text) ? `"${text}"` : JSON.stringify(text);
}
