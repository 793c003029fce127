// Loaded into the server under test by bench/stall.ts (NODE_OPTIONS=--import this file), and only there:
// the server's event-loop delay, measured by monitorEventLoopDelay at 1 ms resolution, reset and
// read over a loopback side port (FUELPRICE_STALL_PROBE_PORT). A request that holds the loop for
// X ms delays the histogram's timer by about X ms, so the histogram's max between a reset and a
// reading is the longest hold in between. Plain JavaScript: the server may run from dist/ or the sources.
import { createServer } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const port = Number(process.env.FUELPRICE_STALL_PROBE_PORT);
// The serving thread only: NODE_OPTIONS loads this file into every worker thread too (the logger's, derived answers').
if (isMainThread && Number.isInteger(port) && port > 0) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const server = createServer((req, res) => {
    if (req.url === '/reset') histogram.reset();
    res.end(req.url === '/reset' ? 'ok' : String(histogram.max / 1e6));
  });
  server.on('error', (error) => process.stderr.write(`stall probe: ${error.message}\n`));
  server.listen(port, '127.0.0.1');
  server.unref();
}
