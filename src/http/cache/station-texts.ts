/**
 * Each station's current prices kept as the JSON text that /v1/stations/{id}/prices and the batch
 * route (/v1/stations/prices) answer it with, for one data version: a station's prices change only
 * with a write, and every write moves the data version, so the text made for a station at a
 * version is its text for as long as the version holds. The batch route then joins 100 kept texts
 * instead of reading 100 stations, writing 1,900 entries and encoding 200 KB on every request;
 * and Home Assistant users each polling their own handful of stations share each station's text.
 *
 * Each text is kept with its SHA-256, so the batch's ETag is the hash of its stations' hashes in
 * order (and of its list of unknown ids): the same bytes give the same ETag in every process, and
 * 200 KB is not hashed again per request. Stations are kept as they are first asked for at a
 * version (ids no station has too, as such), up to `maxBytes`; another version starts empty.
 * With max_age nothing is kept: which prices are shown then depends on the hour asked.
 *
 * This is not the answer cache: it works whether or not that is on (`--cache off` included),
 * and it never serves a text made at another data version.
 */
import { createHash, hash } from 'node:crypto';
import { boundBytes } from '../../read-models/registry.ts';
import { quotedEtag } from './etag.ts';

/** A station's answer text (UTF-8), and its SHA-256 when kept. */
export interface StationText {
  text: Buffer;
  digest?: Buffer;
}

/** A kept station (text and hash), or null: no station has the id. */
type KeptStation = Required<StationText> | null;

export const DEFAULT_STATION_TEXT_BYTES = boundBytes('stationTexts');

/** What a kept id costs besides its text: the Map entry, the id and the digest. */
const ENTRY_BYTES = 128;

export class StationTexts {
  private version = -1;
  private kept = new Map<string, KeptStation>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_STATION_TEXT_BYTES) {}

  /**
   * Each id's kept station at `version` (ids in the order given, each once): those not kept are
   * made by `make` (the texts of the ones that exist, by id; missing ids have no station) and
   * kept while `version` is the one last asked for. Another version, an older one too (a request
   * that read the versions just before a write, or a database restored from a backup), starts
   * again from nothing, as PerVersion does (read-models/per-version.ts).
   */
  async get(ids: readonly string[], version: number, make: (missing: readonly string[]) => Promise<Map<string, Buffer>>): Promise<KeptStation[]> {
    if (version !== this.version) {
      this.version = version;
      this.kept = new Map();
      this.bytes = 0;
    }
    const current = this.kept;
    const missing = ids.filter((id) => !current.has(id));
    if (missing.length === 0) return ids.map((id) => current.get(id) ?? null);
    const made = new Map<string, KeptStation>();
    const stations = withDigests(missing, await make(missing));
    missing.forEach((id, i) => {
      const station = stations[i] ?? null;
      made.set(id, station);
      this.keep(version, id, station);
    });
    return ids.map((id) => (made.has(id) ? made.get(id) ?? null : current.get(id) ?? null));
  }

  private keep(version: number, id: string, station: KeptStation): void {
    // The version may have moved while its texts were made: they are not kept for another.
    if (version !== this.version) return;
    const bytes = ENTRY_BYTES + id.length * 2 + (station ? station.text.length : 0);
    if (this.bytes + bytes > this.maxBytes) return;
    this.kept.set(id, station);
    this.bytes += bytes;
  }
}

/** Each id's station from the texts made of those that exist (by id): its text and the text's SHA-256, or null. */
function withDigests(ids: readonly string[], texts: ReadonlyMap<string, Buffer>): KeptStation[] {
  return ids.map((id) => {
    const text = texts.get(id);
    return text ? { text, digest: hash('sha256', text, 'buffer') } : null;
  });
}

/**
 * The batch's ETag from its stations' hashes in order and the rest of its text, written as every
 * ETag is (etag.ts quotedEtag). Undefined when a station has no hash (made for
 * the request, with max_age): the answer's bytes are then hashed as any answer's.
 */
export function batchEtag(stations: ReadonlyArray<Pick<StationText, 'digest'>>, rest: string): string | undefined {
  const hasher = createHash('sha256');
  for (const station of stations) {
    if (!station.digest) return undefined;
    hasher.update(station.digest);
  }
  return quotedEtag(hasher.update(rest).digest('base64url'));
}
