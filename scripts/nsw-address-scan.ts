/**
 * Every form of NSW address the real files and answers show, and the suburb, state and
 * postcode this server reads from each: the NSW monthly workbooks (and .csv history files) in a
 * folder and FuelCheck answers (data.json), as published. Each address's tail (what follows
 * its last comma) is reduced to a form, `w` for a run of words and `D4` for four digits ("w NSW
 * AUSTRALIA D4"), and each form is printed with its count and an example read through
 * splitNswAddress; then every address whose reading is doubtful (a suburb empty, with a digit
 * or a state word in it, or, in a workbook, other than its own Suburb cell where it has one).
 *
 *   npx tsx scripts/nsw-address-scan.ts [WORKBOOK_DIR] [ANSWER.json ...]
 *
 * Defaults: ../shared/realdata/nsw_fuelcheck_monthly_xlsx and
 * ../shared/realdata/nsw_fuelcheck_api_prices_json/data.json.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { nswSuburbCell, splitNswAddress } from '../src/ingest/feeds/nsw-address.ts';
import { resolveHeader, rowOf } from '../src/ingest/import/csv.ts';
import { nswHistory } from '../src/ingest/import/nsw-history.ts';
import { fillDown } from '../src/ingest/import/nsw-merged-cells.ts';
import { readXlsx } from '../src/ingest/import/xlsx.ts';
import type { Row } from '../src/ingest/import/csv.ts';

const root = resolve(import.meta.dirname, '..');
const realdata = join(root, '..', 'shared', 'realdata');
const dir = process.argv[2] ?? join(realdata, 'nsw_fuelcheck_monthly_xlsx');
const answers = process.argv.length > 3 ? process.argv.slice(3) : [join(realdata, 'nsw_fuelcheck_api_prices_json', 'data.json')];

const KEPT = new Set(['NSW', 'ACT', 'TAS', 'AUSTRALIA', 'NEW', 'SOUTH', 'WALES']);

/** An address's tail as a form: commas counted, state words kept, other words `w`, digits `D<n>`. */
export function addressForm(address: string): string {
  const parts = address.split(',').map((p) => p.trim()).filter((p) => p !== '');
  const tokens: string[] = [];
  for (const t of (parts[parts.length - 1] ?? '').match(/[A-Za-z.']+|\d+|\S/g) ?? []) {
    const upper = t.toUpperCase();
    if (KEPT.has(upper)) tokens.push(upper);
    else if (/^\d+$/.test(t)) tokens.push(`D${t.length}`);
    else if (/^[A-Za-z]/.test(t)) { if (tokens[tokens.length - 1] !== 'w') tokens.push('w'); }
    else tokens.push(t);
  }
  return `${parts.length - 1} comma${parts.length === 2 ? '' : 's'}: ${tokens.join(' ')}`;
}

interface Seen { source: string; address: string; suburbCell?: string; count: number }

const byAddress = new Map<string, Seen>();
function note(source: string, address: string, suburbCell?: string): void {
  const key = `${source}\u0000${address}\u0000${suburbCell ?? ''}`;
  const seen = byAddress.get(key);
  if (seen) seen.count++;
  else byAddress.set(key, { source, address, ...(suburbCell === undefined ? {} : { suburbCell }), count: 1 });
}

for (const file of readdirSync(dir).filter((f) => f.endsWith('.xlsx')).sort()) {
  let header: Parameters<typeof rowOf>[1] | undefined;
  let previous: Row | undefined;
  for await (const record of readXlsx(join(dir, file))) {
    if (!header) {
      const found = resolveHeader(record.fields, nswHistory.columns);
      if (found.ok) header = found.header;
      continue;
    }
    const raw = rowOf(record.fields, header, true);
    if (!raw) continue;
    const row = fillDown(raw, previous);
    previous = row;
    if ((row['Address'] ?? '') !== '') note('workbook', row['Address'] ?? '', row['Suburb'] ?? '');
  }
}
for (const path of answers) {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { stations?: Array<{ address?: unknown }> };
  for (const s of doc.stations ?? []) if (typeof s.address === 'string') note('answer', s.address.replace(/\s+/g, ' ').trim());
}

const forms = new Map<string, { rows: number; addresses: number; example: Seen }>();
const doubtful: string[] = [];
const plain = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
for (const seen of byAddress.values()) {
  const form = `${seen.source.padEnd(8)} ${addressForm(seen.address)}`;
  const entry = forms.get(form);
  if (entry) { entry.rows += seen.count; entry.addresses++; } else forms.set(form, { rows: seen.count, addresses: 1, example: seen });
  const parts = splitNswAddress(seen.address);
  const why = parts.suburb === '' ? 'no suburb' : /\d/.test(parts.suburb) ? 'a digit in the suburb'
    : /\b(nsw|act|tas|australia|wales)\b/i.test(parts.suburb) ? 'a state word in the suburb'
      : seen.suburbCell !== undefined && seen.suburbCell !== '' && plain(nswSuburbCell(seen.suburbCell)) !== plain(parts.suburb) ? `Suburb cell "${seen.suburbCell}"` : '';
  if (why !== '') doubtful.push(`${seen.source} ${JSON.stringify(seen.address)} -> ${JSON.stringify(parts)}: ${why} (${seen.count} rows)`);
}

console.log('rows  addresses  source   form | example -> street / suburb / state / postcode');
for (const [form, { rows, addresses, example }] of [...forms].sort((a, b) => b[1].rows - a[1].rows)) {
  const p = splitNswAddress(example.address);
  const cell = example.suburbCell === undefined ? '' : ` (Suburb cell "${example.suburbCell}" -> "${nswSuburbCell(example.suburbCell)}")`;
  console.log(`${String(rows).padStart(6)} ${String(addresses).padStart(6)}  ${form} | ${example.address} -> ${p.street} / ${p.suburb} / ${p.state} / ${p.postcode}${cell}`);
}
console.log(`\n${doubtful.length} addresses read doubtfully:`);
for (const line of doubtful) console.log(`  ${line}`);
