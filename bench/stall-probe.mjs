// Loaded into the server under test by bench/stall.ts (NODE_OPTIONS=--import this file), and only there:
// two measures of the serving thread, reset and read over a loopback side port (FUELPRICE_STALL_PROBE_PORT).
// - delay: the event-loop delay's max since the reset (monitorEventLoopDelay, 1 ms resolution). A request that holds
//   the loop for X ms delays the histogram's timer by about X ms; on a machine shared with other work the thread's
//   waits for a core count too.
// - cpu: the serving thread's own CPU time since the reset (process.threadCpuUsage: this thread, not the workers).
//   With requests sent one at a time it bounds from above what any one request held the loop for, waits for a core aside.
// - gc: the garbage collector's pauses on this thread since the reset (PerformanceObserver 'gc' entries: their sum and the
//   longest), so that a request's CPU can be told from a collection that fell inside it.
// Plain JavaScript: the server may run from dist/ or the sources.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector';
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

const port = Number(process.env.FUELPRICE_STALL_PROBE_PORT);
// The serving thread only: NODE_OPTIONS loads this file into every worker thread too (the logger's, derived answers').
if (isMainThread && Number.isInteger(port) && port > 0) {
  // V8 flags for a look inside the collector (e.g. --trace-gc-nvp: each collection's phases, on the server's stdout,
  // which bench/stall.ts --server-out keeps); NODE_OPTIONS does not take them.
  if (process.env.FUELPRICE_STALL_V8_FLAGS) setFlagsFromString(process.env.FUELPRICE_STALL_V8_FLAGS);
  // Where the serving thread allocates (garbage included): a sampling heap profile from start to exit, written to this file
  // (a .heapprofile: Chrome DevTools opens it; bench/heap-profile-top.mjs sums it by function).
  // Started by /profile-start, which bench/stall.ts asks for once every URL was asked once (code compiled, serialisers made).
  const heapProfile = process.env.FUELPRICE_STALL_HEAP_PROFILE;
  const session = heapProfile ? new Session() : undefined;
  const startHeapProfile = () => {
    if (!session) return;
    session.connect();
    session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    process.on('exit', () => {
      session.post('HeapProfiler.stopSampling', (error, result) => { if (!error) writeFileSync(heapProfile, JSON.stringify(result.profile)); });
    });
  };
  // What the serving thread runs: a CPU profile (500 µs samples) from the same start to exit, written to this file
  // (a .cpuprofile; `node bench/cpu-profile-top.mjs FILE` lists its stretches of work over a few ms and what ran in them).
  const cpuProfile = process.env.FUELPRICE_STALL_CPU_PROFILE;
  const cpuSession = cpuProfile ? new Session() : undefined;
  const startCpuProfile = () => {
    if (!cpuSession) return;
    cpuSession.connect();
    cpuSession.post('Profiler.enable');
    cpuSession.post('Profiler.setSamplingInterval', { interval: 500 });
    cpuSession.post('Profiler.start');
    process.on('exit', () => {
      cpuSession.post('Profiler.stop', (error, result) => { if (!error) writeFileSync(cpuProfile, JSON.stringify(result.profile)); });
    });
  };
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const cpuMs = () => { const { user, system } = process.threadCpuUsage(); return (user + system) / 1000; };
  let cpuAtReset = cpuMs();
  // Linux: the serving thread's major page faults and involuntary context switches (/proc/self/task/PID: the main thread's id is the pid),
  // which tell a delay without CPU apart: a wait for a core (involuntary switches), or for a page from disk (major faults).
  const task = `/proc/self/task/${process.pid}`;
  const hasTask = existsSync(`${task}/stat`);
  const threadCounts = () => {
    if (!hasTask) return { majorFaults: 0, switchesInvoluntary: 0 };
    const stat = readFileSync(`${task}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const status = readFileSync(`${task}/status`, 'utf8');
    return { majorFaults: Number(fields[9]), switchesInvoluntary: Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0) };
  };
  let countsAtReset = threadCounts();
  let gcMs = 0;
  let gcMaxMs = 0;
  let gcMaxKind = 0;
  let gcMaxFlags = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      if (entry.duration > gcMaxMs) { gcMaxMs = entry.duration; gcMaxKind = entry.detail?.kind ?? 0; gcMaxFlags = entry.detail?.flags ?? 0; }
    }
  }).observe({ entryTypes: ['gc'] });
  const server = createServer((req, res) => {
    if (req.url === '/heap-snapshot' && heapProfile) {
      writeHeapSnapshot(`${heapProfile}.heapsnapshot`);
      res.end('ok');
      return;
    }
    if (req.url === '/profile-start') {
      startHeapProfile();
      startCpuProfile();
      res.end('ok');
      return;
    }
    if (req.url === '/reset') {
      histogram.reset();
      cpuAtReset = cpuMs();
      countsAtReset = threadCounts();
      gcMs = 0;
      gcMaxMs = 0;
      gcMaxKind = 0;
      gcMaxFlags = 0;
      res.end('ok');
      return;
    }
    // gcMaxKind: perf_hooks' constants (1 minor, 4 major, 8 incremental, 16 weak callbacks); gcMaxFlags: its flags (2 construct
    // retained, 4 forced, 8 synchronous phantom processing, 16 all available garbage, 32 all external memory: a collection asked
    // for because external memory (Buffers) grew, 64 schedule idle); heap: this thread's, in MB.
    const heap = getHeapStatistics();
    const counts = threadCounts();
    res.end(JSON.stringify({ delayMs: histogram.max / 1e6, cpuMs: cpuMs() - cpuAtReset, gcMs, gcMaxMs, gcMaxKind, gcMaxFlags,
      heapUsedMb: heap.used_heap_size / 2 ** 20, externalMb: heap.external_memory / 2 ** 20,
      majorFaults: counts.majorFaults - countsAtReset.majorFaults, switchesInvoluntary: counts.switchesInvoluntary - countsAtReset.switchesInvoluntary }));
  });
  server.on('error', (error) => process.stderr.write(`stall probe: ${error.message}\n`));
  server.listen(port, '127.0.0.1');
  server.unref();
}
