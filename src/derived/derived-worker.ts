/**
 * A derived-answers worker thread (docs/DERIVED.md), one per lane (kinds.ts: the derived worker, the
 * search worker): opens its own read-only connection to the server's database and computes what the
 * serving thread sends (runner.ts), with a DerivedComputer.
 * Messages in: run (one job, answered by done or failed with the same id), ahead (jobs to compute
 * after a write, each answered by kept), close. Out as well: computed, one per computation made.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteStore } from '../storage/sqlite/sqlite-store.ts';
import type { ReadStore, ReaderSource } from '../storage/store.ts';
import { DerivedComputer } from './computer.ts';
import type { DerivedLane } from './kinds.ts';
import type { ToWorker, FromWorker } from './runner.ts';

if (!parentPort) throw new Error('derived-worker.ts runs as a worker thread');
const port = parentPort;
const { source, lane } = workerData as { source: ReaderSource; lane: DerivedLane };

/**
 * The derived worker yields the machine's cores to the serving thread: its work (a city's year of
 * fresh prices, seconds at national scale, computed ahead after every write) is never what a request
 * waits on the loop for, so on a 2-core machine it must not take the core the serving thread needs.
 * On Linux the nice value is a thread's own (setpriority(2), "BUGS"): pid 0 is this thread only. Elsewhere
 * it would be the whole process's, so it is left alone there. The search worker keeps its priority: a
 * request waits for each of its answers.
 */
const DERIVED_WORKER_NICE = 10;
if (lane === 'derived' && process.platform === 'linux') {
  try {
    setPriority(0, DERIVED_WORKER_NICE);
  } catch {
    // Not allowed (a container's seccomp): the worker runs at the process's priority.
  }
}

async function open(): Promise<ReadStore> {
  if (source.backend === 'sqlite') return new SqliteStore(source.path, { readonly: true });
  const { PostgresStore } = await import('../storage/postgres/postgres-store.ts');
  // Off the event loop, a long read holds no one up: 30 s before PostgreSQL cancels it, not the serving pool's 5 s
  // (a city's year of fresh prices took longer than 5 s on a loaded machine, and the request then failed). A search's
  // reads are those the serving thread made before searches had a worker: its 5 s.
  return new PostgresStore({ connectionString: source.url, max: 2, statementTimeoutMs: lane === 'search' ? 5_000 : 30_000, applicationName: `fuelprice-${lane}` });
}

/**
 * An answer's bytes go to the serving thread moved, not copied there: a copy made here (this thread keeps its
 * own for its recent results) whose buffer is transferred, so the serving thread neither copies a ten-year
 * history's megabytes nor allocates them again, after every write that computes them ahead.
 */
const post = (message: FromWorker): void => {
  const value = message.type === 'done' || message.type === 'kept' ? message.value as { bytes?: unknown } | undefined : undefined;
  if (!(value?.bytes instanceof Uint8Array)) {
    port.postMessage(message);
    return;
  }
  const moved = new Uint8Array(value.bytes);
  port.postMessage({ ...message, value: { ...value, bytes: moved } }, [moved.buffer]);
};
const storeReady = open();
storeReady.then((store) => store.setVersionReuseMs(0), () => {});
const ready = storeReady.then((store) => new DerivedComputer(store, (key) => post({ type: 'computed', key })));

/** What is said of a failure: its message, cut short (the serving thread logs it; no user sees it). */
const why = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 300);
/** The failure's code, when it has one (a storage failure's: SQLITE_BUSY, ECONNREFUSED, 57P01...). */
const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code.slice(0, 40) : undefined;
};

port.on('message', (message: ToWorker) => {
  if (message.type === 'close') {
    storeReady.then((store) => store.close()).catch(() => {}).finally(() => port.close());
    return;
  }
  ready.then((c) => {
    if (message.type === 'run') {
      return c.run(message.job, message.now, message.version).then(
        (done) => post({ type: 'done', id: message.id, ...done }),
        (error: unknown) => post({ type: 'failed', id: message.id, message: why(error), code: codeOf(error) }),
      );
    }
    return c.ahead(message.jobs, message.now, message.version, (job, done) => post({ type: 'kept', job, now: message.now, ...done }));
  }).catch((error: unknown) => {
    if (message.type === 'run') post({ type: 'failed', id: message.id, message: why(error), code: codeOf(error) });
  });
});
