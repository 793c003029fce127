/**
 * The worker thread behind readXlsx: reads the workbook with readXlsxHere and posts its records
 * in chunks, at most as many chunks ahead as the reading thread has given credit for (one
 * credit per chunk it takes), so the workbook is read as fast as it is used and no faster.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { XLSX_STOP, type XlsxChunk, type XlsxMessage, type XlsxWorkerData, readXlsxHere } from './xlsx.ts';

if (!parentPort) throw new Error('xlsx-worker.ts runs as a worker thread');
const port = parentPort;
const { path, chunkRows } = workerData as XlsxWorkerData;

let credit = 0;
let stopping = false;
let waiting: (() => void) | undefined;
port.on('message', (more: number) => {
  if (more === XLSX_STOP) stopping = true;
  else credit += more;
  const w = waiting;
  waiting = undefined;
  w?.();
});

function post(message: XlsxMessage): void {
  port.postMessage(message);
}

const FIRST_CHUNK_ROWS = 50;
let bytesRead = 0;
let posted = 0;
let chunk: XlsxChunk = { type: 'rows', fields: [], counts: [], lines: [], bytesRead: 0 };
/** Posts the chunk once there is credit for it; false, posting nothing, once told to stop. */
async function flush(): Promise<boolean> {
  while (credit <= 0 && !stopping) await new Promise<void>((resolve) => { waiting = resolve; });
  if (stopping) return false;
  credit--;
  chunk.bytesRead = bytesRead;
  post(chunk);
  posted++;
  chunk = { type: 'rows', fields: [], counts: [], lines: [], bytesRead: 0 };
  return true;
}

try {
  for await (const record of readXlsxHere(path, (n) => { bytesRead = n; })) {
    for (const f of record.fields) chunk.fields.push(f);
    chunk.counts.push(record.fields.length);
    chunk.lines.push(record.line);
    // The first chunk small: the reading thread starts on the header and first rows sooner.
    if (chunk.lines.length >= (posted === 0 ? FIRST_CHUNK_ROWS : chunkRows) && !(await flush())) break;
  }
  if (!stopping && (chunk.lines.length === 0 || (await flush()))) post({ type: 'end' });
} catch (error) {
  post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
}
// Read, failed or told to stop: the port no longer keeps the thread alive (what it posted is still
// delivered), so it ends once the workbook's reader has wound down, rather than being terminated.
port.unref();
