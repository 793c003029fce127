/**
 * Sealed city history kept formatted, per city and block of HISTORY_BLOCK_DAYS days: a ten-year
 * history is some thirty blocks that do not change from one request (or one ingest batch) to the
 * next, so an answer joins them instead of reading, building and serialising 60,000 records.
 *
 * Each block is held with the change mark storage keeps for it (city_daily_marks, set to a fresh
 * random number by a trigger on every change to the block's rows of city_runs, which change
 * exactly when its days' means do: a seal, a late report, a copy (storage/sql/city-runs.ts), so
 * never the same twice even across a restore from a backup), and storage reads a block's days
 * again only when its mark has moved (ReadStore.cityHistoryParts, `known`). So a
 * block is never served stale, whichever process wrote, and this is not the answer cache: it
 * is on whether or not that is, and bounded in bytes (least recently used blocks go first).
 */
import type { FuelId } from '../domain/fuels.ts';
import { type RecordsText, blockOf, sealedText } from '../domain/history-json.ts';
import type { CityDayRow, CityHistoryParts } from '../domain/price-rows.ts';
import type { StateId } from '../domain/states.ts';
import { boundBytes } from '../read-models/registry.ts';

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

export const DEFAULT_HISTORY_BLOCK_BYTES = boundBytes('historyBlocks');

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
    if (!city) this.byCity.set(cityId, (city = new Map<number, Entry>()));
    city.set(block, entry);
    this.bytes += bytes;
    while (this.bytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
  }

  /**
   * The sealed part of an answer as pieces, newest first: the blocks storage skipped, as held;
   * the other complete blocks formatted from their rows and kept; the days of blocks only partly
   * in the range or not all sealed yet formatted for this answer alone. `held` is what held()
   * gave before storage was asked, so a block dropped meanwhile is still at hand.
   */
  sealedPieces(
    cityId: string, state: StateId, held: ReadonlyMap<number, HeldBlock>, parts: CityHistoryParts, format: (meanTenths: number) => string,
  ): Array<ReadonlyMap<FuelId, RecordsText>> {
    const rowsByBlock = new Map<number, CityDayRow[]>();
    for (const row of parts.sealed) {
      const block = blockOf(row.day);
      const rows = rowsByBlock.get(block);
      if (rows) rows.push(row); else rowsByBlock.set(block, [row]);
    }
    const pieces: Array<[number, ReadonlyMap<FuelId, RecordsText>]> = [];
    for (const [block, mark] of parts.blocks?.marks ?? []) {
      const kept = parts.blocks?.skipped.has(block) ? held.get(block) : undefined;
      if (kept) { pieces.push([block, kept.texts]); continue; }
      const texts = sealedText(rowsByBlock.get(block) ?? [], state, format);
      this.set(cityId, block, mark, texts);
      pieces.push([block, texts]);
      rowsByBlock.delete(block);
    }
    for (const [block, rows] of rowsByBlock) pieces.push([block, sealedText(rows, state, format)]);
    return pieces.sort((a, b) => b[0] - a[0]).map(([, texts]) => texts);
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
