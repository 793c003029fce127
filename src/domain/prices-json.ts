import type { StationPriceEntry } from './api-entries.ts';

/**
 * Stations' current prices as JSON text, the bytes StationPricesResponse and BatchPricesResponse
 * serialise the same entries to (test/domain/prices-json.test.ts): the entries are built with
 * their properties in the schema's order (api-entries.ts), so JSON.stringify writes them as the
 * schema's serialiser would. The text is kept encoded per station (http/cache/station-texts.ts).
 */

/** One station's `{ id, name, prices }`, as /v1/stations/{id}/prices answers it in `data`. */
export function stationPricesText(id: string, name: string, prices: readonly StationPriceEntry[]): string {
  return JSON.stringify({ id, name, prices });
}

/** /v1/stations/{id}/prices: `{ data }` around the station's text in UTF-8. */
export function stationPricesAnswer(station: Buffer): Buffer {
  return Buffer.concat([ONE_OPEN, station, ONE_CLOSE]);
}

/**
 * /v1/stations/prices: `{ data: [...], unknown: [...] }` as its pieces in UTF-8, each station's
 * text (kept encoded per station: http/cache/station-texts.ts) and the rest of the answer
 * (batchPricesRest), for the route to send without joining them (representation/pieced-body.ts).
 * One string of the whole 200 KB is past V8's size for ordinary heap objects, so allocated apart,
 * then flattened from its thousands of pieces: dearer than encoding each station's 2 KB by itself
 * and joining the buffers (bench/RESULTS.md, "On the way (issue 31): along and the changes feed";
 * test/domain/prices-json.test.ts checks the bytes).
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
