import type Database from 'better-sqlite3';
import type { RecordedEvent } from '../events/envelope';
import type { EventStore, Subscription } from '../event-store/event-store.port';
import type { Projection, Reactor } from './projection';

type Status = 'idle' | 'running' | 'failed' | 'stopped';

interface Worker {
  name: string;
  kind: 'projection' | 'reactor';
  position: number;
  status: Status;
  error?: string;
  subscription?: Subscription;
  done?: Promise<void>;
}

export interface ProjectionStatus {
  name: string;
  kind: 'projection' | 'reactor';
  position: number;
  status: Status;
  error?: string;
}

export interface RunnerLogger {
  log(message: string): void;
  error(message: string): void;
}

/**
 * Tails the global feed for every projection and reactor from its stored checkpoint: catch-up,
 * then live, strictly in order. `waitFor(position)` gives a request read-your-writes: a command's
 * handler waits until the read models hold its own events before answering.
 */
export class ProjectionRunner {
  private readonly projections = new Map<string, Projection>();
  private readonly reactors = new Map<string, Reactor>();
  private readonly workers = new Map<string, Worker>();
  private waiters: Array<{ position: number; resolve: () => void; reject: (e: Error) => void }> = [];
  private started = false;

  constructor(
    private readonly store: EventStore,
    private readonly db: Database.Database,
    private readonly logger: RunnerLogger = { log: () => undefined, error: () => undefined },
  ) {}

  register(projection: Projection): void {
    if (this.projections.has(projection.name) || this.reactors.has(projection.name)) {
      throw new Error(`projection ${projection.name} registered twice`);
    }
    this.projections.set(projection.name, projection);
    if (this.started) this.startProjection(projection);
  }

  registerReactor(reactor: Reactor): void {
    if (this.projections.has(reactor.name) || this.reactors.has(reactor.name)) {
      throw new Error(`reactor ${reactor.name} registered twice`);
    }
    this.reactors.set(reactor.name, reactor);
    if (this.started) this.startReactor(reactor);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const p of this.projections.values()) this.startProjection(p);
    for (const r of this.reactors.values()) this.startReactor(r);
  }

  private checkpoint(name: string, version: number): number {
    const row = this.db.prepare('SELECT version, position FROM projection_checkpoints WHERE name = ?').get(name) as
      { version: number; position: number } | undefined;
    if (row && row.version === version) return row.position;
    return -1; // unknown or outdated: rebuild
  }

  private saveCheckpoint(name: string, version: number, position: number): void {
    this.db
      .prepare(
        `INSERT INTO projection_checkpoints (name, version, position) VALUES (?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = excluded.position`,
      )
      .run(name, version, position);
  }

  private startProjection(p: Projection): void {
    p.setup(this.db);
    let from = this.checkpoint(p.name, p.version);
    if (from < 0) {
      this.db.transaction(() => {
        p.reset(this.db);
        this.saveCheckpoint(p.name, p.version, 0);
      })();
      from = 0;
    }
    const applyBatch = this.db.transaction((batch: RecordedEvent[]) => {
      for (const e of batch) p.apply(e, this.db);
      this.saveCheckpoint(p.name, p.version, batch[batch.length - 1]!.position);
    });
    this.run(p.name, 'projection', from, (batch) => {
      applyBatch(batch);
      return Promise.resolve();
    });
  }

  private startReactor(r: Reactor): void {
    let from = this.checkpoint(r.name, 1);
    if (from < 0) {
      // A reactor without a checkpoint replays from the start; its commands are idempotent, so
      // history that was already acted on produces no new events.
      from = 0;
      this.saveCheckpoint(r.name, 1, 0);
    }
    this.run(r.name, 'reactor', from, async (batch) => {
      for (const e of batch) {
        await r.handle(e);
        this.saveCheckpoint(r.name, 1, e.position);
      }
    });
  }

  private run(name: string, kind: Worker['kind'], from: number, handle: (b: RecordedEvent[]) => Promise<void>): void {
    const subscription = this.store.subscribeToAll(from);
    const worker: Worker = { name, kind, position: from, status: 'running', subscription };
    this.workers.set(name, worker);
    worker.done = (async () => {
      try {
        for await (const batch of subscription) {
          await handle(batch);
          worker.position = batch[batch.length - 1]!.position;
          this.settleWaiters();
        }
        if (worker.status === 'running') worker.status = 'stopped';
      } catch (error) {
        worker.status = 'failed';
        worker.error = error instanceof Error ? error.message : String(error);
        this.logger.error(`${kind} ${name} failed at position ${worker.position}: ${worker.error}`);
        this.settleWaiters();
      }
    })();
  }

  /** Lowest position every projection has reached (reactors excluded: they may lag by design). */
  minPosition(): number {
    let min = Number.MAX_SAFE_INTEGER;
    for (const w of this.workers.values()) if (w.kind === 'projection') min = Math.min(min, w.position);
    return min === Number.MAX_SAFE_INTEGER ? 0 : min;
  }

  /** Resolves once every projection has applied the event at `position`. */
  waitFor(position: number): Promise<void> {
    if (position <= 0 || this.minPosition() >= position) return Promise.resolve();
    const failed = [...this.workers.values()].find((w) => w.kind === 'projection' && w.status === 'failed');
    if (failed) return Promise.reject(new Error(`projection ${failed.name} failed`));
    return new Promise((resolve, reject) => this.waiters.push({ position, resolve, reject }));
  }

  private settleWaiters(): void {
    if (this.waiters.length === 0) return;
    const min = this.minPosition();
    const failed = [...this.workers.values()].find((w) => w.kind === 'projection' && w.status === 'failed');
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (min >= w.position) w.resolve();
      else if (failed) w.reject(new Error(`projection ${failed.name} failed`));
      else keep.push(w);
    }
    this.waiters = keep;
  }

  status(): ProjectionStatus[] {
    return [...this.workers.values()].map(({ name, kind, position, status, error }) => ({
      name,
      kind,
      position,
      status,
      ...(error ? { error } : {}),
    }));
  }

  /** Events in the store not yet applied, per projection. */
  async lag(): Promise<Record<string, number>> {
    const head = await this.store.headPosition();
    const out: Record<string, number> = {};
    for (const w of this.workers.values()) out[w.name] = Math.max(0, head - w.position);
    return out;
  }

  /** Empties a projection and replays the whole history into it; resolves when caught up with the head. */
  async rebuild(name: string): Promise<void> {
    const p = this.projections.get(name);
    if (!p) throw new Error(`unknown projection ${name}; known: ${[...this.projections.keys()].join(', ')}`);
    await this.stopWorker(name);
    this.db.transaction(() => {
      p.reset(this.db);
      this.saveCheckpoint(p.name, -1, 0); // forces a reset on start even if we crash mid-rebuild
    })();
    this.startProjection(p);
    await this.waitFor(await this.store.headPosition());
  }

  projectionNames(): string[] {
    return [...this.projections.keys()];
  }

  private async stopWorker(name: string): Promise<void> {
    const w = this.workers.get(name);
    if (!w) return;
    w.status = 'stopped';
    w.subscription?.close();
    await w.done;
    this.workers.delete(name);
  }

  async stop(): Promise<void> {
    for (const name of [...this.workers.keys()]) await this.stopWorker(name);
    for (const w of this.waiters) w.reject(new Error('projection runner stopped'));
    this.waiters = [];
  }
}
