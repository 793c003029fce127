import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ApiError } from '../../../src/http/errors/catalogue.ts';
import { envelope, pageWindow } from '../../../src/http/representation/pagination.ts';

describe('pagination arithmetic', () => {
  test('defaults: limit 10, page 1', () => {
    assert.deepEqual(pageWindow({}), { limit: 10, offset: 0, currentPage: 1 });
  });

  test('page 3 of 25 per page starts at item 50', () => {
    assert.deepEqual(pageWindow({ limit: 25, page: 3 }), { limit: 25, offset: 50, currentPage: 3 });
  });

  test('offset 7 with limit 5 is on page 2', () => {
    assert.deepEqual(pageWindow({ limit: 5, offset: 7 }), { limit: 5, offset: 7, currentPage: 2 });
  });

  test('page and offset together answer 400', () => {
    assert.throws(() => pageWindow({ page: 1, offset: 0 }), (e: unknown) => e instanceof ApiError && e.statusCode === 400 && e.code === 'invalid_parameter');
  });

  test('envelope: 0 items make 0 pages; 21 items at 10 a page make 3', () => {
    assert.deepEqual(envelope([], 0, pageWindow({})), { data: [], total_items: 0, total_pages: 0, current_page: 1 });
    assert.equal(envelope([], 21, pageWindow({})).total_pages, 3);
  });

  test('property: current_page is floor(offset / limit) + 1 and the page holds offset', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 1_000_000_000 }), (limit, offset) => {
      const w = pageWindow({ limit, offset });
      assert.equal(w.currentPage, Math.floor(offset / limit) + 1);
      assert.ok((w.currentPage - 1) * limit <= offset && offset < w.currentPage * limit);
    }));
  });

  test('property: pages partition the items exactly', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 0, max: 10_000 }), (limit, total) => {
      const pages = envelope([], total, pageWindow({ limit })).total_pages;
      assert.ok(pages * limit >= total && (pages - 1) * limit < Math.max(total, 1));
    }));
  });
});
