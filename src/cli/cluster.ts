import cluster, { type Worker } from 'node:cluster';

/**
 * `serve --workers N`: the primary process forks N workers (node:cluster), each running the
 * ordinary serve path on the same port (the primary accepts connections and hands them out in
 * turn). The primary itself serves nothing: it announces the address once, replaces a worker
 * that dies (with a growing pause, so a worker that cannot start does not fork in a tight loop),
 * and on SIGTERM/SIGINT asks every worker to finish its requests and waits for them all.
 */

/** Messages between the primary and its workers (over the cluster's IPC channel). */
const LISTENING = 'fuelprice:listening';
const STOP = 'fuelprice:stop';
/** A worker's scrape of /metrics asks the primary for every worker's metrics added up, and is answered by id. */
const METRICS_ASK = 'fuelprice:metrics';
const METRICS_ANSWER = 'fuelprice:metrics-answer';
/** How long a worker waits for the primary's sum (prom-client gives up on a silent worker after 5 s). */
const METRICS_WAIT_MS = 6_000;

/** How long the workers have to finish after SIGTERM/SIGINT before the primary gives up (exit 1). */
const STOP_TIMEOUT_MS = 10_000;
/** Pause before replacing a dead worker: doubles with each death in a row, up to the maximum. */
const RESTART_DELAY_MS = 250;
const RESTART_DELAY_MAX_MS = 10_000;
/** A worker that lived this long resets the pause to its minimum. */
const STABLE_AFTER_MS = 30_000;

export interface ClusterLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface PrimaryOptions {
  workers: number;
  logger: ClusterLogger;
  /** Called once, when the first worker listens, with its address (the same for every worker). */
  onListening(address: string): void;
  /** Called once every worker has exited (or the wait for them timed out), before the process exits. */
  onStop(): Promise<void>;
  /** Every worker's metrics added up (prom-client's AggregatorRegistry), for a worker answering /metrics; none without METRICS_TOKEN. */
  clusterMetrics?: () => Promise<string>;
}

interface Slot {
  /** 1..N: stays the same when the worker in it is replaced. */
  index: number;
  worker?: Worker;
  startedAt: number;
  deathsInARow: number;
  restartTimer?: NodeJS.Timeout;
}

