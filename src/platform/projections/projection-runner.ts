import type Database from 'better-sqlite3';
import type { RecordedEvent } from '../events/envelope';
import { eventTypes } from '../events/event-type-registry';
import type { FeedReader, Subscription } from '../event-store/event-store.port';
import { Checkpoints } from './checkpoints';
import type { Projection, Reactor } from './projection';
import { ReactorWorker, type WorkerStatus } from './reactor-worker';
import { ReadModelWaiters } from './read-model-waiters';
import { isStorageFault } from '../event-store/storage-fault';
import { StorageFaultRetries, type RetryTimer, type StorageRetryBackoff } from './storage-fault-retries';

export { readModelsBehind } from './read-model-waiters';

interface ProjectionWorker {
  name: string;
  kind: 'projection';
  position: number;
  status: WorkerStatus;
  error?: string;
  /** Applies the events of a batch after `position` and saves the checkpoint; returns the new position. */
  applyBatch: (batch: RecordedEvent[]) => number;
  group: ProjectionGroup;
}

/** Projections that tail the feed from the same position share one subscription. */
interface ProjectionGroup {
  members: Set<ProjectionWorker>;
  subscription: Subscription;
  done: Promise<void>;
}

export interface ProjectionStatus {
  name: string;
  kind: 'projection' | 'reactor';
  position: number;
  status: WorkerStatus;
  error?: string;
}

export interface RunnerOptions {
  /** How long `waitFor` waits for the read models before giving up with a 503 (default 10 s). */
  waitTimeoutMs?: number;
  /** Schedules the retries of workers that failed on a storage fault (tests inject one). */
  retryTimer?: RetryTimer;
  storageRetryBackoff?: StorageRetryBackoff;
}

export interface RunnerLogger {
  log(message: string): void;
  error(message: string): void;
}

/**
 * Tails the global feed for every projection and reactor from its stored checkpoint: catch-up,
 * then live, strictly in order. `waitFor(position)` gives a request read-your-writes: a command's
 * handler waits until the read models hold its own events before answering.
 *
 * Projections that start from the same checkpoint (the usual case: all at the head, or all at
 * zero on a fresh read-model file) share one subscription, so each event is read and parsed once
 * and every batch is applied to all of them in one transaction; each projection still applies in
 * its own savepoint with its own checkpoint, so one that throws fails alone. Reactors run on their
 * own (ReactorWorker).
 */
export class ProjectionRunner {
  private readonly projections = new Map<string, Projection>();
  private readonly reactors = new Map<string, Reactor>();
  private readonly workers = new Map<string, ProjectionWorker | ReactorWorker>();
  private readonly externals: Array<() => ProjectionStatus[]> = [];
  private readonly checkpoints: Checkpoints;
  private readonly waiters: ReadModelWaiters;
  private readonly storageRetries: StorageFaultRetries;
  private started = false;

  constructor(
    private readonly store: FeedReader,
    private readonly db: Database.Database,
    private readonly logger: RunnerLogger = { log: () => undefined, error: () => undefined },
    options: RunnerOptions = {},
  ) {
    this.checkpoints = new Checkpoints(db);
    this.waiters = new ReadModelWaiters(
      {
        minPosition: () => this.minPosition(),
        failedProjection: (excludeHealing) => this.failedProjection(excludeHealing)?.name,
      },
      options.waitTimeoutMs ?? 10_000,
    );
    this.storageRetries = new StorageFaultRetries(
      (names) => this.restartAfterStorageFault(names),
      logger,
      options.retryTimer,
      options.storageRetryBackoff,
    );
  }

  register(projection: Projection): void {
    if (this.projections.has(projection.name) || this.reactors.has(projection.name)) {
      throw new Error(`projection ${projection.name} registered twice`);
    }
    this.projections.set(projection.name, projection);
    if (this.started) this.startProjections([projection]);
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
    this.startProjections([...this.projections.values()]);
    for (const r of this.reactors.values()) this.startReactor(r);
  }

  /** Sets up each projection at its checkpoint; those at the same position tail the feed together. */
  private startProjections(projections: Projection[]): void {
    this.runPrepared(projections.map((p) => this.prepareProjection(p)));
  }

