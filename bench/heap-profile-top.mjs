// Sums a sampling heap profile (bench/stall-probe.mjs FUELPRICE_STALL_HEAP_PROFILE) by function: where a thread allocates,
// garbage included. `node bench/heap-profile-top.mjs FILE [N]` prints the N functions (default 30) with the most bytes.
import { readFileSync } from 'node:fs';

const [file, count = '30'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byFunction = new Map();
let total = 0;
const walk = (node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|src|dist)\//, '$1/')}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const child of node.children) walk(child);
};
walk(profile.head);
console.log(`${(total / 2 ** 20).toFixed(1)} MB sampled`);
for (const [key, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
  console.log(`${(bytes / 2 ** 20).toFixed(2).padStart(8)} MB ${(100 * bytes / total).toFixed(1).padStart(5)}%  ${key}`);
}
