import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { dayStart, localDayOf } from '../../src/domain/time.ts';
import { releaseAndSeal } from '../../src/ingest/scheduler.ts';
import { writeDemo } from '../../src/ingest/demo.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { newToken } from '../../src/tokens.ts';
import { ageText } from '../../src/web/page/format.ts';
import { referenceAge, referenceNames } from './harness.ts';
import { NOW } from '../fixture.ts';
import { type RunningServer, fixedClock, startServer, testBackends, waitFor } from '../helpers.ts';

/**
 * The dashboard at `/` in a real browser: Debian's Chromium (apt's `chromium`; .ci/run installs
 * it when missing and sets FUELPRICE_TEST_BROWSER=required, so that there this suite fails
 * rather than skips without it; elsewhere a machine without it skips the suite, naming why) driven by playwright-core,
 * against a real server on the demo dataset with a fixed clock. What the page shows is compared
 * with what the API answers to the same requests with the same token.
 */

/** Debian's Chromium; FUELPRICE_CHROMIUM names another Chromium or Chrome binary (on a Mac, say). */
const CHROMIUM = process.env.FUELPRICE_CHROMIUM || '/usr/bin/chromium';
const NO_CHROMIUM = `the browser tests need Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run does it), or FUELPRICE_CHROMIUM=/path/to/chromium`;
/**
 * Without Chromium, a fresh clone's `npm test` skips this suite (the runner's summary counts it
 * skipped, with the reason) unless the browser was asked for: FUELPRICE_TEST_BROWSER=required
 * (.ci/run) makes a missing Chromium a failure, as a backend asked for and missing is.
 */
const SKIP = process.env.FUELPRICE_TEST_BROWSER !== 'required' && !existsSync(CHROMIUM)
  ? `${NO_CHROMIUM}; FUELPRICE_TEST_BROWSER=required makes this a failure` : false;
const ARTIFACTS = join(import.meta.dirname, '..', 'artifacts');

/** The page's policy, written out rather than imported from the code under test. */
const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
/** The same with the default tile server's host (OpenStreetMap's) allowed for images: the map's tiles. */
const OSM_CSP = PAGE_CSP.replace("img-src 'self' data:", "img-src 'self' data: https://tile.openstreetmap.org");

interface Opened { page: Page; context: BrowserContext; problems: string[] }