  private runPrepared(workers: ProjectionWorker[]): void {
    const byPosition = new Map<number, ProjectionWorker[]>();
    for (const worker of workers) {
      const same = byPosition.get(worker.position) ?? [];
      same.push(worker);
      byPosition.set(worker.position, same);
    }
    for (const [from, members] of byPosition) this.runGroup(from, members);
  }

  private prepareProjection(p: Projection): ProjectionWorker {
    p.setup(this.db);
    let from = this.checkpoints.get(p.name, p.version);
    if (from < 0) {
      this.db.transaction(() => {
        p.reset(this.db);
        this.checkpoints.save(p.name, p.version, 0);
      })();
      from = 0;
    }
    const worker = { name: p.name, kind: 'projection', position: from, status: 'running' } as ProjectionWorker;
    const handles = new Set<string>(p.handles);
    // Called inside the group's transaction, so this is a savepoint: a throw undoes this projection only.
    worker.applyBatch = this.db.transaction((batch: RecordedEvent[]): number => {
      const last = batch[batch.length - 1]!.position;
      if (last <= worker.position) return worker.position;
      for (const e of batch) {
        if (e.position > worker.position && handles.has(e.type)) p.apply(eventTypes.decode(e), this.db);
      }
      this.checkpoints.save(p.name, p.version, last);
      return last;
    });
    this.workers.set(p.name, worker);
    return worker;
  }

  private runGroup(from: number, members: ProjectionWorker[]): void {
    const subscription = this.store.subscribeToAll(from);
    const group: ProjectionGroup = { members: new Set(members), subscription, done: Promise.resolve() };
    for (const m of members) m.group = group;
    const applyToAll = this.db.transaction((batch: RecordedEvent[]) => {
      const outcomes: Array<
        { worker: ProjectionWorker; position: number } | { worker: ProjectionWorker; error: unknown }
      > = [];
      for (const worker of group.members) {
        try {
          outcomes.push({ worker, position: worker.applyBatch(batch) });
        } catch (error) {
          // The storage refused (or SQLite rolled the transaction back): the group's batch fails as a whole.
          if (!this.db.inTransaction || isStorageFault(error)) throw error;
          outcomes.push({ worker, error });
        }
      }
      return outcomes;
    });
    group.done = (async () => {
      try {
        for await (const batch of subscription) {
          if (group.members.size === 0) break;
          // Positions move only once the transaction holding every projection's batch committed.
          for (const outcome of applyToAll(batch)) {
            if ('error' in outcome) this.fail(outcome.worker, outcome.error);
            else {
              outcome.worker.position = outcome.position;
              this.storageRetries.progressed(outcome.worker);
            }
          }
          this.waiters.settle();
          if (group.members.size === 0) break;
        }
      } catch (error) {
        for (const worker of [...group.members]) this.fail(worker, error);
      } finally {
        subscription.close();
      }
      for (const worker of group.members) if (worker.status === 'running') worker.status = 'stopped';
    })();
  }

  private fail(worker: ProjectionWorker | ReactorWorker, error: unknown): void {
    worker.status = 'failed';
    worker.error = error instanceof Error ? error.message : String(error);
    if (worker.kind === 'projection') worker.group.members.delete(worker);
    // A storage fault heals: restarted from the checkpoint after a backoff (logged once there).
    if (!this.storageRetries.retryLater(worker, error))
      this.logger.error(`${worker.kind} ${worker.name} failed at position ${worker.position}: ${worker.error}`);
    this.waiters.settle();
  }

  /** Restarts, from their checkpoints, the workers that failed on a storage fault and are still failed. */
  private restartAfterStorageFault(names: string[]): void {
    const failed = names.filter((n) => this.workers.get(n)?.status === 'failed');
    const prepared: ProjectionWorker[] = [];
    for (const name of failed) {
      const projection = this.projections.get(name);
      const reactor = this.reactors.get(name);
      try {
        if (projection) prepared.push(this.prepareProjection(projection));
        else if (reactor) this.startReactor(reactor);
      } catch (error) {
        this.fail(this.workers.get(name)!, error); // still the failed worker: retried again
      }
    }
    this.runPrepared(prepared);
  }

  private startReactor(r: Reactor): void {
    this.workers.set(
      r.name,
      new ReactorWorker(
        r,
        this.store,
        this.checkpoints,
        (w, e) => this.fail(w, e),
        (w) => this.storageRetries.progressed(w),
      ),
    );
  }

