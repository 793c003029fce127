/**
 * What one historical-file format supplies to the shared import machinery (run.ts): its
 * columns, the feed its stations and prices belong to, its fuel names, and how a row becomes
 * a station and a price in a Normaliser.
 */
import type { IngestStore } from '../../storage/store.ts';
import type { FeedId } from '../feeds/index.ts';
import type { FuelMap } from '../normalise.ts';
import type { Normaliser } from '../normalise.ts';
import type { ColumnSpec, Row } from './csv.ts';

export const IMPORT_FORMAT_IDS = ['nsw-history', 'wa-history', 'qld-history'] as const;
export type ImportFormatId = (typeof IMPORT_FORMAT_IDS)[number];

export function isImportFormatId(s: string): s is ImportFormatId {
  return (IMPORT_FORMAT_IDS as readonly string[]).includes(s);
}

/** Reads the rows of one file: made once per file, so it may hold what matching needs. */
export interface RowReader {
  /**
   * A row a resumed import passes over (it was applied by an earlier run). Formats whose rows
   * lean on the row before (NSW's blank merged cells) keep that context here.
   */
  skip(row: Row): void;
  /** Adds the row's station and price to the batch, or a counted rejection saying why not. */
  read(row: Row, normaliser: Normaliser, line: number): void;
}

export interface ImportFormat {
  readonly id: ImportFormatId;
  /** The feed whose stations the prices belong to (and under which new stations are created). */
  readonly feed: FeedId;
  /** Human name of the publication, for messages. */
  readonly name: string;
  readonly columns: readonly ColumnSpec[];
  readonly fuels: FuelMap;
  /** Prepares a reader for one file (loading the feed's known stations where rows must be matched to them). */
  start(store: IngestStore): Promise<RowReader>;
}
