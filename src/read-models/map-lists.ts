/** Adds `value` to the list kept under `key`, starting the list when there is none (storage's per-version indexes group rows so). */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
