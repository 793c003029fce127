import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page, Route } from 'playwright-core';
import { parseTiles } from '../../src/config.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { NOW } from '../fixture.ts';
import { type RunningServer, waitFor } from '../helpers.ts';
import { DESKTOP, PHONE, SKIP, api, axe, demoStore, launch, open, openConnected, serve, show, tileServer } from './harness.ts';

/**
 * The dashboard as a driver meets it, in Chromium against a real server on the demo dataset:
 * the newest query's answer only, however late an older one comes; names or a plain word, never
 * ids; the advice and the cheapest station above the fold on a phone and a desktop; a real map
 * from a stand-in tile server, and the plot when no tile can be had; old prices and shared
 * names told; clean axes; axe-core. Answers are delayed or failed by Playwright's page.route.
 */

interface Cheapest { station_id: string; name: string; brand: string; address: string; price: string; distance_km: string; updated_at: number }
type Unavailable = { data: { unavailable: Array<{ fuel: string; stations: string[] | false; count: number }> } };
type Cycle = { data: { advice: string; reason: string; confidence: string } };

const SYDNEY = '-33.8679,151.2073';
const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');
const DOCS_SCREENSHOT = join(import.meta.dirname, '..', '..', 'docs', 'dashboard.png');

/** A promise and the function that settles it: an answer held until the test lets it go. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => { open = resolve; });
  return { wait, open };
}

/** Lets a held request go on; the page may have cancelled it meanwhile (that is the point), which is not an error here. */
const carryOn = async (route: Route, fulfil?: Parameters<Route['fulfill']>[0]): Promise<void> => {
  await (fulfil ? route.fulfill(fulfil) : route.continue()).catch(() => undefined);
};

