/**
 * Values read once a data version, one per key (the read models' holders: read-models.ts): asked
 * at the version kept, the value kept; asked at another, read again, and requests for that
 * version that come while it is read wait for the one read. A read that fails is forgotten, so
 * the next request reads again. At most `maxEntries` keys are kept, the least recently read out
 * first (the bound each model declares in registry.ts).
 */
export class PerVersion<K, T> {
  private readonly kept = new Map<K, { version: number; value: Promise<T> }>();

  constructor(readonly maxEntries = Number.POSITIVE_INFINITY) {}

  /** How many keys are kept. */
  get size(): number {
    return this.kept.size;
  }

  /** The value kept for the key at this version, without reading. */
  peek(key: K, version: number): Promise<T> | undefined {
    const kept = this.kept.get(key);
    return kept?.version === version ? kept.value : undefined;
  }

  get(key: K, version: number, read: () => Promise<T>): Promise<T> {
    const kept = this.peek(key, version);
    if (kept) return kept;
    const entry = { version, value: read() };
    this.kept.delete(key);
    this.kept.set(key, entry);
    while (this.kept.size > this.maxEntries) this.kept.delete(this.kept.keys().next().value as K);
    entry.value.catch(() => { if (this.kept.get(key) === entry) this.kept.delete(key); });
    return entry.value;
  }
}