// A skipped suite is not counted in the runner's closing summary: this line makes it say "skipped 1", with the reason.
if (SKIP) test('the dashboard in Chromium: not run', { skip: SKIP });
describe('the dashboard in Chromium', { skip: SKIP }, () => {
  let browser: Browser;
  let server: RunningServer;
  let store: PriceStore;
  let drop: () => Promise<void>;
  let limitedToken: string;
  const contexts: BrowserContext[] = [];

  before(async () => {
    assert.ok(existsSync(CHROMIUM), NO_CHROMIUM);
    const sqlite = testBackends()[0];
    assert.ok(sqlite);
    ({ store, drop } = await sqlite.create());
    // A quarter of a year: enough days for the chart and for Perth's weekly cycle, written in a few seconds.
    await writeDemo(store, { seed: 1, years: 0.25, scale: 'small', nowSec: NOW });
    await releaseAndSeal(store, NOW);
    // Tomorrow's prices published for three Perth stations (as WA's are, held until 06:00 tomorrow):
    // each 5.0 c/L above its ulp91 price now, so Perth's list gains its Tomorrow column.
    const perthStations = (await store.feedStations('demo')).filter((s) => s.state === 'wa');
    const now = new Map((await store.currentForCity('perth')).filter((p) => p.fuel === 'ulp91' && p.available).map((p) => [p.stationId, p.priceTenths]));
    // The three cheapest, so that they are in the list the page shows.
    const published = perthStations.filter((s) => now.has(s.id)).sort((a, b) => (now.get(a.id) ?? 0) - (now.get(b.id) ?? 0)).slice(0, 3);
    assert.equal(published.length, 3);
    const tomorrowSix = dayStart('wa', localDayOf('wa', NOW) + 1) + 6 * 3600;
    await store.applyFeedBatch({ stations: [], prices: published.map((s) => ({
      feed: 'demo', feedCode: s.feedCode, fuel: 'ulp91' as const, at: tomorrowSix, priceTenths: (now.get(s.id) ?? 0) + 50, available: true,
    })) }, { now: NOW });
    const limited = newToken('limited', NOW, { rateLimit: 2 });
    await store.createToken(limited.record);
    limitedToken = limited.token;
    // No map tiles (TILE_URL=none): the stations on the plot, as offline; the map is dashboard-driver.test.ts's.
    server = await startServer(store, fixedClock(NOW), { tiles: null });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
    await drop?.();
  });

  /** A fresh browser context (its own storage) at 1280×900, the page's clock at NOW, every console error and page error kept. */
  async function open(path = '/', options: { geolocation?: { latitude: number; longitude: number } } = {}): Promise<Opened> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      ...(options.geolocation ? { geolocation: options.geolocation, permissions: ['geolocation'] } : {}),
    });
    contexts.push(context);
    // Chromium reports a blocked resource on the console, but not every violation: each one is reported here too.
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.effectiveDirective} ${event.blockedURI}`));
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.clock.setFixedTime(NOW * 1000);
    const problems: string[] = [];
    page.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`); });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    const response = await page.goto(`${server.baseUrl}${path}`);
    assert.equal(response?.status(), 200);
    return { page, context, problems };
  }

  const api = async <T>(path: string, token = server.token): Promise<T> => {
    const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(response.status, 200, path);
    return await response.json() as T;
  };

  async function connect(page: Page, token: string): Promise<void> {
    await page.fill('#token', token);
    await page.click('#token-form button[type=submit]');
    await page.waitForSelector('#query-panel:not([hidden])');
  }

  async function show(page: Page, choice: { city?: string; location?: string; fuel: string; timeframe?: string }): Promise<void> {
    if (choice.city) await page.selectOption('#city', choice.city);
    await page.fill('#location', choice.location ?? '');
    await page.selectOption('#fuel', choice.fuel);
    await page.selectOption('#timeframe', choice.timeframe ?? 'last-month');
    await page.click('#query-form button[type=submit]');
    await page.waitForSelector('#results[data-state="ready"], #results[data-state="empty"]');
  }

  interface Cheapest { station_id: string; name: string; brand: string; address: string; price: string; distance_km: string; updated_at: number }
  type Spread = { data: { spread: Array<{ fuel: string; min: string | false; average: string | false; max: string | false }> } };
  type Unavailable = { data: { unavailable: Array<{ fuel: string; stations: string[] | false; count: number }> } };
  type History = { data: { history: Array<{ fuel: string; records: Array<{ date: string; timestamp: number; average: string }> | false }> } };
  type Cycle = { data: { cycles: boolean; phase: string; advice: string; reason: string; confidence: string; cheapest_weekday: string | false; period_days: number | false; days_since_restoration: number | false; last_restoration: { date: string; rise: string } | false; restorations: Array<{ date: string }> } };

  /**
   * Every panel equals the API's answer for the same city, point and fuel. `expect` says which
   * case of the cycle panel this call is chosen for (a cycle, a weekly cycle's cheapest day, or
   * neither), and is asserted of the API's answer first: each branch below is taken by some call,
   * and a change to the demo data that loses the case fails here instead of skipping the check.
   */
  async function assertShowsApi(page: Page, city: string, near: string, fuel: string, timeframe: string,
    expect: { cycles: boolean; cheapestWeekday: boolean }): Promise<void> {
    const cheapest = await api<{ data: Cheapest[] }>(`/v1/prices/cheapest?fuel=${fuel}&near=${near}&radius=10&limit=100`);
    assert.ok(cheapest.data.length > 10, `${cheapest.data.length} stations near ${near}`);
    const names = referenceNames(cheapest.data);
    const zone = { perth: 'Australia/Perth', adelaide: 'Australia/Adelaide' }[city] ?? 'Australia/Sydney';
    const rows = await page.$$eval('#cheapest tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    // With tomorrow's prices published near the point, a Tomorrow column beside Price: each station's, or a dash.
    const tomorrow = new Map((await api<{ data: Cheapest[] }>(`/v1/prices/cheapest?fuel=${fuel}&near=${near}&radius=10&limit=100&day=tomorrow`)).data
      .map((s) => [s.station_id, s.price]));
    assert.deepEqual(rows, cheapest.data.slice(0, 10).map((s) => [names.get(s.station_id), s.brand, s.price,
      ...(tomorrow.size > 0 ? [tomorrow.get(s.station_id) ?? '–'] : []), `${s.distance_km} km`, referenceAge(s.updated_at, zone, ageText)]));
    assert.deepEqual(await page.$$eval('#cheapest thead th', (ths) => ths.map((th) => th.textContent)),
      ['Station', 'Brand', 'Price', ...(tomorrow.size > 0 ? ['Tomorrow'] : []), 'Distance', 'Updated']);
    assert.equal(await page.locator('#scatter circle.station').count(), cheapest.data.length);

    const history = await api<History>(`/v1/cities/${city}/history?timeframe=${timeframe}`);
    const records = history.data.history.find((h) => h.fuel === fuel)?.records;
    assert.ok(Array.isArray(records) && records.length >= (timeframe === 'last-week' ? 7 : 28), `${records ? records.length : 'no'} records`);
    assert.equal(await page.getAttribute('#chart', 'data-points'), String(records.length));
    assert.equal(await page.locator('#chart canvas').count(), 1);

    const cycle = await api<Cycle>(`/v1/cities/${city}/cycle?fuel=${fuel}`);
    assert.equal(cycle.data.cycles, expect.cycles, `${city}'s ${fuel} cycles: ${String(expect.cycles)} in the demo data`);
    assert.equal(cycle.data.cheapest_weekday !== false, expect.cheapestWeekday, `${city}'s ${fuel} has a cheapest weekday: ${String(expect.cheapestWeekday)}`);
    assert.equal(await page.getAttribute('#cycle', 'data-phase'), cycle.data.phase);
    assert.equal(await page.getAttribute('#headline', 'data-advice'), cycle.data.advice);
    // The advice's reason in the API's own words, its confidence, and a weekly cycle's cheapest day.
    assert.equal(await page.textContent('#advice-reason'), cycle.data.reason);
    assert.equal(await page.getAttribute('#headline', 'data-confidence'), cycle.data.confidence);
    const cycleText = await page.textContent('#cycle') ?? '';
    if (cycle.data.cheapest_weekday !== false) assert.match(cycleText, new RegExp(`Cheapest day${cycle.data.cheapest_weekday}s`, 'i'));
    else assert.doesNotMatch(cycleText, /Cheapest day/);
    // Every restoration of a cycle on a day the chart shows where the line rises (on the day before it) is marked; none without a cycle.
    const sorted = [...records].sort((a, b) => a.timestamp - b.timestamp);
    const rising = new Set(sorted.filter((r, i) => i > 0 && Number(r.average) > Number(sorted[i - 1]?.average)).map((r) => r.date));
    const marked = cycle.data.cycles ? cycle.data.restorations.filter((r) => rising.has(r.date)).length : 0;
    if (cycle.data.cycles) assert.ok(marked > 0, `a restoration of ${city}'s cycle on a day the chart shows`);
    assert.equal(await page.getAttribute('#chart', 'data-restorations'), String(marked), 'every restoration on a day the chart shows is marked');
    if (cycle.data.cycles) {
      // With a cycle: the last restoration, and the next named (and marked on the chart when it falls in, or within a period after, the days shown).
      assert.ok(cycle.data.last_restoration && cycle.data.period_days !== false && cycle.data.days_since_restoration !== false, 'a cycle has its last restoration and period');
      assert.match(cycleText, new RegExp(`${cycle.data.last_restoration.date} \\(\\+${cycle.data.last_restoration.rise} c/L\\)`));
      assert.match(cycleText, /Next restorationdue \d{2}-\d{2}-\d{4} \((in \d+ days|tomorrow|today|\d+ days? overdue)\)/);
    } else {
      assert.doesNotMatch(cycleText, /Last restoration|Next restoration/);
    }

    // Ties at the lowest price are all marked the cheapest, in one colour; no other row is.
    const prices = await page.$$eval('#cheapest tbody tr', (trs) => trs.map((tr) => [tr.classList.contains('cheapest'), tr.querySelector('.price')?.textContent,
      getComputedStyle(tr.querySelector('.price') as Element).color]));
    const lowest = cheapest.data[0]?.price;
    assert.deepEqual(prices.map(([marked, price]) => [marked, price]), prices.map(([, price]) => [price === lowest, price]));
    assert.equal(new Set(prices.filter(([marked]) => marked).map(([, , colour]) => colour)).size, 1);

    const spread = await api<Spread>(`/v1/cities/${city}/spread`);
    const spreadRows = await page.$$eval('#spread tbody tr', (trs) => trs.map((tr) => [tr.getAttribute('data-fuel'), ...[...tr.querySelectorAll('td')].map((td) => td.textContent)]));
    const priced = spread.data.spread.filter((s) => s.average !== false);
    assert.ok(priced.length >= 4);
    // Each row in its fuel's own unit, the average (dollars in the API) in cents like min and max: never c/L beside $/L.
    const units = new Map((await api<{ data: Array<{ id: string; unit: string }> }>('/v1/fuel-types')).data.map((f) => [f.id, f.unit]));
    assert.deepEqual(spreadRows, priced.map((s) => [s.fuel, s.min, `${Math.round(Number(s.average) * 100)}.0`, s.max, units.get(s.fuel)]));
    assert.deepEqual(await page.$$eval('#spread thead th', (ths) => ths.map((th) => th.textContent)), ['Fuel', 'Min', 'Average', 'Max', 'Unit']);
    assert.equal(units.get('ev'), 'c/kWh');

    // Out of stock by station names (as /v1/stations/{id} names them), the ids kept in data-stations.
    const unavailable = await api<Unavailable>(`/v1/cities/${city}/unavailable`);
    const out = unavailable.data.unavailable.filter((u) => u.stations !== false && u.stations.length > 0);
    const stationNames = new Map<string, string>();
    for (const id of out.flatMap((u) => (u.stations as string[]).slice(0, 25))) stationNames.set(id, (await api<{ data: { name: string } }>(`/v1/stations/${id}`)).data.name);
    const listed = await page.$$eval('#outages li', (lis) => lis.map((li) => [li.getAttribute('data-fuel'), li.getAttribute('data-stations'), li.querySelector('.stations')?.textContent]));
    assert.deepEqual(listed, out.map((u) => {
      const stations = u.stations as string[];
      const more = stations.length > 25 ? ` and ${stations.length - 25} more` : '';
      return [u.fuel, stations.join(' '), stations.slice(0, 25).map((id) => stationNames.get(id)).join(', ') + more];
    }));
  }

  test('the page and its assets: its own CSP, hashed assets cached for good, ETags; other paths still 404', async () => {
    const page = await fetch(`${server.baseUrl}/`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('content-security-policy'), PAGE_CSP);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    const html = await page.text();
    assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]|\sstyle=|\son[a-z]+=/i, 'no inline script, style or handler');
    const assets = [...html.matchAll(/(?:href|src)="(\/assets\/dashboard-[0-9a-f]{12}\.(js|css))"/g)];
    assert.deepEqual(assets.map((m) => m[2]).sort(), ['css', 'js']);
    for (const [, path, kind] of assets) {
      const asset = await fetch(`${server.baseUrl}${path}`);
      assert.equal(asset.status, 200, path);
      assert.equal(asset.headers.get('content-type'), kind === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const etag = asset.headers.get('etag');
      assert.ok(etag);
      const again = await fetch(`${server.baseUrl}${path}`, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304);
      assert.equal(await again.text(), '');
    }
    assert.ok(html.includes('<div id="map" class="map" data-tile-url="none" data-tile-attribution="" data-tile-attribution-url="">'), 'no tile server: the page plots');
    // By default (no TILE_URL) the map's tiles are OpenStreetMap's, with its attribution, and the policy allows their host for images.
    const osm = await startServer(store, fixedClock(NOW));
    try {
      const byDefault = await fetch(`${osm.baseUrl}/`);
      assert.equal(byDefault.headers.get('content-security-policy'), OSM_CSP);
      assert.ok((await byDefault.text()).includes('data-tile-url="https://tile.openstreetmap.org/{z}/{x}/{y}.png" data-tile-attribution="© OpenStreetMap contributors" data-tile-attribution-url="https://www.openstreetmap.org/copyright"'));
    } finally {
      await osm.close();
    }
    const revalidated = await fetch(`${server.baseUrl}/`, { headers: { 'if-none-match': page.headers.get('etag') ?? '' } });
    assert.equal(revalidated.status, 304);
    for (const path of ['/assets/dashboard-000000000000.js', '/assets/', '/index.html', '/nothing']) {
      const missing = await fetch(`${server.baseUrl}${path}`);
      assert.equal(missing.status, 404, path);
      assert.equal(missing.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'none'", path);
      assert.equal((await missing.json() as { error: { code: string } }).error.code, 'not_found', path);
    }
  });

  test('the demo URL goes straight to prices; a city and a fuel show what the API answers; screenshots at desktop and phone widths', async () => {
    const { page, problems } = await open(`/#token=${encodeURIComponent(server.token)}`);
    // No click: connected with the link's token, and the first city's prices shown.
    await page.waitForSelector('#results[data-state="ready"]');
    assert.equal(new URL(page.url()).hash, '', 'the token is taken out of the address bar');
    assert.equal(await page.isHidden('#token-panel'), true);
    assert.match(await page.textContent('#cheapest-title') ?? '', /^Cheapest Unleaded 91 near Sydney$/);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('fuelprice-token')), server.token);
    assert.equal(await page.evaluate(() => localStorage.getItem('fuelprice-token')), null);
    assert.equal(await page.locator('#city option').count(), (await api<{ total_items: number }>('/v1/cities?limit=1')).total_items);

    await show(page, { city: 'perth', fuel: 'ulp91', timeframe: 'last-month' });
    assert.equal(await page.getAttribute('#results', 'data-state'), 'ready');
    const perth = (await api<{ data: { latitude: string; longitude: string } }>('/v1/cities/perth')).data;
    await assertShowsApi(page, 'perth', `${perth.latitude},${perth.longitude}`, 'ulp91', 'last-month', { cycles: true, cheapestWeekday: true });
    // The three stations with tomorrow's prices: the column is there, each at its price now plus 5.0.
    const shownTomorrow = await page.$$eval('#cheapest tbody td.tomorrow', (tds) => tds.map((td) => td.textContent).filter((t) => t !== '–'));
    const listed = (await api<{ data: Cheapest[] }>(`/v1/prices/cheapest?fuel=ulp91&near=${perth.latitude},${perth.longitude}&radius=10&limit=10`)).data;
    const expected = (await api<{ data: Cheapest[] }>('/v1/prices/cheapest?fuel=ulp91&city=perth&day=tomorrow')).data;
    assert.equal(expected.length, 3);
    assert.ok(shownTomorrow.length > 0, 'a station with tomorrow\'s price is in the list');
    assert.deepEqual(shownTomorrow, listed.flatMap((s) => expected.filter((t) => t.station_id === s.station_id).map(() => (Number(s.price) + 5).toFixed(1))));
    assert.match(await page.textContent('#cheapest-title') ?? '', /^Cheapest Unleaded 91 near Perth$/);

    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-desktop.png'), fullPage: true });
    await page.setViewportSize({ width: 375, height: 812 });
    await page.waitForFunction(() => (document.querySelector<HTMLElement>('#chart .uplot')?.offsetWidth ?? 999) <= 375);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375), 'nothing wider than the phone');
    // On the phone the form is folded into one line above the results; opened (Change), Show prices brings the results into view.
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.ok(await page.locator('#query-form').isHidden());
    await page.click('#change');
    await page.click('#query-form button[type=submit]');
    await page.waitForSelector('#results[data-state="ready"]');
    await page.waitForFunction(() => { const top = document.querySelector('#results')?.getBoundingClientRect().top ?? 9999; return top >= -1 && top < window.innerHeight / 2; });
    // A tap on a point (no hover on a phone) names its station and price under the plot.
    const cheapestDot = page.locator('#scatter circle.station').last();
    await cheapestDot.scrollIntoViewIfNeeded();
    await cheapestDot.click();
    assert.equal(await page.textContent('#scatter-picked'), await cheapestDot.getAttribute('data-label'));
    assert.match(await page.textContent('#scatter-picked') ?? '', /^.+: \d+\.\d c\/L, \d+\.\d km$/);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-phone.png'), fullPage: true });
    for (const panel of ['cheapest', 'chart']) await page.locator(`#${panel}-panel`).screenshot({ path: join(ARTIFACTS, `dashboard-phone-${panel}.png`) });
    assert.deepEqual(problems, []);
  });

  test('a typed location: the cheapest near it, the city panels for the nearest city; a fuel without prices shows the empty states', async () => {
    const { page, problems } = await open();
    await connect(page, server.token);
    await show(page, { city: 'sydney', location: '-33.8688, 151.2093', fuel: 'e10', timeframe: 'last-week' });
    assert.equal(await page.inputValue('#city'), 'sydney');
    await assertShowsApi(page, 'sydney', '-33.8688,151.2093', 'e10', 'last-week', { cycles: false, cheapestWeekday: false });

    await page.fill('#location', '-33.8688; 151.2093');
    await page.click('#query-form button[type=submit]');
    assert.equal(await page.getAttribute('#location', 'aria-invalid'), 'true');
    assert.equal(await page.textContent('#location-error'), 'Give a location as latitude, longitude in decimal degrees, e.g. -33.87, 151.21.');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'location');

    const evs = await api<{ data: unknown[] }>('/v1/prices/cheapest?fuel=e85&city=hobart');
    assert.equal(evs.data.length, 0);
    await show(page, { city: 'hobart', fuel: 'e85' });
    assert.equal(await page.getAttribute('#results', 'data-state'), 'empty');
    assert.equal(await page.textContent('#cheapest-empty'), 'No station within 10 km of Hobart has E85 for sale now.');
    assert.equal(await page.getAttribute('#chart', 'data-points'), '0');
    assert.match(await page.textContent('#chart-empty') ?? '', /^No daily averages of E85 in Hobart over last month\.$/);
    assert.equal(await page.locator('#scatter circle').count(), 0);
    assert.deepEqual(problems, []);
  });

  test('while the answers are on their way the page says it is loading, then shows them', async () => {
    const { page, problems } = await open();
    await connect(page, server.token);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => { release = resolve; });
    await page.route('**/v1/cities/*/history*', async (route) => { await held; await route.continue(); });
    await page.selectOption('#city', 'darwin');
    await page.click('#query-form button[type=submit]');
    await page.waitForSelector('#status[data-state="loading"]');
    assert.equal(await page.textContent('#status-text'), 'Loading Unleaded 91 near Darwin…');
    assert.equal(await page.getAttribute('#results', 'aria-busy'), 'true');
    assert.equal(await page.getAttribute('#results', 'data-state'), 'loading');
    release();
    await page.waitForSelector('#results[data-state="ready"]');
    assert.ok(await page.locator('#status').isHidden());
    assert.equal(await page.getAttribute('#results', 'aria-busy'), null);
    assert.deepEqual(problems, []);
  });

  test('"Use my location" fills in where the browser is and shows the cheapest near it', async () => {
    const { page, problems } = await open('/', { geolocation: { latitude: -34.92851, longitude: 138.60074 } });
    await connect(page, server.token);
    await page.selectOption('#fuel', 'diesel');
    await page.click('#locate');
    await page.waitForSelector('#results[data-state="ready"]');
    assert.equal(await page.inputValue('#location'), '-34.9285, 138.6007');
    assert.equal(await page.inputValue('#city'), 'adelaide', 'the city panels follow the nearest city');
    await assertShowsApi(page, 'adelaide', '-34.9285,138.6007', 'diesel', 'last-month', { cycles: false, cheapestWeekday: false });
    assert.deepEqual(problems, []);
  });

  test('by keyboard alone: token, remember, connect, the form, the results; a remembered token connects on the next visit', async () => {
    const { page, problems } = await open();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'token', 'the token field has the focus');
    await page.keyboard.type(server.token);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'remember');
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#query-panel:not([hidden])');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'city');
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent || ''));
    }
    assert.deepEqual(order, ['location', 'locate', 'fuel', 'radius', 'timeframe', 'go']);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#results[data-state="ready"]');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('section')?.id), 'cheapest-panel', 'the results come next');
    assert.equal(await page.locator('#cheapest tbody tr').count(), 10);
    assert.equal(await page.evaluate(() => localStorage.getItem('fuelprice-token')), server.token);

    await page.reload();
    await page.waitForSelector('#query-panel:not([hidden])');
    assert.ok(await page.locator('#token-panel').isHidden());
    assert.deepEqual(problems, []);
  });

  test('an empty database: the page says there is no data yet and how to get some, instead of an empty list and a button that does nothing', async () => {
    const sqlite = testBackends()[0];
    assert.ok(sqlite);
    const empty = await sqlite.create();
    const emptyServer = await startServer(empty.store, fixedClock(NOW));
    try {
      const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
      contexts.push(context);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text()); });
      await page.goto(`${emptyServer.baseUrl}/#token=${encodeURIComponent(emptyServer.token)}`);
      await page.waitForSelector('#no-data:not([hidden])');
      assert.match(await page.textContent('#no-data') ?? '', /^This server has no data yet: no city and no station\. Prices come from a feed \(fuelprice ingest\), a history import \(fuelprice import\) or, to try things, the demo/);
      assert.equal(await page.isHidden('#query-form'), true);
      assert.equal(await page.isDisabled('#go'), true);
      assert.equal(await page.isHidden('#results'), true);
      assert.deepEqual(problems, []);
    } finally {
      await emptyServer.close();
      await empty.drop();
    }
  });

  test('the docs page loads without a CSP violation (its policy allows the one style swagger-ui adds), at desktop and phone widths', async () => {
    for (const viewport of [{ width: 1280, height: 900 }, { width: 375, height: 812 }]) {
      const { page, context, problems } = await open('/docs');
      await page.setViewportSize(viewport);
      await page.waitForSelector('.swagger-ui .info .title');
      await page.waitForTimeout(300);
      assert.deepEqual(problems, [], `${viewport.width} px`);
      await context.close();
    }
  });

  test('a CSP violation would fail these tests: an inline style attribute is blocked and reported', async () => {
    const { page, problems } = await open();
    await page.evaluate(() => {
      const probe = document.createElement('p');
      probe.setAttribute('style', 'color: red');
      document.body.append(probe);
    });
    await waitFor('the violation on the console', () => problems.includes('console error: CSP violation: style-src-attr inline'));
  });

  test('a bad token: the page asks again, and keeps nothing', async () => {
    const { page, problems } = await open();
    await page.fill('#token', 'fp_AAAAAAAA_not-a-real-secret');
    await page.click('#token-form button[type=submit]');
    await page.waitForSelector('#status[data-state="bad-token"]');
    assert.equal(await page.textContent('#status-text'), 'The token was refused (The token is unknown, revoked or expired.) Enter a valid token.');
    assert.ok(await page.locator('#token-panel').isVisible());
    assert.ok(await page.locator('#query-panel').isHidden());
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'token');
    assert.deepEqual(await page.evaluate(() => [sessionStorage.length, localStorage.length]), [0, 0]);
    // Chromium reports each refused call itself; nothing else went wrong.
    assert.ok(problems.length > 0);
    for (const problem of problems) assert.match(problem, /^console error: Failed to load resource: the server responded with a status of 401 \(Unauthorized\)$/);

    await connect(page, server.token);
    assert.ok(await page.locator('#status').isHidden());
  });

  test('over the rate limit: the page says when to try again, from Retry-After', async () => {
    const { page, problems } = await open();
    await page.fill('#token', limitedToken);
    await page.click('#token-form button[type=submit]');
    await page.waitForSelector('#status[data-state="rate-limited"]');
    const shown = Number(await page.getAttribute('#status', 'data-retry-after'));
    const refused = await fetch(`${server.baseUrl}/v1/fuel-types`, { headers: { authorization: `Bearer ${limitedToken}` } });
    assert.equal(refused.status, 429);
    const now = Number(refused.headers.get('retry-after'));
    assert.ok(shown >= now && shown <= 60, `shown ${shown} s, the API says ${now} s now`);
    assert.equal(await page.textContent('#status-text'), `Too many requests with this token: its rate limit is reached. Try again in ${shown} s.`);
    assert.ok(await page.locator('#retry').isDisabled(), 'no retry before the time is up');
    // The page's clock moved past Retry-After: the countdown ends and Try again can be used.
    await page.clock.setFixedTime(NOW * 1000 + (shown + 1) * 1000);
    await page.waitForSelector('#retry:not([disabled])');
    assert.equal(await page.textContent('#status-text'), 'Too many requests with this token: its rate limit is reached. You can try again now.');
    assert.ok(problems.length > 0);
    for (const problem of problems) assert.match(problem, /^console error: Failed to load resource: the server responded with a status of 429 \(Too Many Requests\)$/);
  });
});
