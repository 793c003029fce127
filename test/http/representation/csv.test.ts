import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  BRAND_COLUMNS, CHEAPEST_COLUMNS, CITY_COLUMNS, FUEL_TYPE_COLUMNS, STATION_COLUMNS, attachment, csvField, csvText, historyRows, pageHeaders, withDistance,
} from '../../../src/http/representation/csv.ts';
import { scanHeaders } from '../../../src/http/cache/fast-path.ts';
import { acceptedRepresentation, acceptsJson } from '../../../src/http/representation/negotiation.ts';

describe('CSV fields and tables', () => {
  test('a field is quoted only when it holds a comma, a quote, CR or LF; quotes inside are doubled', () => {
    assert.equal(csvField('Alpha Sydney'), 'Alpha Sydney');
    assert.equal(csvField('1 George Street, Sydney NSW 2000'), '"1 George Street, Sydney NSW 2000"');
    assert.equal(csvField('The "Best" Fuel'), '"The ""Best"" Fuel"');
    assert.equal(csvField('line one\nline two'), '"line one\nline two"');
    assert.equal(csvField('a\r\nb'), '"a\r\nb"');
    assert.equal(csvField('"'), '""""');
    assert.equal(csvField(' spaced '), ' spaced ');
    assert.equal(csvField('Café Ünïcode ⛽'), 'Café Ünïcode ⛽');
  });

  test('no value (false) is an empty field, a number its digits, a list of ids the ids separated by spaces', () => {
    assert.equal(csvField(false), '');
    assert.equal(csvField(''), '');
    assert.equal(csvField(undefined), '');
    assert.equal(csvField(1795384800), '1795384800');
    assert.equal(csvField(true), 'true');
    assert.equal(csvField(['ulp91', 'e10']), 'ulp91 e10');
  });

  test('text a spreadsheet would run as a formula gets a leading apostrophe; plain numbers, negative ones included, do not', () => {
    assert.equal(csvField('=1+2'), "'=1+2");
    assert.equal(csvField('+61 2 9000 0000'), "'+61 2 9000 0000");
    assert.equal(csvField('-Dash'), "'-Dash");
    assert.equal(csvField('@SUM(A1:A9)'), "'@SUM(A1:A9)");
    assert.equal(csvField('\tTabbed'), "'\tTabbed");
    assert.equal(csvField('\rreturn'), "\"'\rreturn\"");
    assert.equal(csvField('=HYPERLINK("http://evil.example","x")'), '"\'=HYPERLINK(""http://evil.example"",""x"")"');
    assert.equal(csvField('-2+3'), "'-2+3");
    assert.equal(csvField('-'), "'-");
    assert.equal(csvField('-33.8679'), '-33.8679');
    assert.equal(csvField('-1'), '-1');
    assert.equal(csvField('151.2073'), '151.2073');
    assert.equal(csvField('a=b'), 'a=b');
  });

  test('a table: the header row, one row per item in column order, CRLF after every row; other fields are left out', () => {
    const rows = [{ id: 'a', name: 'A, one', extra: 'x' }, { id: 'b', name: false }];
    assert.equal(csvText(['id', 'name'], rows), 'id,name\r\na,"A, one"\r\nb,\r\n');
    assert.equal(csvText(['id', 'name'], []), 'id,name\r\n');
  });

  test('the columns are the JSON items\' fields, in their order; distance_km only near a point', () => {
    assert.deepEqual(CITY_COLUMNS, ['id', 'name', 'state', 'latitude', 'longitude']);
    assert.deepEqual(STATION_COLUMNS, ['id', 'name', 'brand', 'address', 'street', 'suburb', 'postcode', 'state', 'phone', 'website', 'latitude', 'longitude']);
    assert.deepEqual(BRAND_COLUMNS, ['id', 'name', 'station_count']);
    assert.deepEqual(FUEL_TYPE_COLUMNS, ['id', 'name', 'unit', 'combined_of']);
    assert.deepEqual(CHEAPEST_COLUMNS, ['station_id', 'name', 'brand', 'address', 'latitude', 'longitude', 'price', 'updated_at']);
    assert.deepEqual(withDistance(CITY_COLUMNS, false), CITY_COLUMNS);
    assert.deepEqual(withDistance(['id'], true), ['id', 'distance_km']);
  });

  test('history rows: fuel by fuel in the JSON\'s order, records as they come; a fuel without records has none', () => {
    const record = (date: string, average: string) => ({ timestamp: 0, date, average });
    assert.deepEqual(historyRows([
      { fuel: 'e10', records: [record('23-11-2026', '1.81'), record('22-11-2026', '1.80')] },
      { fuel: 'ulp91', records: false },
      { fuel: 'diesel', records: [record('23-11-2026', '2.10')] },
    ]), [
      { date: '23-11-2026', fuel: 'e10', average: '1.81' },
      { date: '22-11-2026', fuel: 'e10', average: '1.80' },
      { date: '23-11-2026', fuel: 'diesel', average: '2.10' },
    ]);
  });
});

