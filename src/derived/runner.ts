/**
 * Where derived answers are computed, seen from the serving thread: on the derived-answers worker
 * thread (WorkerRunner, derived-worker.ts), or, for a database no other thread can open
 * (sqlite::memory:), in this thread (InlineRunner). Both hand back what a DerivedComputer gives.
 */
import type { Worker } from 'node:worker_threads';
import type { ReadStore, ReaderSource } from '../storage/store.ts';
import { type Computed, DerivedComputer } from './computer.ts';
import type { DerivedJob, DerivedLane } from './kinds.ts';

export type ToWorker =
  | { type: 'run'; id: number; job: DerivedJob; now: number; version: number }
  | { type: 'ahead'; jobs: DerivedJob[]; now: number; version: number }
  | { type: 'close' };

export type FromWorker =
  | ({ type: 'done'; id: number } & Computed)
  | { type: 'failed'; id: number; message: string; code?: string }
  | ({ type: 'kept'; job: DerivedJob; now: number } & Computed)
  | { type: 'computed'; key: string };

export interface DerivedEvents {
  /** A result computed ahead of any request. */
  kept(job: DerivedJob, nowSec: number, computed: Computed): void;
  /** A computation was made (not shared): its job key. */
  computed(key: string): void;
}

export interface DerivedRunner {
  run(job: DerivedJob, nowSec: number, version: number): Promise<Computed>;
  ahead(jobs: DerivedJob[], nowSec: number, version: number): void;
  close(): Promise<void>;
}

/** In the serving thread: only where no worker can open the database. */
export class InlineRunner implements DerivedRunner {
  private readonly computer: DerivedComputer;

  constructor(store: ReadStore, private readonly events: DerivedEvents) {
    this.computer = new DerivedComputer(store, (key) => events.computed(key));
  }

  run(job: DerivedJob, nowSec: number, version: number): Promise<Computed> {
    return this.computer.run(job, nowSec, version);
  }

  ahead(jobs: DerivedJob[], nowSec: number, version: number): void {
    this.computer.ahead(jobs, nowSec, version, (job, computed) => this.events.kept(job, nowSec, computed)).catch(() => {});
  }

  async close(): Promise<void> {}
}

/** A worker thread of one lane (kinds.ts), started at its first job and again after it stopped; jobs waiting when it stops fail (a 500 each). */
export class WorkerRunner implements DerivedRunner {
  private worker: Worker | undefined;
  private starting: Promise<Worker> | undefined;
  private readonly waiting = new Map<number, { resolve: (c: Computed) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly source: ReaderSource, private readonly events: DerivedEvents, private readonly lane: DerivedLane = 'derived') {}

  private start(): Promise<Worker> {
    if (this.worker) return Promise.resolve(this.worker);
    this.starting ??= (async () => {
      const { Worker } = await import('node:worker_threads');
      // The worker's module as this one is loaded: compiled (dist/, .js) or the sources through tsx, whose loader is named
      // (as for the xlsx reader: ingest/import/xlsx.ts).
      const fromSource = import.meta.url.endsWith('.ts');
      const worker = new Worker(new URL(fromSource ? './derived-worker.ts' : './derived-worker.js', import.meta.url), {
        workerData: { source: this.source, lane: this.lane },
        name: `fuelprice-${this.lane}`,
        ...(fromSource ? { execArgv: ['--import', import.meta.resolve('tsx/esm')] } : {}),
      });
      worker.on('message', (message: FromWorker) => this.receive(message));
      worker.on('error', () => this.stopped(worker));
      worker.on('exit', () => this.stopped(worker));
      this.worker = worker;
      this.starting = undefined;
      return worker;
    })();
    return this.starting;
  }

  private receive(message: FromWorker): void {
    if (message.type === 'computed') this.events.computed(message.key);
    else if (message.type === 'kept') this.events.kept(message.job, message.now, { value: message.value, version: message.version });
    else {
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.type === 'done') waiter?.resolve({ value: message.value, version: message.version });
      else {
        // With the failure's code, so that the storage being out of reach on the worker is a 503 as on this thread (storage/errors.ts).
        const error = new Error(`derived answer failed: ${message.message}`);
        waiter?.reject(message.code === undefined ? error : Object.assign(error, { code: message.code }));
      }
    }
  }

  private stopped(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    for (const waiter of this.waiting.values()) waiter.reject(new Error('the derived-answers worker stopped'));
    this.waiting.clear();
  }

  async run(job: DerivedJob, nowSec: number, version: number): Promise<Computed> {
    if (this.closed) throw new Error('the derived-answers worker is closed');
    const worker = await this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ type: 'run', id, job, now: nowSec, version } satisfies ToWorker);
    });
  }

  ahead(jobs: DerivedJob[], nowSec: number, version: number): void {
    // Only a worker already running: one that is not has nothing asked of it lately to compute again.
    this.worker?.postMessage({ type: 'ahead', jobs, now: nowSec, version } satisfies ToWorker);
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker ?? await this.starting;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies ToWorker);
    // A worker that does not close its port within a second is stopped.
    const timer = setTimeout(() => { worker.terminate().catch(() => {}); }, 1000);
    await exited;
    clearTimeout(timer);
  }
}
