/**
 * Sealed city history kept formatted, per city and block of HISTORY_BLOCK_DAYS days: a ten-year
 * history is some thirty blocks that do not change from one request (or one ingest batch) to the
 * next, so an answer joins them instead of reading, building and serialising 60,000 records.
 *
 * Each block is held with the change mark storage keeps for it (city_daily_marks, moved by a
 * trigger on every change to the block's rows: a seal, a late report, a copy), and storage reads
 * a block's rows again only when its mark has moved (PriceStore.cityHistoryParts, `known`). So a
 * block is never served stale, whichever process wrote, and this is not the response cache: it
 * is on whether or not that is, and bounded in bytes (least recently used blocks go first).
 */
import type { FuelId } from '../domain/fuels.ts';
import type { RecordsText } from '../domain/history-json.ts';

export interface HeldBlock {
  mark: number;
  texts: ReadonlyMap<FuelId, RecordsText>;
}

interface Entry extends HeldBlock {
  key: string;
  cityId: string;
  block: number;
  bytes: number;
}

export const DEFAULT_HISTORY_BLOCK_BYTES = 16 * 1024 * 1024;

export class HistoryBlocks {
  /** Every entry, least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, Entry>();
  private readonly byCity = new Map<string, Map<number, Entry>>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_HISTORY_BLOCK_BYTES) {}

  /** The blocks held for a city (block -> mark and texts), marked as used. */
  held(cityId: string): Map<number, HeldBlock> {
    const out = new Map<number, HeldBlock>();
    for (const [block, entry] of this.byCity.get(cityId) ?? []) {
      out.set(block, entry);
      this.entries.delete(entry.key);
      this.entries.set(entry.key, entry);
    }
    return out;
  }

  set(cityId: string, block: number, mark: number, texts: ReadonlyMap<FuelId, RecordsText>): void {
    let bytes = 0;
    for (const text of texts.values()) bytes += text.length;
    if (bytes > this.maxBytes / 4) return;
    const key = `${cityId}\u0000${block}`;
    this.drop(key);
    const entry: Entry = { key, cityId, block, mark, texts, bytes };
    this.entries.set(key, entry);
    let city = this.byCity.get(cityId);
    if (!city) this.byCity.set(cityId, (city = new Map()));
    city.set(block, entry);
    this.bytes += bytes;
    while (this.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    const city = this.byCity.get(entry.cityId);
    city?.delete(entry.block);
    if (city?.size === 0) this.byCity.delete(entry.cityId);
  }
}