describe('page headers', () => {
  const window = (limit: number, offset: number, currentPage: number) => ({ limit, offset, currentPage });

  test('the envelope\'s numbers, and links to the pages either side, by page', () => {
    assert.deepEqual(pageHeaders('/v1/cities?state=nsw&limit=2&page=2&format=csv', window(2, 2, 2), 5), {
      'x-total-count': '5', 'x-total-pages': '3', 'x-current-page': '2',
      'link': '</v1/cities?state=nsw&limit=2&page=1&format=csv>; rel="prev", </v1/cities?state=nsw&limit=2&page=3&format=csv>; rel="next"',
    });
    // No page given: page=2 is added for the next one; no previous page on the first.
    assert.deepEqual(pageHeaders('/v1/cities?limit=2', window(2, 0, 1), 3), {
      'x-total-count': '3', 'x-total-pages': '2', 'x-current-page': '1', 'link': '</v1/cities?limit=2&page=2>; rel="next"',
    });
    // The last page: no next. An empty list: no link at all.
    assert.equal(pageHeaders('/v1/cities?limit=2&page=2', window(2, 2, 2), 3).link, '</v1/cities?limit=2&page=1>; rel="prev"');
    assert.deepEqual(pageHeaders('/v1/brands', window(10, 0, 1), 0), { 'x-total-count': '0', 'x-total-pages': '0', 'x-current-page': '1' });
  });

  test('by offset when the request used offset: a page back is at most offset 0', () => {
    assert.equal(pageHeaders('/v1/stations?offset=3&limit=2', window(2, 3, 2), 10).link,
      '</v1/stations?offset=1&limit=2>; rel="prev", </v1/stations?offset=5&limit=2>; rel="next"');
    assert.equal(pageHeaders('/v1/stations?offset=1&limit=2', window(2, 1, 1), 10).link,
      '</v1/stations?offset=0&limit=2>; rel="prev", </v1/stations?offset=3&limit=2>; rel="next"');
  });

  test('the other parameters are kept, written percent-encoded', () => {
    assert.equal(pageHeaders('/v1/stations?near=-33.87,151.2&limit=1', window(1, 0, 1), 2).link, '</v1/stations?near=-33.87%2C151.2&limit=1&page=2>; rel="next"');
  });
});

test('Content-Disposition: an attachment whose file name keeps letters, digits, dots, hyphens and underscores only', () => {
  assert.equal(attachment('sydney-history-last-month.csv'), 'attachment; filename="sydney-history-last-month.csv"');
  assert.equal(attachment('a"b\\c d/é.csv'), 'attachment; filename="a_b_c_d__.csv"');
});

describe('Accept', () => {
  test('no header, an empty one, */* or application/json: JSON; text/csv: CSV', () => {
    assert.equal(acceptedRepresentation(undefined), 'json');
    assert.equal(acceptedRepresentation(''), 'json');
    assert.equal(acceptedRepresentation('*/*'), 'json');
    assert.equal(acceptedRepresentation('application/json'), 'json');
    assert.equal(acceptedRepresentation('application/*'), 'json');
    assert.equal(acceptedRepresentation('text/csv'), 'csv');
    assert.equal(acceptedRepresentation('TEXT/CSV; charset=utf-8'), 'csv');
    assert.equal(acceptedRepresentation('text/*'), 'csv');
  });

  test('the higher q wins, JSON on a tie; the most specific range gives a type its q', () => {
    assert.equal(acceptedRepresentation('application/json, text/csv'), 'json');
    assert.equal(acceptedRepresentation('text/csv, application/json'), 'json');
    assert.equal(acceptedRepresentation('application/json;q=0.5, text/csv'), 'csv');
    assert.equal(acceptedRepresentation('text/csv;q=0.5, application/json;q=0.9'), 'json');
    assert.equal(acceptedRepresentation('text/csv, */*;q=0.1'), 'csv');
    assert.equal(acceptedRepresentation('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'), 'json');
    // An explicit q=0 refuses JSON even where */* would take it.
    assert.equal(acceptedRepresentation('application/json;q=0, */*'), 'csv');
    assert.equal(acceptedRepresentation('text/csv;q=0, */*'), 'json');
  });

  test('neither allowed: undefined (a 406); a q that is not a qvalue leaves its range out', () => {
    assert.equal(acceptedRepresentation('text/html'), undefined);
    assert.equal(acceptedRepresentation('application/xml, text/plain'), undefined);
    assert.equal(acceptedRepresentation('*/*;q=0'), undefined);
    assert.equal(acceptedRepresentation('application/json;q=0'), undefined);
    assert.equal(acceptedRepresentation('text/csv;q=2'), undefined);
    assert.equal(acceptedRepresentation('text/csv;q=abc, application/json;q=0.1'), 'json');
    assert.equal(acceptedRepresentation('nonsense'), undefined);
  });

  test('the fast path takes only an Accept answered by JSON, and one Accept header', () => {
    assert.ok(acceptsJson('*/*'));
    assert.ok(acceptsJson('application/json'));
    assert.ok(acceptsJson('text/html,*/*;q=0.8'));
    assert.ok(!acceptsJson('text/csv'));
    assert.ok(!acceptsJson('text/html'));
    const auth = ['authorization', 'Bearer a'];
    assert.deepEqual(scanHeaders([...auth, 'Accept', '*/*']), { authorization: 'Bearer a', requestId: undefined });
    assert.deepEqual(scanHeaders([...auth, 'accept', 'application/json']), { authorization: 'Bearer a', requestId: undefined });
    assert.equal(scanHeaders([...auth, 'ACCEPT', 'text/csv']), undefined);
    assert.equal(scanHeaders([...auth, 'accept', 'text/html']), undefined);
    // Read together, two Accept headers may ask for CSV where neither alone does.
    assert.equal(scanHeaders([...auth, 'accept', 'application/json;q=0.5', 'accept', '*/*;q=0.9']), undefined);
    // Same length, another name.
    assert.deepEqual(scanHeaders([...auth, 'cookie', 'text/csv']), { authorization: 'Bearer a', requestId: undefined });
  });
});
