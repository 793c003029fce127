/**
 * What the dashboard's browser suites share: Debian's Chromium (skipped, naming why, when it is
 * missing, unless FUELPRICE_TEST_BROWSER=required), a real server on a real port over the demo
 * dataset with a fixed clock, a stand-in tile server, and pages opened with every console error
 * and CSP violation kept. dashboard.test.ts has its own copy of the first part (it came first).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import type { AppOptions } from '../../src/app.ts';
import { writeDemo } from '../../src/ingest/demo.ts';
import { releaseAndSeal } from '../../src/ingest/scheduler.ts';
import type { PriceStore } from '../../src/storage/store.ts';
import { NOW } from '../fixture.ts';
import { type RunningServer, fixedClock, startServer, testBackends } from '../helpers.ts';

export const CHROMIUM = process.env.FUELPRICE_CHROMIUM || '/usr/bin/chromium';
export const NO_CHROMIUM = `the browser tests need Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run does it), or FUELPRICE_CHROMIUM=/path/to/chromium`;
export const SKIP = process.env.FUELPRICE_TEST_BROWSER !== 'required' && !existsSync(CHROMIUM)
  ? `${NO_CHROMIUM}; FUELPRICE_TEST_BROWSER=required makes this a failure` : false;

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 900 };

export interface Opened { page: Page; context: BrowserContext; problems: string[] }

/** A PNG of one colour, `size` pixels square (RGB, 8 bits, no filter), written out here. */
function solidPng(size: number, [r, g, b]: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer): number => {
    let c = 0xffffffff;
    for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => [r, g, b]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: size }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}

/** A plain 256-px tile in the colour of land on OpenStreetMap's map, as the stand-in tile server's answer. */
export const TILE_PNG = solidPng(256, [242, 239, 233]);

/** A stand-in tile server on 127.0.0.1: a PNG for /{z}/{x}/{y}.png, counting the tiles asked. */
export async function tileServer(): Promise<{ url: string; origin: string; asked: () => number; close: () => Promise<void> }> {
  let asked = 0;
  const server: Server = createServer((request, response) => {
    if (!/^\/\d+\/\d+\/\d+\.png$/.test(request.url ?? '')) { response.writeHead(404).end(); return; }
    asked++;
    response.writeHead(200, { 'content-type': 'image/png', 'content-length': TILE_PNG.length }).end(TILE_PNG);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const origin = `http://127.0.0.1:${address.port}`;
  return {
    url: `${origin}/{z}/{x}/{y}.png`, origin, asked: () => asked,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** axe-core's script, injected into a page by the tests (never served by the server). */
export const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation { id: string; impact: string | null; nodes: Array<{ target: string[] }> }

/** axe-core's violations on the page as it is now (WCAG 2 A and AA, and best practice). */
export async function axe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const run = (window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: AxeViolation[] }> } }).axe.run;
    const result = await run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
}

/** The demo dataset (a quarter of a year, small scale) in a fresh SQLite store, sealed at NOW. */
export async function demoStore(): Promise<{ store: PriceStore; drop: () => Promise<void> }> {
  const sqlite = testBackends()[0];
  assert.ok(sqlite);
  const { store, drop } = await sqlite.create();
  await writeDemo(store, { seed: 1, years: 0.25, scale: 'small', nowSec: NOW });
  await releaseAndSeal(store, NOW);
  return { store, drop };
}

export async function launch(): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), NO_CHROMIUM);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The server, its token's rate limit out of the way (a page load is some 35 requests, and the suites load many pages a minute). */
export async function serve(store: PriceStore, options: Partial<AppOptions> = {}): Promise<RunningServer> {
  return startServer(store, fixedClock(NOW), { defaultRateLimit: 100_000, ...options });
}

/** A fresh context (its own storage) at `viewport`, the page's clock at NOW, every console error, warning, page error and CSP violation kept. */
export async function open(browser: Browser, url: string, viewport = DESKTOP): Promise<Opened> {
  const context = await browser.newContext({ viewport });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.effectiveDirective} ${event.blockedURI}`));
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.clock.setFixedTime(NOW * 1000);
  const problems: string[] = [];
  page.on('console', (message) => { if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`); });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  const response = await page.goto(url);
  assert.equal(response?.status(), 200);
  return { page, context, problems };
}

/** Opens the page with the token in its fragment (as `serve --demo` prints it): connected, Sydney's ulp91 shown. */
export async function openConnected(browser: Browser, server: RunningServer, viewport = DESKTOP): Promise<Opened> {
  const opened = await open(browser, `${server.baseUrl}/#token=${encodeURIComponent(server.token)}`, viewport);
  await opened.page.waitForSelector('#results[data-state="ready"]');
  return opened;
}

/** Picks a city (or a location) and a fuel, asks, and waits for the answer to be shown. */
export async function show(page: Page, choice: { city?: string; location?: string; fuel: string; timeframe?: string; radius?: string }): Promise<void> {
  // On a phone the form is folded into one line once results are shown: Change opens it.
  if (await page.isVisible('#change')) await page.click('#change');
  if (choice.city) await page.selectOption('#city', choice.city);
  await page.fill('#location', choice.location ?? '');
  await page.selectOption('#fuel', choice.fuel);
  await page.selectOption('#timeframe', choice.timeframe ?? 'last-month');
  await page.selectOption('#radius', choice.radius ?? '10');
  await page.click('#query-form button[type=submit]');
  await page.waitForSelector('#results[data-state="ready"], #results[data-state="empty"]');
}

export async function api<T>(server: RunningServer, path: string): Promise<T> {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${server.token}` } });
  assert.equal(response.status, 200, path);
  return await response.json() as T;
}

export interface CheapestAnswer { station_id: string; name: string; brand: string; address: string; price: string; distance_km: string; updated_at: number }

/**
 * The names the list should show, worked out here from the API's answer (every station found,
 * not only the ten listed): a name two or more stations share gets the suburb (the address after
 * its last comma, less state and postcode) when that tells it apart and is not in the name
 * already, else the street (before the first comma).
 */
export function referenceNames(all: readonly CheapestAnswer[]): Map<string, string> {
  const suburbOf = (address: string): string => (address.split(',').pop() ?? '').trim().replace(/ (NSW|VIC|QLD|SA|WA|TAS|NT|ACT) \d{4}$/, '');
  return new Map(all.map((s) => {
    const group = all.filter((g) => g.name.toLowerCase() === s.name.toLowerCase());
    if (group.length === 1) return [s.station_id, s.name];
    const suburb = suburbOf(s.address);
    const tells = group.filter((g) => suburbOf(g.address) === suburb).length === 1 && !s.name.toLowerCase().includes(suburb.toLowerCase());
    return [s.station_id, `${s.name} (${tells ? suburb : s.address.split(',')[0]})`];
  }));
}

/** How the list writes a price's age at NOW: as ageText, and past a week "old: N days ago, on 8 Aug" (the day in the city's zone). */
export function referenceAge(updatedAt: number, timeZone: string, ageText: (at: number, now: number) => string): string {
  if (NOW - updatedAt < 7 * 86_400) return ageText(updatedAt, NOW);
  const day = new Intl.DateTimeFormat('en-AU', { day: 'numeric', month: 'short', timeZone }).format(new Date(updatedAt * 1000));
  return `old: ${Math.floor((NOW - updatedAt) / 86_400)} days ago, on ${day}`;
}
