import { readModelFailed, readModelsBehind } from '../errors/platform-errors';

export { readModelsBehind } from '../errors/platform-errors';

interface Waiter {
  position: number;
  /** No deadline: background work, which waits through a projection that heals by itself. */
  background: boolean;
  resolve: () => void;
  reject: (e: Error) => void;
  timer?: NodeJS.Timeout;
}

/** Where the read models stand: the lowest position every projection reached, and a failed one if any. */
export interface ReadModelProgress {
  minPosition(): number;
  /** A failed projection; with `excludeHealing`, only one that will not recover by itself. */
  failedProjection(excludeHealing?: boolean): string | undefined;
}

/**
 * Read-your-writes: requests that wait until every projection applied a position. Settled by the
 * runner after each batch and each failure; a deadline turns a stuck wait into a 503.
 */
export class ReadModelWaiters {
  private waiters: Waiter[] = [];

  constructor(
    private readonly progress: ReadModelProgress,
    private readonly defaultTimeoutMs: number,
  ) {}

  /** `timeoutMs` null: no deadline, for background work that must outlast a long catch-up. */
  waitFor(position: number, timeoutMs: number | null = this.defaultTimeoutMs): Promise<void> {
    if (position <= 0 || this.progress.minPosition() >= position) return Promise.resolve();
    const background = timeoutMs === null;
    const failed = this.progress.failedProjection(background);
    if (failed) return Promise.reject(readModelFailed(failed));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        position,
        background,
        resolve: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        reject: (e) => {
          clearTimeout(waiter.timer);
          reject(e);
        },
      };
      if (timeoutMs !== null) {
        waiter.timer = setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(readModelsBehind(position, timeoutMs));
        }, timeoutMs);
        waiter.timer.unref();
      }
      this.waiters.push(waiter);
    });
  }

  settle(): void {
    if (this.waiters.length === 0) return;
    const min = this.progress.minPosition();
    const failed = this.progress.failedProjection();
    const failedForGood = failed && this.progress.failedProjection(true);
    const keep: Waiter[] = [];
    for (const w of this.waiters) {
      const stop = w.background ? failedForGood : failed;
      if (min >= w.position) w.resolve();
      else if (stop) w.reject(readModelFailed(stop));
      else keep.push(w);
    }
    this.waiters = keep;
  }

  rejectAll(error: Error): void {
    for (const w of this.waiters) w.reject(error);
    this.waiters = [];
  }
}
