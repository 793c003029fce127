import { apiError } from '../errors/catalogue.ts';

export const DEFAULT_LIMIT = 10;

export interface PageWindow {
  limit: number;
  offset: number;
  currentPage: number;
}

/** limit/page/offset (already validated for range) -> the slice to read and the page it is. */
export function pageWindow(query: { limit?: number; page?: number; offset?: number }): PageWindow {
  if (query.page !== undefined && query.offset !== undefined) {
    apiError('invalid_parameter', "Parameters 'page' and 'offset' cannot be used together; give one of them.");
  }
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (query.offset !== undefined) return { limit, offset: query.offset, currentPage: Math.floor(query.offset / limit) + 1 };
  const page = query.page ?? 1;
  return { limit, offset: (page - 1) * limit, currentPage: page };
}

export interface PageEnvelope<T> {
  data: T[];
  total_items: number;
  total_pages: number;
  current_page: number;
}

export function envelope<T>(items: T[], totalItems: number, window: PageWindow): PageEnvelope<T> {
  return { data: items, total_items: totalItems, total_pages: Math.ceil(totalItems / window.limit), current_page: window.currentPage };
}
