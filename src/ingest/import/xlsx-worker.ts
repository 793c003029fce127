/**
 * The worker thread behind readXlsx: reads the workbook with readXlsxHere and posts its records
 * in chunks, at most as many chunks ahead as the reading thread has given credit for (one
 * credit per chunk it takes), so the workbook is read as fast as it is used and no faster.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type XlsxChunk, type XlsxMessage, type XlsxWorkerData, readXlsxHere } from './xlsx.ts';

if (!parentPort) throw new Error('xlsx-worker.ts runs as a worker thread');
const port = parentPort;
const { path, chunkRows } = workerData as XlsxWorkerData;

let credit = 0;
let waiting: (() => void) | undefined;
port.on('message', (more: number) => {
  credit += more;
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
async function flush(): Promise<void> {
  while (credit <= 0) await new Promise<void>((resolve) => { waiting = resolve; });
  credit--;
  chunk.bytesRead = bytesRead;
  post(chunk);
  posted++;
  chunk = { type: 'rows', fields: [], counts: [], lines: [], bytesRead: 0 };
}

try {
  for await (const record of readXlsxHere(path, (n) => { bytesRead = n; })) {
    for (const f of record.fields) chunk.fields.push(f);
    chunk.counts.push(record.fields.length);
    chunk.lines.push(record.line);
    // The first chunk small: the reading thread starts on the header and first rows sooner.
    if (chunk.lines.length >= (posted === 0 ? FIRST_CHUNK_ROWS : chunkRows)) await flush();
  }
  if (chunk.lines.length > 0) await flush();
  post({ type: 'end' });
} catch (error) {
  post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
}
// The thread stays (its port listening) until the reading thread ends it, having taken every message.
