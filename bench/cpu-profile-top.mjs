// The stretches of work in a CPU profile (bench/stall-probe.mjs FUELPRICE_STALL_CPU_PROFILE): each run of samples
// without an idle one that lasted at least MIN ms holds the event loop that long. `node bench/cpu-profile-top.mjs FILE [MIN]`
// (default 8) prints each such stretch, its start (s after the profile began), what called into it (the outermost JavaScript
// frame) and the functions with the most self time in it; then every stretch's self time summed by function.
import { readFileSync } from 'node:fs';

const [file, min = '8'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const where = (frame) => `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(node_modules|src|dist)\//, '$1/').replace(/^node:/, 'node:')}:${frame.lineNumber + 1}`;
const idle = (id) => ['(idle)', '(program)'].includes(nodes.get(id)?.callFrame.functionName);
/** The outermost JavaScript frame of a sample's stack (below (root)), or its own name for (garbage collector) and the like. */
const outermost = (id) => {
  let frames = [];
  for (let at = id; at !== undefined; at = parent.get(at)) frames.push(nodes.get(at).callFrame);
  frames = frames.filter((f) => f.functionName !== '(root)');
  return frames.at(-1) ? where(frames.at(-1)) : '(root)';
};

const stretches = [];
let time = profile.startTime;
let open;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  const delta = profile.timeDeltas[i] ?? 0;
  time += delta;
  if (idle(id)) {
    if (open && (open.end - open.start) / 1000 >= Number(min)) stretches.push(open);
    open = undefined;
    continue;
  }
  // A sample stands for the time until the next one (a thread that was not running shows as one sample with a long gap).
  const next = profile.timeDeltas[i + 1] ?? 0;
  open ??= { start: time, end: time, self: new Map(), entry: new Map() };
  open.end = time + next;
  const frame = where(nodes.get(id).callFrame);
  open.self.set(frame, (open.self.get(frame) ?? 0) + next);
  const entry = outermost(id);
  open.entry.set(entry, (open.entry.get(entry) ?? 0) + next);
}
const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => `${(us / 1000).toFixed(1).padStart(6)} ms  ${k}`).join('\n');
const total = new Map();
for (const s of stretches) {
  console.log(`\nat ${((s.start - profile.startTime) / 1e6).toFixed(2)} s: ${((s.end - s.start) / 1000).toFixed(1)} ms without an idle sample`);
  console.log(`  called from:\n${top(s.entry, 3).replace(/^/gm, '    ')}\n  self time:\n${top(s.self, 6).replace(/^/gm, '    ')}`);
  for (const [k, us] of s.self) total.set(k, (total.get(k) ?? 0) + us);
}
console.log(`\n${stretches.length} stretches of ${min} ms or more; their self time by function:\n${top(total, 25)}`);