  /** Lowest position every projection has reached (reactors excluded: they may lag by design). */
  minPosition(): number {
    let min = Number.MAX_SAFE_INTEGER;
    for (const w of this.workers.values()) if (w.kind === 'projection') min = Math.min(min, w.position);
    return min === Number.MAX_SAFE_INTEGER ? 0 : min;
  }

  private failedProjection(excludeHealing = false): ProjectionWorker | undefined {
    for (const w of this.workers.values()) {
      if (w.kind !== 'projection' || w.status !== 'failed') continue;
      if (!excludeHealing || !this.storageRetries.isRetrying(w.name)) return w;
    }
    return undefined;
  }

  /**
   * Resolves once every projection has applied the event at `position`; rejects with a 503
   * HubSpotError when that takes longer than the deadline (a stuck or far-behind projection must
   * not hold requests open forever). `timeoutMs` null: no deadline, for background work that
   * must outlast a long catch-up (a rebuild, the migration worker resuming on start); it also
   * waits through a projection that retries a storage fault, instead of failing with it.
   */
  waitFor(position: number, timeoutMs?: number | null): Promise<void> {
    return this.waiters.waitFor(position, timeoutMs);
  }

  /**
   * For a command whose events are committed: waits as waitFor does, but answers false instead of
   * failing when the read models cannot hold `position` now (a projection failed or retries a
   * storage fault, or the deadline passed). The caller then answers from what it decided.
   */
  readModelsReached(position: number): Promise<boolean> {
    return this.waiters.waitFor(position).then(
      () => true,
      () => false,
    );
  }

  /** Resolves once every projection applied everything the store held when called (see waitFor). */
  async waitForHead(timeoutMs?: number | null): Promise<void> {
    return this.waitFor(await this.store.headPosition(), timeoutMs);
  }

  /**
   * Also lists workers that run elsewhere (the webhooks' delivery thread): in `status()`, so
   * `/health/ready` reports their failures and the archiver waits for their positions; never in
   * `waitFor` (requests do not wait for them) nor in `lag()`.
   */
  registerExternal(statuses: () => ProjectionStatus[]): void {
    this.externals.push(statuses);
  }

  status(): ProjectionStatus[] {
    const own = [...this.workers.values()].map(({ name, kind, position, status, error }): ProjectionStatus => ({
      name,
      kind,
      position,
      status,
      ...(error ? { error } : {}),
    }));
    return this.externals.length === 0 ? own : [...own, ...this.externals.flatMap((s) => s())];
  }

  /**
   * How far each worker is behind the head, in store positions (0: caught up). Not an event count:
   * EventStoreDB's positions are byte offsets with gaps.
   */
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
    this.storageRetries.forget(name);
    this.db.transaction(() => {
      p.reset(this.db);
      this.checkpoints.save(p.name, -1, 0); // forces a reset on start even if we crash mid-rebuild
    })();
    this.startProjections([p]);
    await this.waitFor(await this.store.headPosition(), null);
  }

  /** Every event type a projection or reactor applies (the archiver keeps streams holding one live). */
  handledTypes(): Set<string> {
    const types = new Set<string>();
    for (const p of [...this.projections.values(), ...this.reactors.values()]) {
      if ('allowsArchiving' in p && p.allowsArchiving) continue;
      for (const t of p.handles) types.add(t);
      if ('keepsLive' in p) for (const t of p.keepsLive ?? []) types.add(t);
    }
    return types;
  }

  projectionNames(): string[] {
    return [...this.projections.keys()];
  }

  private async stopWorker(name: string): Promise<void> {
    const w = this.workers.get(name);
    if (!w) return;
    if (w.kind === 'projection') {
      if (w.status === 'running') w.status = 'stopped';
      // Batches are applied synchronously, so leaving the group between two batches is enough.
      const group = w.group;
      group.members.delete(w);
      if (group.members.size === 0) {
        group.subscription.close();
        await group.done;
      }
    } else {
      await w.stop();
    }
    this.workers.delete(name);
  }

  async stop(): Promise<void> {
    this.storageRetries.stop();
    for (const name of [...this.workers.keys()]) await this.stopWorker(name);
    this.waiters.rejectAll(new Error('projection runner stopped'));
  }
}
