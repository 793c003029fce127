#!/usr/bin/env node
// Turns the QLD weekly GetSitesPrices archive (../shared/realdata/qld_fpd_api_getsitesprices_weekly_csv/,
// columns SiteId,FuelId,CollectionMethod,TransactionDateUtc,Price) into CSVs in the monthly file's layout, each row
// with its site's name, brand, address and position from the February 2023 monthly file (same SiteId), so that
// `fuelprice import qld-history OUT` creates the stations (feed qld, code SiteId) and stores every price change.
// Rows of sites the February 2023 file does not know are counted and left out (they would have no position, so no city).
// Usage: node scripts/qld-weekly-csv.mjs WEEKLY_DIR MONTHLY_CSV OUT_DIR
import { createReadStream, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const [weekly, monthly, out] = process.argv.slice(2);
if (!weekly || !monthly || !out) { console.error('usage: qld-weekly-csv.mjs WEEKLY_DIR MONTHLY_CSV OUT_DIR'); process.exit(2); }
mkdirSync(out, { recursive: true });
const lines = readFileSync(monthly, 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/);
const header = lines[0].split(',');
const SITE_COLUMNS = header.slice(0, 9); // SiteId .. Site_Longitude
const sites = new Map();
/** A CSV line's fields (the monthly file quotes fields with commas). */
function fields(line) {
  const outFields = []; let cur = ''; let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) { if (c === '"' && line[i + 1] === '"') { cur += '"'; i++; } else if (c === '"') quoted = false; else cur += c; }
    else if (c === '"') quoted = true; else if (c === ',') { outFields.push(cur); cur = ''; } else cur += c;
  }
  outFields.push(cur);
  return outFields;
}
const quote = (v) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
for (const line of lines.slice(1)) {
  if (line.trim() === '') continue;
  const f = fields(line);
  if (!sites.has(f[0])) sites.set(f[0], f.slice(0, 9).map(quote).join(','));
}
let kept = 0; let dropped = 0;
const unknown = new Set();
for (const name of readdirSync(weekly).filter((n) => n.endsWith('.csv.gz')).sort()) {
  const rows = [[...SITE_COLUMNS, 'Fuel_Type', 'Price', 'TransactionDateutc'].join(',')];
  const rl = createInterface({ input: createReadStream(join(weekly, name)).pipe(createGunzip()), crlfDelay: Infinity });
  let first = true;
  for await (const line of rl) {
    if (first) { first = false; continue; }
    if (line.trim() === '') continue;
    const [site, fuel, , at, price] = line.split(',');
    const details = sites.get(site);
    if (!details) { dropped++; unknown.add(site); continue; }
    rows.push(`${details},${fuel},${price},${at}`);
    kept++;
  }
  writeFileSync(join(out, name.replace(/\.gz$/, '')), `${rows.join('\n')}\n`);
}
console.log(`${kept} rows written, ${dropped} rows of ${unknown.size} sites not in the February 2023 file left out`);
