/**
 * Reading a JSON array of flat objects (optionally gzipped) as records: a header record of the
 * keys, in the order they first appear, then one record per object with its values as text.
 * FuelWatch's daily site-API snapshots are published this way. Each file is one day's
 * whole-state pull (a few hundred KB), so it is read whole; memory is bounded by one file, not
 * by the number of files an import reads.
 */
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import type { CsvRecord } from './csv.ts';

export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Whether a file's first bytes (after any byte-order mark and white space) open a JSON array. */
export function isJsonArray(head: Buffer): boolean {
  return /^(\ufeff)?\s*\[/.test(head.subarray(0, 64).toString('utf8'));
}

/** The text of a JSON value as a CSV cell would hold it; nested values are written as JSON. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Records of the array's objects; `line` is the object's position in the array (from 1). A value that is not an array throws. */
export async function* readJsonRows(path: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<CsvRecord> {
  const raw = await readFile(path);
  onBytes?.(raw.length);
  const body = (isGzip(raw) ? gunzipSync(raw) : raw).toString('utf8').replace(/^\ufeff/, '');
  const parsed: unknown = JSON.parse(body);
  if (!Array.isArray(parsed)) throw new Error('the file is JSON but not an array of rows');
  const keys: string[] = [];
  const seen = new Set<string>();
  const items: readonly unknown[] = parsed;
  for (const item of items) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
    for (const key of Object.keys(item)) if (!seen.has(key)) { seen.add(key); keys.push(key); }
  }
  yield { fields: keys, line: 0 };
  let position = 0;
  for (const item of items) {
    position++;
    // Something other than an object has no fields: the caller rejects it as a row of the wrong shape.
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      yield { fields: [], line: position };
      continue;
    }
    const record = item as Record<string, unknown>;
    yield { fields: keys.map((k) => text(record[k])), line: position };
  }
}
