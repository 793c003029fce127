import type { TObject } from '@sinclair/typebox';
import type { PageWindow } from './pagination.ts';
import { HISTORY_COLUMNS, csvField, csvText, historyRows } from '../../domain/csv-text.ts';
import { BrandSchema, CheapestItemSchema, CitySchema, FuelTypeSchema, StationSchema } from '../../schemas/api.ts';

/**
 * CSV answers (docs/CSV.md), written from the very entry objects the JSON answer is made of:
 * one row per item, one column per field, in the order the JSON has them. RFC 4180: a header
 * row, CRLF after every row, a field quoted when it holds a comma, a quote, CR or LF. A JSON
 * `false` (no value) is an empty field, a list of ids their ids separated by spaces.
 */

/** The columns of a list: the JSON item's fields, so that a field added to the schema shows in both. */
const columnsOf = (schema: TObject): readonly string[] => Object.keys(schema.properties);

// The text-making functions are in domain/csv-text.ts (the derived answers' worker writes history CSV too).
export { HISTORY_COLUMNS, csvField, csvText, historyRows };

export const CITY_COLUMNS = columnsOf(CitySchema);
export const STATION_COLUMNS = columnsOf(StationSchema);
export const BRAND_COLUMNS = columnsOf(BrandSchema);
export const FUEL_TYPE_COLUMNS = columnsOf(FuelTypeSchema);
/** distance_km is optional in the schema: a column only for a list near a point, where every item has it. */
export const CHEAPEST_COLUMNS = columnsOf(CheapestItemSchema).filter((column) => column !== 'distance_km' && column !== 'net_cost');

/** The columns of a list whose items carry distance_km when it is near a point. */
export function withDistance(columns: readonly string[], near: boolean): readonly string[] {
  return near ? [...columns, 'distance_km'] : columns;
}

/** The columns of a list whose items carry net_cost when a fill (litres and consumption) was given: the last column. */
export function withNetCost(columns: readonly string[], fill: boolean): readonly string[] {
  return fill ? [...columns, 'net_cost'] : columns;
}

/**
 * What a page's JSON envelope says, as headers: X-Total-Count, X-Total-Pages and X-Current-Page
 * (total_items, total_pages, current_page), and a Link to the previous and next pages. The links
 * are the request's own path and parameters (relative, as RFC 8288 allows), with page or offset,
 * whichever the request used, moved by one page.
 */
export function pageHeaders(url: string, window: PageWindow, totalItems: number): Record<string, string> {
  const totalPages = Math.ceil(totalItems / window.limit);
  const headers: Record<string, string> = {
    'x-total-count': String(totalItems), 'x-total-pages': String(totalPages), 'x-current-page': String(window.currentPage),
  };
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const params = new URLSearchParams(query === -1 ? '' : url.slice(query + 1));
  const byOffset = params.has('offset');
  const linkTo = (offset: number, page: number, rel: string): string => {
    const moved = new URLSearchParams(params);
    if (byOffset) moved.set('offset', String(offset)); else moved.set('page', String(page));
    return `<${path}?${moved.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (window.offset > 0) links.push(linkTo(Math.max(0, window.offset - window.limit), window.currentPage - 1, 'prev'));
  if (window.offset + window.limit < totalItems) links.push(linkTo(window.offset + window.limit, window.currentPage + 1, 'next'));
  if (links.length > 0) headers.link = links.join(', ');
  return headers;
}

/** Content-Disposition for a file name made of ids and words: anything else in it becomes '_'. */
export function attachment(filename: string): string {
  return `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}
