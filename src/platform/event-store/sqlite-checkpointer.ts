import { Worker } from 'node:worker_threads';

/** One checkpoint's outcome, SQLite's: frames in the WAL and how many of them are in the database file. */
export interface CheckpointOutcome {
  /** 1 when the checkpoint could not run at all (another one was running). */
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * A PASSIVE WAL checkpoint on a connection of its own (run on its own thread): it copies what it
 * can without waiting for the writer or readers, so no commit waits for it. Self-contained like
 * sqliteWriter (the thread runs its source text).
 */
export function sqliteCheckpointer(file: string, driverPath: string) {
  const Database = require(driverPath) as typeof import('better-sqlite3');
  const db = new Database(file);
  // A checkpoint syncs the WAL before copying it and the database file after, as the writer's own
  // checkpoints did (same setting as the writer's connection).
  db.pragma('synchronous = FULL');
  return {
    checkpoint: (): CheckpointOutcome => {
      const [row] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointOutcome[];
      return { busy: row!.busy, log: row!.log, checkpointed: row!.checkpointed };
    },
    close: () => db.close(),
  };
}

const CHECKPOINTER_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const sqliteCheckpointer = ${sqliteCheckpointer.toString()};
const checkpointer = sqliteCheckpointer(workerData.file, workerData.driverPath);
parentPort.on('message', (message) => {
  if (message.close) {
    checkpointer.close();
    parentPort.postMessage({ closed: true });
    return;
  }
  try {
    parentPort.postMessage({ outcome: checkpointer.checkpoint() });
  } catch (error) {
    parentPort.postMessage({ failed: error && error.message ? error.message : String(error) });
  }
});
`;

type CheckpointerReply = { outcome: CheckpointOutcome } | { failed: string } | { closed: true };

export interface WalCheckpointOptions {
  /** WAL pages (estimated from the commits) between two checkpoints; SQLite's own default is 1000. */
  everyPages?: number;
  /** WAL pages past which the next group waits for a checkpoint, so the WAL starts over. */
  boundPages?: number;
  /** After every checkpoint (tests, metrics). */
  onCheckpoint?: (outcome: CheckpointOutcome) => void;
  /** A checkpoint that failed: nothing is lost (the WAL holds the commits), the next one retries. */
  onError?: (message: string) => void;
}

/**
 * The event store's WAL checkpoints, on their own thread: the writer's connection has
 * wal_autocheckpoint=0, so no commit copies the WAL into the database file (SQLite's automatic
 * checkpoint runs inside the commit that crosses 1,000 pages, and makes that commit 5-10x slower).
 *
 * The store reports each commit, and a checkpoint runs once the WAL has grown by about `everyPages`.
 * One at a time; commits during one count toward the next. But the WAL starts over from its
 * beginning only when a commit begins with every frame copied, which under a steady load hardly
 * happens (the writer adds frames while the checkpoint runs). So once a checkpoint finds the WAL
 * at `boundPages` or more, the store holds a group back (one sent when no checkpoint is running and
 * few pages came since the last) until a checkpoint started after the last commit has run: it copies
 * the few frames the last one left, and the group then starts the WAL over. The WAL file stays
 * bounded; one group per bound waits for one short checkpoint.
 */
export class WalCheckpointer {
  private readonly thread: Worker;
  private readonly everyPages: number;
  private readonly boundPages: number;
  private pages = 0;
  private commitsSinceStart = 0;
  private running = false;
  private again = false;
  /** The last checkpoint found the WAL at its bound: a group waits for one more, a short one. */
  private overBound = false;
  /** A checkpoint ran to make the one a group waits for short. */
  private caughtUp = false;
  /** The store's held group, sent by this once the checkpoint it waits for ran. */
  private held: (() => void) | null = null;
  /** The running checkpoint started while a group was held (after the last commit). */
  private barrier = false;
  private idle: Array<() => void> = [];
  private closed: (() => void) | null = null;
  private dead = false;

  constructor(
    file: string,
    private readonly options: WalCheckpointOptions = {},
  ) {
    this.everyPages = options.everyPages ?? 1000;
    this.boundPages = options.boundPages ?? 4000;
    this.thread = new Worker(CHECKPOINTER_THREAD_SOURCE, {
      eval: true,
      workerData: { file, driverPath: require.resolve('better-sqlite3') },
    });
    this.thread.unref();
    this.thread.on('message', (reply: CheckpointerReply) => this.onReply(reply));
    this.thread.on('error', (error) => this.died(error.message));
    this.thread.on('exit', () => this.died('the checkpointer thread exited'));
  }

  /**
   * A commit of `events` events: an estimate of the pages it added to the WAL (one or two per
   * event, the table's page and the indexes' pages they touch, and one for the commit).
   */
  committed(events: number): void {
    this.commitsSinceStart += 1;
    this.pages += 1 + 2 * events;
    if (this.pages >= this.everyPages) this.request();
  }

  /**
   * Asked by the store before it sends a group (none in flight): true when the group must wait;
   * `send` is called once a checkpoint started after the last commit has run.
   */
  holdsGroup(send: () => void): boolean {
    if (this.held) return true;
    if (!this.overBound || this.dead || this.running) return false;
    if (this.commitsSinceStart === 0) {
      this.overBound = false; // the last checkpoint copied every frame: this group starts the WAL over
      this.caughtUp = false;
      return false;
    }
    // Held for a short checkpoint: after more than a couple of commits since the last one began,
    // one runs first while the groups go on (once: the group after it is held whatever came since).
    if (this.commitsSinceStart > 2 && !this.caughtUp) {
      this.caughtUp = true;
      this.request();
      return false;
    }
    this.overBound = false;
    this.caughtUp = false;
    this.held = send;
    this.request();
    return true;
  }

  /** Resolves once no checkpoint is running or asked for (tests). */
  settled(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** A checkpoint as soon as the one running (if any) is done. */
  request(): void {
    this.pages = 0;
    if (this.dead) return;
    if (this.running) this.again = true;
    else this.start();
  }

  private start(): void {
    this.running = true;
    this.commitsSinceStart = 0;
    this.barrier = this.held !== null;
    this.thread.ref();
    this.thread.postMessage({ checkpoint: true });
  }

  private onReply(reply: CheckpointerReply): void {
    if ('closed' in reply) return this.closed?.();
    if ('failed' in reply) this.options.onError?.(reply.failed);
    else {
      this.options.onCheckpoint?.(reply.outcome);
      // A checkpoint with a group held is the one that lets the WAL start over (or could not).
      if (!this.held && reply.outcome.log >= this.boundPages) this.overBound = true;
    }
    const send = this.barrier ? this.held : null;
    if (send) this.held = null;
    if (this.again && !this.dead) {
      this.again = false;
      this.start();
    } else {
      this.running = false;
      this.thread.unref();
      for (const resolve of this.idle.splice(0)) resolve();
    }
    send?.();
  }

  private died(message: string): void {
    if (this.dead) return;
    this.dead = true;
    if (this.closed) return this.closed();
    this.options.onError?.(message);
    this.running = false;
    for (const resolve of this.idle.splice(0)) resolve();
    const send = this.held;
    this.held = null;
    send?.();
  }

  /** Waits for the checkpoint running, then closes the connection and ends the thread. */
  async close(): Promise<void> {
    this.again = false;
    await this.settled();
    if (!this.dead) {
      this.thread.ref();
      const closed = new Promise<void>((resolve) => (this.closed = resolve));
      this.thread.postMessage({ close: true });
      await closed;
    }
    this.dead = true;
    await this.thread.terminate();
  }
}