if (SKIP) test('the dashboard for a driver, in Chromium: not run', { skip: SKIP });
describe('the dashboard for a driver, in Chromium', { skip: SKIP }, () => {
  let browser: Browser;
  let store: PriceStore;
  let drop: () => Promise<void>;
  let server: RunningServer;
  let tiles: Awaited<ReturnType<typeof tileServer>>;
  const pages: Page[] = [];

  before(async () => {
    ({ store, drop } = await demoStore());
    tiles = await tileServer();
    // The tile server as an operator configures it (TILE_URL, TILE_ATTRIBUTION).
    server = await serve(store, { tiles: parseTiles({ TILE_URL: tiles.url, TILE_ATTRIBUTION: 'Stand-in tiles © test' }) });
    browser = await launch();
  });
  after(async () => {
    for (const page of pages) await page.context().close();
    await browser?.close();
    await server?.close();
    await tiles?.close();
    await drop?.();
  });

  const connected = async (viewport = DESKTOP): Promise<{ page: Page; problems: string[] }> => {
    const opened = await openConnected(browser, server, viewport);
    pages.push(opened.page);
    return opened;
  };

  test('a slow answer to an older query is dropped: the newer query\'s answers are shown, under its heading, and an old failure says nothing', async () => {
    const { page, problems } = await connected();
    const cheapestHeld = gate();
    const cycleHeld = gate();
    const aborted: string[] = [];
    page.on('requestfailed', (request) => { if (request.failure()?.errorText === 'net::ERR_ABORTED') aborted.push(request.url()); });
    // Perth's diesel: its cheapest list comes late, and its cycle later still, as a 503.
    await page.route('**/v1/prices/cheapest?fuel=diesel*', async (route) => { await cheapestHeld.wait; await carryOn(route); });
    await page.route('**/v1/cities/perth/cycle?fuel=diesel', async (route) => {
      await cycleHeld.wait;
      await carryOn(route, { status: 503, contentType: 'application/json', body: JSON.stringify({ error: { code: 'overloaded', message: 'The server is overloaded.' } }) });
    });
    await page.selectOption('#city', 'perth');
    await page.selectOption('#fuel', 'diesel');
    await page.click('#query-form button[type=submit]');
    await page.waitForSelector('#status[data-state="loading"]');
    // Before Perth's answers come, the driver asks for Adelaide's Unleaded 91.
    await show(page, { city: 'adelaide', fuel: 'ulp91' });
    cheapestHeld.open();
    cycleHeld.open();
    // Perth's held requests were cancelled by the newer query (the page never reads them)...
    await waitFor('the page cancels the older query\'s held requests', () => aborted.filter((url) => url.includes('fuel=diesel')).length >= 3);
    // ...and after they settled, Adelaide's answers are still what the page shows.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
    const adelaide = (await api<{ data: { latitude: string; longitude: string } }>(server, '/v1/cities/adelaide')).data;
    const near = `${adelaide.latitude},${adelaide.longitude}`;
    assert.equal(await page.textContent('#cheapest-title'), 'Cheapest Unleaded 91 near Adelaide');
    assert.equal(await page.getAttribute('#results', 'data-query'), `adelaide ${near} ulp91 10 last-month`);
    const expected = (await api<{ data: Cheapest[] }>(server, `/v1/prices/cheapest?fuel=ulp91&near=${near}&radius=10&limit=10`)).data;
    assert.deepEqual(await page.$$eval('#cheapest tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-station'))), expected.map((s) => s.station_id));
    const cycle = (await api<Cycle>(server, '/v1/cities/adelaide/cycle?fuel=ulp91')).data;
    assert.equal(await page.getAttribute('#headline', 'data-advice'), cycle.advice);
    assert.equal(await page.textContent('#advice-reason'), cycle.reason);
    assert.ok(await page.locator('#status').isHidden(), 'no error from the older query');
    assert.deepEqual(problems, []);
  });

  test('a name lookup that fails is tried again; one that keeps failing is said plainly, never shown as an id', async () => {
    const { page, problems } = await connected();
    const out = (await api<Unavailable>(server, '/v1/cities/sydney/unavailable')).data.unavailable.filter((u) => u.stations !== false && u.stations.length > 0);
    const ids = [...new Set(out.flatMap((u) => u.stations as string[]))];
    assert.ok(ids.length >= 2, `${ids.length} stations out of stock in Sydney`);
    const [flaky, broken] = ids.filter((id) => out.filter((u) => (u.stations as string[]).includes(id)).length === 1) as [string, string];
    assert.ok(flaky && broken);
    const asked = new Map<string, number>();
    await page.route('**/v1/stations/*', async (route) => {
      const id = decodeURIComponent(new URL(route.request().url()).pathname.split('/').pop() ?? '');
      asked.set(id, (asked.get(id) ?? 0) + 1);
      const fail = id === broken || (id === flaky && asked.get(id) === 1);
      await carryOn(route, fail ? { status: 503, contentType: 'application/json', body: '{"error":{"code":"overloaded","message":"Busy."}}' } : undefined);
    });
    // A fresh page has no names yet: reload (connected by the kept token) with the route in place, and ask again.
    await page.reload();
    await page.waitForSelector('#query-panel:not([hidden])');
    await page.click('#query-form button[type=submit]');
    await page.waitForSelector('#results[data-state="ready"]');
    assert.equal(asked.get(flaky), 2, 'the failed lookup was tried again, once');
    assert.equal(asked.get(broken), 3, 'a lookup that keeps failing is tried three times in all');
    const flakyName = (await api<{ data: { name: string } }>(server, `/v1/stations/${flaky}`)).data.name;
    const text = await page.textContent('#outages') ?? '';
    assert.ok(text.includes(flakyName), 'the retried name is shown');
    for (const id of ids) assert.ok(!text.includes(id), `no id (${id}) in the list`);
    const brokenRow = await page.locator(`#outages li[data-stations~="${broken}"] .stations`).textContent();
    assert.match(brokenRow ?? '', /1 station whose name could not be loaded/);
    assert.equal(await page.getAttribute('#outages', 'data-unnamed'), '1');
    assert.equal(await page.textContent('#outages-empty'), 'Some station names could not be loaded: the server did not answer for them. Show prices again to retry.');
    assert.ok(problems.length > 0);
    for (const problem of problems) assert.match(problem, /^console error: Failed to load resource: the server responded with a status of 503 \(Service Unavailable\)$/);
  });

  for (const [device, viewport] of [['a phone', PHONE], ['a desktop', DESKTOP]] as const) {
    test(`on ${device} (${viewport.width}×${viewport.height}): "Fill up today?" and the cheapest station are above the fold`, async () => {
      const { page, problems } = await connected(viewport);
      assert.equal(await page.evaluate(() => window.scrollY), 0);
      for (const selector of ['#headline-title', '#advice', '#best']) {
        const box = await page.locator(selector).boundingBox();
        assert.ok(box && box.y >= 0 && box.y + box.height <= viewport.height, `${selector} within the first ${viewport.height} px (at ${box?.y}+${box?.height})`);
      }
      assert.equal(await page.textContent('#headline-title'), 'Fill up today?');
      const cycle = (await api<Cycle>(server, '/v1/cities/sydney/cycle?fuel=ulp91')).data;
      assert.equal(await page.getAttribute('#headline', 'data-advice'), cycle.advice);
      const first = (await api<{ data: Cheapest[] }>(server, `/v1/prices/cheapest?fuel=ulp91&near=${SYDNEY}&radius=10&limit=1`)).data[0];
      assert.ok(first);
      assert.equal(await page.getAttribute('#best', 'data-station'), first.station_id);
      assert.match(await page.textContent('#best') ?? '', new RegExp(`^Cheapest near Sydney: .+ \\(${first.brand}\\), ${first.distance_km} km away at ${first.price} c/L, .+\\.$`));
      if (viewport === PHONE) {
        // The form is folded to one line; Change opens it again.
        assert.ok(await page.locator('#query-form').isHidden());
        assert.equal(await page.textContent('#query-summary-text'), 'Unleaded 91 near Sydney, within 10 km');
        await page.click('#change');
        assert.ok(await page.locator('#query-form').isVisible());
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'city');
      }
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'nothing wider than the screen');
      assert.deepEqual(problems, []);
    });
  }

  test('a real map: tiles from the configured tile server (allowed by the page\'s CSP), its attribution, a point for every station', async () => {
    const page = await fetch(`${server.baseUrl}/`);
    assert.match(page.headers.get('content-security-policy') ?? '', new RegExp(`; img-src 'self' data: ${tiles.origin};`));
    const before = tiles.asked();
    const { page: shown, problems } = await connected();
    await shown.waitForSelector('#map .leaflet-tile-loaded');
    assert.equal(await shown.getAttribute('#map-panel', 'data-view'), 'map');
    assert.ok(tiles.asked() > before, 'tiles were asked of the stand-in tile server');
    assert.ok(await shown.locator('#scatter').isHidden());
    assert.equal(await shown.textContent('#map .leaflet-control-attribution'), 'Stand-in tiles © test');
    const all = (await api<{ data: Cheapest[] }>(server, `/v1/prices/cheapest?fuel=ulp91&near=${SYDNEY}&radius=10&limit=100`)).data;
    assert.equal(await shown.locator('#map path.station').count(), all.length);
    // A tap on the cheapest point names it under the map, and marks its row.
    const cheapest = all[0];
    assert.ok(cheapest);
    await shown.locator(`#map path.station[data-station="${cheapest.station_id}"]`).click({ force: true });
    assert.match(await shown.textContent('#scatter-picked') ?? '', new RegExp(`^.+: ${cheapest.price} c/L, ${cheapest.distance_km} km$`));
    assert.equal(await shown.getAttribute(`#cheapest tbody tr[data-station="${cheapest.station_id}"]`, 'class'), 'cheapest picked');
    assert.deepEqual(problems, []);
  });

  test('no tiles to be had (the tile server down): the stations are plotted by position instead, and the page says why', async () => {
    const down = await tileServer();
    await down.close();
    const other = await serve(store, { tiles: parseTiles({ TILE_URL: down.url, TILE_ATTRIBUTION: 'Gone' }) });
    try {
      const { page, context, problems } = await open(browser, `${other.baseUrl}/#token=${encodeURIComponent(other.token)}`);
      pages.push(page);
      await page.waitForSelector('#map-panel[data-view="plot"]');
      assert.ok(await page.locator('#scatter').isVisible());
      assert.ok(await page.locator('#map').isHidden());
      assert.equal(await page.textContent('#map-failed'), `The map's tiles could not be loaded (from ${new URL(down.origin).host}): the stations are shown by position instead.`);
      const all = (await api<{ data: Cheapest[] }>(other, `/v1/prices/cheapest?fuel=ulp91&near=${SYDNEY}&radius=10&limit=100`)).data;
      assert.equal(await page.locator('#scatter circle.station').count(), all.length);
      for (const problem of problems) assert.match(problem, /^console error: Failed to load resource: net::ERR_CONNECTION_REFUSED$/);
      assert.deepEqual(await axe(page), [], 'the plot and its legend, too');
      await context.close();
    } finally {
      await other.close();
    }
  });

  test('old prices are marked with their date; stations sharing a name are told apart by suburb or street', async () => {
    const { page, problems } = await connected();
    await show(page, { city: 'sydney', fuel: 'ev', radius: '50' });
    const evs = (await api<{ data: Cheapest[] }>(server, `/v1/prices/cheapest?fuel=ev&near=${SYDNEY}&radius=50&limit=10`)).data;
    const old = evs.filter((s) => NOW - s.updated_at >= 7 * 86_400);
    assert.ok(old.length > 0, 'the demo has EV prices over a week old');
    const day = new Intl.DateTimeFormat('en-AU', { day: 'numeric', month: 'short', timeZone: 'Australia/Sydney' });
    const ages = await page.$$eval('#cheapest tbody tr', (trs) => trs.map((tr) => [tr.classList.contains('old'), tr.querySelector('td.age')?.textContent]));
    assert.deepEqual(ages.map(([marked]) => marked), evs.map((s) => NOW - s.updated_at >= 7 * 86_400));
    ages.forEach(([marked, text], i) => {
      const s = evs[i] as Cheapest;
      if (marked) assert.equal(text, `old: ${Math.floor((NOW - s.updated_at) / 86_400)} days ago, on ${day.format(new Date(s.updated_at * 1000))}`);
    });
    assert.match(await page.textContent('#cheapest-where') ?? '', old.length === 1 ? /One price is marked old: not reported for 7 days or more\.$/ : new RegExp(`${old.length} prices are marked old: not reported for 7 days or more\\.$`));

    await show(page, { city: 'sydney', fuel: 'ulp91' });
    const all = (await api<{ data: Cheapest[] }>(server, `/v1/prices/cheapest?fuel=ulp91&near=${SYDNEY}&radius=10&limit=100`)).data;
    const shared = (name: string): Cheapest[] => all.filter((s) => s.name === name);
    const suburbOf = (address: string): string => (address.split(',').pop() ?? '').trim().replace(/ NSW \d{4}$/, '');
    const expected = all.slice(0, 10).map((s) => {
      const group = shared(s.name);
      if (group.length === 1) return s.name;
      const suburbTells = group.filter((g) => suburbOf(g.address) === suburbOf(s.address)).length === 1 && !s.name.includes(suburbOf(s.address));
      return `${s.name} (${suburbTells ? suburbOf(s.address) : s.address.split(',')[0]})`;
    });
    assert.ok(expected.some((name, i) => name !== all[i]?.name), 'a shared name among the ten shown');
    assert.deepEqual(await page.$$eval('#cheapest tbody td.name', (tds) => tds.map((td) => td.textContent)), expected);
    assert.deepEqual(problems, []);
  });

  test('the chart: no label twice on a narrow range, a flat line never marked a restoration; the spread in one decimal throughout', async () => {
    const { page, problems } = await connected();
    // A stand-in week of Sydney's EV averages within two cents, and a cycle answer naming a rise on a day the line is flat.
    const days = Array.from({ length: 7 }, (_, i) => 1_795_352_400 - i * 86_400);
    const dayText = (at: number): string => new Intl.DateTimeFormat('en-GB', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'Australia/Sydney' }).format(new Date(at * 1000)).replaceAll('/', '-');
    const averages = ['0.55', '0.55', '0.56', '0.55', '0.55', '0.56', '0.55'];
    await page.route('**/v1/cities/sydney/history?timeframe=last-week', (route) => carryOn(route, { json: {
      data: { id: 'sydney', name: 'Sydney', history: [{ fuel: 'ev', records: days.map((at, i) => ({ timestamp: at, date: dayText(at), average: averages[i] })) }] },
    } }));
    const flatDay = dayText(days[3] as number);
    await page.route('**/v1/cities/sydney/cycle?fuel=ev', (route) => carryOn(route, { json: { data: {
      id: 'sydney', name: 'Sydney', fuel: 'ev', cycles: false, period_days: false, last_restoration: { date: flatDay, rise: '6.5' }, restorations: [{ date: flatDay, rise: '6.5' }],
      days_since_restoration: 3, phase: 'none', cheapest_weekday: false, now: false, tomorrow: false, advice: 'no-cycle', reason: 'No regular price cycle here.', confidence: 'low',
    } } }));
    await show(page, { city: 'sydney', fuel: 'ev', timeframe: 'last-week', radius: '50' });
    assert.equal(await page.getAttribute('#chart', 'data-points'), '7');
    const yLabels = (await page.getAttribute('#chart', 'data-y-labels') ?? '').split('|');
    const xLabels = (await page.getAttribute('#chart', 'data-x-labels') ?? '').split('|');
    assert.ok(yLabels.length >= 2 && xLabels.length >= 2, `${yLabels.join(' ')} / ${xLabels.join(' ')}`);
    assert.equal(new Set(yLabels).size, yLabels.length, `y: ${yLabels.join(' ')}`);
    assert.equal(new Set(xLabels).size, xLabels.length, `x: ${xLabels.join(' ')}`);
    for (const label of yLabels) assert.match(label, /^\$0\.5\d$/);
    assert.equal(await page.getAttribute('#chart', 'data-restorations'), '0');
    assert.doesNotMatch(await page.textContent('#cycle') ?? '', /restoration/i);

    const cells = await page.$$eval('#spread tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td.num')].map((td) => td.textContent ?? '')));
    assert.ok(cells.length >= 4);
    for (const row of cells) for (const value of row) assert.match(value, /^(\d+\.\d|–)$/);
    assert.deepEqual(problems, []);
  });

  test('the advice\'s state, horizon, expected saving and track record are shown where the server gives them, and nothing is missed where it does not', async () => {
    const { page, problems } = await connected();
    const real = (await api<{ data: Record<string, unknown> }>(server, '/v1/cities/perth/cycle?fuel=ulp91')).data;
    // An answer as a server before issue 47 gives it (none of the new fields), then one with them (the values of the schema's example).
    const older = Object.fromEntries(Object.entries(real).filter(([key]) => !['state', 'history', 'signal', 'horizon', 'expected_saving', 'track_record'].includes(key)));
    const newer = {
      ...older, advice: 'wait', state: 'cycle', history: { days: 340, needed: 180 }, signal: 'phase', horizon: { wait_days: 3, next_rise: '19-12-2026' },
      expected_saving: '2.4', track_record: { days: 90, windows: 12, advice: '+4.1', best_rule: { rule: 'stopped-falling', saved: '+3.0' }, oracle: '5.0' },
    };
    let answer: unknown = older;
    await page.route('**/v1/cities/perth/cycle?fuel=ulp91', (route) => carryOn(route, { json: { data: answer } }));
    await show(page, { city: 'perth', fuel: 'ulp91' });
    assert.ok(await page.locator('#advice-more').isHidden());
    assert.equal(await page.getAttribute('#headline', 'data-state'), null);
    assert.equal(await page.textContent('#advice-reason'), real.reason);

    answer = newer;
    await show(page, { city: 'perth', fuel: 'ulp91' });
    assert.equal(await page.getAttribute('#headline', 'data-state'), 'cycle');
    assert.equal(await page.getAttribute('#headline', 'data-signal'), 'phase');
    assert.deepEqual(await page.$$eval('#advice-more li', (lis) => lis.map((li) => li.textContent)), [
      'Wait at most 3 days: then buy even if prices have not fallen.',
      'Next rise expected on 19-12-2026.',
      'Expected saving on this fill: 2.4 c/L.',
      'Track record over the last 90 days (12 fills replayed): following this advice saved +4.1 c/L a fill against a fixed day; buying once prices stop falling, +3.0; perfect hindsight, 5.0.',
    ]);

    answer = { ...newer, cycles: false, period_days: false, advice: 'unknown', state: 'insufficient-history', history: { days: 40, needed: 180 }, horizon: { wait_days: 0, next_rise: false }, expected_saving: false, track_record: false };
    await show(page, { city: 'perth', fuel: 'ulp91' });
    assert.deepEqual(await page.$$eval('#advice-more li', (lis) => lis.map((li) => li.textContent)), [
      'Too little history yet to tell whether prices here cycle: 40 of the 180 days with price changes needed.',
    ]);
    assert.match(await page.textContent('#cycle') ?? '', /Cyclenot known yet: too little history/);
    assert.deepEqual(problems, []);
  });

  test('screenshots on a phone (its first screen) and a desktop (the whole page), side by side (docs/dashboard.png with FUELPRICE_UPDATE_SCREENSHOT=1)', async () => {
    const shots: Buffer[] = [];
    for (const viewport of [PHONE, DESKTOP]) {
      const { page, problems } = await connected(viewport);
      await page.waitForSelector('#map .leaflet-tile-loaded');
      // Leaflet fades tiles in: the shot waits until the last tile is fully shown.
      await page.waitForFunction(() => [...document.querySelectorAll<HTMLElement>('#map .leaflet-tile')].every((tile) => getComputedStyle(tile).opacity === '1'));
      // The phone as a driver first sees it; the desktop page whole.
      shots.push(await page.screenshot({ fullPage: viewport === DESKTOP }));
      assert.deepEqual(problems, []);
    }
    // Composed by Chromium itself: the two shots as images on one page, shot again.
    const context = await browser.newContext({ viewport: { width: PHONE.width + DESKTOP.width + 48, height: PHONE.height + 32 } });
    const sheet = await context.newPage();
    pages.push(sheet);
    await sheet.setContent(`<body style="margin:0;background:#d9dfdc;display:flex;gap:16px;padding:16px;align-items:flex-start">${
      shots.map((shot) => `<img src="data:image/png;base64,${shot.toString('base64')}" style="box-shadow:0 2px 8px #0004">`).join('')}</body>`);
    await sheet.waitForFunction(() => [...document.images].every((image) => image.complete));
    const composed = await sheet.screenshot({ fullPage: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'dashboard-phone-and-desktop.png'), composed);
    if (process.env.FUELPRICE_UPDATE_SCREENSHOT === '1') writeFileSync(DOCS_SCREENSHOT, composed);
  });

  test('axe-core finds nothing on the page, at a desktop and a phone width (and on the token form before it)', async () => {
    const { page: first } = await open(browser, `${server.baseUrl}/`, PHONE);
    pages.push(first);
    assert.deepEqual(await axe(first), [], 'the token form');
    for (const viewport of [DESKTOP, PHONE]) {
      const { page } = await connected(viewport);
      await page.waitForSelector('#map .leaflet-tile-loaded');
      assert.deepEqual(await axe(page), [], `${viewport.width} px`);
    }
  });

  test('axe-core finds nothing serious or critical on /docs', async () => {
    const { page, problems } = await open(browser, `${server.baseUrl}/docs`);
    pages.push(page);
    await page.waitForSelector('.swagger-ui .info .title');
    await page.waitForSelector('.swagger-ui .opblock');
    const serious = (await axe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(serious, []);
    assert.deepEqual(problems, []);
  });
});