/** Runs the primary until a signal stops it; exits the process (0 when every worker stopped cleanly in time, else 1). */
export function runPrimary(options: PrimaryOptions): Promise<number> {
  const { logger } = options;
  const slots: Slot[] = Array.from({ length: options.workers }, (_, i) => ({ index: i + 1, startedAt: 0, deathsInARow: 0 }));
  let announced = false;
  let stopping = false;
  let cleanExits = true;

  const finish = async (code: number): Promise<never> => {
    try {
      await options.onStop();
    } catch (error) {
      logger.error({ err: error }, 'closing the primary failed');
      code = 1;
    }
    process.exit(code);
  };

  const fork = (slot: Slot): void => {
    slot.restartTimer = undefined;
    slot.startedAt = Date.now();
    const worker = cluster.fork();
    slot.worker = worker;
    // A message to a worker that is already gone: its exit is handled below.
    worker.on('error', () => undefined);
    worker.on('message', (message: unknown) => {
      if (isMessage(message, METRICS_ASK)) {
        answerMetrics(worker, message.id, options.clusterMetrics);
        return;
      }
      if (!isMessage(message, LISTENING) || typeof message.address !== 'string') return;
      slot.deathsInARow = 0;
      logger.info({ worker: slot.index, workerPid: worker.process.pid, address: message.address }, 'worker ready');
      if (!announced) {
        announced = true;
        options.onListening(message.address);
      }
    });
    worker.on('exit', (code, signal) => {
      slot.worker = undefined;
      const pid = worker.process.pid;
      if (stopping) {
        if (code !== 0) cleanExits = false;
        logger.info({ worker: slot.index, workerPid: pid, code, signal }, 'worker stopped');
        if (slots.every((s) => s.worker === undefined)) {
          logger.info({}, 'all workers stopped');
          void finish(cleanExits ? 0 : 1);
        }
        return;
      }
      if (!announced) {
        // Not one worker could start (port taken, database out of reach...): its error is on stderr.
        logger.error({ worker: slot.index, workerPid: pid, code, signal }, 'a worker exited before serving: stopping');
        stop('startup failure', 1);
        return;
      }
      if (Date.now() - slot.startedAt > STABLE_AFTER_MS) slot.deathsInARow = 0;
      const delayMs = Math.min(RESTART_DELAY_MS * 2 ** slot.deathsInARow, RESTART_DELAY_MAX_MS);
      slot.deathsInARow++;
      logger.warn({ worker: slot.index, workerPid: pid, code, signal, restartInMs: delayMs }, 'worker exited unexpectedly: replacing it');
      slot.restartTimer = setTimeout(() => fork(slot), delayMs);
    });
  };

  const stop = (reason: string, code = 0): void => {
    if (stopping) return;
    stopping = true;
    if (code !== 0) cleanExits = false;
    logger.info({ reason }, 'shutting down: workers finish their requests in flight');
    for (const slot of slots) {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      slot.restartTimer = undefined;
    }
    const live = slots.flatMap((s) => (s.worker ? [s.worker] : []));
    if (live.length === 0) {
      void finish(cleanExits ? 0 : 1);
      return;
    }
    for (const worker of live) {
      try {
        worker.send({ type: STOP });
      } catch {
        worker.process.kill('SIGTERM');
      }
    }
    const force = setTimeout(() => {
      const left = slots.flatMap((s) => (s.worker ? [s.worker] : []));
      logger.error({ workerPids: left.map((w) => w.process.pid) }, `workers still running after ${STOP_TIMEOUT_MS / 1000} s: killing them`);
      for (const worker of left) worker.process.kill('SIGKILL');
      void finish(1);
    }, STOP_TIMEOUT_MS);
    force.unref();
  };

  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  for (const slot of slots) fork(slot);
  return new Promise<number>(() => {
    // Runs until a signal (or a failed start) stops it; finish() exits the process.
  });
}

/** Sends the worker that asked (its scrape's `id`) the sum of every worker's metrics, or why there is none. */
function answerMetrics(worker: Worker, id: unknown, clusterMetrics: PrimaryOptions['clusterMetrics']): void {
  const reply = (answer: { text: string } | { error: string }): void => {
    if (worker.isConnected()) worker.send({ type: METRICS_ANSWER, id, ...answer });
  };
  if (!clusterMetrics) {
    reply({ error: 'the primary does not collect metrics' });
    return;
  }
  clusterMetrics().then((text) => reply({ text }), (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }));
}

let metricsAsked = 0;

/** The worker's side: tell the primary where it listens, hear when to stop, and ask for every worker's metrics. */
export const workerChannel = {
  /** Every worker's metrics added up by the primary; rejects when it does not answer in time. */
  clusterMetrics(): Promise<string> {
    const id = ++metricsAsked;
    return new Promise<string>((resolve, reject) => {
      const send = process.send?.bind(process);
      if (!send) {
        reject(new Error('this process has no channel to a primary'));
        return;
      }
      const end = (error: Error | undefined, text?: string): void => {
        clearTimeout(timer);
        process.off('message', settle);
        if (error) reject(error);
        else resolve(text ?? '');
      };
      const settle = (message: unknown): void => {
        if (!isMessage(message, METRICS_ANSWER) || message.id !== id) return;
        if (typeof message.text === 'string') end(undefined, message.text);
        else end(new Error(`the primary could not add up the workers' metrics: ${String(message.error)}`));
      };
      const timer = setTimeout(() => end(new Error(`the primary did not answer with the workers' metrics within ${METRICS_WAIT_MS / 1000} s`)), METRICS_WAIT_MS);
      process.on('message', settle);
      send({ type: METRICS_ASK, id }, undefined, undefined, (error: Error | null) => { if (error) end(error); });
    });
  },
  listening(address: string): void {
    process.send?.({ type: LISTENING, address });
  },
  onStop(handler: () => void): void {
    process.on('message', (message: unknown) => {
      if (isMessage(message, STOP)) handler();
    });
  },
};

function isMessage(message: unknown, type: string): message is { type: string; [key: string]: unknown } {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}
