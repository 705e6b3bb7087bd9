import { storageFaultOf } from '../event-store/storage-fault';

/** Schedules `run` after `delayMs`; returns what cancels it. Injected so tests fire retries by hand. */
export interface RetryTimer {
  schedule(delayMs: number, run: () => void): () => void;
}

export const realRetryTimer: RetryTimer = {
  schedule: (delayMs, run) => {
    const timer = setTimeout(run, delayMs);
    timer.unref(); // a pending retry never keeps the process alive
    return () => clearTimeout(timer);
  },
};

export interface StorageRetryBackoff {
  /** Delay before the first retry. */
  initialMs: number;
  /** The delay doubles on each retry that fails again, up to this. */
  maxMs: number;
}

export const DEFAULT_STORAGE_RETRY_BACKOFF: StorageRetryBackoff = { initialMs: 100, maxMs: 2000 };

export const storageRetryDelay = (attempt: number, b: StorageRetryBackoff): number =>
  Math.min(b.maxMs, b.initialMs * 2 ** Math.min(attempt, 30));

/** A projection or reactor as the retries see it. */
export interface RetriedWorker {
  name: string;
  kind: 'projection' | 'reactor';
  position: number;
}

interface Logger {
  log(message: string): void;
  error(message: string): void;
}

/**
 * Projections and reactors that failed on a storage fault (disk full, read-only, I/O errors) heal
 * by themselves: every worker that failed so is restarted from its checkpoint after a capped
 * exponential backoff, all together (so projections at one position share a feed again), until
 * they apply a batch again. Each failure and each recovery is logged once per episode, with the
 * worker's name and the error; failed retries in between are not logged again. Other errors are
 * not retried here: the worker stays failed, as before.
 */
export class StorageFaultRetries {
  private attempt = 0;
  private cancelPending: (() => void) | null = null;
  /** Workers waiting for the next retry. */
  private readonly waiting = new Set<string>();
  /** Workers whose failure was logged and whose recovery was not yet. */
  private readonly faulted = new Set<string>();
  private stopped = false;

  constructor(
    private readonly restart: (names: string[]) => void,
    private readonly logger: Logger,
    private readonly timer: RetryTimer = realRetryTimer,
    private readonly backoff: StorageRetryBackoff = DEFAULT_STORAGE_RETRY_BACKOFF,
  ) {}

  /** Schedules a restart when `error` is a storage fault; false (nothing scheduled, nothing logged) otherwise. */
  retryLater(worker: RetriedWorker, error: unknown): boolean {
    const fault = storageFaultOf(error);
    if (!fault || this.stopped) {
      this.faulted.delete(worker.name); // failed for another reason now: it will not heal by itself
      return false;
    }
    if (!this.faulted.has(worker.name)) {
      this.faulted.add(worker.name);
      this.logger.error(
        `${worker.kind} ${worker.name} failed at position ${worker.position} on a storage fault (${fault.code}): ` +
          `${fault.message}; retrying from its checkpoint with backoff up to ${this.backoff.maxMs} ms`,
      );
    }
    this.waiting.add(worker.name);
    if (!this.cancelPending) {
      const delay = storageRetryDelay(this.attempt, this.backoff);
      this.attempt += 1;
      this.cancelPending = this.timer.schedule(delay, () => this.fire());
    }
    return true;
  }

  /** A worker applied a batch (or caught up): logs its recovery once when it had failed on a storage fault. */
  progressed(worker: RetriedWorker): void {
    if (!this.faulted.delete(worker.name)) return;
    this.logger.log(`${worker.kind} ${worker.name} recovered from the storage fault at position ${worker.position}`);
    if (this.faulted.size === 0) this.attempt = 0;
  }

  /** Forgets a worker that was stopped or rebuilt on purpose. */
  forget(name: string): void {
    this.waiting.delete(name);
    this.faulted.delete(name);
  }

  /** Whether `name` failed on a storage fault and has not recovered yet. */
  isRetrying(name: string): boolean {
    return this.faulted.has(name);
  }

  stop(): void {
    this.stopped = true;
    this.cancelPending?.();
    this.cancelPending = null;
    this.waiting.clear();
  }

  private fire(): void {
    this.cancelPending = null;
    if (this.stopped) return;
    const names = [...this.waiting];
    this.waiting.clear();
    this.restart(names);
  }
}
