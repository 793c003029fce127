import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig, parseTiles } from '../../../src/config.ts';
import { dashboardCsp, withTiles } from '../../../src/http/routes/dashboard.ts';

/** The dashboard map's tile server: TILE_URL, TILE_ATTRIBUTION, TILE_ATTRIBUTION_URL, and what they make of the page and its policy. */
describe('the dashboard map\'s tile server (TILE_URL)', () => {
  test('OpenStreetMap\'s by default, with its attribution and link; none with TILE_URL=none', () => {
    assert.deepEqual({ ...loadConfig({}).tiles }, {
      url: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', attribution: '© OpenStreetMap contributors',
      attributionUrl: 'https://www.openstreetmap.org/copyright', cspSource: 'https://tile.openstreetmap.org',
    });
    assert.equal(parseTiles({ TILE_URL: 'none' }), null);
    assert.equal(parseTiles({ TILE_ATTRIBUTION: 'Map data © OSM' })?.attribution, 'Map data © OSM');
  });

  test('another tile server: its host (a {s} subdomain as a wildcard) is the policy\'s image source; its attribution is required', () => {
    assert.deepEqual({ ...parseTiles({ TILE_URL: 'http://127.0.0.1:8081/{z}/{x}/{y}.png', TILE_ATTRIBUTION: 'Local tiles' }) }, {
      url: 'http://127.0.0.1:8081/{z}/{x}/{y}.png', attribution: 'Local tiles', attributionUrl: '', cspSource: 'http://127.0.0.1:8081',
    });
    assert.equal(parseTiles({ TILE_URL: 'https://{s}.tiles.example.com/v1/{z}/{x}/{y}@2x.png?key=abc', TILE_ATTRIBUTION: 'Example', TILE_ATTRIBUTION_URL: 'https://example.com/terms' })?.cspSource,
      'https://*.tiles.example.com');
    const refused = (env: NodeJS.ProcessEnv, variable: string): void => {
      assert.throws(() => parseTiles(env), (error: unknown) => error instanceof ConfigError && error.variable === variable, JSON.stringify(env));
    };
    refused({ TILE_URL: 'https://tiles.example.com/{z}/{x}/{y}.png' }, 'TILE_ATTRIBUTION');
    for (const url of ['ftp://tiles.example.com/{z}/{x}/{y}.png', 'https://tiles.example.com/{z}/{x}.png', 'https://a.{s}.example.com/{z}/{x}/{y}.png',
      'tiles.example.com/{z}/{x}/{y}.png', `https://tiles.example.com/${'a'.repeat(500)}/{z}/{x}/{y}.png`, 'https://tiles.example.com/{z}/{x}/{y}.png"onload="x']) {
      refused({ TILE_URL: url, TILE_ATTRIBUTION: 'x' }, 'TILE_URL');
    }
    refused({ TILE_ATTRIBUTION: '<a href=x>me</a>' }, 'TILE_ATTRIBUTION');
    refused({ TILE_ATTRIBUTION: 'x'.repeat(201) }, 'TILE_ATTRIBUTION');
    refused({ TILE_ATTRIBUTION_URL: 'javascript:alert(1)' }, 'TILE_ATTRIBUTION_URL');
  });

  test('the page\'s policy allows the tile host for images only; the page carries the settings as escaped attributes', () => {
    const tiles = parseTiles({ TILE_URL: 'https://tiles.example.com/{z}/{x}/{y}.png?a=1&b=2', TILE_ATTRIBUTION: 'Tiles & "data" © Example' });
    assert.equal(dashboardCsp(tiles),
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data: https://tiles.example.com; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
    assert.equal(dashboardCsp(null),
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
    const shell = Buffer.from('<div data-tile-url="{{tile-url}}" data-tile-attribution="{{tile-attribution}}" data-tile-attribution-url="{{tile-attribution-url}}">');
    assert.equal(withTiles(shell, tiles).toString(),
      '<div data-tile-url="https://tiles.example.com/{z}/{x}/{y}.png?a=1&#38;b=2" data-tile-attribution="Tiles &#38; &#34;data&#34; © Example" data-tile-attribution-url="">');
    assert.equal(withTiles(shell, null).toString(), '<div data-tile-url="none" data-tile-attribution="" data-tile-attribution-url="">');
  });
});
