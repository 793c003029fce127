import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { bundleDashboard, hashedName, readBuilt, writeBuilt } from '../../src/web/bundle.ts';

describe('the dashboard bundle', () => {
  test('one script and one style sheet, named by their hash, uPlot and Leaflet inside, the shell naming both', async () => {
    const files = await bundleDashboard();
    // The style sheet first, then the script (by kind, not by name: the hashes decide the names' order).
    const names = [...files.assets.keys()].sort((a, b) => Number(a.endsWith('.js')) - Number(b.endsWith('.js')) || a.localeCompare(b));
    assert.equal(names.length, 2);
    assert.match(names[0] ?? '', /^dashboard-[0-9a-f]{12}\.css$/);
    assert.match(names[1] ?? '', /^dashboard-[0-9a-f]{12}\.js$/);
    for (const asset of files.assets.values()) assert.equal(hashedName(`dashboard${asset.name.slice(asset.name.lastIndexOf('.'))}`, asset.body), asset.name);
    const css = files.assets.get(names[0] ?? '')?.body.toString() ?? '';
    assert.match(css, /\.uplot/, "uPlot's styles");
    assert.match(css, /\.leaflet-container/, "Leaflet's styles");
    // (Leaflet's old-IE `behavior: url(#default#VML)` names no file.)
    assert.doesNotMatch(css, /url\((?!["']?(data:|#default#VML))/, "Leaflet's images inlined (data: URLs), nothing else to fetch");
    assert.match(css, /\.table-wrap/, 'our styles');
    const html = files.html.toString();
    assert.ok(html.includes(`<link rel="stylesheet" href="/assets/${names[0]}">`));
    assert.ok(html.includes(`<script type="module" src="/assets/${names[1]}"></script>`));
    // Only the tile server's settings are left for the server to fill in (src/http/routes/dashboard.ts).
    assert.deepEqual([...html.matchAll(/\{\{[^}]*\}\}/g)].map((m) => m[0]), ['{{tile-url}}', '{{tile-attribution}}', '{{tile-attribution-url}}']);
  });

  test('what `npm run build` writes into dist/web is read back the same (the compiled server serves it)', async () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'fuelprice-web-')), 'web');
    try {
      assert.equal(readBuilt(folder), undefined);
      const files = await bundleDashboard();
      writeBuilt(folder, files);
      assert.deepEqual(readdirSync(join(folder, 'assets')).sort(), [...files.assets.keys()].sort());
      assert.deepEqual(readBuilt(folder), files);
    } finally {
      rmSync(join(folder, '..'), { recursive: true, force: true });
    }
  });
});
